"""The parts of a plan's answer in words and numbers: the resolved arrangement, memory (model states,
working set, activations), traffic and time, written once for the data-parallel plan (service.answers.plan)
and the plan on a mesh (service.answers.layout_plan)."""

from functools import lru_cache
from typing import Any

from models.enums import ActivationModel, CrossEntropy, Link, Recompute, StateClass, StateLocation
from models.parallelism import ParallelGroup
from models.plan import (
    FrameworkEstimate,
    PlanRequest,
    ResolvedArrangement,
)
from models.training import Training
from service.engine.evaluation import Evaluation
from service.engine.setup import Setup
from service.inputs import resolve
from service.inputs.arrangements import Sharding, canonical_name
from service.memory.activations import TransformerShape, transformer_activation_components
from service.memory.model_states import StateBytes as StateRow
from service.memory.model_states import state_arithmetic
from service.memory.reserve import CardMemory
from service.memory.working_set import WorkingSetRow
from service.mesh.pipeline import SCHEDULE_SOURCES
from service.numeric import GB_BYTES, GIB_BYTES, group_digits
from service.time.budget import TokenBudget, tokens_per_second_per_gpu
from service.time.communication import CollectivePrice, flat_link, hierarchical_link_bytes, price_fields
from service.time.goodput import resilience_of, staged_rows
from service.time.run_report import RunInputs, run_fields
from service.time.traffic import (
    StepCollective,
    collective_buffer_bytes,
    collective_buffer_elements,
    collective_hops,
    collective_ranks,
)


# A pure function of a frozen value; a response only reads the arrangement it is given (as with echo).
@lru_cache(maxsize=256)
def resolved_arrangement(sharding: Sharding) -> ResolvedArrangement:
    return ResolvedArrangement(
        name=canonical_name(sharding),
        shard_optimizer=sharding.shard_optimizer,
        shard_gradients=sharding.shard_gradients,
        shard_parameters=sharding.shard_parameters,
        hybrid=sharding.hybrid,
    )


def memory_report(
    p: int,
    n: int,
    g: int,
    scene: resolve.Scenario,
    setup: Setup,
    result: Evaluation,
    estimate: FrameworkEstimate | None = None,
) -> dict[str, Any]:
    """Memory's fields of a data-parallel plan."""
    figures = memory_figures(result, setup, scene.card, p)
    top = result.top
    breakdown = state_rows_report(p, top.rows)
    if top.working:  # none without the model's units (most plans)
        breakdown += working_rows_report(top.working)
    per_gpu, model_states = figures["per_gpu_bytes"], figures["model_state_bytes"]
    working_set, activations = figures["working_set_bytes"], figures["activations_bytes"]
    return {
        **figures,
        "activations_counted": setup.activations.model is not ActivationModel.none,
        "breakdown": breakdown,
        "activations": activation_report(setup, result, scene.training),
        "stages": [
            {
                "stage": 0,
                "layers": scene.model.architecture.layers if scene.model.architecture is not None else 0,
                "parameters_per_gpu": p,
                "model_state_bytes": model_states,
                "working_set_bytes": working_set,
                "activations_bytes": activations,
                "in_flight_micro_batches": 1.0,
                "per_gpu_bytes": per_gpu,
                "fits": bool(top.fits),
            }
        ],
        "framework_estimate": estimate,
    }


def memory_figures(result: Evaluation, setup: Setup, card: CardMemory, parameters_per_gpu: int) -> dict[str, Any]:
    """Memory's fields from per_gpu_bytes to headroom_bytes, in its order, of the busiest stage, which holds
    ``parameters_per_gpu`` weights on each GPU (a data-parallel plan's every weight): what a data-parallel plan and a
    plan on a mesh report alike."""
    top = result.top
    per_gpu = int(top.per_gpu_bytes)
    model_states = int(top.model_state_bytes)
    replicated, sharded = setup.bytes_per_weight
    return {
        "per_gpu_bytes": per_gpu,
        "model_state_bytes": model_states,
        "working_set_bytes": int(top.working_set_bytes),
        "activations_bytes": int(top.activations_bytes),
        "host_bytes": int(result.host_bytes),
        "host_memory_bytes": setup.host_memory_bytes,
        "host_fits": bool(result.host_fits),
        "per_gpu_gib": per_gpu / GIB_BYTES,
        "per_gpu_gb": per_gpu / GB_BYTES,
        "bytes_per_weight": model_states / parameters_per_gpu,
        "replicated_bytes_per_weight": float(replicated),
        "sharded_bytes_per_weight": float(sharded),
        "replicated_floor_bytes": int(result.replicated_floor_bytes),
        "card_bytes": card.card_bytes,
        "card_gib": card.card_bytes / GIB_BYTES,
        "reserve_bytes": card.reserve_bytes,
        "fragmentation_bytes": card.fragmentation_bytes,
        "usable_bytes": card.usable_bytes,
        "usable_arithmetic": card.usable_arithmetic,
        "fits": bool(result.fits),
        "headroom_bytes": int(result.headroom_bytes),
    }


def state_rows_report(p: int, rows: list[StateRow], label: str = "") -> list[dict[str, Any]]:
    """The breakdown's rows (StateBytes fields) of ``p`` weights with their arithmetic, ``label`` before it (a
    layout's stage and part); rows alike in dtype, sharding and copies (the fp32 master weights and both Adam
    moments) share one computation of it."""
    words: dict[tuple[object, ...], str] = {}
    report = []
    for row in rows:
        spec = row.spec
        key = (row.degree, spec.dtype, row.sharded, spec.copies)
        arithmetic = words.get(key)
        if arithmetic is None:
            arithmetic = words[key] = state_arithmetic(
                p, int(row.degree), spec.dtype, row.sharded, spec.copies, int(row.bytes)
            )
        report.append(
            {
                "state": spec.state,
                "dtype": spec.dtype,
                "bytes": int(row.bytes),
                "sharded": row.sharded,
                "location": row.location,
                "arithmetic": label + arithmetic + where_words(spec.state, row.location),
            }
        )
    return report


def working_rows_report(rows: list[WorkingSetRow]) -> list[dict[str, Any]]:
    """The working set's rows as the breakdown lists them (StateBytes fields): unsharded, on the GPU."""
    return [
        {
            "state": row.state,
            "dtype": row.dtype,
            "bytes": row.bytes,
            "sharded": False,
            "location": StateLocation.gpu,
            "arithmetic": row.arithmetic,
        }
        for row in rows
    ]


@lru_cache(maxsize=256)  # a pure function of two closed enums, asked for every row of every breakdown
def where_words(state: StateClass, location: StateLocation) -> str:
    if location is StateLocation.host:
        return " in host memory"
    if state is StateClass.compute_parameters:
        return ", the unsharded copy forward and backward read"
    return ""


KORTHIKANTI = 'Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", table 2'


def activation_report(setup: Setup, result: Evaluation, training: Training) -> dict[str, Any]:
    """ActivationMemory's fields, of the training's micro-batch size b and sequence length s."""
    act = setup.activations
    total = int(result.activations_bytes)
    if act.model is ActivationModel.none or act.shape is None:
        return {
            "model": ActivationModel.none,
            "bytes": 0,
            "fudge": None,
            "components": [],
            "source": "model states only: no activations counted",
        }
    shape = act.shape
    b, s = training.micro_batch_size, training.sequence_length
    if act.model is ActivationModel.fudge:
        words = (
            f"{b} x {s} x {shape.hidden_size} x {shape.layers} layers x {act.bytes_per_value} B x fudge "
            f"{act.fudge:g} = {group_digits(total)} B"
        )
        return {
            "model": act.model,
            "bytes": total,
            "fudge": act.fudge,
            "components": [
                {"name": "batch x seq x width x layers x bytes x fudge", "bytes": total, "arithmetic": words}
            ],
            "source": "The textbook line: batch x seq x width x layers x bytes x a fudge labelled as a fudge; "
            "Korthikanti et al. 2022, section 4.1, give 34 s b h per layer without attention scores (fudge 17 at "
            "2 bytes)",
        }
    components = [
        {"name": name, "bytes": value, "arithmetic": words}
        for name, value, words in component_words(
            b,
            s,
            shape,
            act.flash_attention,
            setup.recompute,
            act.cross_entropy,
            bool(setup.sharding.shard_parameters),  # as torchtitan runs it (service.engine.layout.torch_native)
        )
    ]
    flash = "flash attention (no 5as/h term)" if act.flash_attention else "attention scores kept (5as/h term)"
    return {
        "model": act.model,
        "bytes": total,
        "fudge": None,
        "components": components,
        "source": f"{KORTHIKANTI}; recompute {setup.recompute.value}; {flash}; 16-bit activations",
    }


@lru_cache(maxsize=1024)  # a pure function of frozen values: a preset at one shape is worded once
def component_words(
    b: int,
    s: int,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    cross_entropy: CrossEntropy = CrossEntropy.unfused,
    torch_native: bool = False,
) -> tuple[tuple[str, int, str], ...]:
    """(name, bytes, arithmetic) of each activation component of the transformer model."""
    parts = transformer_activation_components(
        b, s, shape, flash_attention, recompute, cross_entropy, torch_native=torch_native
    )
    symbols = f"s={s}, b={b}, h={shape.hidden_size}, a={shape.attention_heads}, L={shape.layers}, V={shape.vocab_size}"
    if shape.latent_size:
        symbols += f", MoE latent l={shape.latent_size}"
    return tuple(
        (name, int(value), f"{name} with {symbols} = {group_digits(int(value))} B") for name, value in parts.items()
    )


# What a collective's record shows of its price without one (price_fields' keys).
UNPRICED: dict[str, Any] = {"calls": None, "algorithm": None, "latency_s": None, "words": ""}

# call_record's figures: buffer bytes, bytes sent, hops, ranks, link, NCCL's calls, algorithm and latency seconds,
# intra- and inter-node bytes, and the arithmetic's words before and after the count per step.
CallFigures = tuple[int, int, int, int, Link | None, Any, Any, Any, int, int, str, str]


def call_record(c: StepCollective, sent: int, p: int, n: int, g: int, price: CollectivePrice | None) -> CallFigures:
    """What the records of one cost_key's collectives share (price_collectives prices them alike): the fields of
    one call (buffer and bytes sent, the ring's hops, ranks and link, the price's calls, algorithm and latency);
    the call's intra- and inter-node bytes on the hierarchical schedule; and its arithmetic's words before and
    after the collective's count per step."""
    hops, ranks, link = ring_figures(c, n, g)
    chunk = sent // hops if hops else 0
    intra, inter = hierarchical_link_bytes(c, collective_buffer_elements(c, p, g), n, g, sent)
    if price is None:
        nccl, buffer = UNPRICED, collective_buffer_bytes(p, c, g)
    else:
        nccl, buffer = price_fields(price), price.buffer_bytes
    before = f"{hops} hops x {chunk:,} B per chunk (ceil of the buffer / {ranks} ranks) = {sent:,} B per call, x "
    return (
        int(buffer),
        sent,
        hops,
        ranks,
        link,
        nccl["calls"],
        nccl["algorithm"],
        nccl["latency_s"],
        int(intra),
        int(inter),
        before,
        f" per step{nccl['words']}",
    )


@lru_cache(maxsize=4096)  # a pure function of frozen values: what a ring is depends on the GPUs, not the model
def ring_figures(c: StepCollective, n: int, g: int) -> tuple[int, int, Link | None]:
    """A call's ring: its hops, ranks and the slowest link it crosses."""
    return int(collective_hops(n, c, g)), int(collective_ranks(c, n, g)), flat_link(c, n, g)


def traffic_report(p: int, n: int, g: int, setup: Setup, result: Evaluation) -> dict[str, Any]:
    """Traffic's fields: each collective of the evaluation with its arithmetic (a record in the order Collective
    declares its fields); bytes and seconds as the evaluation summed them."""
    prices: list[CollectivePrice | None] = list(result.call_prices) or [None] * len(result.data_calls)
    collectives, intra_total, inter_total = data_collective_records(
        result.data_calls, result.call_bytes_sent, result.call_flat_s, prices, p, n, g
    )
    return traffic_fields(setup, result, collectives, intra_total, inter_total)


def traffic_fields(
    setup: Setup, result: Evaluation, collectives: list[Any], intra_bytes: int, inter_bytes: int
) -> dict[str, Any]:
    """Traffic's fields, in its order, of a data-parallel plan or a plan on a mesh: its ``collectives``' records and
    their intra- and inter-node bytes a step, the bytes every call of the step sends (Evaluation.bytes_sent_per_gpu),
    the data group's volume in model-sized buffers and the host link's bytes."""
    return {
        "collectives": collectives,
        "bytes_sent_per_gpu": int(result.bytes_sent_per_gpu),
        "volume_in_p": setup.step_volume_in_p(result.micro_batches, result.mesh.pipeline > 1),
        "intra_node_bytes_per_gpu": intra_bytes,
        "inter_node_bytes_per_gpu": inter_bytes,
        "pcie_bytes_per_gpu": int(result.pcie_bytes_per_gpu),
    }


def data_collective_records(
    calls: list[StepCollective],
    sent_per_call: list[Any],
    seconds_per_call: list[Any],
    prices: list[CollectivePrice | None],
    p: int,
    n: int,
    g: int,
    purpose: str = "",
) -> tuple[list[dict[str, Any]], int, int]:
    """The records of a data-parallel group's collectives (Collective's fields, in its order), ``p`` weights over
    ``n`` ranks, ``g`` of them a node, each with its arithmetic and ``purpose`` before its own; and the group's intra-
    and inter-node bytes a step on the hierarchical schedule."""
    collectives: list[dict[str, Any]] = []
    intra_total = inter_total = 0
    shared: dict[tuple[object, ...], CallFigures] = {}  # call_record's, by cost_key
    for c, call_sent, seconds, price in zip(calls, sent_per_call, seconds_per_call, prices, strict=True):
        figures = shared.get(c.cost_key)
        if figures is None:
            figures = shared[c.cost_key] = call_record(c, int(call_sent), p, n, g, price)
        buffer, sent, hops, ranks, link, calls_made, algorithm, latency_s, intra, inter, before, after = figures
        count = c.count_per_step
        intra_total += count * intra
        inter_total += count * inter
        collectives.append(
            {
                "name": c.name,
                "purpose": purpose + c.purpose if purpose else c.purpose,
                "dtype": c.dtype,
                "buffer_bytes": buffer,
                "bytes_sent_per_gpu": sent,
                "hops": hops,
                "ranks": ranks,
                "count_per_step": count,
                "link": link,
                "seconds": float(seconds),
                "overlaps_with": str(c.window),  # Window is a StrEnum: its value, without the enum's property
                "group": ParallelGroup.data,
                "arithmetic": f"{before}{count}{after}",
                "calls": calls_made,
                "algorithm": algorithm,
                "latency_s": latency_s,
            }
        )
    return collectives, intra_total, inter_total


def token_budget_of(request: PlanRequest) -> RunInputs:
    """The token budget (None without training.total_tokens) and the run's checkpoints and failures."""
    training, cluster = request.training, request.cluster
    resilience = resilience_of(training.checkpoint if training else None, cluster.failures, cluster.gpus_per_node)
    if training is None or training.total_tokens is None:
        return RunInputs(None, resilience)
    return RunInputs(TokenBudget(training.total_tokens, cluster.gpu_hour_price, cluster.currency), resilience)


def time_report(
    setup: Setup,
    result: Evaluation,
    world_size: int,
    gpus_per_node: int,
    parameter_count: int,
    run: RunInputs,
    notes: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Time's fields, in the order Time declares them, of a data-parallel plan or a plan on a mesh (its pipeline's
    bubble and model-parallel groups; ``notes``: what the layout adds to the time model's assumptions). An
    asynchronous checkpoint stalls for the stage that holds the most checkpointed states (staged_rows)."""
    assumptions = [*setup.time_assumptions, *notes]
    tokens_per_step, step_s = int(result.tokens_per_step), float(result.step_s)
    mesh, stages = result.mesh, result.stages
    if mesh.trivial:  # no pipeline and no model-parallel group: none of their seconds
        bubble_s, source, fraction, tensor_s, p2p_s, context_s, expert_s = 0.0, None, 0.0, 0.0, 0.0, 0.0, 0.0
    else:
        bubble, source = result.bubble_fraction, SCHEDULE_SOURCES[mesh.schedule] if mesh.pipeline > 1 else None
        bubble_s, fraction = float(result.pipeline_bubble_s), float(bubble / (1 + bubble))
        tensor_s, p2p_s = float(result.tensor_parallel_s), float(result.pipeline_p2p_s)
        context_s, expert_s = float(result.context_parallel_s), float(result.expert_parallel_s)
    if len(stages) == 1:
        staged = staged_rows(stages[0].rows + stages[0].expert_rows)
    else:
        staged = max(staged_rows(stage.rows + stage.expert_rows) for stage in stages)
    return {
        "tokens_per_step": tokens_per_step,
        "model_flops_per_step": float(result.model_flops),
        "hardware_flops_per_step": float(result.compute_flops),
        "compute_flops": float(result.compute_flops),
        "compute_s": float(result.compute_s),
        "communication_s": float(result.communication_s),
        "communication_flat_s": float(result.communication_flat_s),
        "communication_hierarchical_s": float(result.communication_s),
        "schedule": "flat",
        "exposed_communication_s": float(result.exposed_communication_s),
        "offload_transfer_s": float(result.offload_transfer_s),
        "cpu_optimizer_s": float(result.cpu_optimizer_s),
        "offload_s": float(result.offload_s),
        "pipeline_bubble_s": bubble_s,
        "schedule_source": source,
        "pipeline_bubble_fraction": fraction,
        "tensor_parallel_s": tensor_s,
        "pipeline_p2p_s": p2p_s,
        "context_parallel_s": context_s,
        "expert_parallel_s": expert_s,
        "optimizer_s": float(result.optimizer_s),
        "overlap_slowdown_s": float(result.overlap_slowdown_s),
        "step_s": step_s,
        "tokens_per_s_per_gpu": float(tokens_per_second_per_gpu(result.tokens_per_step, result.step_s, world_size)),
        **run_fields(
            run,
            setup.checkpoint_bytes(parameter_count),
            staged,
            setup.links.host_bytes_per_s,
            step_s,
            tokens_per_step,
            world_size,
            gpus_per_node,
        ),
        "tokens_per_s": float(result.tokens_per_s),
        "mfu": float(result.mfu),
        "hfu": float(result.hfu),
        "assumptions": assumptions,
    }
