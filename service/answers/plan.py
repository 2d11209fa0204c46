"""Answers to /v1/plan and /v1/presets, assembled from one evaluation of the core.

A plan, data-parallel or on a mesh, is assembled as the fields of its answer (``plan_fields``): dicts in the order
the response models declare their fields (a layout's memory, traffic and parallelism as their models), every value
of its field's type. ``plan`` validates them
into PlanResponse in one pass; the API writes them as JSON directly (api.encoding), which is byte for
byte the validated model's JSON, so a plan on the direct path is never validated twice.
"""

from typing import Any

from models.enums import Mxfp8Recipe
from models.plan import (
    FrameworkEstimate,
    PlanRequest,
    PlanResponse,
)
from models.presets import (
    CUDA_CONTEXT_SOURCE,
    FRAGMENTATION_SOURCE,
    GPU_PRESETS,
    LINK_PRESETS,
    MODEL_PRESETS,
    NCCL_BUFFER_SOURCE,
    PRECISION_PRESETS,
    GpuPreset,
    GpuPresetInfo,
    PrecisionPresetInfo,
    PresetsResponse,
)
from service.answers.layout_plan import echo_fields, layout_plan, resolution
from service.answers.plan_report import (
    memory_report,
    resolved_arrangement,
    time_report,
    token_budget_of,
    traffic_report,
)
from service.engine.data_parallel import evaluate
from service.engine.setup import Setup
from service.errors import OutOfRange
from service.inputs import resolve
from service.inputs.architecture import largest_layer_parameters
from service.inputs.arrangements import DDP, Sharding, canonical_name
from service.memory.estimators import deepspeed_estimate
from service.memory.model_states import bytes_per_weight_split
from service.memory.reserve import CardMemory
from service.mesh.pipeline import deepspeed_convention
from service.numeric import GIB_BYTES, group_digits


def plan(request: PlanRequest) -> PlanResponse:
    """The validated answer (plan_fields')."""
    answer = plan_fields(request)
    return answer if isinstance(answer, PlanResponse) else PlanResponse.model_validate(answer)


def plan_fields(request: PlanRequest) -> PlanResponse | dict[str, Any]:
    """The answer as the model's fields, each nested answer a dict of its own fields or a model, every value of its
    field's type, in the order the models declare them: a data-parallel plan's and a plan on a mesh's
    (service.answers.layout_plan) from the one evaluation. ``plan`` validates them into the model; the API writes
    them as they are, which is byte for byte the model's JSON (api.encoding; tests/api/test_encoding.py compares the
    two)."""
    resolved = resolution(request)
    layout, scene, sharding, setup = resolved.layout, resolved.scene, resolved.sharding, resolved.setup
    mesh = layout.mesh
    n, g = mesh.world_size, mesh.gpus_per_node
    p = scene.model.parameter_count
    warnings = list(scene.warnings) + layout.warnings
    parallelism: Any
    if mesh.trivial:
        result = evaluate(resolve.inputs_for(scene, n, g), setup, mesh)
        estimate = framework_estimate(request, scene, sharding, setup, int(result.model_state_bytes))
        memory: Any = memory_report(p, n, g, scene, setup, result, estimate)
        traffic: Any = traffic_report(p, n, g, setup, result)
        parallelism = echo_fields(mesh, layout.micro_batches, scene.training.micro_batch_size)
        notes: tuple[str, ...] = ()
    else:
        answer = layout_plan(resolved)
        result, memory, traffic, parallelism = answer.result, answer.memory, answer.traffic, answer.parallelism
        notes = answer.notes
        warnings += answer.warnings
    warnings += lever_warnings(request, scene)
    return {
        "parameter_count": p,
        "active_parameter_count": scene.model.active,
        "world_size": n,
        "gpus_per_node": g,
        "arrangement": resolved_arrangement(sharding),
        "parallelism": parallelism,
        "memory": memory,
        "traffic": traffic,
        "time": time_report(setup, result, n, g, p, token_budget_of(request), notes),
        "warnings": warnings,
    }


def lever_warnings(request: PlanRequest, scene: resolve.Scenario) -> list[str]:
    """What the request's levers should know of the card and the recipe, on any mesh."""
    levers = request.levers
    warnings = []
    if levers.mxfp8 and not scene.blackwell_class:
        warnings.append(
            "levers.mxfp8 needs Blackwell-class hardware (native MXFP8 tensor cores); the card is not, "
            "and care is needed around softmax"
        )
    if levers.mxfp8 and levers.mxfp8_recipe is Mxfp8Recipe.seed:
        warnings.append(
            "levers.mxfp8 with mxfp8_recipe seed is the textbook model: gradients stored and reduced in MXFP8, "
            "which no collective library does, its GEMMs priced in bf16; mxfp8_recipe fp8_weights follows Transformer "
            "Engine and mxfp8_recipe torchao torchao's MX linear"
        )
    return warnings


def framework_estimate(
    request: PlanRequest, scene: resolve.Scenario, sharding: Sharding, setup: Setup, model_state_bytes: int
) -> FrameworkEstimate | None:
    """DeepSpeed's own estimator beside the plan's count, for the deepspeed preset at ZeRO-2 and ZeRO-3."""
    if not deepspeed_convention(request.precision):
        return None
    p, options = scene.model.parameter_count, request.estimator
    largest = options.largest_layer_parameters
    if largest is None:
        arch = scene.model.architecture
        largest = largest_layer_parameters(arch) if arch is not None else 0
    elif largest > p:
        raise OutOfRange(
            f"estimator.largest_layer_parameters {largest:,} is more than the model's {p:,} parameters",
            pointer="/estimator/largest_layer_parameters",
        )
    found = deepspeed_estimate(
        canonical_name(sharding).value,
        p,
        largest,
        request.cluster.world_size,
        request.cluster.gpus_per_node,
        setup.offload.optimizer,
        setup.offload.parameters,
        options.zero_init,
        options.additional_buffer_factor,
    )
    if found is None:
        return None
    estimate, printed = found
    note = f"this plan counts {group_digits(model_state_bytes)} B of model states on each GPU"
    if estimate.largest_layer_bytes:
        note += (
            f"; the estimator adds {group_digits(estimate.largest_layer_bytes)} B for the largest layer's gathered "
            "16-bit parameters and gradients (the working set)"
        )
    elif sharding.shard_parameters:
        note += "; the largest layer is unknown (no architecture, no estimator.largest_layer_parameters): 0 assumed"
    note += "; the CPU figure adds the buffer factor and what loading the model costs"
    return FrameworkEstimate(
        function=estimate.function,
        options=printed,
        gpu_bytes=estimate.gpu_bytes,
        cpu_bytes_per_node=estimate.cpu_bytes,
        largest_layer_parameters=largest if sharding.shard_parameters else 0,
        largest_layer_bytes=estimate.largest_layer_bytes,
        additional_buffer_factor=options.additional_buffer_factor,
        arithmetic=estimate.arithmetic,
        note=note,
    )


def _gpu_info(preset: GpuPreset) -> GpuPresetInfo:
    """The preset with its reserve defaults applied, so a client sees the figures a plan uses."""
    reserve, fragmentation = preset.reserve()
    card = CardMemory(preset.memory_bytes, reserve, fragmentation)
    fields = preset.model_dump() | {"reserve_bytes": reserve, "fragmentation": fragmentation}
    sources = (
        "none: the textbook card"
        if reserve == 0 and fragmentation == 0
        else f"{CUDA_CONTEXT_SOURCE}; {NCCL_BUFFER_SOURCE}; {FRAGMENTATION_SOURCE}"
        if preset.reserve_bytes is None and preset.fragmentation is None
        else preset.source
    )
    return GpuPresetInfo(
        **fields, memory_gib=preset.memory_bytes / GIB_BYTES, usable_bytes=card.usable_bytes, reserve_source=sources
    )


def presets() -> PresetsResponse:
    return PresetsResponse(
        links=list(LINK_PRESETS.values()),
        gpus=[_gpu_info(g) for g in GPU_PRESETS.values()],
        precisions=[
            PrecisionPresetInfo(**pp.model_dump(), bytes_per_weight=sum(bytes_per_weight_split(pp.spec, DDP)))
            for pp in PRECISION_PRESETS.values()
        ],
        models=list(MODEL_PRESETS.values()),
    )
