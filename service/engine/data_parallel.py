"""A data-parallel plan's stage: the mesh whose model-parallel degrees are 1, its one stage holding every parameter
over the N ranks of its data group, with one micro-batch's activations (transformer or fudge), and the bytes fit and
limits compare.

The single plan and the sweep both call ``evaluate``: the plan with Python ints, the sweep with numpy arrays over
its numeric axes (N, G, micro-batch size, sequence length) and one call per combination of its categorical axes;
each goes through the one evaluation (service.engine.evaluation.evaluate_mesh) as a layout's stages do. No formula
is written here.
"""

from models.enums import ActivationModel, Dtype, Mxfp8Recipe, Recompute
from models.presets import PrecisionSpec
from service.engine.evaluation import (
    Evaluation,
    MeshStages,
    PacingStage,
    StageEvaluation,
    evaluate_mesh,
    stage_floor_bytes,
)
from service.engine.setup import ActivationSetup, Inputs, Setup
from service.engine.step import Part, efficiency_of, held
from service.memory.activations import fudge_activation_bytes, transformer_activation_bytes
from service.memory.working_set import WorkingSetRow, working_set_rows
from service.mesh.degrees import Mesh
from service.numeric import IntLike


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
    """Bytes on each GPU, what fit and limits compare: the data-parallel plan's stage's (data_parallel_stage)."""
    per_gpu: IntLike = data_parallel_stage(inputs, setup).per_gpu_bytes
    return per_gpu


def floor_bytes(inputs: Inputs, setup: Setup) -> IntLike:
    """What no GPU count lowers on the data-parallel plan's stage (service.engine.evaluation.stage_floor_bytes)."""
    floor: IntLike = stage_floor_bytes(data_parallel_stage(inputs, setup), setup)
    return floor


def data_parallel_stage(inputs: Inputs, setup: Setup) -> StageEvaluation:
    """The one stage of a data-parallel plan: every parameter, its states sharded over the N ranks of its one data
    group; the working set of the model's FSDP units (none without them) and one micro-batch's activations. Its
    layers are the efficiency model's, where it knows the model's kernel shapes (the FSDP units it wraps)."""
    p, n, g = inputs.parameter_count, inputs.world_size, inputs.gpus_per_node
    parts = [Part(p, n, g)]
    states = held(parts, setup)
    transient = working_set(int(p), setup)
    working = sum(row.bytes for row in transient) if transient else 0  # none without the model's units
    activations = micro_batch_activation_bytes(inputs, setup)
    per_gpu = states.gpu_bytes + working + activations
    kernels = efficiency_of(setup).kernels
    return StageEvaluation(
        share=None,
        parts=parts,
        rows=states.rows[0],
        expert_rows=[],
        working=transient,
        activations={},
        in_flight=1,
        layers=kernels.layers if kernels is not None else None,
        model_state_bytes=states.gpu_bytes,
        working_set_bytes=working,
        activations_bytes=activations,
        per_gpu_bytes=per_gpu,
        host_bytes=states.host_bytes,
        cpu_optimizer_bytes=states.cpu_optimizer_bytes,
        fits=per_gpu <= setup.usable_bytes,
    )


WHOLE_MODEL = [PacingStage(0, None, True, 1)]  # a data-parallel plan's one stage: every layer, every FLOP


def evaluate(inputs: Inputs, setup: Setup, mesh: Mesh | None = None) -> Evaluation:
    """A data-parallel plan: the mesh whose model-parallel degrees are 1 (``mesh``, when the caller has it: the
    request's, whose derived values a kept resolution keeps), its one stage (data_parallel_stage) through the one
    evaluation (service.engine.evaluation.evaluate_mesh), ``setup.micro_batches`` micro-batches a step."""
    p = inputs.parameter_count
    # FLOPs count the parameters a token uses: top_k of a mixture's experts (memory holds them all).
    active = inputs.active_parameter_count if inputs.active_parameter_count is not None else p
    stages = MeshStages([data_parallel_stage(inputs, setup)], WHOLE_MODEL, active, None)
    if mesh is None:
        mesh = Mesh(inputs.world_size, inputs.gpus_per_node)  # type: ignore[arg-type]  # a sweep's cells: arrays
    return evaluate_mesh(mesh, stages, setup, setup.micro_batches, inputs.micro_batch_size, inputs.sequence_length)
