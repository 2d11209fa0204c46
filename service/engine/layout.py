"""A layout's stages: what each stage's GPU holds on a mesh, and the stages one of which sets its pace.

The rank of each stage holds its share of the parameters (service.mesh.stages); the arrangement's
flags shard that share's model states over the data-parallel group x context, the experts' over
the expert-data-parallel group (service.mesh.degrees). Activations are the stage's micro-batches in flight
(service.mesh.pipeline) of Korthikanti et al.'s per-layer bytes with t, sequence parallelism and the
context's share of the sequence (service.memory.activations). Compute splits the model FLOPs (active
parameters for a mixture of experts) over stages by their layers (pacing_stages).

``evaluate_layout`` gives these stages to the one evaluation (service.engine.evaluation.evaluate_mesh), which a
data-parallel plan takes too (the mesh whose model-parallel degrees are 1, service.engine.data_parallel).
"""

from fractions import Fraction
from functools import lru_cache
from typing import Any

from service.engine.evaluation import Evaluation, MeshStages, PacingStage, StageEvaluation, evaluate_mesh
from service.engine.setup import Setup
from service.engine.step import Part, held
from service.inputs.architecture import (
    Architecture,
    active_parameter_count,
    attention_width,
    layer_parameters,
    moe_layer_parameters,
    norm_width,
    routed_expert_parameters,
)
from service.memory.activations import StageLayers, TensorSplit, stage_activation_components, transformer_shape
from service.memory.working_set import Units, working_set_rows
from service.mesh.degrees import Group, Mesh, run_micro_batches
from service.mesh.pipeline import (
    end_chunk_in_flight,
    output_stage,
    stage_in_flight,
    stage_layer_indices,
    v_shaped,
)
from service.mesh.stages import StageShare, embedding_split, is_moe_layer, layer_split, output_split, rank_parameters
from service.mesh.stages import stage_shares as shares_of
from service.numeric import group_digits


def layout_units(arch: Architecture, mesh: Mesh) -> Units:
    """FSDP units as one GPU holds them: a block's, the embedding's and the output layer's share."""
    t, e = mesh.tensor, mesh.expert
    kinds = {is_moe_layer(arch, i): i for i in range(arch.layers)}  # a layer's split depends on its kind alone
    blocks = {sum(rank_parameters(layer_split(arch, i), t, e, mesh.expert_tensor)) for i in kinds.values()}
    block = max(blocks)
    embedding = rank_parameters(embedding_split(arch, t), t, e)[0]
    output = rank_parameters(output_split(arch, t, mesh.pipeline), t, e)[0]
    pairs = [embedding + block, block + output] + ([2 * block] if arch.layers > 1 else [])
    words = (
        f"units per GPU: embedding {group_digits(embedding)}, block {group_digits(block)}, "
        f"output {group_digits(output)} parameters"
    )
    return Units(max(embedding, block, output), max(pairs), words)


def active_layer_parameters(arch: Architecture, index: int) -> int:
    if not is_moe_layer(arch, index):
        return layer_parameters(arch)
    moe = arch.moe
    assert moe is not None
    return moe_layer_parameters(arch) - (moe.experts - moe.top_k) * routed_expert_parameters(arch)


@lru_cache(maxsize=256)  # a pure function of a frozen architecture, read for every stage of every split
def dense_layer_parameters(arch: Architecture) -> int:
    return layer_parameters(arch)


def stage_flops_per_token(arch: Architecture, indices: list[int], last: bool, sequence_length: int) -> int:
    """6 x (the stage's active matmul parameters) + 12 x its layers x width x s (PaLM appendix B), exact.

    The output layer's matmul (and the final norm) belongs to the last stage; the input embedding is
    a lookup. Summed over the stages this is compute.model_flops_per_token of the whole model.
    """
    moe_layers = 0 if arch.moe is None else sum(1 for i in indices if is_moe_layer(arch, i))
    # every dense layer has the same active parameters, every MoE layer too: two values, not one per layer
    weights = (len(indices) - moe_layers) * dense_layer_parameters(arch)
    if moe_layers:
        weights += moe_layers * active_layer_parameters(arch, next(i for i in indices if is_moe_layer(arch, i)))
    if last:
        norm = norm_width(arch) * arch.hidden_size
        weights += arch.vocab_size * arch.hidden_size + norm
    return 6 * weights + 12 * len(indices) * attention_width(arch) * sequence_length


def stage_parts(mesh: Mesh, share: StageShare) -> list[Part]:
    """What a stage's rank holds, each part with the data-parallel group its states shard over: the dense share
    over d x c (the experts' too unless they shard apart), the experts' over the expert-data-parallel group."""
    apart = bool(mesh.experts_apart) and share.expert_parameters > 0
    dense = share.dense_parameters + (0 if apart else share.expert_parameters)
    parts = [Part(dense, mesh.data_context, mesh.members_per_node(Group.data))]
    if apart:
        parts.append(Part(share.expert_parameters, mesh.expert_data, mesh.expert_data_per_node))
    return parts


def torch_native(setup: Setup) -> bool:
    """Whether a stage runs as torchtitan runs it (service.memory.activations, ``torch_native``): parameters sharded,
    the FSDP2 convention that the plan already takes for FSDP with pipelining (working_set.pipelined_rows);
    Megatron-LM and DeepSpeed shard no more than the optimizer and gradients under tensor parallelism."""
    return bool(setup.sharding.shard_parameters)


def _end_flight(mesh: Mesh, share: StageShare, m: int, stage: int) -> Fraction:
    """Micro-batches held of the end chunk of ``stage`` (the embedding's on stage 0, the output layer's on the
    last: service.mesh.pipeline.end_chunk_in_flight); the stage's own count when it holds neither end."""
    if share.stage != stage or v_shaped(mesh.schedule, mesh.pipeline):
        return stage_in_flight(mesh.schedule, share.stage, mesh.pipeline, mesh.virtual_stages, m, share.chunk_layers)
    chunk = 0 if stage == 0 else mesh.virtual_stages - 1
    numerator, denominator = end_chunk_in_flight(mesh.schedule, stage, mesh.pipeline, mesh.virtual_stages, m, chunk)
    return Fraction(int(numerator), int(denominator))


def _stage(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    share: StageShare,
    m: int,
    b: int,
    s: int,
    counted: bool,
    units: Units | None,
) -> StageEvaluation:
    parts = stage_parts(mesh, share)
    states = held(parts, setup)
    rows = states.rows[0]
    expert_rows = states.rows[1] if len(parts) > 1 else []
    model_state, host = int(states.gpu_bytes), int(states.host_bytes)
    cpu = int(states.cpu_optimizer_bytes)
    pipelined = mesh.pipeline > 1  # FSDP with pipelining as torchtitan runs it (working_set.pipelined_rows)
    working = working_set_rows(
        share.parameters,
        setup.precision,
        setup.sharding,
        units,
        setup.bucket_bytes,
        setup.overlap,
        pipelined=pipelined,
        runs=mesh.runs,
    )
    run_m = run_micro_batches(m, mesh.runs, mesh.pipeline)  # what one run of the schedule holds and keeps
    flight = stage_in_flight(mesh.schedule, share.stage, mesh.pipeline, mesh.virtual_stages, run_m, share.chunk_layers)
    activations: dict[str, int] = {}
    if counted:
        layers = StageLayers(
            share.layers - share.moe_layers,
            share.moe_layers,
            share.first,
            share.last,
            flight,
            first_in_flight=_end_flight(mesh, share, run_m, 0),
            last_in_flight=_end_flight(mesh, share, run_m, mesh.pipeline - 1),
            micro_batches=run_m if pipelined else 0,
            chunks=max(1, len(share.chunk_layers)),
        )
        split = TensorSplit(mesh.tensor, mesh.sequence_parallel, mesh.context)
        act = setup.activations
        components = stage_activation_components(
            b,
            s,
            transformer_shape(arch),
            act.flash_attention,
            setup.recompute,
            layers,
            split,
            act.cross_entropy,
            torch_native=torch_native(setup),
        )
        activations = {name: int(value) for name, value in components.items()}
    working_bytes = sum(row.bytes for row in working)
    activation_bytes = sum(activations.values())
    per_gpu = model_state + working_bytes + activation_bytes
    return StageEvaluation(
        share=share,
        parts=parts,
        rows=rows,
        expert_rows=expert_rows,
        working=working,
        activations=activations,
        in_flight=flight,
        layers=share.layers,
        model_state_bytes=model_state,
        working_set_bytes=working_bytes,
        activations_bytes=activation_bytes,
        per_gpu_bytes=per_gpu,
        host_bytes=host,
        cpu_optimizer_bytes=cpu,
        fits=per_gpu <= setup.usable_bytes,
    )


def split_of(mesh: Mesh) -> dict[str, Any]:
    """The mesh's split of the layers, as stage_shares and stage_flops take it (pipeline.chunk_layers)."""
    return {
        "pipeline_layers": mesh.pipeline_layers,
        "embedding_layers": mesh.embedding_layers,
        "loss_layers": mesh.loss_layers,
        "v_shape": v_shaped(mesh.schedule, mesh.pipeline),
    }


def stage_flops(
    arch: Architecture,
    pipeline: int,
    virtual_stages: int,
    s: int,
    *,
    pipeline_layers: tuple[int, ...] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> tuple[list[list[int]], int, list[int]]:
    """(each stage's layer indices, the stage with the output layer, each stage's FLOPs a token): the model's FLOPs
    split over the stages by their layers (stage_flops_per_token). The output layer is on the last stage, or on
    stage 0 in ZB-V's V (``v_shape``)."""
    indices = stage_layer_indices(
        arch.layers, pipeline, virtual_stages, pipeline_layers, embedding_layers, loss_layers, v_shape
    )
    output = output_stage(v_shape, pipeline)
    return indices, output, [stage_flops_per_token(arch, idx, i == output, s) for i, idx in enumerate(indices)]


def pacing_stages(arch: Architecture, pipeline: int, virtual_stages: int, s: int, **split: Any) -> list[PacingStage]:
    """The stages one of which is the slowest, the one with the most FLOPs first, then the one with the output layer
    and, of the others, the one with the most layers (the most FLOPs among equals); ``split``: stage_flops' split of
    the layers. A stage's compute is its share of the FLOPs at a given utilisation, else its layers and the output
    layer timed by the efficiency model (service.engine.step.stage_compute): both grow with the layers, and the
    output layer's time need not be a layer's, so these three hold the slowest stage by either measure. The
    pipeline runs at the pace of its slowest stage (Narayanan et al. 2021, section 2.2), which the caller takes by
    that compute."""
    indices, output, per_stage = stage_flops(arch, pipeline, virtual_stages, s, **split)
    total = sum(per_stage)
    slowest = max(range(len(per_stage)), key=lambda i: per_stage[i])
    others = [i for i in range(len(indices)) if i != output]
    widest = max(others, key=lambda i: (len(indices[i]), per_stage[i])) if others else output
    return [
        PacingStage(i, len(indices[i]), i == output, Fraction(per_stage[i], total))
        for i in dict.fromkeys((slowest, output, widest))
    ]


def evaluate_layout(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> Evaluation:
    """The plan of a layout: its stages (stage_memory, pacing_stages) through the one evaluation."""
    m, b, s = micro_batches, micro_batch_size, sequence_length
    stages = MeshStages(
        stage_memory(arch, mesh, setup, m, b, s, activations_counted),
        pacing_stages(arch, mesh.pipeline, mesh.virtual_stages, s, **split_of(mesh)),
        active_parameter_count(arch),
        arch,
    )
    return evaluate_mesh(mesh, stages, setup, m, b, s)


def stage_memory(
    arch: Architecture,
    mesh: Mesh,
    setup: Setup,
    micro_batches: int,
    micro_batch_size: int,
    sequence_length: int,
    activations_counted: bool,
) -> list[StageEvaluation]:
    """Each stage's bytes per GPU alone, without the step's time: what a fit search compares."""
    shares = shares_of(
        arch, mesh.tensor, mesh.pipeline, mesh.expert, mesh.virtual_stages, mesh.expert_tensor, **split_of(mesh)
    )
    m, b, s = micro_batches, micro_batch_size, sequence_length
    units = layout_units(arch, mesh) if setup.units is not None else None
    return [_stage(arch, mesh, setup, share, m, b, s, activations_counted, units) for share in shares]
