"""Per-tensor scaled FP8 training as a precision (levers.fp8): what it keeps beside the 16/32-bit state.

- Transformer Engine, delayed or current scaling alike (transformer_engine/pytorch/module/linear.py: the weight is
  cast to FP8 once per step and cached, ``is_first_microbatch``; on Hopper its FP8 GEMMs take both operands in the
  "TN" layout, so the backward's input-gradient GEMM needs the weight's transpose, which Float8Tensor keeps beside
  it, ``_transpose``): two 1-byte copies of every weight the GPU computes with, for the step. On Blackwell cuBLAS
  takes FP8 operands in any layout and the quantizers write no transpose (csrc/quantizer.cpp @d0067d0d,
  create_tensor: with_transpose = columnwise_usage and not nvte_is_non_tn_fp8_gemm_supported; service.time.fp8):
  one copy. The state and the gradient reduction are unchanged; under ZeRO-3/FSDP the sharded parameters are
  gathered as that FP8 copy (service.time.traffic.gather_dtype: the compute copy's dtype), as Megatron-LM runs it
  with --fp8-param-gather. The ZeRO-1/2 distributed optimizer's all-gather of updated parameters stays in the
  parameter dtype (service.time.traffic), which is Megatron-LM without --fp8-param-gather.
- Transformer Engine with FP8 weights (levers.fp8_param_gather: Megatron-LM's --fp8-param-gather, which
  megatron/training/argument_utils.py @d98e8a64 passes on as TransformerConfig.fp8_param, "keep the parameters
  in fp8 precision to save memory", and which the model provider builds under Transformer Engine's
  fp8_model_init): the weights are FP8 tensors, no 16-bit copy; the distributed optimizer keeps its fp32 master
  shard and quantises it into them after each step (megatron/core/optimizer/distrib_optimizer.py @d98e8a64,
  quantize_param_shard under ddp_config.fp8_param_gather), so the parameters are stored, and all-gathered by
  ZeRO-1/2 and ZeRO-3 alike, in FP8. On Hopper the weight's transpose stays beside it (one FP8 copy); on
  Blackwell none. Megatron-LM takes the flag only with the distributed optimizer or FSDP
  (megatron/training/arguments.py @d98e8a64: "--fp8-param-gather only supported with distributed optimizer,
  torch fsdp2, megatron fsdp"; models.plan.lever_refusals), and its master weights are what is trained
  (resolve refuses a precision without them). Where the parameters are sharded (ZeRO-3, SHARD_GRAD_OP, hybrid) the
  shard is FP8 and the gathered copy is as without the lever. Every weight is counted in FP8 here, as every weight
  has its FP8 copy above, though Megatron-Core keeps the embeddings and the output layer in 16 bits: 3% of Llama 3
  70B's weights, 13% of Llama 3 8B's, which the plan then holds and gathers at one byte where they take two.
- torchao's float8 (torchao/float8/float8_linear.py, tensorwise scaling, as torchtitan's float8 converter applies
  it): the casts are made per GEMM and freed, no copy is cached; with FSDP2 the weights are all-gathered in FP8
  (torchao/float8/fsdp_utils.py, WeightWithFloat8CastTensor.fsdp_pre_all_gather, torchtitan's
  enable_fsdp_float8_all_gather), so the units in flight hold them unsharded in FP8 (fsdp_post_all_gather).
The GEMMs' time at the FP8 peak is service.time.efficiency's.
"""

from models.enums import Dtype, Fp8Recipe, GpuGeneration
from models.presets import PrecisionSpec
from service.time.fp8 import transformer_engine_transpose_free

TRANSFORMER_ENGINE_WEIGHT_COPIES = 2  # the FP8 weight and its transpose (Hopper's TN-only FP8 GEMMs)
TRANSFORMER_ENGINE_RECIPES = (Fp8Recipe.transformer_engine, Fp8Recipe.transformer_engine_current_scaling)


def with_fp8(
    precision: PrecisionSpec,
    recipe: Fp8Recipe,
    shards_parameters: bool = True,
    generation: GpuGeneration | None = None,
    fp8_parameters: bool = False,
) -> PrecisionSpec:
    """The layout of state under ``recipe`` on a card of ``generation`` (module docstring); none leaves it as it is,
    and so does torchao where the parameters are not sharded (nothing is gathered, nothing cached).
    ``fp8_parameters``: Transformer Engine's weights kept in FP8 alone (levers.fp8_param_gather)."""
    if recipe is Fp8Recipe.none:
        return precision
    if recipe in TRANSFORMER_ENGINE_RECIPES:
        transpose_free = transformer_engine_transpose_free(generation)
        copies = 1 if transpose_free else TRANSFORMER_ENGINE_WEIGHT_COPIES  # the FP8 weight, on Hopper its transpose
        if fp8_parameters and not shards_parameters:  # the stored FP8 weight is what the GEMMs read
            transpose = None if transpose_free else Dtype.fp8  # on Hopper its transpose beside it
            update = {"parameter_dtype": Dtype.fp8, "compute_parameter_dtype": transpose, "compute_parameter_copies": 1}
            return precision.model_copy(update=update)
        update = {"compute_parameter_dtype": Dtype.fp8, "compute_parameter_copies": copies}
        if fp8_parameters:  # an FP8 shard, gathered as without the lever
            update["parameter_dtype"] = Dtype.fp8
        return precision.model_copy(update=update)
    if not shards_parameters:
        return precision
    return precision.model_copy(update={"compute_parameter_dtype": Dtype.fp8, "parameter_gather_dtype": Dtype.fp8})
