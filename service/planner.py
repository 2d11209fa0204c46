"""Answers to the planning operations, assembled from the formulas of the core."""

from models.enums import ArrangementName
from models.fit import MAX_GRID_POINTS, ArrangementFit, FitCell, FitRequest, FitResponse
from models.plan import Collective, Memory, PlanRequest, PlanResponse, ResolvedArrangement, StateBytes, Traffic
from models.presets import (
    GPU_PRESETS,
    MODEL_PRESETS,
    PRECISION_PRESETS,
    GpuPresetInfo,
    PrecisionPresetInfo,
    PrecisionSpec,
    PresetsResponse,
)
from service import resolve
from service.arrangements import CANONICAL, DDP, Sharding, canonical_name
from service.fit import first_fitting, fit_table, fits, gpu_count_grid, min_gpus_exact, min_gpus_whole_nodes
from service.memory import (
    bytes_per_weight_split,
    model_state_breakdown,
    replicated_floor_bytes,
    state_arithmetic,
)
from service.numeric import GB_BYTES, GIB_BYTES, group_digits
from service.traffic import (
    collective_buffer_bytes,
    collective_bytes_sent,
    collective_hops,
    step_collectives,
    volume_in_p,
)


def plan(request: PlanRequest) -> PlanResponse:
    p = resolve.parameter_count(request.model)
    n = request.cluster.world_size
    precision = resolve.precision_spec(request.precision)
    sharding = resolve.sharding(request.arrangement)
    card = resolve.card_bytes(request.cluster)
    return PlanResponse(
        parameter_count=p,
        world_size=n,
        gpus_per_node=request.cluster.gpus_per_node,
        arrangement=_resolved(sharding),
        memory=memory_report(p, n, precision, sharding, card),
        traffic=traffic_report(p, n, precision, sharding),
    )


def _resolved(sharding: Sharding) -> ResolvedArrangement:
    return ResolvedArrangement(
        name=canonical_name(sharding),
        shard_optimizer=sharding.shard_optimizer,
        shard_gradients=sharding.shard_gradients,
        shard_parameters=sharding.shard_parameters,
    )


def memory_report(p: int, n: int, precision: PrecisionSpec, sharding: Sharding, card: int) -> Memory:
    rows = model_state_breakdown(p, n, precision, sharding)
    per_gpu = sum(int(row.bytes) for row in rows)
    replicated, sharded = bytes_per_weight_split(precision, sharding)
    return Memory(
        per_gpu_bytes=per_gpu,
        per_gpu_gib=per_gpu / GIB_BYTES,
        per_gpu_gb=per_gpu / GB_BYTES,
        bytes_per_weight=per_gpu / p,
        replicated_bytes_per_weight=replicated,
        sharded_bytes_per_weight=sharded,
        replicated_floor_bytes=int(replicated_floor_bytes(p, precision, sharding)),
        card_bytes=card,
        card_gib=card / GIB_BYTES,
        fits=fits(per_gpu, card),
        headroom_bytes=card - per_gpu,
        breakdown=[
            StateBytes(
                state=row.spec.state,
                dtype=row.spec.dtype,
                bytes=int(row.bytes),
                sharded=row.sharded,
                arithmetic=state_arithmetic(p, n, row.spec.dtype, row.sharded),
            )
            for row in rows
        ],
    )


def traffic_report(p: int, n: int, precision: PrecisionSpec, sharding: Sharding, micro_batches: int = 1) -> Traffic:
    collectives = []
    for c in step_collectives(precision, sharding, micro_batches):
        sent = int(collective_bytes_sent(p, n, c))
        hops = int(collective_hops(n, c))
        chunk = sent // hops if hops else 0
        collectives.append(
            Collective(
                name=c.name,
                purpose=c.purpose,
                dtype=c.dtype,
                buffer_bytes=int(collective_buffer_bytes(p, c)),
                bytes_sent_per_gpu=sent,
                hops=hops,
                count_per_step=c.count_per_step,
                arithmetic=f"{hops} hops x {group_digits(chunk)} B per chunk (ceil(P / {n}) values) "
                f"= {group_digits(sent)} B per call, x {c.count_per_step} per step",
            )
        )
    return Traffic(
        collectives=collectives,
        bytes_sent_per_gpu=sum(c.bytes_sent_per_gpu * c.count_per_step for c in collectives),
        volume_in_p=volume_in_p(precision, sharding, micro_batches),
    )


def fit(request: FitRequest, max_points: int = MAX_GRID_POINTS) -> FitResponse:
    p = resolve.parameter_count(request.model)
    precision = resolve.precision_spec(request.precision)
    card = resolve.card_bytes(request.cluster)
    g = request.cluster.gpus_per_node
    grid = gpu_count_grid(request.gpu_count_grid, g, request.max_gpus, max_points)
    return FitResponse(
        parameter_count=p,
        card_bytes=card,
        card_gib=card / GIB_BYTES,
        gpus_per_node=g,
        grid=grid,
        arrangements=[
            _arrangement_fit(name, sharding, p, precision, card, g, grid) for name, sharding in CANONICAL.items()
        ],
    )


def _arrangement_fit(
    name: ArrangementName, sharding: Sharding, p: int, precision: PrecisionSpec, card: int, g: int, grid: list[int]
) -> ArrangementFit:
    replicated, sharded = bytes_per_weight_split(precision, sharding)
    floor = int(replicated_floor_bytes(p, precision, sharding))
    exact = min_gpus_exact(p, precision, sharding, card)
    table = fit_table(p, precision, sharding, card, grid)
    on_grid = first_fitting(table)
    return ArrangementFit(
        arrangement=name,
        replicated_bytes_per_weight=replicated,
        sharded_bytes_per_weight=sharded,
        replicated_floor_bytes=floor,
        never_fits=exact is None,
        reason=_fit_reason(sharding, replicated, floor, card, exact, on_grid, grid[-1]),
        min_gpus_exact=exact,
        min_gpus_whole_nodes=min_gpus_whole_nodes(exact, g),
        min_gpus_on_grid=on_grid,
        table=[FitCell(gpus=c.gpus, per_gpu_bytes=c.per_gpu_bytes, fits=c.fits) for c in table],
    )


def _bytes_words(value: int) -> str:
    return f"{group_digits(value)} B ({value / GIB_BYTES:.1f} GiB)"


def _fit_reason(
    sharding: Sharding, replicated: float, floor: int, card: int, exact: int | None, on_grid: int | None, top: int
) -> str:
    if exact is None:
        if sharding == DDP:
            return (
                f"never, at any GPU count: data parallel replicates everything, "
                f"{_bytes_words(floor)} on every GPU against a card of {_bytes_words(card)}"
            )
        return (
            f"never: the replicated floor of {replicated:g} B/weight, {_bytes_words(floor)}, "
            f"is more than the card of {_bytes_words(card)} leaves room for, at any GPU count"
        )
    grid_words = f"from {on_grid} GPUs on the grid" if on_grid else f"not on the grid up to {top} GPUs"
    return (
        f"fits {grid_words}; the exact minimum is {exact} GPUs "
        f"(replicated floor {_bytes_words(floor)} of a card of {_bytes_words(card)})"
    )


def presets() -> PresetsResponse:
    return PresetsResponse(
        gpus=[GpuPresetInfo(**g.model_dump(), memory_gib=g.memory_bytes / GIB_BYTES) for g in GPU_PRESETS.values()],
        precisions=[
            PrecisionPresetInfo(**pp.model_dump(), bytes_per_weight=sum(bytes_per_weight_split(pp.spec, DDP)))
            for pp in PRECISION_PRESETS.values()
        ],
        models=list(MODEL_PRESETS.values()),
    )
