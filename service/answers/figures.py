"""The four figures of issue 4 and the two of a layout, drawn with matplotlib's object API (Agg and SVG
canvases, no pyplot).

Every number drawn comes from the core: ``service.engine.data_parallel.evaluate`` for bytes and seconds (the
memory curve evaluates all GPU counts at once, as numpy arrays), ``service.time.traffic`` for the
collectives of one step, ``service.answers.bisection.gpu_count_grid`` for the powers of two, and the /v1/plan
answer (``service.answers.plan.plan``) for a layout's stages and groups. No formula is written here;
this module only draws. Units follow DESIGN.md: GiB = 2**30 bytes, GB = 1e9 bytes.

Output is deterministic: SVG without a date and with a fixed id salt, text kept as text
(``svg.fonttype`` none, so the arrangement names are searchable); PNG without a Software tag.
"""

import textwrap
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from io import BytesIO
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import NullLocator
from pydantic import ValidationError

from models.common import as_request_json
from models.enums import ArrangementName, CollectiveName, GpuCountGrid, StateClass
from models.figures import DRAWN_ARRANGEMENTS, FigureFormat, FigureName, FigureRequest
from models.parallelism import Parallelism
from models.plan import PlanRequest, PlanResponse
from models.training import Training
from service.answers.bisection import gpu_count_grid
from service.answers.fit import DataBatch
from service.answers.layout_plan import layout_of
from service.answers.refusals import DATA_PARALLEL, left_out_words, plan_refusals
from service.engine.data_parallel import evaluate
from service.engine.evaluation import Evaluation
from service.engine.setup import Setup
from service.errors import AnswerOutOfRange, InvalidLayout, OutOfRange
from service.inputs import resolve
from service.inputs.arrangements import COMPARED
from service.numeric import GB_BYTES, GIB_BYTES, INT64_MAX, outside_int64
from service.time.traffic import bytes_sent_by_collective, volume_in_p

DPI = 100
SVG_SALT = "zeroplan"
MAX_CURVE_POINTS = 64  # powers of two up to MAX_WORLD_SIZE (1e6) are 20
PX_PER_TICK_LABEL = 70  # the widest label, 524288, at the default font size
AXES_SHARE = 0.6  # of the width; the legend takes the rest
_SAVE_LOCK = threading.Lock()  # rc_context changes global rcParams: one save at a time

LABELS = {
    ArrangementName.ddp: "DP",
    ArrangementName.zero1: "ZeRO-1",
    ArrangementName.zero2: "ZeRO-2",
    ArrangementName.zero3: "ZeRO-3",
    ArrangementName.shard_grad_op: "FSDP SHARD_GRAD_OP",
}
COLOURS = {
    ArrangementName.ddp: "tab:blue",
    ArrangementName.zero1: "tab:orange",
    ArrangementName.zero2: "tab:green",
    ArrangementName.zero3: "tab:red",
    ArrangementName.shard_grad_op: "tab:brown",
}
STATE_LABELS = {
    StateClass.parameters: "parameters",
    StateClass.compute_parameters: "compute copy of the parameters",
    StateClass.secondary_parameters: "ZeRO++ secondary partition",
    StateClass.gradients: "gradients",
    StateClass.optimizer_gradients: "optimizer gradient copy",
    StateClass.master_weights: "master weights",
    StateClass.momentum: "first moment (momentum)",
    StateClass.variance: "second moment (variance)",
    StateClass.gathered_parameters: "gathered units (working set)",
    StateClass.unit_gradients: "unit gradients (working set)",
    StateClass.gradient_buckets: "gradient buckets (working set)",
}
COLLECTIVE_ORDER = (CollectiveName.all_reduce, CollectiveName.reduce_scatter, CollectiveName.all_gather)
COLLECTIVE_COLOURS = {
    CollectiveName.all_reduce: "tab:purple",
    CollectiveName.reduce_scatter: "tab:cyan",
    CollectiveName.all_gather: "tab:olive",
}


@dataclass(frozen=True)
class Case:
    """One request resolved: a setup and an evaluation at the chosen N per arrangement drawn."""

    request: FigureRequest
    scene: resolve.Scenario
    setups: dict[ArrangementName, Setup]
    results: dict[ArrangementName, Evaluation]
    batch_note: str | None = None  # how the batch was read, when not as the request gives it (figure_training)
    left_out_note: str | None = None  # the arrangements not drawn, /v1/plan refusing them the request's levers
    curve_counts: tuple[int, ...] = ()  # the memory curve's GPU counts: those /v1/plan takes the batch over

    @property
    def p(self) -> int:
        return self.scene.model.parameter_count

    @property
    def n(self) -> int:
        return self.request.cluster.world_size

    @property
    def g(self) -> int:
        return self.request.cluster.gpus_per_node


def resolve_case(request: FigureRequest, name: FigureName = FigureName.memory_vs_gpus) -> Case:
    training, batch_note = figure_training(request, name)
    scene = resolve.scenario(
        request.model,
        request.precision,
        training,
        request.activations,
        request.levers,
        request.cluster,
    )
    inputs = resolve.inputs_for(scene, request.cluster.world_size, request.cluster.gpus_per_node)
    drawn, left_out_note = drawn_arrangements(request)
    layout_figure = name in (FigureName.layout_memory, FigureName.layout_traffic)
    if not drawn and not layout_figure:  # every arrangement refuses the levers: nothing to draw, as /v1/plan refuses
        raise OutOfRange(f"no arrangement the figure draws takes the request's levers: {left_out_note}", "/levers")
    setups = {arrangement: resolve.setup_for(scene, COMPARED[arrangement]) for arrangement in drawn}
    results = {arrangement: evaluate(inputs, setup) for arrangement, setup in setups.items()}
    if layout_figure:  # a layout figure draws the request's own job (layout_plan), refused where its plan is
        return Case(request, scene, setups, results, batch_note, None)
    past = {arrangement: found for arrangement, result in results.items() if (found := past_int64(result))}
    if past and len(past) == len(results):  # no arrangement's plan answers: refused as /v1/plan refuses it
        arrangement, (pointer, value) = next(iter(past.items()))
        what = f"{arrangement.value}'s {pointer.lstrip('/')} (the job over data parallelism)"
        raise AnswerOutOfRange(too_large_words(what, value))
    if past:  # those arrangements' plans are too large to answer: drawn without them, as a refused lever's are
        for arrangement in past:
            del setups[arrangement], results[arrangement]
        names = ", ".join(arrangement.value for arrangement in past)
        note = f"{names} arrangements left out: their plans hold an integer past what a 64-bit client reads"
        left_out_note = "; ".join(n for n in (left_out_note, note) if n)
    counts, counts_note = curve_counts(request, batch_note is None) if name is FigureName.memory_vs_gpus else ((), None)
    left_out_note = "; ".join(n for n in (left_out_note, counts_note) if n) or None
    return Case(request, scene, setups, results, batch_note, left_out_note, counts)


def curve_counts(request: FigureRequest, batch_splits: bool = True) -> tuple[tuple[int, ...], str | None]:
    """The memory curve's GPU counts, powers of two up to max_gpus, less those /v1/plan refuses the global batch
    over (service.answers.fit.DataBatch: the counts /v1/fit tabulates), and a note naming the ones left out.
    ``batch_splits`` False: the batch does not split at the chosen N either, and every replica runs the job's own
    micro-batches (figure_training's note): every count is drawn so."""
    g = request.cluster.gpus_per_node
    counts = gpu_count_grid(GpuCountGrid.powers_of_two, g, request.max_gpus, MAX_CURVE_POINTS)
    if not batch_splits:
        return tuple(counts), None
    allowed = DataBatch(request.training, g).allowed(counts)
    # one GPU always takes the batch here: figure_training refuses a micro-batch that does not divide it
    assert allowed, counts
    left_out = [n for n in counts if n not in allowed]
    note = f"GPU counts the global batch does not split over left out: {', '.join(map(str, left_out))}"
    return tuple(allowed), note if left_out else None


def past_int64(result: Evaluation) -> tuple[str, int] | None:
    """The first of an evaluation's drawn bytes and tokens past the signed 64-bit range (its /v1/plan answer would
    hold it, and the memory curve's arrays cannot), with its name; None when all are within it."""
    counts = {
        "per_gpu_bytes": result.per_gpu_bytes,
        "model_state_bytes": result.model_state_bytes,
        "activations_bytes": result.activations_bytes,
        "host_bytes": result.host_bytes,
        "tokens_per_step": result.tokens_per_step,
    }
    return outside_int64({name: int(value) for name, value in counts.items()})


def too_large_words(what: str, value: int) -> str:
    return (
        f"{what} would be {value:,}, past what a 64-bit client reads ({INT64_MAX:,}), as its /v1/plan answer would: "
        "the request is too large to draw (a smaller model, sequence, batch or fewer micro-batches)"
    )


def drawn_arrangements(request: FigureRequest) -> tuple[list[ArrangementName], str | None]:
    """The arrangements the four arrangement figures draw, each the /v1/plan of the request's job over data
    parallelism under it: those of DRAWN_ARRANGEMENTS the plan takes with the request's levers
    (service.answers.refusals; ZeRO-3 takes every lever), and a note naming the others and why."""
    drawn: list[ArrangementName] = []
    left_out: dict[str, list[str]] = {}
    for arrangement in DRAWN_ARRANGEMENTS:
        refused = plan_refusals(arrangement, request.levers, request.precision, DATA_PARALLEL)
        if refused:
            left_out.setdefault(refused[0], []).append(arrangement.value)
        else:
            drawn.append(arrangement)
    return drawn, "; ".join(left_out_words(left_out, "arrangements")) or None


def card_label(case: Case) -> str:
    """'seed-80gb: 80 GB = 74.5 GiB' (the card named, in both units), and its usable part when less."""
    card, usable = case.scene.card_bytes, case.scene.usable_bytes
    name = case.request.cluster.gpu.value if case.request.cluster.gpu else f"{card:,} B"
    label = f"{name}: {card / GB_BYTES:.4g} GB = {card / GIB_BYTES:.1f} GiB"
    return label if usable == card else f"{label}, {usable / GIB_BYTES:.1f} GiB usable"


def draw_memory_vs_gpus(ax: Axes, case: Case) -> None:
    """Per-GPU bytes over powers of two, each arrangement's replicated floor dashed, the card solid."""
    counts = list(case.curve_counts)
    at_chosen_n = resolve.inputs_for(case.scene, case.n, case.g)
    inputs = replace(at_chosen_n, world_size=np.asarray(counts, dtype=np.int64))
    for name, setup in case.setups.items():
        curve = evaluate(inputs, setup)
        floor = int(case.results[name].replicated_floor_bytes)
        per_gpu = np.broadcast_to(np.asarray(curve.per_gpu_bytes), len(counts))  # DP's does not vary with N
        ax.plot(counts, per_gpu / GIB_BYTES, marker="o", color=COLOURS[name], label=LABELS[name])
        ax.axhline(
            floor / GIB_BYTES,
            linestyle="--",
            color=COLOURS[name],
            label=f"{LABELS[name]} replicated floor ({floor / GIB_BYTES:.1f} GiB)",
        )
    ax.axhline(case.scene.usable_bytes / GIB_BYTES, color="black", linewidth=2, label=f"card {card_label(case)}")
    if counts[0] <= case.n <= counts[-1]:
        ax.axvline(case.n, color="grey", linestyle=":", label=f"chosen N = {case.n}")
    ax.set_xscale("log", base=2)
    room = int(case.request.width_px * AXES_SHARE) // PX_PER_TICK_LABEL
    stride = -(-len(counts) // max(2, room))  # ceil: every stride-th count labelled, so labels never overlap
    ax.set_xticks(counts, labels=[str(c) if i % stride == 0 else "" for i, c in enumerate(counts)])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(bottom=0)
    ax.set_xlabel("GPUs N (data-parallel world size, log2 scale)")
    ax.set_ylabel("memory per GPU (GiB = 2^30 bytes)")
    ax.set_title("Per-GPU memory against GPU count")
    _legend_outside(ax)


def draw_bytes_per_weight(ax: Axes, case: Case) -> None:
    """Stacked bytes per weight on each GPU, state class by state class, at the chosen N."""
    names = list(case.results)
    x = np.arange(len(names))
    bottom = np.zeros(len(names))
    segments = {STATE_LABELS[state]: [case.results[a].state_bytes.get(state, 0) for a in names] for state in StateClass}
    segments["activations (per GPU, / P)"] = [case.results[a].activations_bytes for a in names]
    colours = matplotlib.colormaps["Set2"]
    for i, (label, values) in enumerate(segments.items()):
        per_weight = np.asarray([int(v) for v in values], dtype=np.float64) / case.p
        if per_weight.any():
            ax.bar(x, per_weight, bottom=bottom, color=colours(i), edgecolor="white", label=label)
            bottom += per_weight
    for i, name in enumerate(names):
        per_gpu = int(case.results[name].per_gpu_bytes)
        _label_above(ax, x[i], bottom[i], f"{per_gpu / case.p:.2f} B/weight\n{per_gpu / GIB_BYTES:.1f} GiB")
    card = case.scene.usable_bytes
    ax.axhline(
        card / case.p, color="black", linewidth=2, label=f"card {card_label(case)} = {card / case.p:.2f} B/weight"
    )
    ax.set_xticks(x, labels=_arrangement_ticks(case))
    ax.set_ylim(0, max(bottom.max(), card / case.p) * 1.18)
    ax.set_xlabel(f"arrangement at N = {case.n} GPUs")
    ax.set_ylabel("bytes per weight on each GPU (B = per-GPU bytes / P)")
    ax.set_title(f"Bytes per weight by state class at N = {case.n}")
    _legend_outside(ax)


def collective_split(case: Case, name: ArrangementName) -> dict[CollectiveName, int]:
    """Bytes each GPU sends per step in each collective (ring cost), summed over its calls."""
    setup = case.setups[name]
    split = bytes_sent_by_collective(case.p, case.n, setup.precision, setup.sharding, setup.micro_batches, case.g)
    return {collective: int(split.get(collective, 0)) for collective in COLLECTIVE_ORDER}


def draw_traffic(ax: Axes, case: Case) -> None:
    """Bytes sent per GPU per step by collective; measured bars, hatched, beside the formula's."""
    names = list(case.results)
    measured = {(m.arrangement, m.collective): m.bytes_per_gpu for m in case.request.measured or []}
    drawn = [a for a in names if any(key[0] is a for key in measured)]
    width = 0.38 if drawn else 0.6
    for i, name in enumerate(names):
        offset = -width / 2 if drawn else 0.0
        split = collective_split(case, name)
        volume = volume_in_p(case.setups[name].precision, case.setups[name].sharding, case.setups[name].micro_batches)
        _stack(ax, i + offset, width, split, "", f"{volume:g}P")
        if name in drawn:
            split = {c: measured.get((name, c), 0) for c in COLLECTIVE_ORDER}
            _stack(ax, i + width / 2, width, split, "//", "measured")
    handles: list[Patch] = [Patch(color=COLLECTIVE_COLOURS[c], label=c.value) for c in COLLECTIVE_ORDER]
    if drawn:
        handles += [
            Patch(facecolor="white", edgecolor="black", label="formula (ring cost)"),
            Patch(facecolor="white", edgecolor="black", hatch="//", label="measured"),
        ]
    ax.set_xticks(np.arange(len(names)), labels=_arrangement_ticks(case))
    ax.set_ylim(top=ax.get_ylim()[1] * 1.15)
    ax.set_xlabel(f"arrangement at N = {case.n} GPUs, {case.g} per node")
    ax.set_ylabel("bytes sent per GPU per step (GB = 1e9 bytes)")
    ax.set_title("Traffic per GPU per optimizer step, by collective")
    _legend_outside(ax, handles)


def _stack(ax: Axes, x: float, width: float, split: dict[CollectiveName, int], hatch: str, note: str) -> None:
    bottom = 0.0
    for collective in COLLECTIVE_ORDER:
        height = split[collective] / GB_BYTES
        if height:
            ax.bar(
                x,
                height,
                width,
                bottom=bottom,
                color=COLLECTIVE_COLOURS[collective],
                hatch=hatch,
                edgecolor="black",
                linewidth=0.5,
            )
            bottom += height
    _label_above(ax, x, bottom, f"{bottom:.1f} GB\n{note}")


def draw_step_time(ax: Axes, case: Case) -> None:
    """The terms of the step, stacked, at the chosen N: compute, the slowdown overlap costs it, exposed
    communication, the optimizer step and offload (their sum is the step, Time.step_s)."""
    names = list(case.results)
    x = np.arange(len(names))
    parts = {
        "compute": [r.compute_s for r in case.results.values()],
        "overlap slowdown (compute beside communication)": [r.overlap_slowdown_s for r in case.results.values()],
        "exposed communication": [r.exposed_communication_s for r in case.results.values()],
        "optimizer step": [r.optimizer_s for r in case.results.values()],
        "offload (host link, not overlapped)": [r.offload_s for r in case.results.values()],
    }
    bottom = np.zeros(len(names))
    colours = ("tab:gray", "silver", "tab:red", "tab:olive", "tab:brown")
    for (label, values), colour in zip(parts.items(), colours, strict=True):
        seconds = np.asarray(values, dtype=np.float64)
        ax.bar(x, seconds, bottom=bottom, color=colour, label=label)
        bottom += seconds
    for i, result in enumerate(case.results.values()):
        _label_above(ax, x[i], bottom[i], f"{float(result.step_s):.3g} s")
    ax.set_xticks(x, labels=_arrangement_ticks(case))
    ax.set_ylim(0, bottom.max() * 1.15 or 1.0)
    ax.set_xlabel(f"arrangement at N = {case.n} GPUs")
    ax.set_ylabel("seconds per optimizer step (s)")
    setup = next(iter(case.setups.values()))
    basis = "the efficiency model" if setup.utilisation is None else f"utilisation {setup.utilisation:g}"
    ax.set_title(f"Step time at {basis} of {setup.peak_flops_per_s / 1e12:g} TFLOP/s peak")
    _legend_outside(ax)


def plan_body(request: FigureRequest) -> dict[str, Any]:
    """The /v1/plan request a figure request stands for: its own arrangement, else layout_arrangement."""
    body = as_request_json(request, exclude=FIGURE_ONLY_FIELDS, exclude_unset=True)
    body.pop("layout_arrangement", None)
    if "arrangement" not in body and "sharding" not in body:
        body["arrangement"] = request.layout_arrangement.value
    return body


def figure_training(request: FigureRequest, name: FigureName) -> tuple[Training | None, str | None]:
    """The training a figure's scene is resolved with, and a note when it is not the request's batch. A global
    batch is resolved as /v1/plan resolves it: by the layout plan for the layout figures; over data parallelism
    at the chosen N for the four others, which hold the global batch when it splits into whole micro-batches
    over N replicas, and otherwise each replica's micro-batches as the job's own plan derives them (a note
    says so: a search row on a layout often has a batch that N replicas of micro-batch b cannot share)."""
    training = request.training
    if training is None or training.global_batch_size is None:
        return training, None
    if name in (FigureName.layout_memory, FigureName.layout_traffic):
        return training.model_copy(update={"global_batch_size": None}), None
    try:
        return layout_of(_job(request, Parallelism())).training, None
    except InvalidLayout:
        own = layout_of(_job(request, request.parallelism)).training
        assert own is not None
        b, m, n = training.micro_batch_size, own.gradient_accumulation_steps, request.cluster.world_size
        note = (
            f"global batch {training.global_batch_size:,} does not split into micro-batches of {b} over {n:,} "
            f"data-parallel GPUs: each runs the job's own {m} micro-batches"
        )
        return own, note


def _job(request: FigureRequest, parallelism: Parallelism) -> PlanRequest:
    """The figure's job as a /v1/plan request on ``parallelism``, built from its validated fields (not validated
    again: a batch is all it is read for, whichever arrangements the levers leave the four figures to draw)."""
    fields = {name: getattr(request, name) for name in PlanRequest.model_fields if name in type(request).model_fields}
    arrangement = request.arrangement or request.layout_arrangement
    return PlanRequest.model_construct(**fields | {"arrangement": arrangement, "parallelism": parallelism})


def layout_plan(request: FigureRequest) -> PlanResponse:
    """The /v1/plan answer for the figure request's arrangement and layout."""
    from service.answers.plan import plan

    try:
        job = PlanRequest.model_validate(plan_body(request))
    except ValidationError as refused:  # a lever the arrangement planned cannot take: the caller's to change
        named = "arrangement" if request.arrangement is not None else "layout_arrangement"
        arrangement = plan_body(request).get("arrangement", "the sharding flags")
        raise InvalidLayout(
            [
                (
                    f"the layout figures plan the job under {named} {arrangement}: "
                    f"{error['msg'].removeprefix('Value error, ')}",
                    "/" + "/".join(str(part) for part in error["loc"]),
                )
                for error in refused.errors()
            ]
        ) from None
    answer = plan(job)
    found = outside_int64(answer.model_dump(mode="json"))
    if found is not None:  # /v1/plan refuses the job as too large to answer (api.encoding.within_int64)
        raise AnswerOutOfRange(too_large_words(f"the plan's {found[0]}", found[1]))
    return answer


FIGURE_ONLY_FIELDS = {"max_gpus", "measured", "width_px", "height_px"}
STAGE_PARTS = (
    ("model states", "model_state_bytes", "tab:blue"),
    ("working set", "working_set_bytes", "tab:olive"),
    ("activations", "activations_bytes", "tab:orange"),
)


def draw_layout_memory(ax: Axes, case: Case) -> None:
    """Bytes each GPU of each pipeline stage holds, stacked, against the usable bytes of the card."""
    answer = layout_plan(case.request)
    stages = answer.memory.stages
    x = np.arange(len(stages))
    bottom = np.zeros(len(stages))
    for label, field, colour in STAGE_PARTS:
        values = np.asarray([getattr(stage, field) / GIB_BYTES for stage in stages])
        ax.bar(x, values, bottom=bottom, color=colour, label=label)
        bottom += values
    usable = answer.memory.usable_bytes / GIB_BYTES
    ax.axhline(usable, color="black", linestyle="--", linewidth=1, label=f"usable {usable:.1f} GiB")
    ticks = [f"stage {s.stage}\n{s.layers} layers\n{'fits' if s.fits else 'does not fit'}" for s in stages]
    step = max(1, len(stages) // 16)
    ax.set_xticks(x[::step], labels=ticks[::step])
    ax.set_ylim(0, max(bottom.max(), usable) * 1.15)
    ax.set_ylabel("bytes per GPU (GiB = 2^30 bytes)")
    ax.set_xlabel(_layout_words(answer))
    ax.set_title(
        f"Memory per GPU of each pipeline stage, {LABELS.get(answer.arrangement.name, answer.arrangement.name)}"
    )
    _legend_outside(ax)


GROUP_COLOURS = {"all_reduce": "tab:purple", "reduce_scatter": "tab:cyan", "all_gather": "tab:olive"}
GROUP_COLOURS |= {"all_to_all": "tab:pink", "send_recv": "tab:gray"}


def draw_layout_traffic(ax: Axes, case: Case) -> None:
    """Bytes each GPU of the busiest stage sends per step, by group and collective."""
    answer = layout_plan(case.request)
    groups = [g.group for g in answer.parallelism.groups]
    sent: dict[tuple[str, str], int] = {}
    for c in answer.traffic.collectives:
        key = (c.group.value, c.name.value)
        sent[key] = sent.get(key, 0) + c.count_per_step * c.bytes_sent_per_gpu
    x = np.arange(len(groups))
    bottom = np.zeros(len(groups))
    for name, colour in GROUP_COLOURS.items():
        values = np.asarray([sent.get((g.value, name), 0) / GB_BYTES for g in groups])
        if values.any():
            ax.bar(x, values, bottom=bottom, color=colour, label=name)
            bottom += values
    links = {c.group.value: c.link.value.replace("_", "-") for c in answer.traffic.collectives}
    for i, group in enumerate(groups):
        _label_above(ax, x[i], bottom[i], f"{bottom[i]:.3g} GB\n{links.get(group.value, 'none')}")
    ax.set_xticks(x, labels=[f"{g.group.value}\n{g.ranks} GPUs" for g in answer.parallelism.groups])
    ax.set_ylim(0, (bottom.max() or 1.0) * 1.2)
    ax.set_ylabel("bytes sent per GPU per step (GB = 1e9 bytes)")
    ax.set_xlabel(_layout_words(answer))
    ax.set_title("Traffic per GPU per optimizer step, by group")
    _legend_outside(ax)


def _layout_words(answer: PlanResponse) -> str:
    par = answer.parallelism
    return (
        f"tensor {par.tensor} x context {par.context} x data {par.data} x pipeline {par.pipeline}"
        f"{', expert ' + str(par.expert) if par.expert > 1 else ''}"
        f"{', expert tensor ' + str(par.expert_tensor) if par.expert_tensor != par.tensor else ''} "
        f"({par.pipeline_schedule.value}, "
        f"{par.micro_batches} micro-batches)"
    )


def _arrangement_ticks(case: Case) -> list[str]:
    # one word a line: five arrangements side by side on a narrow figure never run into each other
    return [
        f"{LABELS[name].replace(' ', chr(10))}\n{'fits' if bool(r.fits) else 'does not fit'}"
        for name, r in case.results.items()
    ]


def _label_above(ax: Axes, x: float, y: float, text: str) -> None:
    ax.annotate(text, (x, y), ha="center", va="bottom", fontsize="small", xytext=(0, 2), textcoords="offset points")


def _legend_outside(ax: Axes, handles: list[Patch] | None = None) -> None:
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")


DRAWERS: dict[FigureName, Callable[[Axes, Case], None]] = {
    FigureName.memory_vs_gpus: draw_memory_vs_gpus,
    FigureName.bytes_per_weight: draw_bytes_per_weight,
    FigureName.traffic: draw_traffic,
    FigureName.step_time: draw_step_time,
    FigureName.layout_memory: draw_layout_memory,
    FigureName.layout_traffic: draw_layout_traffic,
}


def subtitle(case: Case) -> str:
    precision = case.request.precision
    precision_name = precision.value if isinstance(precision, str) else "custom precision"
    words = f"P = {case.p:,} weights, {precision_name}, N = {case.n} ({case.g} GPUs per node), card {card_label(case)}"
    return "; ".join(note for note in (words, case.batch_note, case.left_out_note) if note is not None)


def draw(name: FigureName, request: FigureRequest, fmt: FigureFormat) -> bytes:
    """The figure as PNG or SVG bytes, width_px x height_px (PNG exactly; SVG at 100 px per inch)."""
    case = resolve_case(request, name)
    # Agg truncates figsize x dpi to whole pixels: half a pixel keeps float error from losing one.
    size = ((request.width_px + 0.5) / DPI, (request.height_px + 0.5) / DPI)
    figure = Figure(figsize=size, dpi=DPI, layout="constrained")
    DRAWERS[name](figure.add_subplot(), case)
    figure.suptitle(textwrap.fill(subtitle(case), width=max(40, request.width_px // 8)), fontsize="small")
    return render(figure, fmt)


def render(figure: Figure, fmt: FigureFormat) -> bytes:
    buffer = BytesIO()
    with _SAVE_LOCK, matplotlib.rc_context({"svg.hashsalt": SVG_SALT, "svg.fonttype": "none"}):
        if fmt is FigureFormat.svg:
            figure.savefig(buffer, format="svg", metadata={"Date": None})
        else:
            figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()
