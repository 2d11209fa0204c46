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
  parameter dtype (service.time.traffic), which is Megatron-LM without --fp8-param-gather; Megatron-Bridge's FP8
  recipes set it, so their ZeRO-1 runs gather half the bytes the plan prices.
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
    precision: PrecisionSpec, recipe: Fp8Recipe, shards_parameters: bool = True, generation: GpuGeneration | None = None
) -> PrecisionSpec:
    """The layout of state under ``recipe`` on a card of ``generation`` (module docstring); none leaves it as it is,
    and so does torchao where the parameters are not sharded (nothing is gathered, nothing cached)."""
    if recipe is Fp8Recipe.none:
        return precision
    if recipe in TRANSFORMER_ENGINE_RECIPES:
        copies = 1 if transformer_engine_transpose_free(generation) else TRANSFORMER_ENGINE_WEIGHT_COPIES
        return precision.model_copy(update={"compute_parameter_dtype": Dtype.fp8, "compute_parameter_copies": copies})
    if not shards_parameters:
        return precision
    return precision.model_copy(update={"compute_parameter_dtype": Dtype.fp8, "parameter_gather_dtype": Dtype.fp8})
