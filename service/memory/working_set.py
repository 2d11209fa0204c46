"""The transient working set beside the sharded model states: what a step holds in full for a moment.

- Sharded parameters (ZeRO-3, FSDP FULL_SHARD, hybrid): a unit's parameters are all-gathered
  before it runs and freed after; with prefetching (FSDP's backward_prefetch BACKWARD_PRE,
  DeepSpeed's prefetch bucket) the next unit is gathered while the current one computes, so two
  adjacent units are in flight, and the gradients of the unit being reduced are held unsharded
  until its reduce-scatter (Zhao et al. 2023, PyTorch FSDP, sections 3.2 and 3.3). A unit is a
  transformer block; the input embedding and the output layer are units of their own, as
  torchtitan wraps them (torchtitan/models/llama3/infra/parallelize.py, apply_fsdp). DeepSpeed's
  estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py) counts the same thing
  without the prefetched unit: 4 x largest_layer_params (2-byte parameters and gradients).
- Replicated parameters (DDP, ZeRO-1/2): gradients are reduced in buckets; with overlap one
  bucket fills while the previous one is reduced (Li et al. 2020, PyTorch DDP, section 3.2.3;
  DeepSpeed's double ipg buffers when overlap_comm is on), without overlap one bucket.

None of this depends on the GPU count: it belongs to the replicated floor.
"""

from dataclasses import dataclass

from models.enums import Dtype, StateClass
from models.presets import PrecisionSpec
from service.inputs.architecture import (
    Architecture,
    layer_parameters,
    moe_layer_count,
    moe_layer_parameters,
    norm_width,
)
from service.inputs.arrangements import Sharding
from service.memory.dtypes import tensor_bytes
from service.numeric import group_digits
from service.time.traffic import reduce_dtype


@dataclass(frozen=True)
class Units:
    """Parameter counts of the largest FSDP unit and of the largest two adjacent units."""

    largest: int
    largest_pair: int
    words: str  # how the units were found, for the arithmetic


def transformer_units(arch: Architecture) -> Units:
    """Units in forward order: the input embedding, every block, the output layer with the final norm.

    The largest block bounds every block: a mixture-of-experts layer holds all its experts.
    """
    h, v = arch.hidden_size, arch.vocab_size
    embedding = v * h + arch.position_embeddings * h
    dense_layers = arch.layers - moe_layer_count(arch)
    block = max(layer_parameters(arch) if dense_layers else 0, moe_layer_parameters(arch) if arch.moe else 0)
    final_norm = norm_width(arch) * h  # LayerNorm has a bias, RMSNorm not
    output = final_norm if arch.tied_embeddings else v * h + final_norm
    pairs = [embedding + block, block + output] + ([2 * block] if arch.layers > 1 else [])
    words = (
        f"units: embedding {group_digits(embedding)}, block {group_digits(block)}, "
        f"output {group_digits(output)} parameters"
    )
    return Units(max(embedding, block, output), max(pairs), words)


def given_units(largest_unit_parameters: int) -> Units:
    """A bare largest unit: the prefetched unit is taken to be as large (an upper bound)."""
    words = f"largest unit {group_digits(largest_unit_parameters)} parameters (model.largest_unit_parameters)"
    return Units(largest_unit_parameters, 2 * largest_unit_parameters, words)


@dataclass(frozen=True)
class WorkingSetRow:
    state: StateClass
    dtype: Dtype
    bytes: int
    arithmetic: str


def buckets_in_flight(overlap: bool) -> int:
    return 2 if overlap else 1


def working_set_rows(
    parameter_count: int,
    precision: PrecisionSpec,
    sharding: Sharding,
    units: Units | None,
    bucket_bytes: int,
    overlap: bool,
    *,
    pipelined: bool = False,
    runs: int = 1,
) -> list[WorkingSetRow]:
    """The working set's rows on every GPU; none when the model's units are unknown. ``pipelined``: the
    ``parameter_count`` of a pipeline stage whose sharded parameters FSDP keeps gathered (pipelined_rows), over
    ``runs`` runs of the schedule a step."""
    if units is None:
        return []
    # Units are gathered into the compute dtype where one is set (FSDP2's param_dtype).
    params = precision.compute_parameter_dtype or precision.parameter_dtype
    grads = precision.gradient_dtype
    if pipelined and sharding.shard_parameters and not sharding.hybrid:
        return pipelined_rows(parameter_count, precision, sharding, runs)
    if sharding.shard_parameters:
        # the unit's gradients as its reduce-scatter takes them (torch/distributed/fsdp/_fully_shard/
        # _fsdp_collectives.py, foreach_reduce: the input in reduce_dtype), the dtype service.time.traffic sends
        unit_dtype = reduce_dtype(precision)
        unit_grads = int(tensor_bytes(units.largest, unit_dtype))
        gradient_row = WorkingSetRow(
            StateClass.unit_gradients,
            unit_dtype,
            unit_grads,
            f"{unit_dtype.value} x {group_digits(units.largest)} gradients of the largest unit, unsharded until "
            f"its reduce-scatter = {group_digits(unit_grads)} B on every GPU",
        )
        if sharding.gathers_whole_model:
            return [gradient_row]  # SHARD_GRAD_OP: the gathered model is a resident state class already
        gathered = int(tensor_bytes(units.largest_pair, params))
        return [
            WorkingSetRow(
                StateClass.gathered_parameters,
                params,
                gathered,
                f"{params.value} x {group_digits(units.largest_pair)} parameters of two adjacent units (the current "
                f"and the prefetched; {units.words}) = {group_digits(gathered)} B on every GPU",
            ),
            gradient_row,
        ]
    gradient_bytes = int(tensor_bytes(parameter_count, grads))
    count = buckets_in_flight(overlap)
    held = min(count * bucket_bytes, gradient_bytes)
    return [
        WorkingSetRow(
            StateClass.gradient_buckets,
            grads,
            held,
            f"min({count} bucket{'s' if count > 1 else ''} in flight x {group_digits(bucket_bytes)} B, "
            f"all {group_digits(gradient_bytes)} B of gradients) = {group_digits(held)} B on every GPU",
        )
    ]


def pipelined_rows(
    parameter_count: int, precision: PrecisionSpec, sharding: Sharding, runs: int = 1
) -> list[WorkingSetRow]:
    """FSDP on a pipeline stage as torchtitan runs it (service.time.traffic.pipelined_collectives): the stage's
    parameters gathered in the compute dtype for the whole step (torchtitan/distributed/fsdp.py @b5bcd76c:
    ``reshard_after_forward = not pp_enabled``; no reshard after each micro-batch's backward), and its gradients
    unsharded until the one reduce-scatter after the last micro-batch, accumulated in the dtype that reduce-scatter
    sends (torch 2.13 torch/distributed/fsdp/_fully_shard/_fsdp_param.py,
    to_accumulated_grad_if_needed and accumulate_unsharded_grad_if_needed). With ``runs`` runs of the schedule a step
    (parallelism.pipeline_runs) the same bytes are held through each run, from its gather to its reduce-scatter."""
    params = precision.compute_parameter_dtype or precision.parameter_dtype
    until = "the step's one reduce-scatter" if runs == 1 else f"each run's reduce-scatter ({runs} runs of the schedule)"
    kept = "the whole step" if runs == 1 else f"each of the {runs} runs of the schedule"
    # the dtype the stage's reduce-scatter sends (service.time.traffic.reduce_dtype): FSDP2's reduce_dtype, else the
    # gradients' own (Megatron-FSDP accumulates into its fp32 main_grad buffer, the megatron preset's gradients)
    accumulated = reduce_dtype(precision)
    grad_bytes = int(tensor_bytes(parameter_count, accumulated))
    gradient_row = WorkingSetRow(
        StateClass.unit_gradients,
        accumulated,
        grad_bytes,
        f"{accumulated.value} x {group_digits(parameter_count)} gradients of the stage, unsharded and accumulated "
        f"over the micro-batches until {until} (FSDP with pipelining) = "
        f"{group_digits(grad_bytes)} B on every GPU",
    )
    if sharding.gathers_whole_model:
        return [gradient_row]  # SHARD_GRAD_OP: the gathered model is a resident state class already
    gathered = int(tensor_bytes(parameter_count, params))
    return [
        WorkingSetRow(
            StateClass.gathered_parameters,
            params,
            gathered,
            f"{params.value} x {group_digits(parameter_count)} parameters of the stage, gathered once and kept for "
            f"{kept} (FSDP with pipelining: reshard_after_forward off) = {group_digits(gathered)} B on every GPU",
        ),
        gradient_row,
    ]
