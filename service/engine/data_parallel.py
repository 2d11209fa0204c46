"""One evaluation of a case: every figure of a plan, from the formulas of the core.

The single plan and the sweep both call ``evaluate``: the plan with Python ints, the sweep with
numpy arrays over its numeric axes (P, N, G, micro-batch size, sequence length) and one call per
combination of its categorical axes. A data-parallel plan is the mesh whose model-parallel degrees are 1:
one stage of every parameter over the N ranks of its data group, taking service.engine.step's steps as a
layout's stages do. No formula is written here.
"""

from dataclasses import dataclass

from models.enums import ActivationModel, Dtype, Mxfp8Recipe, Recompute, StateClass, StateLocation
from models.presets import PrecisionSpec
from service.engine.setup import ActivationSetup, Inputs, Setup
from service.engine.step import (
    Part,
    efficiency_of,
    flops_per_token,
    held,
    rank_step,
    replicated_bytes,
    stage_compute,
)
from service.memory.activations import fudge_activation_bytes, transformer_activation_bytes
from service.memory.model_states import StateBytes, model_state_bytes
from service.memory.offload import host_bytes_per_node
from service.memory.working_set import WorkingSetRow, working_set_rows
from service.numeric import FloatLike, IntLike
from service.time.communication import CollectivePrice
from service.time.compute import tokens_per_step
from service.time.traffic import StepCollective, calls_bytes_sent, per_step


def with_mxfp8(precision: PrecisionSpec, recipe: Mxfp8Recipe = Mxfp8Recipe.seed) -> PrecisionSpec:
    """The MXFP8 lever (OCP MX spec v1.0: 8-bit values, one E8M0 scale per 32).

    seed: the textbook model, parameters and gradients stored and sent as MXFP8.
    fp8_weights, as practised: the bf16/fp32 state is unchanged; Transformer Engine casts each
    weight once per step and caches it (transformer_engine/pytorch/module/linear.py,
    ``is_first_microbatch``), in MXFP8 as a rowwise copy for the forward GEMM and a columnwise copy
    for the backward's transposed use (TE docs, low_precision_training/mxfp8: one-dimensional blocks
    of 32); FSDP2 all-gathers the weights in 8 bits (torchao/float8/fsdp_utils.py,
    ``WeightWithDynamicFloat8CastTensor.fsdp_pre_all_gather``, enabled by
    ``enable_fsdp_float8_all_gather``; one scale per tensor); gradients are reduced in their own
    dtype (bf16): no collective library reduces block-scaled data.
    torchao (its MX linear): the state is unchanged and gathered in bf16; the casts are transient
    (service/time/fp8.py).
    """
    if recipe is Mxfp8Recipe.torchao:
        return precision
    if recipe is Mxfp8Recipe.seed:
        return precision.model_copy(update={"parameter_dtype": Dtype.mxfp8, "gradient_dtype": Dtype.mxfp8})
    return precision.model_copy(
        update={
            "compute_parameter_dtype": Dtype.mxfp8,
            "compute_parameter_copies": 2,
            "parameter_gather_dtype": Dtype.fp8,
        }
    )


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more. Slots: an
# instance's __dict__ shares its keys with the class's others up to 30 attributes only, and past them builds a dict of
# its own, which costs more than the rest of the construction.
@dataclass(slots=True)
class Evaluation:
    model_state_bytes: IntLike
    working_set_bytes: int
    activations_bytes: IntLike
    per_gpu_bytes: IntLike
    replicated_floor_bytes: IntLike
    fits: FloatLike
    headroom_bytes: IntLike
    host_bytes_per_gpu: IntLike
    host_bytes: IntLike  # per node
    host_fits: FloatLike  # host_bytes within the node's host memory (True when not given)
    bytes_sent_per_gpu: IntLike
    pcie_bytes_per_gpu: IntLike
    tokens_per_step: IntLike
    model_flops: FloatLike
    compute_flops: FloatLike  # hardware FLOPs: the model's plus what recomputation repeats
    compute_s: FloatLike
    communication_flat_s: FloatLike
    communication_s: FloatLike
    exposed_communication_s: FloatLike
    offload_transfer_s: FloatLike
    cpu_optimizer_s: FloatLike
    offload_s: FloatLike
    step_s: FloatLike
    optimizer_s: FloatLike  # the optimizer step through HBM (efficiency model; 0 with a utilisation)
    overlap_slowdown_s: FloatLike  # compute lost to overlapped communication (efficiency model)
    tokens_per_s: FloatLike
    mfu: FloatLike
    hfu: FloatLike
    # model_state_breakdown's rows the figures above were summed from, for a report to show them
    state_rows: list[StateBytes]
    # the working set's rows, summed into working_set_bytes
    working_rows: list[WorkingSetRow]
    # the step's collectives (step_collectives), and per collective what one call sends and takes on a flat
    # ring (its further calls' latency included): what bytes_sent_per_gpu and communication_flat_s were summed from
    calls: list[StepCollective]
    call_bytes_sent: list[IntLike]
    call_flat_s: list[FloatLike]
    # per collective: its calls (buckets or units), algorithm and latency as NCCL's model prices them
    call_prices: list[CollectivePrice]

    @property  # read by a sweep's columns and figures, not by a plan's answer
    def state_bytes(self) -> dict[StateClass, IntLike]:
        """On the GPU, per state class (0 when offloaded): the breakdown's rows, then the working set's."""
        state_bytes = {
            row.spec.state: row.bytes if row.location is StateLocation.gpu else 0 * row.bytes for row in self.state_rows
        }
        return state_bytes | {row.state: row.bytes for row in self.working_rows}


def activation_bytes(
    setup: ActivationSetup, recompute: Recompute, b: IntLike, s: IntLike, *, torch_native: bool = False
) -> IntLike:
    """``torch_native``: parameters sharded, the model run as torchtitan runs it (layout.torch_native)."""
    if setup.model is ActivationModel.none or setup.shape is None:
        return 0 * b
    if setup.model is ActivationModel.fudge:
        shape = setup.shape
        return fudge_activation_bytes(b, s, shape.hidden_size, shape.layers, setup.bytes_per_value, setup.fudge)
    return transformer_activation_bytes(
        b, s, setup.shape, setup.flash_attention, recompute, setup.cross_entropy, torch_native=torch_native
    )


def working_set(parameter_count: int, setup: Setup) -> list[WorkingSetRow]:
    return working_set_rows(
        parameter_count, setup.precision, setup.sharding, setup.units, setup.bucket_bytes, setup.overlap
    )


def working_set_bytes(parameter_count: int, setup: Setup) -> int:
    return sum(row.bytes for row in working_set(parameter_count, setup))


def floor_bytes(
    parameter_count: IntLike,
    setup: Setup,
    activations: IntLike,
    gpus_per_node: IntLike | None = None,
    working: int | None = None,
) -> IntLike:
    """Replicated model states on the GPU, the working set and activations: what no GPU count lowers
    (``working``: the working set's bytes when the caller has them)."""
    replicated: IntLike = replicated_bytes([Part(parameter_count, None, gpus_per_node)], setup)
    if working is None:
        working = working_set_bytes(int(parameter_count), setup)
    return replicated + working + activations


def micro_batch_activation_bytes(inputs: Inputs, setup: Setup) -> IntLike:
    """One micro-batch's activations at the inputs' shape, the model run as the setup runs it (torchtitan's way
    when parameters are sharded: service.engine.layout.torch_native)."""
    return activation_bytes(
        setup.activations,
        setup.recompute,
        inputs.micro_batch_size,
        inputs.sequence_length,
        torch_native=bool(setup.sharding.shard_parameters),
    )


def gpu_bytes(inputs: Inputs, setup: Setup) -> IntLike:
    """Bytes on each GPU: model states on the GPU, the working set and activations (what fit compares)."""
    activations = micro_batch_activation_bytes(inputs, setup)
    model_state = model_state_bytes(
        inputs.parameter_count, inputs.world_size, setup.precision, setup.sharding, inputs.gpus_per_node, setup.offload
    )
    return model_state + working_set_bytes(int(inputs.parameter_count), setup) + activations


def evaluate(inputs: Inputs, setup: Setup) -> Evaluation:
    """A data-parallel plan: the mesh whose model-parallel degrees are 1, its one stage holding every parameter,
    sharded over the N ranks of its data group; each step is service.engine.step's, as a layout's stages take it."""
    p, n, g = inputs.parameter_count, inputs.world_size, inputs.gpus_per_node
    k = setup.micro_batches
    parts = [Part(p, n, g)]
    states = held(parts, setup)
    rows = states.rows[0]
    transient = working_set(int(p), setup)
    working = sum(row.bytes for row in transient) if transient else 0  # none without the model's units
    model_state = states.gpu_bytes
    activations = micro_batch_activation_bytes(inputs, setup)
    per_gpu = model_state + working + activations
    host_per_gpu = states.host_bytes

    s, b = inputs.sequence_length, inputs.micro_batch_size
    # FLOPs count the parameters a token uses: top_k of a mixture's experts (memory holds them all).
    active = inputs.active_parameter_count if inputs.active_parameter_count is not None else p
    tokens = tokens_per_step(n, b, s, k)
    model_per_token, hardware_per_token = flops_per_token(setup, active, s)
    model_flops, flops = model_per_token * tokens, hardware_per_token * tokens
    calls = setup.data_calls
    sent = calls_bytes_sent(p, n, calls, g)
    # the one stage: every layer, on one rank of its tensor and context groups, the whole step's FLOPs over N
    compute_s, forward_total_s = stage_compute(setup, model_per_token, active, k, b, s, tokens, 1, n)
    forward_s = forward_total_s / k
    backward_s = compute_s / k - forward_s
    eff = efficiency_of(setup)
    layers = eff.kernels.layers if eff.kernels is not None else None
    cpu = states.cpu_optimizer_bytes
    step = rank_step(
        parts,
        setup,
        calls,
        k,
        forward_s,
        backward_s,
        layers,
        cpu,
        n,
        g,
        compute_s,
        0.0,
        0.0,
        tokens,
        model_flops,
        flops,
    )
    flat, host_link, totals = step.groups[0], step.host, step.totals
    host = host_bytes_per_node(host_per_gpu, n, g)
    host_fits = True if setup.host_memory_bytes is None else host <= setup.host_memory_bytes
    floor = replicated_bytes(parts, setup) + working + activations
    return Evaluation(
        model_state_bytes=model_state,
        working_set_bytes=working,
        activations_bytes=activations,
        per_gpu_bytes=per_gpu,
        replicated_floor_bytes=floor,
        fits=(per_gpu <= setup.usable_bytes) & host_fits,
        headroom_bytes=setup.usable_bytes - per_gpu,
        host_bytes_per_gpu=host_per_gpu,
        host_bytes=host,
        host_fits=host_fits,
        bytes_sent_per_gpu=per_step(calls, sent),
        pcie_bytes_per_gpu=host_link.pcie_bytes_per_gpu,
        tokens_per_step=tokens,
        model_flops=model_flops,
        compute_flops=flops,
        compute_s=compute_s,
        communication_flat_s=flat.total_s,
        communication_s=flat.total_s,
        exposed_communication_s=flat.exposed_s,
        offload_transfer_s=host_link.transfer_s,
        cpu_optimizer_s=host_link.cpu_optimizer_s,
        offload_s=host_link.offload_s,
        step_s=totals.step_s,
        optimizer_s=step.optimizer_s,
        overlap_slowdown_s=totals.overlap_slowdown_s,
        tokens_per_s=totals.tokens_per_s,
        mfu=totals.mfu,
        hfu=totals.hfu,
        state_rows=rows,
        working_rows=transient,
        calls=calls,
        call_bytes_sent=sent,
        call_flat_s=flat.call_s,
        call_prices=step.prices[0],
    )
