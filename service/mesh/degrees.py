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
JSON pointer of the field to change. ``layout_problem_masks`` is the same rules over arrays of layouts
(which cells each rule refuses), the one form /v1/search and layout sweeps read.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.parallelism import ContextAttention, ParallelGroup, Parallelism, PipelineSchedule
from service.errors import InvalidLayout
from service.mesh.pipeline import chunk_layers, v_shaped
from service.numeric import maximum, minimum

Group = ParallelGroup  # the mesh's dimensions, as the contract names them
SCHEDULES: tuple[PipelineSchedule, ...] = tuple(PipelineSchedule)  # a schedule array's codes
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

    @property
    def data(self) -> int:
        """d = world / (t x p x c)."""
        return self.world_size // (self.tensor * self.pipeline * self.context)

    @property
    def chunks(self) -> Any:
        """Model chunks per stage, each a send of activations forward and of gradients back per micro-batch:
        the interleaved schedule's v, ZB-V's two (torch.distributed.pipelining ScheduleZBVZeroBubble)."""
        return 2 + 0 * self.virtual_stages if self.schedule is PipelineSchedule.zero_bubble_v else self.virtual_stages

    @property
    def trivial(self) -> bool:
        """Data parallelism alone: every other degree 1."""
        return self.tensor == self.pipeline == self.context == self.expert == self.etp == 1

    @property
    def etp(self) -> int:
        """The expert tensor degree: as given, else t."""
        return self.tensor if self.expert_tensor is None else self.expert_tensor

    @property
    def data_context(self) -> int:
        """Ranks the dense model states shard over: d x c (Megatron's distributed optimizer)."""
        return self.data * self.context

    @property
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

    @property
    def sequence_split(self) -> int:
        """What the sequence of a layer's sequence-parallel regions is divided by: c, x t with SP."""
        return self.context * (self.tensor if self.sequence_parallel else 1)

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


def micro_batches(
    global_batch_size: int | None, gradient_accumulation_steps: int, micro_batch_size: int, data: int
) -> int:
    """m = global / (b x d) when a global batch is given, else the accumulation steps."""
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
    """Every reason the mesh cannot run this model and batch, each with the pointer of its field."""
    problems: list[tuple[str, str]] = []
    t, p, c, e = mesh.tensor, mesh.pipeline, mesh.context, mesh.expert
    n = mesh.world_size
    if n % (t * p * c):
        problems.append(
            (
                f"parallelism degrees do not multiply to the world size: tensor {t} x pipeline {p} x context {c} "
                f"x data d = cluster.world_size {n} needs d = {n} / {t * p * c}, not a whole number",
                "/parallelism",
            )
        )
        return problems
    needs_architecture = {"tensor": t, "pipeline": p, "context": c, "expert": e}
    if mesh.expert_tensor is not None:
        needs_architecture["expert_tensor"] = mesh.expert_tensor
    if model.layers is None:
        for name, degree in needs_architecture.items():
            if degree > 1:
                problems.append(
                    (
                        f"parallelism.{name} {degree} needs the model's architecture (layers, hidden_size, "
                        "attention_heads, ffn_hidden_size, vocab_size) or a model.preset that has one",
                        f"/parallelism/{name}",
                    )
                )
        return problems + _batch_problems(mesh, micro_batch_size, global_batch_size, gradient_accumulation_steps)
    heads, kv_heads, layers = model.attention_heads or 1, model.kv_heads or 1, model.layers
    if heads % t:
        problems.append(
            (f"parallelism.tensor {t} does not divide the model's attention heads {heads}", "/parallelism/tensor")
        )
    elif kv_heads % t:
        problems.append(
            (
                f"parallelism.tensor {t} does not divide the model's key/value heads {kv_heads}",
                "/parallelism/tensor",
            )
        )
    if e > 1 and model.experts is None:
        problems.append((f"parallelism.expert {e} needs a mixture-of-experts model (model.moe)", "/parallelism/expert"))
    elif model.experts is not None and model.experts % e:
        problems.append(
            (f"parallelism.expert {e} does not divide the model's experts {model.experts}", "/parallelism/expert")
        )
    problems += _expert_tensor_problems(mesh, model)
    if model.experts is not None and t > 1 and not mesh.sequence_parallel:
        problems.append(
            (
                f"a mixture-of-experts model with parallelism.tensor {t} needs sequence_parallel: Megatron-Core "
                "refuses to train MoE layers with tensor parallelism without it "
                "(megatron/core/transformer/moe/moe_layer.py @d98e8a64, MoELayer.forward)",
                "/parallelism/sequence_parallel",
            )
        )
    problems += pipeline_problems(mesh, layers)
    split = mesh.sequence_split
    if sequence_length % split:
        with_sp = f" x tensor {t} (sequence parallelism)" if mesh.sequence_parallel and t > 1 else ""
        problems.append(
            (
                f"training.sequence_length {sequence_length} is not divisible by context {c}{with_sp} = {split}",
                "/training/sequence_length",
            )
        )
    problems += _batch_problems(mesh, micro_batch_size, global_batch_size, gradient_accumulation_steps)
    return problems


def _expert_tensor_problems(mesh: Mesh, model: ModelLimits) -> list[tuple[str, str]]:
    """The experts' grid: ETP x e divides the t x c x d ranks of a stage (Megatron-Core parallel_state asserts
    world_size % (expert_tensor x expert x pipeline) == 0)."""
    t, c, e, etp = mesh.tensor, mesh.context, mesh.expert, mesh.etp
    if mesh.expert_tensor is None:
        if mesh.data_context % e:
            return [
                (
                    f"parallelism.expert {e} does not divide data {mesh.data} x context {c} = {mesh.data_context}, "
                    "the ranks experts are carved out of",
                    "/parallelism/expert",
                )
            ]
        return []
    if etp > 1 and model.experts is None:
        return [
            (
                f"parallelism.expert_tensor {etp} needs a mixture-of-experts model (model.moe)",
                "/parallelism/expert_tensor",
            )
        ]
    stage = t * mesh.data_context
    if stage % (etp * e):
        return [
            (
                f"parallelism.expert_tensor {etp} x expert {e} = {etp * e} does not divide tensor {t} x context {c} "
                f"x data {mesh.data} = {stage}, the ranks of one pipeline stage the experts are laid out over",
                "/parallelism/expert_tensor",
            )
        ]
    return []


def pipeline_problems(mesh: Mesh, layers: int) -> list[tuple[str, str]]:
    """The schedule's rules on the pipeline degree, virtual stages and the split of the layers: the first that
    fails. A split is each stage's or chunk's layers (parallelism.pipeline_layers) or the even split with the
    embedding and the loss counted as layers (service.mesh.pipeline.chunk_layers); only the first and the last
    chunk may hold no layer (the embedding alone, the output layer alone: Megatron-LM's layouts and torchtitan's
    input and output weights allow it)."""
    p, v, name = mesh.pipeline, mesh.virtual_stages, mesh.schedule.value
    interleaved = chunked(mesh.schedule, v)
    if v > 1 and mesh.schedule not in CHUNKED:
        return [
            (
                f"parallelism.virtual_stages {v} needs pipeline_schedule interleaved or zb_h1, not {name}",
                "/parallelism/virtual_stages",
            )
        ]
    if interleaved and p < 2:
        return [(f"pipeline_schedule {name} needs parallelism.pipeline of at least 2", "/parallelism/pipeline")]
    v_shape = v_shaped(mesh.schedule, p)  # ZB-V: two chunks a stage, in a V
    chunks = v if interleaved else (2 if v_shape else 1)
    count = p * chunks
    given, e, lo = mesh.pipeline_layers, mesh.embedding_layers, mesh.loss_layers
    even = given is None and not (e or lo)
    if even and interleaved and layers < count:
        return [
            (
                f"the {name} schedule with model chunks needs at least one layer a chunk: the model's {layers} layers "
                f"are fewer than pipeline {p} x virtual_stages {v} = {count} chunks",
                "/parallelism/virtual_stages",
            )
        ]
    if layers < p or (even and v_shape and layers < count):
        two = f" ({count} layers for ZB-V's two chunks a stage)" if v_shape and layers >= p else ""
        return [(f"parallelism.pipeline {p} exceeds the model's {layers} layers{two}", "/parallelism/pipeline")]
    if given is not None:
        return _given_split_problems(given, layers, p, chunks, bool(e or lo), v_shape)
    if (e or lo) and count > 1:
        return _weighted_split_problems(layers, count, e, lo)
    return []


SPLIT = "/parallelism/pipeline_layers"


def _given_split_problems(
    given: tuple[int, ...], layers: int, p: int, v: int, weighted: bool, v_shape: bool = False
) -> list[tuple[str, str]]:
    """parallelism.pipeline_layers: p or p x v entries summing to the layers, each stage divisible by v, no empty
    chunk but the first and the last."""
    count = p * v
    if weighted:
        return [
            (
                "parallelism.pipeline_layers fixes the split: pipeline_embedding_layers and pipeline_loss_layers "
                "apply only to the even split (Megatron-LM refuses a layout with --account-for-embedding-in-"
                "pipeline-split or --account-for-loss-in-pipeline-split)",
                SPLIT,
            )
        ]
    if len(given) != p and len(given) != count:
        chunked_words = f" or pipeline {p} x virtual_stages {v} = {count} (one per model chunk)" if v > 1 else ""
        return [
            (
                f"parallelism.pipeline_layers has {len(given)} entries: it needs pipeline {p} (one per stage)"
                f"{chunked_words}",
                SPLIT,
            )
        ]
    if sum(given) != layers:
        return [(f"parallelism.pipeline_layers sums to {sum(given)}, not the model's {layers} layers", SPLIT)]
    if len(given) == p and v > 1 and any(x % v for x in given):
        odd = next(i for i, x in enumerate(given) if x % v)
        return [
            (
                f"parallelism.pipeline_layers gives stage {odd} {given[odd]} layers, not divisible by its {v} "
                f"model chunks (Megatron-LM's rule); give one entry per chunk ({count}) instead",
                SPLIT,
            )
        ]
    sizes = chunk_layers(layers, p, v, given, v_shape=v_shape)
    empty = [k for k in range(1, count - 1) if sizes[k] == 0]
    if empty:
        what = "chunk" if v > 1 else "stage"
        return [
            (
                f"parallelism.pipeline_layers leaves {what} {empty[0]} without a layer: only the first and the last "
                f"{what} may hold none (the input embedding or the output layer alone)",
                SPLIT,
            )
        ]
    return []


def _weighted_split_problems(layers: int, count: int, e: int, lo: int) -> list[tuple[str, str]]:
    """The even split with the embedding and the loss as layers (torchtitan's generate_llm_fqn_per_model_part):
    the first and the last chunk keep at least no layer, the middle ones at least one."""
    base, extra = divmod(layers + e + lo, count)
    if base + (1 if extra else 0) < e:
        return [
            (
                f"parallelism.pipeline_embedding_layers {e} exceeds the {base + (1 if extra else 0)} layers the first "
                f"of {count} chunks takes of the model's {layers} layers + {e} + {lo}",
                "/parallelism/pipeline_embedding_layers",
            )
        ]
    if base < lo:
        return [
            (
                f"parallelism.pipeline_loss_layers {lo} exceeds the {base} layers the last of {count} chunks takes "
                f"of the model's {layers} layers + {e} + {lo}",
                "/parallelism/pipeline_loss_layers",
            )
        ]
    if base == 0 and count - 2 >= max(extra, 1):
        return [
            (
                f"the model's {layers} layers + pipeline_embedding_layers {e} + pipeline_loss_layers {lo} leave a "
                f"middle chunk of the {count} without a layer",
                "/parallelism/pipeline",
            )
        ]
    return []


def _batch_problems(
    mesh: Mesh, micro_batch_size: int, global_batch_size: int | None, gradient_accumulation_steps: int
) -> list[tuple[str, str]]:
    d, p, b = mesh.data, mesh.pipeline, micro_batch_size
    if global_batch_size is not None and global_batch_size % (b * d):
        return [
            (
                f"training.global_batch_size {global_batch_size} is not a whole number of micro-batches: it needs "
                f"micro_batch_size {b} x data {d} = {b * d} to divide it",
                "/training/global_batch_size",
            )
        ]
    m = micro_batches(global_batch_size, gradient_accumulation_steps, b, d)
    field = "/training/global_batch_size" if global_batch_size is not None else "/training/gradient_accumulation_steps"
    if m < 1:
        return [(f"training.global_batch_size {global_batch_size} is smaller than micro_batch_size x data", field)]
    if mesh.schedule in FILL_PIPELINE and p > 1 and m < p:
        return [
            (
                f"{m} micro-batches per step are fewer than the {p} pipeline stages: the {mesh.schedule.value} "
                "schedule needs at least as many micro-batches as stages",
                field,
            )
        ]
    if mesh.schedule is PipelineSchedule.zero_bubble and p > 1 and m < 2 * p - 1:
        return [
            (
                f"{m} micro-batches per step are fewer than the {2 * p - 1} the zero_bubble schedule needs on "
                f"{p} pipeline stages: its warm-up runs 2 x pipeline - 1 forward passes on the first stage before "
                "the first backward (ZB-H2, Qi et al. 2023, section 2.2); with fewer the bubble is not filled",
                field,
            )
        ]
    if chunked(mesh.schedule, mesh.virtual_stages) and m % p:
        return [
            (
                f"the {mesh.schedule.value} schedule with model chunks needs the micro-batches {m} to be a multiple "
                f"of the pipeline {p} (Megatron-LM's requirement; torch.distributed.pipelining's interleaved "
                "schedules run rounds of m // p)",
                field,
            )
        ]
    return []


@dataclass(frozen=True)
class Rule:
    """One rule of ``layout_problems`` over arrays of layouts: the cells it reports a problem for, and where."""

    name: str
    pointer: str
    failing: np.ndarray  # bool per cell


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
    """``layout_problems`` over arrays of layouts, the one array form of its rules: every rule in its order,
    each with the cells whose list of problems holds it. ``mesh`` carries the degrees (ints or int64 arrays;
    its schedule and sequence parallelism are not read), ``schedule`` codes into SCHEDULES and
    ``sequence_parallel`` per layout; all broadcast together. As there: degrees that do not divide the world
    size are reported alone; without an architecture only each degree above 1 and the batch; of the rules
    one field check tries in turn (the heads, the experts, the experts' grid, the schedule, the batch) only
    the first that fails. A cell's first failing rule is therefore its first problem."""
    n, t, p, c, e, v = (mesh.world_size, mesh.tensor, mesh.pipeline, mesh.context, mesh.expert, mesh.virtual_stages)
    schedule, sp = np.asarray(schedule), np.asarray(sequence_parallel, dtype=bool)
    b, s, k = micro_batch_size, sequence_length, gradient_accumulation_steps
    shape = np.broadcast_shapes(*(np.shape(x) for x in (n, t, p, c, e, v, schedule, sp, b, s, k)))
    fills = np.broadcast_to(np.asarray(n % (t * p * c) == 0), shape)
    d = np.where(fills, n // (t * p * c), 1)  # 1 where it is not whole: those cells report nothing else
    interleaved = chunked(schedule, v)
    checks: list[list[tuple[str, str, Any]]] = []  # each list: rules of which only the first failing is reported
    if model.layers is None:
        degrees = {"tensor": t, "pipeline": p, "context": c, "expert": e}
        if mesh.expert_tensor is not None:
            degrees["expert_tensor"] = mesh.expert_tensor
        for name, degree in degrees.items():
            checks.append([(f"{name}_needs_architecture", f"/parallelism/{name}", degree > 1)])
    else:
        heads, kv_heads, layers, experts = model.attention_heads or 1, model.kv_heads or 1, model.layers, model.experts
        checks.append(
            [
                ("attention_heads", "/parallelism/tensor", heads % t != 0),
                ("kv_heads", "/parallelism/tensor", kv_heads % t != 0),
            ]
        )
        checks.append(
            [
                ("expert_needs_moe", "/parallelism/expert", (e > 1) & (experts is None)),
                ("experts", "/parallelism/expert", False if experts is None else experts % e != 0),
            ]
        )
        if mesh.expert_tensor is None:  # _expert_tensor_problems
            checks.append([("expert_data", "/parallelism/expert", (d * c) % e != 0)])
        else:
            etp = mesh.expert_tensor
            checks.append(
                [
                    ("expert_tensor_needs_moe", "/parallelism/expert_tensor", etp > 1 and experts is None),
                    ("expert_tensor_grid", "/parallelism/expert_tensor", (t * d * c) % (etp * e) != 0),
                ]
            )
        moe_tensor = (experts is not None) & (t > 1) & ~sp
        checks.append([("moe_tensor_sequence_parallel", "/parallelism/sequence_parallel", moe_tensor)])
        checks.append(  # pipeline_problems
            [
                ("virtual_stages_need_interleaved", "/parallelism/virtual_stages", (v > 1) & ~takes_chunks(schedule)),
                ("interleaved_needs_pipeline", "/parallelism/pipeline", interleaved & (p < 2)),
                *_split_rules(mesh, layers, p, v, interleaved, v_shaped_codes(schedule, p)),
            ]
        )
        checks.append([("sequence_length", "/training/sequence_length", s % (c * np.where(sp, t, 1)) != 0)])
    checks.append(_batch_rules(schedule, p, v, b, d, global_batch_size, k))
    rules = [Rule("world_size", "/parallelism", ~fills)]
    for check in checks:
        earlier = np.zeros(shape, dtype=bool)
        for name, pointer, failing in check:
            reported = np.broadcast_to(np.asarray(failing, dtype=bool), shape) & fills & ~earlier
            earlier = earlier | reported
            rules.append(Rule(name, pointer, reported))
    return rules


def v_shaped_codes(schedule: Any, pipeline: Any) -> Any:
    """service.mesh.pipeline.v_shaped over arrays of SCHEDULES codes and pipeline degrees."""
    return (schedule == SCHEDULES.index(PipelineSchedule.zero_bubble_v)) & (pipeline > 1)


def _split_rules(mesh: Mesh, layers: int, p: Any, v: Any, interleaved: Any, v_shape: Any) -> list[tuple[str, str, Any]]:
    """pipeline_problems' rules on the split over arrays of p and v, in its order (the split itself is one)."""
    chunks = np.where(interleaved, v, np.where(v_shape, 2, 1))
    count = p * chunks
    given, e, lo = mesh.pipeline_layers, mesh.embedding_layers, mesh.loss_layers
    even = given is None and not (e or lo)
    rules: list[tuple[str, str, Any]] = [
        ("interleaved_layers", "/parallelism/virtual_stages", interleaved & (layers < count) & even),
        ("pipeline_exceeds_layers", "/parallelism/pipeline", (layers < p) | (v_shape & (layers < count) & even)),
    ]
    if given is not None:
        n, total = len(given), sum(given)
        common = 0
        for x in given:
            common = math.gcd(common, x)
        by_stage = n == p
        zero_inside = any(x == 0 for x in given[1:-1])
        rules += [
            ("pipeline_layers_weighted", SPLIT, np.asarray(bool(e or lo))),
            ("pipeline_layers_length", SPLIT, (n != p) & (n != count)),
            ("pipeline_layers_sum", SPLIT, np.asarray(total != layers)),
            ("pipeline_layers_chunks", SPLIT, by_stage & (chunks > 1) & (common % chunks != 0)),
            (
                "pipeline_layers_empty",
                SPLIT,
                np.where(
                    by_stage & (chunks > 1),
                    np.where(v_shape, any(x == 0 for x in given[1:]), any(x == 0 for x in given)),
                    zero_inside,
                ),
            ),
        ]
    elif e or lo:
        base, extra = (layers + e + lo) // count, (layers + e + lo) % count
        weighted = count > 1
        rules += [
            (
                "embedding_layers",
                "/parallelism/pipeline_embedding_layers",
                weighted & (base + (extra > 0) < e),
            ),
            ("loss_layers", "/parallelism/pipeline_loss_layers", weighted & (base < lo)),
            (
                "weighted_empty_chunk",
                "/parallelism/pipeline",
                weighted & (base == 0) & (count - 2 >= np.maximum(extra, 1)),
            ),
        ]
    return rules


def _batch_rules(
    schedule: np.ndarray, p: Any, v: Any, b: Any, d: Any, global_batch_size: int | None, k: Any
) -> list[tuple[str, str, Any]]:
    """_batch_problems' rules over arrays, in its order."""
    rules: list[tuple[str, str, Any]] = []
    m = k
    field = "/training/gradient_accumulation_steps"
    if global_batch_size is not None:
        field = "/training/global_batch_size"
        divides = global_batch_size % (b * d) == 0
        rules.append(("global_batch_divides", field, ~divides))
        m = np.where(divides, global_batch_size // (b * d), 0)
    code = {schedule_: SCHEDULES.index(schedule_) for schedule_ in SCHEDULES}
    interleaved = chunked(schedule, v)
    one_f_one_b = np.isin(schedule, [code[schedule_] for schedule_ in FILL_PIPELINE])
    zero_bubble = schedule == code[PipelineSchedule.zero_bubble]
    return rules + [
        ("micro_batches_at_least_one", field, m < 1),
        ("micro_batches_fill_pipeline", field, one_f_one_b & (p > 1) & (m < p)),
        ("micro_batches_fill_zero_bubble", field, zero_bubble & (p > 1) & (m < 2 * p - 1)),
        ("interleaved_micro_batches", field, interleaved & (m % p != 0)),
    ]


def takes_chunks(schedule: Any) -> Any:
    """Whether a schedule (a PipelineSchedule, or an array of SCHEDULES codes) may run model chunks."""
    if isinstance(schedule, PipelineSchedule):
        return schedule in CHUNKED
    return np.isin(schedule, [SCHEDULES.index(name) for name in CHUNKED])


def chunked(schedule: Any, virtual_stages: Any) -> Any:
    """Whether a layout runs model chunks under the interleaving rules: the interleaved schedule always (its
    v = 1 is 1F1B's count), ZB-H1 with v > 1 (ScheduleInterleavedZeroBubble)."""
    if isinstance(schedule, PipelineSchedule):
        interleaved = schedule is PipelineSchedule.interleaved
        return interleaved or (schedule is PipelineSchedule.zero_bubble_h1 and virtual_stages > 1)
    code = {name: SCHEDULES.index(name) for name in CHUNKED}
    return (schedule == code[PipelineSchedule.interleaved]) | (
        (schedule == code[PipelineSchedule.zero_bubble_h1]) & (virtual_stages > 1)
    )


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
    )
