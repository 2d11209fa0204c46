"""Scaled FP8 training as the frameworks run it: per-tensor FP8 (levers.fp8) and MXFP8 (levers.mxfp8), the GEMMs'
speed and the quantisation work.

Which GEMMs: every linear of the layers runs its three GEMMs (forward, input gradient, weight gradient) in FP8;
attention's batched products, the logits and the loss stay in 16 bits (torchtitan leaves the LM head out of its
float8 converter, torchtitan/models/llama3/config_registry.py @b5bcd76c, filter_fqns ["lm_head"]; Megatron-LM and
Transformer Engine run the output layer outside fp8_autocast's TE layers).

**The GEMMs' speed.** cuBLASLt runs them (torch._scaled_mm under torchao, Transformer Engine's general_gemm), at the
card's FP8 peak times the GEMM ceiling times FP8_GEMM_PEAK_SHARE: an FP8 GEMM does not keep the bf16 one's share of
its (doubled) peak. The share is the one published measurement of it at training shapes: torchao's float8 README
(pytorch/ao torchao/float8/README.md @fdddb2cf, section 'Performance', example 2) measures a whole tensorwise float8
linear, forward and backward with its casts, at M, K, N = 4096, 8192, 16384 on H100, 1.39 x as fast as the bf16 one
(torch.compile, benchmarks/float8/float8_roofline.py, on the H100 its roofline_utils.py @36027d82 describes: "2.4 TB
per second, custom to Meta's H100 variant"). Priced by this model (service.time.efficiency.gemm_seconds: 989.4
TFLOP/s bf16, 1,978.9 FP8, 132 SMs, the Hopper ceiling 0.60), the three bf16 GEMMs take 1.910 + 1.910 + 1.880 =
5.700 ms, and torchao's casts of that linear (TORCHAO_CASTS, an unsharded weight) move (6 x 4096 x 8192 + 6 x 4096 x
16384 + 8 x 8192 x 16384) bytes = 1,677.7 MB, 0.699 ms at that card's 2.4 TB/s: the float8 linear's 5.700 / 1.39 =
4.101 ms leaves 3.402 ms for its GEMMs, 5.700 / (2 x 3.402) = 0.84 of the bf16 GEMMs' share of peak.
(tests/golden/test_fp8_training.py checks that this model gives the published 1.39 at that shape.)
The FP8 GEMM reads its operands in 1 byte and writes its output in 2 (torchao/testing/training/roofline_utils.py
@36027d82, get_individual_gemm_time_sympy): FP8_OPERAND_BYTES.

**The quantisation work**, HBM bytes per element of each GEMM operand, per micro-batch (Fp8Casts). A mixture's
routed experts cast each routed copy a GPU computes, not each token (service.time.efficiency.fp8_layer_cast_seconds:
Transformer Engine's GroupedLinear quantises every expert's split of its input and output gradient):
- torchao's dynamic tensorwise scaling (pytorch/ao torchao/testing/training/roofline_utils.py @36027d82,
  get_tensor_memory_traffic_ovhd_s, "tensorwise", the unfused case its float8_roofline.py models by default): an
  input (M x K) and an output gradient (M x N) each run an abs-max reduction (read 2 B) and one cast kernel that
  writes both layouts the GEMMs need (read 2, write 1 + 1): 6 B. A weight (K x N) kept in bf16 runs its abs-max
  (2) and a cast per layout (read 2, write 1, forward and backward): 5 B forward, 3 backward. Under FSDP2 with the
  float8 all-gather (torchtitan's and OLMo-core's enable_fsdp_float8_all_gather: torchao/float8/fsdp_utils.py
  WeightWithFloat8CastTensor.fsdp_pre_all_gather) the shard is cast before its gather and the gathered weight is
  already FP8; the backward's input-gradient GEMM takes it as its right operand, which _scaled_mm needs column-major,
  so it is copied transposed (torchao/float8/float8_ops.py @36027d82, preprocess_addmm: b.t().contiguous().t(),
  read 1, write 1): 2 B backward. The shard's own cast (5 B a shard element, 1 / N of the weight) is left out.
- Transformer Engine's delayed scaling (its default recipe, Megatron-LM's --fp8-recipe delayed, Composer's
  amp_fp8): the input's cast-transpose in the forward and the output gradient's in the backward (read 2, write
  1 + 1; the amax is taken inside the kernel, the scale from the amax history): 4 B. The weight is cast with its
  transpose once a step where the caller says which micro-batch is the first (transformer_engine/pytorch/module/
  linear.py @d0067d0d, update_workspace = is_first_microbatch is None or is_first_microbatch; Megatron-Core passes
  it), at most 4 B a weight a micro-batch otherwise: under 0.2% of a step in the published runs, left out.
- Transformer Engine's current scaling (levers.fp8 transformer_engine_current_scaling: the Float8CurrentScaling
  recipe, Megatron-Core's --fp8-recipe tensorwise, Megatron-Bridge's bf16_with_fp8_current_scaling_mixed, the
  'FP8-CS' of its performance tables): the scale comes from the tensor being cast, so each cast is two kernels
  (transformer_engine/pytorch/csrc/quantizer.cpp @d0067d0d, Float8CurrentScalingQuantizer::quantize_impl:
  nvte_compute_amax_with_config reads the tensor, nvte_compute_scale_from_amax, then nvte_quantize_v2 casts it):
  the amax pass reads 2 B and the cast-transpose reads 2 and writes 1 + 1, 6 B an input and an output gradient.
  A LayerNorm-fused linear takes its amax from the norm kernel (csrc/extensions/normalization.cpp @d0067d0d,
  FUSED_NORM_AMAX_FP8: the norm writes its 16-bit output and its amax, then quantize_with_amax casts it), so its
  input costs the cast alone, 4 B (normed_input_forward): in Megatron-Core's Transformer Engine layer spec
  (megatron/core/models/gpt/gpt_layer_specs.py @1e057005) the q/k/v projection and a dense MLP's fc1 are
  TELayerNormColumnParallelLinear, as are multi-head latent attention's q and kv up projections (behind their
  q and kv norms); a mixture's fc1 follows a TENorm of its own (pre_mlp_layernorm) and the permutation, and the
  output projection and fc2 take the attention's and the activation's outputs, each cast at 6 B
  (normed_input_elements). Under sequence parallelism the input's amax is all-reduced over the tensor-parallel
  group before the cast (with_amax_reduction), one 4-byte all-reduce a linear: left out. The weights are cast
  once a step as under delayed scaling (with fp8_param_gather, after the optimizer step): left out.
  Under delayed scaling the same linears cast nothing apart: the norm kernel writes the FP8 output itself
  (normalization.cpp @d0067d0d: a Float8Quantizer takes Impl::FULLY_FUSED, the kernel's output the quantizer's
  FP8 tensor), and the transpose the weight gradient's GEMM needs is made from it in the backward
  (module/layernorm_linear.py @d0067d0d: ln_out_total.update_usage(columnwise_usage=True)), read 1 and written 1:
  2 B (normed_input_forward of TRANSFORMER_ENGINE_CASTS, priced with the forward's casts though it runs in the
  backward: the step's total is the same), none on Blackwell.
- On Blackwell (compute capability 10.x, 11.x and 13 and later: transformer_engine/common/transformer_engine.cpp
  @d0067d0d, nvte_is_non_tn_fp8_gemm_supported) cuBLAS takes per-tensor FP8 operands in any layout, and Transformer
  Engine's per-tensor quantizers write one copy for both usages (csrc/quantizer.cpp @d0067d0d, Float8Quantizer
  and Float8CurrentScalingQuantizer create_tensor: with_transpose = columnwise_usage and not
  is_non_tn_fp8_gemm_supported): each cast writes 1 B, not 1 + 1 (delayed scaling 3 B, current scaling 5 and 3
  behind a norm; TRANSFORMER_ENGINE_*_CASTS_BLACKWELL), and service.memory.fp8 keeps one FP8 weight copy.

**MXFP8** (levers.mxfp8; OCP MX v1.0: E4M3 values, one E8M0 scale per 32 along one dimension, MXFP8_ELEMENT_BYTES =
1 + 1/32 an element). On a Blackwell-class card the GEMMs run on the tensor cores' block-scaled path (cuBLASLt's
block-scaled GEMM, torch._scaled_mm under torchao, Transformer Engine's general_gemm) at the card's dense FP8 peak:
NVIDIA's HGX B200 datasheet gives one FP8 figure ("FP8/FP6 Tensor Core", 4.5 PFLOPS dense a GPU) and no other for
block-scaled FP8, the PTX ISA's tcgen05.mma takes .kind::mxf8f6f4.block_scale beside .kind::f8f6f4 (the scales
applied inside the MMA), and torchao's roofline prices an mxfp8 GEMM at the fp8 peak (roofline_utils.py @36027d82,
get_individual_gemm_time_sympy: fp8_peak_tops for mxfp8_cublas) with its scales read beside the operands (num_reads +
num_reads // 32): the operand bytes are MXFP8_ELEMENT_BYTES. The block-scaled GEMM runs slower than the per-tensor
one on the same card: Transformer Engine's GEMM benchmark (docs/examples/gemm_profiling/gemm_profiling.rst @d0067d0d,
'Autocast vs Pre-quantized', NVIDIA B300, the twelve GEMMs of one layer of a 5B model, hidden 4,096, intermediate
16,384, 15,872 tokens, operands quantised beforehand so only the kernels are timed) measures 6.812 ms a layer with
per-tensor FP8 (FP8Current) and 7.161 ms with MXFP8, so an MXFP8 GEMM keeps MXFP8_GEMM_PEAK_SHARE = 0.84 x 6.812 /
7.161 of the FP8 peak (torchao's mx docs give the GEMM alone against bf16, "up to ~2x" on B200, docs/source/workflows/
training.md @36027d82, section 'mxfp8 gemm', a best case over shapes, not a share at one). The scales'
rearrangement into cuBLAS's blocked layout (a pass over 1/32 B an element) is left out. A recipe's casts
(mxfp8_casts), every cast reading bf16 (2 B) and writing MXFP8_ELEMENT_BYTES for each layout it makes:
- Transformer Engine's MXFP8BlockScaling (mxfp8_recipe fp8_weights; Megatron-Core's --fp8-recipe mxfp8,
  Megatron-Bridge's bf16_with_mxfp8_mixed): the forward quantises each input once for both usages, rowwise for
  its GEMM and columnwise for the weight gradient (module/linear.py @d0067d0d: input_quantizer.set_usage(rowwise=
  True, columnwise=backward_needs_input)), and the backward each output gradient the same way (grad_output_quantizer
  .set_usage(rowwise=True, columnwise=True): "dgrad GEMM requires row-wise usage, wgrad GEMM requires column-wise
  usage"): 2 + 2 x 33/32 B each. The weight's two copies are made once a step, as for delayed scaling (with
  fp8_param_gather, after the optimizer step on the shard): left out.
- torchao's MX linear (mxfp8_recipe torchao; torchtitan's mx converter, recipe mxfp8_cublas): the autograd function
  casts each operand once per layout, in the pass that uses it, from the 16-bit tensor it saved (pytorch/ao
  torchao/prototype/mx_formats/mx_linear.py @e4e681be, mx_mm, the torchao of its B200 table; the same in
  torchao/prototype/moe_training/mxfp8_linear.py @36027d82): forward the input and the weight along dim 0,
  backward the output gradient along dim 0 and dim 1, the weight along dim 1 and the input along dim 1: 2 + 33/32 B
  a cast, two casts of each operand (roofline_utils.py @36027d82, get_tensor_memory_traffic_ovhd_s, the mx case:
  kernel 1 dim0 and kernel 2 dim1, "we can't profitably fuse kernel 1 and kernel 2"). FSDP2 gathers the weights in
  the mixed-precision dtype (moe_training/tensor.py @36027d82, fsdp_pre_all_gather: self._data.to(mp_policy.
  param_dtype); torchtitan's MXConverter @6fc499f6 adds no 8-bit gather), so the two weight casts run every
  micro-batch on the whole gathered weight.
- Under sequence parallelism the layers' input all-gathers are priced in 8 bits, as for levers.fp8: Transformer
  Engine quantises the local input before it gathers (module/linear.py @d0067d0d, with_input_all_gather_nccl:
  gather_along_first_dim with the input quantizer). torchao's MX linear gathers its input in bf16 (torchtitan's
  models/llama3/infra/parallelize.py @6fc499f6 takes the float8 tensor-parallel plan for the float8 converter only,
  and its MXConverter refuses tensor parallelism with torch.compile); it is priced the same, short of the bf16
  bytes.
- seed (the textbook model: parameters and gradients stored and reduced in MXFP8) names no library, so no cast
  recipe can be sourced for it: its GEMMs are priced in bf16 as before (mxfp8_casts None), the lever buying
  memory and wire bytes as the design's lever table prices it.
"""

from dataclasses import dataclass

from models.enums import Dtype, Fp8Recipe, GpuGeneration, Mxfp8Recipe
from service.memory.dtypes import bytes_per_element
from service.numeric import FloatLike, IntLike

# Of the bf16 GEMM ceiling, the share an FP8 GEMM keeps of its own peak (module docstring: torchao's published
# float8 linear at 4096 x 8192 x 16384 on a 2.4 TB/s H100, 1.39 x bf16, less its casts).
FP8_GEMM_PEAK_SHARE = 0.84
# An MXFP8 GEMM's speed against a per-tensor FP8 one, the same twelve GEMMs pre-quantised on B300 (module docstring:
# Transformer Engine's gemm_profiling.rst @d0067d0d, 6.812 ms FP8Current and 7.161 ms MXFP8 a layer)
MXFP8_GEMM_PEAK_SHARE = FP8_GEMM_PEAK_SHARE * 6.812 / 7.161
FP8_OPERAND_BYTES = 1  # an FP8 GEMM reads its operands in 1 byte (the output is written in 16 bits)
# an MXFP8 element with its share of the block's E8M0 scale, 1 + 1/32 bytes: what an MXFP8 GEMM reads per operand
# element and a cast writes per element and layout (module docstring)
MXFP8_ELEMENT_BYTES = bytes_per_element(Dtype.mxfp8)


@dataclass(frozen=True)
class Fp8Casts:
    """HBM bytes per element that quantisation moves for one linear and micro-batch (module docstring)."""

    input_forward: float  # per element of each GEMM input (M x K), in the forward
    grad_output_backward: float  # per element of each output gradient (M x N), in the backward
    weight_forward: float  # per weight element (K x N), in the forward
    weight_backward: float  # per weight element, in the backward
    input_backward: float = 0  # per input element, in the backward (torchao's MX linear casts its saved input again)
    # per element of an input a LayerNorm-fused linear reads (its amax from the norm kernel); None: input_forward
    normed_input_forward: float | None = None


# (input, output gradient, weight forward, weight backward): read 2, write 1 + 1 for a cast with both layouts;
# torchao's abs-max reads 2 more, a weight cast to one layout reads 2 and writes 1, a transposed FP8 copy 1 + 1
# delayed scaling behind a LayerNorm-fused linear: the norm kernel writes the FP8 output itself, its transpose read 1
# and written 1 (none on Blackwell)
TRANSFORMER_ENGINE_CASTS = Fp8Casts(2 + 1 + 1, 2 + 1 + 1, 0, 0, normed_input_forward=1 + 1)
# current scaling: an amax pass (read 2) before each cast-transpose, none behind a LayerNorm-fused linear's norm
TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS = Fp8Casts(
    2 + (2 + 1 + 1), 2 + (2 + 1 + 1), 0, 0, normed_input_forward=2 + 1 + 1
)
# on Blackwell Transformer Engine's per-tensor casts write one FP8 copy, no transpose
TRANSFORMER_ENGINE_CASTS_BLACKWELL = Fp8Casts(2 + 1, 2 + 1, 0, 0, normed_input_forward=0)
TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS_BLACKWELL = Fp8Casts(
    2 + (2 + 1), 2 + (2 + 1), 0, 0, normed_input_forward=2 + 1
)
TORCHAO_CASTS = Fp8Casts(2 + (2 + 1 + 1), 2 + (2 + 1 + 1), 2 + (2 + 1), 2 + 1)
TORCHAO_FP8_GATHER_CASTS = Fp8Casts(2 + (2 + 1 + 1), 2 + (2 + 1 + 1), 0, 1 + 1)
# MXFP8: read 2, write MXFP8_ELEMENT_BYTES a layout; Transformer Engine makes both layouts in one kernel, torchao one
# kernel a layout, each in the pass that uses it
TRANSFORMER_ENGINE_MXFP8_CASTS = Fp8Casts(2 + 2 * MXFP8_ELEMENT_BYTES, 2 + 2 * MXFP8_ELEMENT_BYTES, 0, 0)
TORCHAO_MXFP8_CASTS = Fp8Casts(
    2 + MXFP8_ELEMENT_BYTES,
    2 * (2 + MXFP8_ELEMENT_BYTES),
    2 + MXFP8_ELEMENT_BYTES,
    2 + MXFP8_ELEMENT_BYTES,
    input_backward=2 + MXFP8_ELEMENT_BYTES,
)


def transformer_engine_transpose_free(generation: GpuGeneration | None) -> bool:
    """Whether Transformer Engine's per-tensor FP8 tensors on this generation hold one copy for both GEMM usages
    (Blackwell: nvte_is_non_tn_fp8_gemm_supported, module docstring), not the data and its transpose."""
    return generation in (GpuGeneration.blackwell, GpuGeneration.blackwell_ultra)


def fp8_casts(recipe: Fp8Recipe, generation: GpuGeneration | None = None) -> Fp8Casts:
    """The quantisation bytes of ``recipe`` on a card of ``generation`` (module docstring). torchao's are those of
    its weights gathered in FP8 under FSDP2, as torchtitan and OLMo-core run it: a layout's compute is one figure for
    every arrangement (a search prices it once per layout), so the per-micro-batch casts of a weight kept whole in
    bf16 (TORCHAO_CASTS, 5 + 3 B a weight against 2, data parallelism without sharding) are not priced apart."""
    if recipe is Fp8Recipe.torchao:
        return TORCHAO_FP8_GATHER_CASTS
    blackwell = transformer_engine_transpose_free(generation)
    if recipe is Fp8Recipe.transformer_engine_current_scaling:
        return (
            TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS_BLACKWELL
            if blackwell
            else TRANSFORMER_ENGINE_CURRENT_SCALING_CASTS
        )
    return TRANSFORMER_ENGINE_CASTS_BLACKWELL if blackwell else TRANSFORMER_ENGINE_CASTS


def mxfp8_casts(recipe: Mxfp8Recipe) -> Fp8Casts | None:
    """The quantisation bytes of an MXFP8 recipe as its library runs it (module docstring); None for seed, whose
    GEMMs stay priced in bf16."""
    if recipe is Mxfp8Recipe.fp8_weights:
        return TRANSFORMER_ENGINE_MXFP8_CASTS
    if recipe is Mxfp8Recipe.torchao:
        return TORCHAO_MXFP8_CASTS
    return None


def fp8_cast_seconds(
    casts: Fp8Casts,
    matrices: list[tuple[int, int]],
    weight_elements: IntLike,
    tokens: IntLike,
    hbm_bytes_per_s: float,
    normed_inputs: int = 0,
    routed_matrices: list[tuple[IntLike, IntLike]] | None = None,
    routed_rows: IntLike = 0,
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) seconds of one layer's quantisation for a micro-batch of ``tokens`` on one GPU: each
    matrix (k, n) a token meets has its k inputs and n output gradients cast, each of ``routed_matrices`` (a
    mixture's routed experts: a grouped GEMM quantises every copy it takes) its k and n for each of the
    ``routed_rows`` copies the GPU computes, and the layer's ``weight_elements`` (the weights the GPU computes with)
    theirs, at HBM bandwidth; of the inputs, ``normed_inputs`` a token are those of LayerNorm-fused linears, cast at
    casts.normed_input_forward where the recipe has it."""
    inputs = sum(k for k, _ in matrices)
    outputs = sum(n for _, n in matrices)
    input_bytes = casts.input_forward * inputs
    if casts.normed_input_forward is not None:
        input_bytes -= (casts.input_forward - casts.normed_input_forward) * normed_inputs
    forward = input_bytes * tokens + casts.weight_forward * weight_elements
    backward = casts.grad_output_backward * outputs * tokens + casts.weight_backward * weight_elements
    if casts.input_backward:
        backward = backward + casts.input_backward * inputs * tokens
    if routed_matrices:
        routed_inputs = sum(k for k, _ in routed_matrices) * routed_rows
        routed_outputs = sum(n for _, n in routed_matrices) * routed_rows
        forward = forward + casts.input_forward * routed_inputs
        backward = backward + casts.grad_output_backward * routed_outputs + casts.input_backward * routed_inputs
    return forward / hbm_bytes_per_s, backward / hbm_bytes_per_s
