"""The layouts a search considers: candidate values per axis, and which combinations are valid.

Default candidates (a request's ``restrict`` replaces any of them):
- tensor t: the powers of two up to the GPUs of a node (a tensor group inside a node);
- pipeline p: the powers of two up to the model's layers and the divisors of its layers (a stage
  count that does not divide the layers gives the last L mod p stages one more layer);
- context c: 1, 2, 4, 8, 16; expert e: 1 for a dense model, the powers of two dividing the experts
  of a mixture;
- schedules: every one a framework runs (service.mesh.pipeline.SCHEDULE_SOURCES): 1F1B, GPipe, ZB-H2
  (zero_bubble), ZB-V, and interleaved and ZB-H1 with 2 to 8 virtual stages (ZB-H1 also without), for
  p > 1 (a layout without pipeline parallelism has no schedule: 1F1B, the default, in its request);
- the split of the layers: the request's own, else each pipelined layout's most balanced of the four
  (balanced_split);
- sequence parallelism off and on for t > 1 (off for t = 1, where it does nothing);
- micro-batch sizes: the powers of two up to 64 and the global batch;
- arrangements ddp, zero1, zero2, zero3, shard_grad_op and hybrid; recompute none, selective,
  full; optimizer offload off and on.

A combination is valid exactly when POST /v1/plan accepts its request (service.mesh.degrees.layout_problems
and service.answers.layout_plan.layout_of; a property test checks the two agree): the degrees divide the
world size, t divides the attention and key/value heads, e divides the experts and d x c, the
interleaved schedule has the layers divisible by p x v and m a multiple of p, p is at most the
layers, the sequence divides by c (x t with sequence parallelism), the global batch by b x d, 1F1B,
interleaved, ZB-H1 and ZB-V have m >= p, zero bubble (ZB-H2) m >= 2p - 1, and hybrid sharding has no
model parallelism.
Invalid combinations are counted by their first failing rule, in that order: the rules are
service.mesh.degrees.layout_problem_masks, the rules layout_problems words for /v1/plan, evaluated here on
arrays of combinations (layout sweeps read them too).
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from models.enums import ArrangementName, Recompute
from models.parallelism import PipelineSchedule
from models.plan import lever_refusals
from models.search import AxisBounds, PipelineSplit, SearchRestrict
from models.training import MAX_MICRO_BATCH_SIZE, Levers
from service.engine.layout import stage_flops
from service.engine.layout_grid import ARRANGEMENTS, RECOMPUTES, Choices, LayerSplit, Layouts
from service.errors import DomainError, InvalidLayout, OutOfRange, SearchTooLarge
from service.inputs.architecture import Architecture
from service.inputs.arrangements import canonical_name, sharding_for
from service.mesh.degrees import SCHEDULES, Mesh, ModelLimits, layer_chunks, layout_problem_masks, trivial
from service.mesh.pipeline import lighter_ends_fit, stage_chunks, v_shaped

DEFAULT_CONTEXT = (1, 2, 4, 8, 16)
DEFAULT_VIRTUAL_STAGES = tuple(range(2, 9))
MAX_DEFAULT_MICRO_BATCH = 64
CHUNK_LAYOUTS = 262_144

REASONS = (
    "degrees do not divide the world size (/parallelism)",
    "tensor does not divide the attention or key/value heads (/parallelism/tensor)",
    "expert does not divide the experts, or the model has none (/parallelism/expert)",
    "expert does not divide data x context (/parallelism/expert)",
    "interleaved schedule: fewer layers than pipeline x virtual stages chunks (/parallelism/virtual_stages)",
    "pipeline exceeds the layers (/parallelism/pipeline)",
    "sequence not divisible by context (x tensor with sequence parallelism) (/training/sequence_length)",
    "global batch not divisible by micro-batch x data (/training/global_batch_size)",
    "fewer micro-batches than pipeline stages (/training/global_batch_size)",
    "interleaved schedule: micro-batches not a multiple of the pipeline (/training/global_batch_size)",
    "zero-bubble schedule: fewer micro-batches than 2 x pipeline - 1 (/training/global_batch_size)",
    "expert_tensor x expert does not divide tensor x context x data (/parallelism/expert_tensor)",
    "mixture of experts with tensor parallelism needs sequence parallelism (/parallelism/sequence_parallel)",
    "the request's pipeline_layers do not fit the stages or model chunks (/parallelism/pipeline_layers)",
    "pipeline_embedding_layers exceed the first model chunk's share (/parallelism/pipeline_embedding_layers)",
    "pipeline_loss_layers exceed the last model chunk's share (/parallelism/pipeline_loss_layers)",
    "the embedding and loss counted as layers leave a middle model chunk without a layer (/parallelism/pipeline)",
    "pipeline_runs does not divide the micro-batches (/parallelism/pipeline_runs)",
    "lighter first and last chunk: no middle chunk, or fewer layers a chunk than it lightens "
    "(/restrict/pipeline_split)",
    "DeepSpeed's pipeline engine runs ZeRO-1 at most: ZeRO-2 or ZeRO-3 with pipelining under precision deepspeed "
    "(/arrangement)",
    "hybrid sharding with model parallelism, or on part of a node, is not modelled (/arrangement)",  # last
)
NOT_DIVIDING = 0  # REASONS' index of the degrees that do not divide the world size
SP_WITHOUT_TENSOR = (
    "sequence parallelism without tensor parallelism: restrict.sequence_parallel allows only true "
    "(/restrict/sequence_parallel)"
)
# service.mesh.degrees's rules by their REASONS; the space never forms the others (virtual stages without the
# interleaved schedule, a schedule without a pipeline, an architecture missing, fewer than one micro-batch
# where the global batch divides) and a dense model with an expert tensor degree is refused up front.
RULE_REASONS = {
    "world_size": 0,
    "attention_heads": 1,
    "kv_heads": 1,
    "expert_needs_moe": 2,
    "experts": 2,
    "expert_data": 3,
    "interleaved_layers": 4,
    "pipeline_exceeds_layers": 5,
    "sequence_length": 6,
    "global_batch_divides": 7,
    "micro_batches_fill_pipeline": 8,
    "interleaved_micro_batches": 9,
    "micro_batches_fill_zero_bubble": 10,
    "expert_tensor_needs_moe": 11,
    "expert_tensor_grid": 11,
    "moe_tensor_sequence_parallel": 12,
    "pipeline_layers_length": 13,
    "pipeline_layers_sum": 13,
    "pipeline_layers_chunks": 13,
    "pipeline_layers_empty": 13,
    "embedding_layers": 14,
    "loss_layers": 15,
    "weighted_empty_chunk": 16,
    "pipeline_runs_divide": 17,
}
LIGHTER_ENDS_REASON = 18
DEEPSPEED_PIPELINE_REASON = 19
SPLITS = {
    PipelineSplit.even: LayerSplit(),
    PipelineSplit.embedding_loss: LayerSplit(embedding_layers=1, loss_layers=1),
    PipelineSplit.lighter_ends_1: LayerSplit(lighter_ends=1),
    PipelineSplit.lighter_ends_2: LayerSplit(lighter_ends=2),
}


def _powers_of_two(limit: int) -> list[int]:
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


@dataclass(frozen=True)
class Candidates:
    world_size: list[int]
    tensor: list[int]
    pipeline: list[int]
    context: list[int]
    expert: list[int]
    schedules: list[tuple[PipelineSchedule, int]]  # (schedule, virtual stages) for p > 1
    sequence_parallel: list[bool]
    micro_batch_size: list[int]
    arrangement: list[ArrangementName]
    recompute: list[Recompute]
    offload_optimizer: list[bool]
    # (name, split) tried on every layout with p > 1: restrict.pipeline_split's, or the request's own
    splits: tuple[tuple[str, LayerSplit], ...] = (("even", LayerSplit()),)
    # Without restrict.pipeline_split: each pipelined layout takes, of ``splits``, the one its stages balance best
    # (balanced_split), not every one of them
    balanced: bool = False

    @property
    def layer_splits(self) -> tuple[LayerSplit, ...]:
        """The splits a layout's ``split`` column indexes: 0 for a layout without a pipeline, then the candidates."""
        return (LayerSplit(), *(split for _, split in self.splits))

    def as_json(self) -> dict[str, list[Any]]:
        return {
            "world_size": self.world_size,
            "tensor": self.tensor,
            "pipeline": self.pipeline,
            "context": self.context,
            "expert": self.expert,
            "pipeline_schedule": sorted({s.value for s, _ in self.schedules}),
            "virtual_stages": sorted({v for s, v in self.schedules if s is PipelineSchedule.interleaved or v > 1}),
            "sequence_parallel": self.sequence_parallel,
            "pipeline_split": [name for name, _ in self.splits],
            "micro_batch_size": self.micro_batch_size,
            "arrangement": [a.value for a in self.arrangement],
            "recompute": [r.value for r in self.recompute],
            "offload_optimizer": self.offload_optimizer,
        }

    @property
    def categorical(self) -> int:
        return len(self.arrangement) * len(self.recompute) * len(self.offload_optimizer)

    @property
    def combinations(self) -> int:
        """The size of the space before validity, the cost a request is refused on up front: every combination
        whose tensor, pipeline and context degrees divide its world size (the others form no layout: that rule is
        reported alone, service.mesh.degrees.layout_problem_masks, and ``space`` counts them without evaluating
        another rule), a pipelined one under each schedule and split."""
        t, p, c = np.meshgrid(self.tensor, self.pipeline, self.context, indexing="ij")
        schedules = np.where(p == 1, 1, len(self.schedules) * (1 if self.balanced else len(self.splits)))
        formed = sum(int(schedules[size % (t * p * c) == 0].sum()) for size in self.world_size)
        return formed * len(self.expert) * len(self.sequence_parallel) * len(self.micro_batch_size) * (self.categorical)


def _axis(name: str, chosen: Any, defaults: list[int]) -> list[int]:
    """A restriction's values: a list as given, bounds as the default candidates within them; nothing left is a
    422 naming the field."""
    if chosen is None:
        return sorted(set(defaults))
    if isinstance(chosen, list):
        return sorted(chosen)
    values = sorted(v for v in set(defaults) if chosen.admits(v))
    if not values:
        low = "" if chosen.min is None else f"min {chosen.min:,}"
        high = "" if chosen.max is None else f"max {chosen.max:,}"
        raise InvalidLayout(
            [
                (
                    f"restrict.{name} ({' and '.join(w for w in (low, high) if w)}) leaves none of the candidates "
                    f"{', '.join(f'{v:,}' for v in sorted(set(defaults)))}",
                    f"/restrict/{name}",
                )
            ]
        )
    return values


def default_micro_batches(global_batch_size: int) -> list[int]:
    """The micro-batch sizes a search tries unless restricted: the powers of two up to 64, and the whole batch
    when /v1/plan takes it as one micro-batch (training.micro_batch_size's bound, MAX_MICRO_BATCH_SIZE)."""
    whole = {global_batch_size} if global_batch_size <= MAX_MICRO_BATCH_SIZE else set()
    micro = sorted(set(_powers_of_two(min(MAX_DEFAULT_MICRO_BATCH, global_batch_size))) | whole)
    return [b for b in micro if b <= MAX_DEFAULT_MICRO_BATCH or b in whole]


MODEL_PARALLEL_AXES = ("tensor", "pipeline", "context", "expert")
PIPELINED_ONLY = ("pipeline_schedule", "virtual_stages", "pipeline_split")  # restrictions of pipelined layouts alone


def restricted_arrangements(restrict: SearchRestrict) -> list[ArrangementName]:
    """The arrangements restrict.arrangement allows (every one when not given), by their canonical names in order;
    two names of one arrangement (FSDP's full_shard is zero3, no_shard ddp) are that arrangement named twice, a 422
    as any value named twice."""
    given = restrict.arrangement or ARRANGEMENTS
    canonical = [canonical_name(sharding_for(a)) for a in given]
    twice = [
        f"{a.value} ({' and '.join(b.value for b, c in zip(given, canonical, strict=True) if c is a)})"
        for a in dict.fromkeys(canonical)
        if canonical.count(a) > 1
    ]
    if twice:
        raise InvalidLayout([(f"restrict.arrangement names {', '.join(twice)} twice", "/restrict/arrangement")])
    return list(dict.fromkeys(canonical))


def lever_arrangements(arrangements: list[ArrangementName], levers: Levers) -> list[ArrangementName]:
    """The arrangements (canonical names, in order) that take the request's levers, by the rule /v1/plan validates
    with (models.plan.lever_refusals: parameter offload needs sharded parameters, ZeRO++ ZeRO-3); none left is a
    422 naming restrict.arrangement and the lever."""
    kept = [a for a in arrangements if not lever_refusals(a, levers)]
    if not kept:
        allowed = ", ".join(a.value for a in arrangements)
        refusal = lever_refusals(arrangements[0], levers)[0]
        raise InvalidLayout(
            [
                (
                    f"restrict.arrangement allows only {allowed}, and none takes the levers: {refusal}",
                    "/restrict/arrangement",
                )
            ]
        )
    return kept


def search_too_large(holds: str, max_layouts: int, restrict: SearchRestrict) -> SearchTooLarge:
    """A search space past ZEROPLAN_MAX_SEARCH_LAYOUTS (``holds``: its combinations, in words), refused at the
    field the caller sent that sizes it: restrict when given, else the world sizes searched."""
    return SearchTooLarge(
        f"the search space holds {holds}, more than the limit of {max_layouts:,} (ZEROPLAN_MAX_SEARCH_LAYOUTS); "
        "restrict some axes with `restrict` or search fewer world sizes",
        pointer="/restrict" if restrict.model_fields_set else "/cluster/world_size",
    )


def _admits(chosen: list[int] | AxisBounds, value: int) -> bool:
    """Whether a restriction (a list of values or bounds) allows ``value``."""
    return value in chosen if isinstance(chosen, list) else chosen.admits(value)


def data_parallel_restrict(
    restrict: SearchRestrict, why: str, refusal: type[DomainError] = OutOfRange
) -> SearchRestrict:
    """``restrict`` with every model-parallel degree fixed at 1, for a space of data parallelism alone (``why``:
    the reason, in words); a restriction that leaves out 1 is a 422 naming it, a ``refusal``. restrict.virtual_stages
    stays as given: it narrows the chunked schedules of a pipeline alone, and there is none."""
    for name in MODEL_PARALLEL_AXES:
        chosen = getattr(restrict, name)
        if chosen is not None and not _admits(chosen, 1):
            raise refusal(f"restrict.{name} leaves out 1, and {why}", pointer=f"/restrict/{name}")
    return restrict.model_copy(update={name: [1] for name in MODEL_PARALLEL_AXES})


def candidates(
    arch: Architecture,
    world_sizes: list[int],
    gpus_per_node: int,
    global_batch_size: int,
    restrict: SearchRestrict,
    own_split: LayerSplit | None = None,
    levers: Levers | None = None,
) -> Candidates:
    """The values searched on each axis; ``own_split``: the request's split of the layers (its parallelism's), the
    one split tried unless restrict.pipeline_split names others; ``levers``: the request's, which the
    arrangements must keep (lever_arrangements) and, for ZeRO++, which /v1/plan models without model parallelism
    (service.answers.layout_plan.layout_of)."""
    levers = levers or Levers()
    if levers.zeropp.asked:
        restrict = data_parallel_restrict(restrict, "levers.zeropp is modelled without model parallelism")
    divisors = [p for p in range(1, arch.layers + 1) if arch.layers % p == 0]
    experts = arch.moe.experts if arch.moe is not None else 1
    schedules = restrict.pipeline_schedule or list(PipelineSchedule)
    pairs: list[tuple[PipelineSchedule, int]] = []
    virtual = _axis("virtual_stages", restrict.virtual_stages, list(DEFAULT_VIRTUAL_STAGES))
    for schedule in PipelineSchedule:
        if schedule not in schedules:
            continue
        if schedule is PipelineSchedule.interleaved:
            pairs += [(schedule, v) for v in sorted(virtual)]
        elif schedule is PipelineSchedule.zero_bubble_h1:  # ZB-H1 alone (unless restricted out) and over v chunks
            alone = restrict.virtual_stages is None or _admits(restrict.virtual_stages, 1)
            pairs += [(schedule, 1)] * alone + [(schedule, v) for v in sorted(virtual) if v > 1]
        else:
            pairs.append((schedule, 1))
    arrangements = lever_arrangements(restricted_arrangements(restrict), levers)
    sizes = restrict.world_size
    if isinstance(sizes, list):
        outside = [n for n in sizes if n not in world_sizes]
        if outside:
            raise InvalidLayout(
                [
                    (
                        f"restrict.world_size lists {', '.join(f'{n:,}' for n in outside)}, not among "
                        "cluster.world_size",
                        "/restrict/world_size",
                    )
                ]
            )
    pipeline = _axis("pipeline", restrict.pipeline, sorted(set(_powers_of_two(arch.layers)) | set(divisors)))
    moot = [name for name in PIPELINED_ONLY if getattr(restrict, name) is not None] if pipeline == [1] else []
    if moot:
        raise InvalidLayout(
            [
                (f"restrict.{name} applies to pipelined layouts; restrict.pipeline allows only 1", f"/restrict/{name}")
                for name in moot
            ]
        )
    return Candidates(
        world_size=_axis("world_size", sizes, world_sizes),
        tensor=_axis("tensor", restrict.tensor, _powers_of_two(gpus_per_node)),
        pipeline=pipeline,
        context=_axis("context", restrict.context, list(DEFAULT_CONTEXT)),
        expert=_axis("expert", restrict.expert, [e for e in _powers_of_two(experts) if experts % e == 0]),
        schedules=pairs,
        sequence_parallel=sorted(set(restrict.sequence_parallel or [False, True])),
        micro_batch_size=_axis("micro_batch_size", restrict.micro_batch_size, default_micro_batches(global_batch_size)),
        arrangement=arrangements,
        recompute=list(dict.fromkeys(restrict.recompute or RECOMPUTES)),
        offload_optimizer=sorted(set(restrict.offload_optimizer or [False, True])),
        splits=split_candidates(restrict, own_split),
        balanced=not restrict.pipeline_split and (own_split is None or own_split == LayerSplit()),
    )


def split_candidates(restrict: SearchRestrict, own: LayerSplit | None) -> tuple[tuple[str, LayerSplit], ...]:
    """restrict.pipeline_split's splits in the contract's order, else the request's own split, else every kind
    (of which each pipelined layout takes its most balanced: balanced_split)."""
    if restrict.pipeline_split:
        return tuple((kind.value, SPLITS[kind]) for kind in PipelineSplit if kind in restrict.pipeline_split)
    if own is not None and own != LayerSplit():
        return (("asked", own),)
    return tuple((kind.value, SPLITS[kind]) for kind in PipelineSplit)


@lru_cache(maxsize=4096)  # a pure function of frozen values: each (p, v, V placement) of a search asks once
def balanced_split(
    arch: Architecture,
    pipeline: int,
    virtual_stages: int,
    v_shape: bool,
    sequence_length: int,
    splits: tuple[LayerSplit, ...],
) -> int:
    """Of ``splits``, the position of the one whose busiest stage does the least of the model's FLOPs a token
    (service.engine.layout.stage_flops, the output layer's FLOPs on its stage), the first of equals; a split that
    leaves a stage without layers or cannot lighten the ends is not taken. This is how the uneven splits are chosen
    in practice: Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split,
    torchtitan's pipeline_parallel_first_stage_less_layers and last_stage_less_layers, and Dubey et al. 2024
    (section 3.3.2: one layer less on the first and the last stage) each move layers off the stages that also hold
    the embedding or the output layer to balance the stages.
    ``v_shape``: the chunks in ZB-V's V (service.mesh.pipeline.v_shaped), two a stage whatever ``virtual_stages``."""
    chunks = int(stage_chunks(v_shape, virtual_stages))
    best, least = 0, None
    for position, split in enumerate(splits):
        given = split.of(arch.layers, pipeline * chunks)
        if split.lighter_ends and given["pipeline_layers"] is None:
            continue
        indices, _, per_stage = stage_flops(arch, pipeline, virtual_stages, sequence_length, **given, v_shape=v_shape)
        if any(not layers for layers in indices):
            continue
        share = Fraction(max(per_stage), sum(per_stage))
        if least is None or share < least:
            best, least = position, share
    return best


@dataclass(frozen=True)
class Space:
    """The valid shapes (world size, degrees, schedule, split of the layers, sequence parallelism, micro-batch size;
    one row each), each evaluated under every categorical choice (hybrid only where /v1/plan models it, DeepSpeed's
    gradient-sharding arrangements only without a pipeline under its convention)."""

    shapes: dict[str, np.ndarray]
    choices: Choices
    skipped: dict[str, int]
    gpus_per_node: int
    expert_tensor: int | None = None  # the request's, kept by every layout; None: each layout's t
    unpipelined: tuple[int, ...] = ()  # arrangement codes (ARRANGEMENTS) refused with p > 1 (DeepSpeed ZeRO-2/3)

    @property
    def size(self) -> int:
        """Valid layouts: every shape under every choice, less the arrangements refused on some shapes."""
        per_shape = len(self.choices.arrangement) * len(self.choices.recompute) * len(self.choices.offload_optimizer)
        levers = len(self.choices.recompute) * len(self.choices.offload_optimizer)
        refused = sum(int((~ok).sum()) for ok in self.arrangement_ok(self.shapes).values())
        return int(len(self.shapes["world_size"]) * per_shape - refused * levers)

    def hybrid_ok(self, shapes: dict[str, np.ndarray]) -> np.ndarray:
        """Hybrid sharding (ZeRO-3 in a node, replicas across nodes) is planned without model parallelism,
        on whole nodes."""
        s = shapes
        trivial = _trivial(s["tensor"], s["pipeline"], s["context"], s["expert"], self.expert_tensor)
        ok: np.ndarray = trivial & (s["world_size"] % self.gpus_per_node == 0)
        return ok

    def arrangement_ok(self, shapes: dict[str, np.ndarray]) -> dict[int, np.ndarray]:
        """Per position in the choices' arrangements valid on some shapes only: where it is valid. Hybrid where
        /v1/plan models it; DeepSpeed ZeRO-2/3 without pipelining (service.mesh.pipeline's
        framework_pipeline_problems)."""
        out: dict[int, np.ndarray] = {}
        for position, code in enumerate(self.choices.arrangement):
            if code == ARRANGEMENTS.index(ArrangementName.hybrid):
                out[position] = self.hybrid_ok(shapes)
            elif code in self.unpipelined:
                out[position] = shapes["pipeline"] == 1
        return out

    def valid(self, shapes: dict[str, np.ndarray]) -> np.ndarray:
        """(shapes, arrangements, recomputes, offloads): whether each combination is a valid layout."""
        c = self.choices
        valid = np.ones(
            (len(shapes["world_size"]), len(c.arrangement), len(c.recompute), len(c.offload_optimizer)), bool
        )
        for position, ok in self.arrangement_ok(shapes).items():
            valid[:, position] = ok[:, None, None]
        return valid

    def blocks(self, size: int = CHUNK_LAYOUTS) -> Any:
        """(first shape index, Layouts of the shapes) in blocks of about ``size`` layouts."""
        c = self.choices
        per_shape = len(c.arrangement) * len(c.recompute) * len(c.offload_optimizer)
        step = max(1, size // per_shape)
        total = len(self.shapes["world_size"])
        for start in range(0, total, step):
            yield start, Layouts({name: values[start : start + step] for name, values in self.shapes.items()})


def _trivial(t: Any, p: Any, c: Any, e: Any, expert_tensor: int | None) -> Any:
    """Data parallelism alone (service.mesh.degrees.trivial): every degree 1, the expert tensor degree too (its
    default, t, is 1 wherever t is)."""
    return trivial(t, p, c, e, 1 if expert_tensor is None else expert_tensor)


def space(
    arch: Architecture,
    cand: Candidates,
    sequence_length: int,
    global_batch_size: int,
    gpus_per_node: int,
    expert_tensor: int | None = None,
    unpipelined: tuple[int, ...] = (),
    runs: int = 1,
) -> Space:
    """Every valid combination of the candidates; the invalid ones counted by reason. The grid is built one
    (world size, tensor degree) at a time, so only its valid shapes are ever held whole. ``unpipelined``: the
    arrangements (codes into ARRANGEMENTS) the request's framework refuses to pipeline."""
    pairs = cand.schedules
    schedule_codes = np.array([SCHEDULES.index(PipelineSchedule.one_f_one_b)] + [SCHEDULES.index(s) for s, _ in pairs])
    virtual = np.array([1] + [v for _, v in pairs])
    none_pair = np.array([True] + [False] * len(pairs))  # the "no schedule" entry, for p = 1 only
    layer_splits = cand.layer_splits  # 0: no split (p = 1); then the candidates, for p > 1
    names = ("world_size", "tensor", "pipeline", "context", "expert", "virtual_stages", "schedule", "split")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in (*names, "sequence_parallel", "micro_batch_size")}
    problems: list[np.ndarray] = []
    no_hybrid = 0
    refused_pipelined = 0
    arrangements = [ARRANGEMENTS.index(a) for a in cand.arrangement]
    refused_here = [a for a in arrangements if a in unpipelined and a != ARRANGEMENTS.index(ArrangementName.hybrid)]
    rest = [
        np.array(cand.pipeline),
        np.array(cand.context),
        np.array(cand.expert),
        np.arange(len(schedule_codes)),
        np.arange(len(layer_splits)),
        np.array(cand.sequence_parallel, dtype=np.int64),
        np.array(cand.micro_batch_size),
    ]
    grid = [g.reshape(-1) for g in np.meshgrid(*rest, indexing="ij")]  # the same for every (world size, t)
    if cand.balanced:  # a pipelined layout under its most balanced split alone
        p_grid, pair_grid, split_grid = grid[0], grid[3], grid[4]
        chosen = _balanced_codes(arch, p_grid, pair_grid, pairs, layer_splits, sequence_length)
        grid = [g[(p_grid == 1) | (split_grid == chosen)] for g in grid]
    of_tensor: dict[int, Any] = {}  # each tensor degree's distinct combinations, whatever the world size
    sp_only = False not in cand.sequence_parallel
    sp_alone = 0  # combinations dropped for sequence parallelism without tensor parallelism when only it is allowed
    not_dividing = 0  # combinations whose degrees do not divide their world size

    def combinations(tensor: int) -> Any:
        if tensor not in of_tensor:
            p, c, e, pair, split, sp_code, b = grid
            sp = sp_code.astype(bool)
            # Not distinct layouts: a schedule or a split without a pipeline, a pipeline without one, SP without t > 1
            # (none at all when restrict.sequence_parallel allows only SP: those are skipped, and counted).
            formed = (none_pair[pair] == (p == 1)) & ((split == 0) == (p == 1))
            lone = formed & sp & (tensor == 1)
            distinct = formed & ~lone
            p, c, e, pair, split, sp, b = (x[distinct] for x in (p, c, e, pair, split, sp, b))
            t = np.full(len(p), tensor)
            schedule, v = schedule_codes[pair], virtual[pair]
            # each row's (pipeline, context) pair: a world size reads the rows whose degrees divide it, only them
            pair_code = p * (int(c.max(initial=0)) + 1) + c
            _, first, pair_of_row = np.unique(pair_code, return_index=True, return_inverse=True)
            products = (p[first] * c[first], pair_of_row.reshape(-1))  # each pair's p x c, each row's pair
            of_tensor[tensor] = (t, p, c, e, split, sp, b, schedule, v, products, int(lone.sum()) if sp_only else 0)
        return of_tensor[tensor]

    for world_size in cand.world_size:
        for tensor in cand.tensor:
            t, p, c, e, split, sp, b, schedule, v, (products, pair_of_row), alone = combinations(tensor)
            sp_alone += alone
            # degrees that do not divide the world size are that problem alone (layout_problem_masks): they are
            # counted, never formed, so the work is the dividing rows' (what Candidates.combinations bounds)
            index = np.flatnonzero((world_size % (tensor * products) == 0)[pair_of_row])
            not_dividing += len(p) - len(index)
            t_i, p_i, c_i, e_i, split_i, sp_i, b_i, schedule_i, v_i = (
                x[index] for x in (t, p, c, e, split, sp, b, schedule, v)
            )
            n = np.full(len(index), world_size)
            problem = np.full(len(index), -1, dtype=np.int64)
            for code in np.unique(split_i).tolist():
                rows = split_i == code
                problem[rows] = _first_problem(
                    arch,
                    n[rows],
                    t_i[rows],
                    p_i[rows],
                    c_i[rows],
                    e_i[rows],
                    schedule_i[rows],
                    v_i[rows],
                    sp_i[rows],
                    b_i[rows],
                    sequence_length,
                    global_batch_size,
                    expert_tensor,
                    layer_splits[code],
                    runs,
                )
            problems.append(problem[problem >= 0])
            valid = problem < 0
            trivial = _trivial(tensor, p_i, c_i, e_i, expert_tensor) & (world_size % gpus_per_node == 0)
            no_hybrid += int((valid & ~trivial).sum())
            refused_pipelined += int((valid & (p_i > 1)).sum()) * len(refused_here)
            for name, values in zip(names, (n, t_i, p_i, c_i, e_i, v_i, schedule_i, split_i), strict=True):
                parts[name].append(values[valid])
            parts["sequence_parallel"].append(sp_i[valid])
            parts["micro_batch_size"].append(b_i[valid])
    skipped: dict[str, int] = {}
    found_codes = np.concatenate(problems) if problems else np.zeros(0, dtype=np.int64)
    counts = {code: count for code, count in enumerate(np.bincount(found_codes).tolist()) if count}
    if not_dividing:
        counts[NOT_DIVIDING] = not_dividing  # never among found_codes: those rows are not formed
    for code, count in sorted(counts.items()):
        skipped[REASONS[int(code)]] = int(count) * cand.categorical
    levers = len(cand.recompute) * len(cand.offload_optimizer)
    if refused_pipelined:
        skipped[REASONS[DEEPSPEED_PIPELINE_REASON]] = refused_pipelined * levers
    if ArrangementName.hybrid in cand.arrangement and no_hybrid:
        skipped[REASONS[-1]] = no_hybrid * levers
    if sp_alone:
        skipped[SP_WITHOUT_TENSOR] = sp_alone * cand.categorical
    shapes = {name: np.concatenate(values) for name, values in parts.items()}
    choices = Choices(arrangements, [RECOMPUTES.index(r) for r in cand.recompute], list(cand.offload_optimizer))
    return Space(shapes, choices, skipped, gpus_per_node, expert_tensor, tuple(refused_here))


def _balanced_codes(
    arch: Architecture,
    p: np.ndarray,
    pair: np.ndarray,
    pairs: list[tuple[PipelineSchedule, int]],
    layer_splits: tuple[LayerSplit, ...],
    sequence_length: int,
) -> np.ndarray:
    """Each combination's split code under balanced_split (0 without a pipeline; ``pair`` indexes the "no
    schedule" entry, then ``pairs``)."""
    key = p * (len(pairs) + 1) + pair
    found, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    chosen = np.zeros(len(found), dtype=np.int64)
    for i, row in enumerate(first.tolist()):
        pipeline, at = int(p[row]), int(pair[row])
        if pipeline > 1 and at > 0:
            schedule, v = pairs[at - 1]
            v_shape = bool(v_shaped(schedule, pipeline))
            chosen[i] = 1 + balanced_split(arch, pipeline, v, v_shape, sequence_length, layer_splits[1:])
    codes: np.ndarray = chosen[inverse.reshape(-1)]
    return codes


def _first_problem(
    arch: Architecture,
    n: np.ndarray,
    t: np.ndarray,
    p: np.ndarray,
    c: np.ndarray,
    e: np.ndarray,
    schedule: np.ndarray,
    v: np.ndarray,
    sp: np.ndarray,
    b: np.ndarray,
    s: int,
    global_batch: int,
    expert_tensor: int | None = None,
    split: LayerSplit | None = None,
    runs: int = 1,
) -> np.ndarray:
    """Index into REASONS of each combination's first failing rule (service.mesh.degrees.layout_problem_masks, the
    rules /v1/plan applies, with the layers split as ``split`` says); -1 where it is valid. A split with lighter
    ends is written per chunk into the request only where it gives every middle chunk a layer (checked last)."""
    limits = ModelLimits.of(arch)
    split = split or LayerSplit()
    mesh = Mesh(
        n,  # type: ignore[arg-type]  # arrays
        1,
        t,  # type: ignore[arg-type]
        p,  # type: ignore[arg-type]
        c,  # type: ignore[arg-type]
        e,  # type: ignore[arg-type]
        expert_tensor,
        virtual_stages=v,  # type: ignore[arg-type]
        pipeline_layers=split.pipeline_layers,
        embedding_layers=split.embedding_layers,
        loss_layers=split.loss_layers,
        runs=runs,
    )
    problem = np.full(len(n), -1, dtype=np.int64)
    for rule in layout_problem_masks(limits, mesh, schedule, sp, b, s, global_batch, 1):
        first = rule.failing & (problem < 0)
        code = RULE_REASONS.get(rule.name)
        if code is None:
            if first.any():
                raise AssertionError(f"the search's space holds a layout refused by {rule.name}, which it never forms")
            continue
        problem[first] = code
    if split.lighter_ends:
        chunks = layer_chunks(schedule, p, v)
        problem[(problem < 0) & ~lighter_ends_fit(arch.layers, p * chunks, split.lighter_ends)] = LIGHTER_ENDS_REASON
    return problem
