"""The mesh: degrees of tensor, pipeline, context, expert and data parallelism, validated once.

world = tensor x context x data x pipeline (Narayanan et al. 2021, section 3, PTD-P; context
parallelism beside them as in Megatron-Core's parallel_state). Ranks are numbered tensor
innermost, then context, data and pipeline outermost (Megatron-Core's default order "tp-cp-ep-dp-pp"),
so a group of one dimension is a run of ranks at a fixed stride: tensor 1, context t, data t x c,
pipeline t x c x d. Expert parallelism is carved out of data x context for the expert weights
(Megatron-Core's expert-data-parallel group; torchtitan borrows ep from dp_shard x cp): an expert
group is e ranks at stride t, and the expert weights are replicated over d x c / e ranks.

An expert tensor degree of its own (Megatron-LM's --expert-tensor-parallel-size, ETP; its default is
t) lays the expert weights out on a grid of their own over the same ranks (Megatron-Core
parallel_state.initialize_model_parallel, the expert "tp-ep-dp-pp" order): world = p x ETP x e x
EDP, an expert-tensor group of ETP ranks at stride 1, the expert group of e ranks at stride ETP,
the expert-data-parallel group of EDP = world / (p x ETP x e) ranks at stride ETP x e. With ETP = t
this is the grid above: EDP = t c d / (t e) = d x c / e.

Validation follows torchtitan's ParallelDims (torchtitan/distributed/parallel_dims.py, _validate):
when the degrees do not multiply out, the message names every factor. Each problem carries the
JSON pointer of the field to change. The rules are written once (``layout_problem_masks``), over numbers
or numpy arrays: ``layout_problems`` is them on one layout's numbers (the problems in words, what /v1/plan
refuses); on arrays of layouts they say which cells each rule refuses (what /v1/search and layout sweeps
skip). Each rule is one expression of ``%``, ``==``, ``<``, ``&`` and ``|`` (no ``if``, ``and`` or ``or`` on a
degree), a schedule compared as its code into SCHEDULES (service.mesh.pipeline.schedule_in), so the same
expression gives a bool for a plan and a bool per cell for a grid; what the rules read (d, m, ZB-V's V, the
chunks of a stage, the sequence split, data parallelism alone) are functions the engines call too.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, overload

import numpy as np

from models.parallelism import ContextAttention, ParallelGroup, Parallelism, PipelineSchedule
from service.errors import InvalidLayout
from service.mesh.pipeline import SCHEDULES as SCHEDULES  # the schedule arrays' codes, re-exported
from service.mesh.pipeline import chunk_layers, schedule_code, schedule_in, v_shaped
from service.numeric import IntLike, lcm, maximum, minimum, select

if TYPE_CHECKING:
    from service.inputs.architecture import Architecture

Group = ParallelGroup  # the mesh's dimensions, as the contract names them
# The schedules that take model chunks (virtual_stages > 1): Megatron-Core's interleaved 1F1B and
# torch.distributed.pipelining's ScheduleInterleavedZeroBubble (ZB-H1 over several stages per rank).
CHUNKED = (PipelineSchedule.interleaved, PipelineSchedule.zero_bubble_h1)
# The schedules that need at least as many micro-batches as stages (ZB-H2 needs 2p - 1).
FILL_PIPELINE = (
    PipelineSchedule.one_f_one_b,
    PipelineSchedule.interleaved,
    PipelineSchedule.zero_bubble_h1,
    PipelineSchedule.zero_bubble_v,
)
_INTERLEAVED = SCHEDULES.index(PipelineSchedule.interleaved)  # codes into SCHEDULES
_ZERO_BUBBLE_H1 = SCHEDULES.index(PipelineSchedule.zero_bubble_h1)


def model_chunks(schedule: Any, virtual_stages: Any) -> Any:
    """Model chunks per stage (Mesh.chunks) of a schedule (a PipelineSchedule, or codes into SCHEDULES for many
    layouts): ZB-V's two, else the virtual stages."""
    if isinstance(schedule, PipelineSchedule):
        return 2 + 0 * virtual_stages if schedule is PipelineSchedule.zero_bubble_v else virtual_stages
    return select(schedule_in(schedule, (PipelineSchedule.zero_bubble_v,)), 2 + 0 * virtual_stages, virtual_stages)


_T = TypeVar("_T")


class _derived(Generic[_T]):
    """A property of a frozen Mesh computed once per mesh (functools.cached_property without its lock): a mesh of
    arrays (service.engine.layout_grid) reads d, d x c and EDP thousands of times, each a pass over its arrays."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute, self.name = compute, compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, mesh: Any, owner: type | None = None) -> _T:
        if mesh is None:
            return self  # type: ignore[return-value]
        value = self.compute(mesh)
        mesh.__dict__[self.name] = value  # the instance's own value now shadows this (non-data) descriptor
        return value


@dataclass(frozen=True)
class Mesh:
    """One layout's degrees (ints), or many layouts' (equal-length int64 arrays, service.engine.layout_grid)."""

    world_size: int
    gpus_per_node: int
    tensor: int = 1
    pipeline: int = 1
    context: int = 1
    expert: int = 1
    expert_tensor: int | None = None  # None: the tensor degree (Megatron-LM's default)
    sequence_parallel: bool = False
    context_attention: ContextAttention = ContextAttention.ring  # how the context group exchanges K and V
    schedule: PipelineSchedule = PipelineSchedule.one_f_one_b
    virtual_stages: int = 1
    post_validation: bool = False  # the optimizer step validated after it (zero_bubble, zb_v)
    # The request's split of the layers over the pipeline (service.mesh.pipeline.chunk_layers): each stage's or
    # chunk's layers, or the layers the embedding and the loss count as; None and 0: the even split.
    pipeline_layers: tuple[int, ...] | None = None
    embedding_layers: int = 0
    loss_layers: int = 0
    runs: int = 1  # the schedule's runs per step, each over m / runs micro-batches (parallelism.pipeline_runs)

    @_derived
    def data(self) -> int:
        """d = world / (t x p x c)."""
        degree: int = data_degree(self.world_size, self.tensor, self.pipeline, self.context)
        return degree

    @property
    def chunks(self) -> Any:
        """Model chunks per stage, each a send of activations forward and of gradients back per micro-batch:
        the interleaved schedule's v, ZB-V's two (torch.distributed.pipelining ScheduleZBVZeroBubble)."""
        return model_chunks(self.schedule, self.virtual_stages)

    @_derived
    def trivial(self) -> bool:
        """Data parallelism alone: every other degree 1."""
        alone: bool = trivial(self.tensor, self.pipeline, self.context, self.expert, self.etp)
        return alone

    @property
    def etp(self) -> int:
        """The expert tensor degree: as given, else t."""
        return self.tensor if self.expert_tensor is None else self.expert_tensor

    @_derived
    def data_context(self) -> int:
        """Ranks the dense model states shard over: d x c (Megatron's distributed optimizer)."""
        return self.data * self.context

    @_derived
    def expert_data(self) -> int:
        """Ranks holding the same experts: EDP = world / (p x ETP x e), d x c / e when ETP = t."""
        return (self.tensor * self.data_context) // (self.etp * self.expert)

    @property
    def experts_apart(self) -> bool:
        """Whether the expert weights shard over a group other than the dense weights' d x c: e > 1 or ETP != t."""
        apart: bool = (self.expert > 1) | (self.etp != self.tensor)
        return apart

    @property
    def expert_data_stride(self) -> int:
        """Rank distance between neighbours of the expert-data-parallel group: ETP x e."""
        return self.etp * self.expert

    @_derived
    def expert_data_per_node(self) -> int:
        """How many ranks of one expert-data-parallel group share a node: G / (ETP x e), at most EDP, at least 1."""
        members = maximum(1, minimum(self.expert_data, self.gpus_per_node // self.expert_data_stride))
        return members  # type: ignore[return-value]  # an array for a mesh of arrays

    @property
    def sequence_split(self) -> int:
        """What the sequence of a layer's sequence-parallel regions is divided by: c, x t with SP."""
        split: int = sequence_split(self.tensor, self.context, self.sequence_parallel)
        return split

    def ranks(self, group: Group) -> int:
        return {
            Group.tensor: self.tensor,
            Group.context: self.context,
            Group.data: self.data_context,
            Group.pipeline: self.pipeline,
            Group.expert: self.expert,
        }[group]

    def stride(self, group: Group) -> int:
        """Rank distance between neighbours of a group (the data group here is d x c: stride t)."""
        t, c, d = self.tensor, self.context, self.data
        experts = self.etp  # the expert group sits at stride ETP on the experts' grid
        return {Group.tensor: 1, Group.context: t, Group.data: t, Group.pipeline: t * c * d, Group.expert: experts}[
            group
        ]

    def spans_nodes(self, group: Group) -> bool:
        """Whether the group's first and last ranks sit on different nodes (groups are aligned runs)."""
        return (self.ranks(group) - 1) * self.stride(group) >= self.gpus_per_node

    def members_per_node(self, group: Group) -> int:
        """How many of one group's ranks share a node: G / stride, at most the group, at least 1."""
        members = maximum(1, minimum(self.ranks(group), self.gpus_per_node // self.stride(group)))
        return members  # type: ignore[return-value]  # an array for a mesh of arrays


@dataclass(frozen=True)
class ModelLimits:
    """What of the model the degrees must divide; None where the model does not say."""

    layers: int | None = None
    attention_heads: int | None = None
    kv_heads: int | None = None
    experts: int | None = None

    @classmethod
    def of(cls, arch: "Architecture | None") -> "ModelLimits":
        """An architecture's layers, heads and experts (nothing without one)."""
        if arch is None:
            return cls()
        return cls(arch.layers, arch.attention_heads, arch.kv_heads, arch.moe.experts if arch.moe else None)


def data_degree(world_size: Any, tensor: Any, pipeline: Any, context: Any) -> Any:
    """d = world / (t x p x c), rounded down (numbers or arrays; the rules refuse a world it does not divide)."""
    return world_size // (tensor * pipeline * context)


def trivial(tensor: Any, pipeline: Any, context: Any, expert: Any, expert_tensor: Any) -> Any:
    """Data parallelism alone: every model-parallel degree 1, the expert tensor degree (ETP) too (numbers or
    arrays)."""
    return (tensor == 1) & (pipeline == 1) & (context == 1) & (expert == 1) & (expert_tensor == 1)


def tensor_sequence_split(tensor: Any, sequence_parallel: Any) -> Any:
    """What the tensor group divides the sequence of the norms and residuals by: t with sequence parallelism
    (Korthikanti et al. 2022, section 4.2.2), else 1 (numbers or arrays)."""
    return select(sequence_parallel, tensor, 1)


def sequence_split(tensor: Any, context: Any, sequence_parallel: Any) -> Any:
    """What the sequence of a layer's sequence-parallel regions is divided by: c, x t with SP (numbers or
    arrays)."""
    return context * tensor_sequence_split(tensor, sequence_parallel)


def sequence_granule(tensor: Any, context: Any, sequence_parallel: Any) -> Any:
    """What a sequence length must be a multiple of on this layout: the split (sequence_split), and with context
    parallelism 2c, the equal chunks a context group's load balancing cuts it into (each rank takes chunk i and
    chunk 2c - 1 - i: Megatron-Core's get_batch_on_this_cp_rank, megatron/core/utils.py @d98e8a64; PyTorch's
    context_parallel shards round-robin alike). With t of sequence parallelism even, c x t already is a multiple
    of 2c; numbers or arrays."""
    split = sequence_split(tensor, context, sequence_parallel)
    return select(context > 1, lcm(split, 2 * context), split)


@overload
def micro_batches(
    global_batch_size: int | None, gradient_accumulation_steps: int, micro_batch_size: int, data: int
) -> int: ...


@overload
def micro_batches(
    global_batch_size: int | None, gradient_accumulation_steps: IntLike, micro_batch_size: IntLike, data: IntLike
) -> IntLike: ...


def micro_batches(
    global_batch_size: int | None, gradient_accumulation_steps: IntLike, micro_batch_size: IntLike, data: IntLike
) -> IntLike:
    """m = global / (b x d) when a global batch is given, else the accumulation steps (numbers, or arrays of the
    micro-batch size and d: service.engine.layout_grid)."""
    if global_batch_size is None:
        return gradient_accumulation_steps
    return global_batch_size // (micro_batch_size * data)


def layout_problems(
    mesh: Mesh,
    model: ModelLimits,
    micro_batch_size: int,
    sequence_length: int,
    global_batch_size: int | None,
    gradient_accumulation_steps: int,
) -> list[tuple[str, str]]:
    """Every reason the mesh cannot run this model and batch, each with the pointer of its field: the rules of
    ``layout_problem_masks`` evaluated on this one layout's numbers, each it reports in words."""
    b, s, gbs, k = micro_batch_size, sequence_length, global_batch_size, gradient_accumulation_steps
    return list(_worded_problems(mesh, model, b, s, gbs, k))


# A pure function of hashable values, asked on every plan (and by a fit's bisection) for few distinct layouts.
@lru_cache(maxsize=4096)
def _worded_problems(
    mesh: Mesh, model: ModelLimits, b: int, s: int, gbs: int | None, k: int
) -> tuple[tuple[str, str], ...]:
    rules = layout_problem_masks(model, mesh, mesh.schedule, mesh.sequence_parallel, b, s, gbs, k)
    return tuple((rule.words(), rule.pointer) for rule in rules if rule.failing)


def pipeline_problems(mesh: Mesh, layers: int) -> list[tuple[str, str]]:
    """The schedule's rules on the pipeline degree, virtual stages and the split of the layers: the first that
    fails (_pipeline_rules)."""
    rules = _pipeline_rules(mesh.schedule, mesh.pipeline, mesh.virtual_stages, layers, mesh)
    found = _first_failing(rules, True)
    return [(rule.words(), rule.pointer) for rule, failing in found if failing]


def _no_words() -> str:
    return ""


class Rule(NamedTuple):  # a tuple: a plan builds a score of them on every request
    """One validity rule of a mesh: the layouts it reports a problem for (a bool for one layout, a bool per cell
    for arrays of layouts), the pointer of the field to change, and the problem in words for one layout (built
    only when it is reported)."""

    name: str
    pointer: str
    failing: Any
    words: Callable[[], str] = _no_words


def _negate(flag: Any) -> Any:
    """not, for a bool or a bool array alike (``~`` on a Python bool is an int, ``not`` refuses an array)."""
    return flag ^ True


def _first_failing(check: list[Rule], fills: Any) -> list[tuple[Rule, Any]]:
    """Of rules that one field check tries in turn, each with where it is reported: only the first that fails,
    and only where the degrees multiply out (``fills``)."""
    earlier: Any = False
    reported = []
    for rule in check:
        failing = rule.failing & fills & _negate(earlier)
        earlier = earlier | failing
        reported.append((rule, failing))
    return reported


def layout_problem_masks(
    model: ModelLimits,
    mesh: Mesh,
    schedule: Any,
    sequence_parallel: Any,
    micro_batch_size: Any,
    sequence_length: Any,
    global_batch_size: int | None,
    gradient_accumulation_steps: Any,
) -> list[Rule]:
    """Every validity rule of a mesh, in order, each with the layouts it reports: the one definition of the rules,
    over numbers for one layout (``layout_problems`` words those that fail: what /v1/plan refuses) or arrays of
    layouts (a bool per cell, broadcast together: what the search and layout sweeps skip). ``mesh`` carries the
    degrees (ints or int64 arrays; its schedule and sequence parallelism are not read); the schedule (a
    PipelineSchedule, or codes into SCHEDULES) and sequence parallelism are given beside it.
    Degrees that do not divide the world size are reported alone; without an architecture only each degree
    above 1 and the batch; of the rules one field check tries in turn (the heads, the experts, the experts'
    grid, the schedule, the batch) only the first that fails. A layout's first failing rule is therefore its
    first problem."""
    n: Any = mesh.world_size
    t, p, c, e, v = (mesh.tensor, mesh.pipeline, mesh.context, mesh.expert, mesh.virtual_stages)
    b, s, k, sp = micro_batch_size, sequence_length, gradient_accumulation_steps, sequence_parallel
    shape: tuple[int, ...] | None = None  # the cells' shape; None: one layout's numbers
    if not isinstance(schedule, PipelineSchedule):  # codes: arrays of layouts
        schedule, sp = np.asarray(schedule), np.asarray(sp, dtype=bool)
        shape = np.broadcast_shapes(*(np.shape(x) for x in (n, t, p, c, e, v, schedule, sp, b, s, k)))
        n = np.asarray(n)
    fills = n % (t * p * c) == 0
    d = select(fills, data_degree(n, t, p, c), 1)  # 1 where it is not whole: those layouts report nothing else

    def world_words() -> str:
        return (
            f"parallelism degrees do not multiply to the world size: tensor {t} x pipeline {p} x context {c} "
            f"x data d = cluster.world_size {n} needs d = {n} / {t * p * c}, not a whole number"
        )

    checks: list[list[Rule]] = []
    if model.layers is None:
        degrees = {"tensor": t, "pipeline": p, "context": c, "expert": e}
        if mesh.expert_tensor is not None:
            degrees["expert_tensor"] = mesh.expert_tensor
        for name, degree in degrees.items():
            checks.append([_needs_architecture(name, degree)])
    else:
        checks += [
            _head_rules(model, t),
            _expert_rules(model, e),
            _expert_tensor_rules(model, mesh.expert_tensor, t, c, d, e),
            [_moe_tensor_rule(model, t, sp)],
            _pipeline_rules(schedule, p, v, model.layers, mesh),
            [_sequence_rule(s, t, c, sp)],
        ]
    checks.append(_batch_rules(schedule, p, v, b, d, global_batch_size, k, mesh.runs))
    rules = [(Rule("world_size", "/parallelism", _negate(fills), world_words), _negate(fills))]
    for check in checks:
        rules += _first_failing(check, fills)
    if shape is None:
        return [Rule(rule.name, rule.pointer, failing, rule.words) for rule, failing in rules]
    return [
        Rule(rule.name, rule.pointer, np.broadcast_to(np.asarray(failing, dtype=bool), shape), rule.words)
        for rule, failing in rules
    ]


def _needs_architecture(name: str, degree: Any) -> Rule:
    def words() -> str:
        return (
            f"parallelism.{name} {degree} needs the model's architecture (layers, hidden_size, "
            "attention_heads, ffn_hidden_size, vocab_size) or a model.preset that has one"
        )

    return Rule(f"{name}_needs_architecture", f"/parallelism/{name}", degree > 1, words)


def _head_rules(model: ModelLimits, t: Any) -> list[Rule]:
    heads, kv_heads = model.attention_heads or 1, model.kv_heads or 1
    return [
        Rule(
            "attention_heads",
            "/parallelism/tensor",
            heads % t != 0,
            lambda: f"parallelism.tensor {t} does not divide the model's attention heads {heads}",
        ),
        Rule(
            "kv_heads",
            "/parallelism/tensor",
            kv_heads % t != 0,
            lambda: f"parallelism.tensor {t} does not divide the model's key/value heads {kv_heads}",
        ),
    ]


def _expert_rules(model: ModelLimits, e: Any) -> list[Rule]:
    experts = model.experts
    return [
        Rule(
            "expert_needs_moe",
            "/parallelism/expert",
            (e > 1) & (experts is None),
            lambda: f"parallelism.expert {e} needs a mixture-of-experts model (model.moe)",
        ),
        Rule(
            "experts",
            "/parallelism/expert",
            False if experts is None else experts % e != 0,
            lambda: f"parallelism.expert {e} does not divide the model's experts {experts}",
        ),
    ]


def _expert_tensor_rules(model: ModelLimits, expert_tensor: int | None, t: Any, c: Any, d: Any, e: Any) -> list[Rule]:
    """The experts' grid: ETP x e divides the t x c x d ranks of a stage (Megatron-Core parallel_state asserts
    world_size % (expert_tensor x expert x pipeline) == 0); with ETP = t, e divides d x c."""
    if expert_tensor is None:
        return [
            Rule(
                "expert_data",
                "/parallelism/expert",
                (d * c) % e != 0,
                lambda: (
                    f"parallelism.expert {e} does not divide data {d} x context {c} = {d * c}, "
                    "the ranks experts are carved out of"
                ),
            )
        ]
    etp = expert_tensor
    return [
        Rule(
            "expert_tensor_needs_moe",
            "/parallelism/expert_tensor",
            (etp > 1) & (model.experts is None),
            lambda: f"parallelism.expert_tensor {etp} needs a mixture-of-experts model (model.moe)",
        ),
        Rule(
            "expert_tensor_grid",
            "/parallelism/expert_tensor",
            (t * d * c) % (etp * e) != 0,
            lambda: (
                f"parallelism.expert_tensor {etp} x expert {e} = {etp * e} does not divide tensor {t} x context {c} "
                f"x data {d} = {t * c * d}, the ranks of one pipeline stage the experts are laid out over"
            ),
        ),
    ]


SPLIT = "/parallelism/pipeline_layers"


def _pipeline_rules(schedule: Any, p: Any, v: Any, layers: int, mesh: Mesh) -> list[Rule]:
    """The schedule's rules on the pipeline degree, virtual stages and the split of the layers, in the order they
    are tried. A split is each stage's or chunk's layers (parallelism.pipeline_layers) or the even split with the
    embedding and the loss counted as layers (service.mesh.pipeline.chunk_layers); only the first and the last
    chunk may hold no layer (the embedding alone, the output layer alone: Megatron-LM's layouts and torchtitan's
    input and output weights allow it)."""
    interleaved = chunked(schedule, v)
    name = getattr(schedule, "value", schedule)
    v_shape = v_shaped(schedule, p)
    chunks = layer_chunks(schedule, p, v)
    count = p * chunks
    given, e, lo = mesh.pipeline_layers, mesh.embedding_layers, mesh.loss_layers
    even = given is None and not (e or lo)

    def exceeds_words() -> str:
        two = f" ({count} layers for ZB-V's two chunks a stage)" if v_shape and layers >= p else ""
        return f"parallelism.pipeline {p} exceeds the model's {layers} layers{two}"

    rules = [
        Rule(
            "virtual_stages_need_interleaved",
            "/parallelism/virtual_stages",
            (v > 1) & _negate(takes_chunks(schedule)),
            lambda: f"parallelism.virtual_stages {v} needs pipeline_schedule interleaved or zb_h1, not {name}",
        ),
        Rule(
            "interleaved_needs_pipeline",
            "/parallelism/pipeline",
            interleaved & (p < 2),
            lambda: f"pipeline_schedule {name} needs parallelism.pipeline of at least 2",
        ),
        Rule(
            "interleaved_layers",
            "/parallelism/virtual_stages",
            interleaved & (layers < count) & even,
            lambda: (
                f"the {name} schedule with model chunks needs at least one layer a chunk: the model's {layers} layers "
                f"are fewer than pipeline {p} x virtual_stages {v} = {count} chunks"
            ),
        ),
        Rule(
            "pipeline_exceeds_layers",
            "/parallelism/pipeline",
            (layers < p) | (v_shape & (layers < count) & even),
            exceeds_words,
        ),
    ]
    if given is not None:
        rules += _given_split_rules(given, layers, p, chunks, count, bool(e or lo), v_shape)
    elif e or lo:
        rules += _weighted_split_rules(layers, count, e, lo)
    return rules


def _given_split_rules(
    given: tuple[int, ...], layers: int, p: Any, chunks: Any, count: Any, weighted: bool, v_shape: Any
) -> list[Rule]:
    """parallelism.pipeline_layers: p or p x v entries summing to the layers, each stage divisible by its chunks,
    no empty chunk but the first and the last."""
    n, total = len(given), sum(given)
    common = 0
    for x in given:
        common = math.gcd(common, x)
    by_stage = n == p

    def length_words() -> str:
        chunked_words = (
            f" or pipeline {p} x virtual_stages {chunks} = {count} (one per model chunk)" if chunks > 1 else ""
        )
        return f"parallelism.pipeline_layers has {n} entries: it needs pipeline {p} (one per stage){chunked_words}"

    def chunks_words() -> str:
        odd = next(i for i, x in enumerate(given) if x % chunks)
        return (
            f"parallelism.pipeline_layers gives stage {odd} {given[odd]} layers, not divisible by its {chunks} "
            f"model chunks (Megatron-LM's rule); give one entry per chunk ({count}) instead"
        )

    def empty_words() -> str:
        sizes = chunk_layers(layers, p, chunks, given, v_shape=v_shape)
        empty = [k for k in range(1, count - 1) if sizes[k] == 0]
        what = "chunk" if chunks > 1 else "stage"
        return (
            f"parallelism.pipeline_layers leaves {what} {empty[0]} without a layer: only the first and the last "
            f"{what} may hold none (the input embedding or the output layer alone)"
        )

    # a stage's entry split over its chunks: the first chunk of a stage holds none when the entry is 0, so only a
    # first stage of a V (its chunks are the first and the last) may be 0; by chunk, the middle ones may not
    empty = select(
        by_stage & (chunks > 1),
        select(v_shape, any(x == 0 for x in given[1:]), any(x == 0 for x in given)),
        any(x == 0 for x in given[1:-1]),
    )
    return [
        Rule(
            "pipeline_layers_weighted",
            SPLIT,
            weighted,
            lambda: (
                "parallelism.pipeline_layers fixes the split: pipeline_embedding_layers and pipeline_loss_layers "
                "apply only to the even split (Megatron-LM refuses a layout with --account-for-embedding-in-"
                "pipeline-split or --account-for-loss-in-pipeline-split)"
            ),
        ),
        Rule("pipeline_layers_length", SPLIT, (n != p) & (n != count), length_words),
        Rule(
            "pipeline_layers_sum",
            SPLIT,
            total != layers,
            lambda: f"parallelism.pipeline_layers sums to {total}, not the model's {layers} layers",
        ),
        Rule("pipeline_layers_chunks", SPLIT, by_stage & (chunks > 1) & (common % chunks != 0), chunks_words),
        Rule("pipeline_layers_empty", SPLIT, empty, empty_words),
    ]


def _weighted_split_rules(layers: int, count: Any, e: int, lo: int) -> list[Rule]:
    """The even split with the embedding and the loss as layers (torchtitan's generate_llm_fqn_per_model_part):
    the first and the last chunk keep at least no layer, the middle ones at least one."""
    base, extra = (layers + e + lo) // count, (layers + e + lo) % count
    first = base + (extra > 0)
    weighted = count > 1
    return [
        Rule(
            "embedding_layers",
            "/parallelism/pipeline_embedding_layers",
            weighted & (first < e),
            lambda: (
                f"parallelism.pipeline_embedding_layers {e} exceeds the {first} layers the first of {count} chunks "
                f"takes of the model's {layers} layers + {e} + {lo}"
            ),
        ),
        Rule(
            "loss_layers",
            "/parallelism/pipeline_loss_layers",
            weighted & (base < lo),
            lambda: (
                f"parallelism.pipeline_loss_layers {lo} exceeds the {base} layers the last of {count} chunks takes "
                f"of the model's {layers} layers + {e} + {lo}"
            ),
        ),
        Rule(
            "weighted_empty_chunk",
            "/parallelism/pipeline",
            weighted & (base == 0) & (count - 2 >= maximum(extra, 1)),
            lambda: (
                f"the model's {layers} layers + pipeline_embedding_layers {e} + pipeline_loss_layers {lo} leave a "
                f"middle chunk of the {count} without a layer"
            ),
        ),
    ]


def _moe_tensor_rule(model: ModelLimits, t: Any, sequence_parallel: Any) -> Rule:
    """Megatron-Core refuses MoE layers under tensor parallelism without sequence parallelism
    (megatron/core/transformer/moe/moe_layer.py @d98e8a64, MoELayer.forward)."""
    return Rule(
        "moe_tensor_sequence_parallel",
        "/parallelism/sequence_parallel",
        (model.experts is not None) & (t > 1) & _negate(sequence_parallel),
        lambda: (
            f"a mixture-of-experts model with parallelism.tensor {t} needs sequence_parallel: Megatron-Core "
            "refuses to train MoE layers with tensor parallelism without it "
            "(megatron/core/transformer/moe/moe_layer.py @d98e8a64, MoELayer.forward)"
        ),
    )


def _sequence_rule(s: Any, t: Any, c: Any, sequence_parallel: Any) -> Rule:
    granule = sequence_granule(t, c, sequence_parallel)

    def words() -> str:
        with_sp = f" x tensor {t} (sequence parallelism)" if sequence_parallel and t > 1 else ""
        words = f"training.sequence_length {s} is not divisible by {granule}: context {c}{with_sp}"
        if c > 1:
            words += f", and the context group's load balancing cuts it into 2 x {c} equal chunks"
        return words

    return Rule("sequence_length", "/training/sequence_length", s % granule != 0, words)


def _batch_rules(
    schedule: Any, p: Any, v: Any, b: Any, d: Any, global_batch_size: int | None, k: Any, runs: Any = 1
) -> list[Rule]:
    """The batch's rules: a whole number of micro-batches, split evenly over the schedule's ``runs``, each run with
    enough of them to fill the schedule's pipeline."""
    rules: list[Rule] = []
    m = k
    field = "/training/gradient_accumulation_steps"
    gbs = global_batch_size
    if gbs is not None:
        field = "/training/global_batch_size"
        divides = gbs % (b * d) == 0
        rules.append(
            Rule(
                "global_batch_divides",
                field,
                _negate(divides),
                lambda: (
                    f"training.global_batch_size {gbs} is not a whole number of micro-batches: it needs "
                    f"micro_batch_size {b} x data {d} = {b * d} to divide it"
                ),
            )
        )
        m = select(divides, micro_batches(gbs, k, b, d), 0)
    name = getattr(schedule, "value", schedule)
    run = run_micro_batches(m, runs, p)

    def each_run() -> str:  # words for one layout only
        return f" in each of the {runs} runs of the schedule" if runs > 1 else ""

    def fewer_runs() -> str:
        return " (or fewer parallelism.pipeline_runs)" if runs > 1 else ""

    return rules + [
        Rule(
            "micro_batches_at_least_one",
            field,
            m < 1,
            lambda: f"training.global_batch_size {gbs} is smaller than micro_batch_size x data",
        ),
        Rule(
            "pipeline_runs_divide",
            "/parallelism/pipeline_runs",
            (p > 1) & (m >= 1) & (m % runs != 0),
            lambda: f"parallelism.pipeline_runs {runs} does not divide the {m} micro-batches per step",
        ),
        Rule(
            "micro_batches_fill_pipeline",
            field,
            schedule_in(schedule, FILL_PIPELINE) & (p > 1) & (run < p),
            lambda: (
                f"{run} micro-batches{each_run() or ' per step'} are fewer than the {p} pipeline stages: the {name} "
                f"schedule needs at least as many micro-batches as stages{fewer_runs()}"
            ),
        ),
        Rule(
            "micro_batches_fill_zero_bubble",
            field,
            schedule_in(schedule, (PipelineSchedule.zero_bubble,)) & (p > 1) & (run < 2 * p - 1),
            lambda: (
                f"{run} micro-batches{each_run() or ' per step'} are fewer than the {2 * p - 1} the zero_bubble "
                f"schedule needs on {p} pipeline stages: its warm-up runs 2 x pipeline - 1 forward passes on the "
                "first stage before the first backward (ZB-H2, Qi et al. 2023, section 2.2); with fewer the bubble "
                f"is not filled{fewer_runs()}"
            ),
        ),
        Rule(
            "interleaved_micro_batches",
            field,
            chunked(schedule, v) & (run % p != 0),
            lambda: (
                f"the {name} schedule with model chunks needs the micro-batches {run}{each_run()} to be a multiple "
                f"of the pipeline {p} (Megatron-LM's requirement; torch.distributed.pipelining's interleaved "
                "schedules run rounds of m // p)"
            ),
        ),
    ]


def schedule_runs(runs: Any, pipeline: Any) -> Any:
    """Runs of the pipeline schedule a step: parallelism.pipeline_runs with pipeline parallelism; without it one
    (the field has no effect, layout_warnings says so). Numbers or arrays."""
    return select(pipeline > 1, runs, 1)


def run_micro_batches(micro_batches: Any, runs: Any, pipeline: Any) -> Any:
    """Micro-batches of one run of the schedule: m / schedule_runs (numbers or arrays)."""
    if type(runs) is int and runs == 1:  # one run holds them all: m, without dividing every element by 1
        return micro_batches
    return micro_batches // schedule_runs(runs, pipeline)


def takes_chunks(schedule: Any) -> Any:
    """Whether a schedule (a PipelineSchedule, or codes into SCHEDULES) may run model chunks."""
    return schedule_in(schedule, CHUNKED)


def chunked(schedule: Any, virtual_stages: Any) -> Any:
    """Whether a layout runs model chunks under the interleaving rules: the interleaved schedule always (its
    v = 1 is 1F1B's count), ZB-H1 with v > 1 (ScheduleInterleavedZeroBubble)."""
    code = schedule_code(schedule)
    return (code == _INTERLEAVED) | ((code == _ZERO_BUBBLE_H1) & (virtual_stages > 1))


def layer_chunks(schedule: Any, pipeline: Any, virtual_stages: Any) -> Any:
    """Model chunks of a stage the rules on the split of the layers count (and a search writes a split for): ZB-V's
    two in a V, v under a schedule that takes chunks, else 1."""
    return select(v_shaped(schedule, pipeline), 2, select(takes_chunks(schedule), virtual_stages, 1))


def layout_warnings(mesh: Mesh) -> list[str]:
    warnings = []
    if mesh.tensor > mesh.gpus_per_node:
        warnings.append(
            f"parallelism.tensor {mesh.tensor} is wider than a node of {mesh.gpus_per_node} GPUs: its collectives, "
            "on every layer, cross the inter-node link"
        )
    if mesh.expert_tensor is not None and mesh.expert_tensor > mesh.gpus_per_node:
        warnings.append(
            f"parallelism.expert_tensor {mesh.expert_tensor} is wider than a node of {mesh.gpus_per_node} GPUs: "
            "the experts' tensor-parallel collectives cross the inter-node link"
        )
    if mesh.context > 1 and mesh.spans_nodes(Group.context):
        how = "K/V ring" if mesh.context_attention is ContextAttention.ring else "K/V all-gather"
        warnings.append(
            f"parallelism.context {mesh.context} spans nodes (its ranks sit {mesh.stride(Group.context)} apart, "
            f"{mesh.gpus_per_node} GPUs a node): the {how} of every layer crosses the inter-node link"
        )
    if mesh.sequence_parallel and mesh.tensor == 1:
        warnings.append("parallelism.sequence_parallel has no effect without tensor parallelism")
    if mesh.runs > 1 and mesh.pipeline == 1:
        warnings.append("parallelism.pipeline_runs has no effect without pipeline parallelism")
    return warnings


def validated_mesh(
    mesh: Mesh,
    model: ModelLimits,
    micro_batch_size: int,
    sequence_length: int,
    global_batch_size: int | None,
    gradient_accumulation_steps: int,
) -> Mesh:
    problems = layout_problems(
        mesh, model, micro_batch_size, sequence_length, global_batch_size, gradient_accumulation_steps
    )
    if problems:
        raise InvalidLayout(problems)
    return mesh


def requested_mesh(parallelism: Parallelism, world_size: int, gpus_per_node: int) -> Mesh:
    """The mesh a request's ``parallelism`` asks for on ``world_size`` GPUs (not yet validated)."""
    return Mesh(
        world_size=world_size,
        gpus_per_node=gpus_per_node,
        tensor=parallelism.tensor,
        pipeline=parallelism.pipeline,
        context=parallelism.context,
        expert=parallelism.expert,
        expert_tensor=parallelism.expert_tensor,
        sequence_parallel=parallelism.sequence_parallel,
        context_attention=parallelism.context_attention,
        schedule=parallelism.pipeline_schedule,
        virtual_stages=parallelism.virtual_stages,
        post_validation=parallelism.optimizer_post_validation,
        pipeline_layers=None if parallelism.pipeline_layers is None else tuple(parallelism.pipeline_layers),
        embedding_layers=parallelism.pipeline_embedding_layers,
        loss_layers=parallelism.pipeline_loss_layers,
        runs=parallelism.pipeline_runs,
    )
