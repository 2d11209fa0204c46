"""Step time from what each operation costs on the GPU: an efficiency model in place of one MFU.

Compute, per GPU and micro-batch of T = b x s tokens (every term a published cost model):
- **Matrix multiplications** (the transformer's q/k/v, output, MLP and logit projections, each
  run three times: forward, input gradient, weight gradient) on a roofline (Williams, Waterman
  and Patterson 2009): the longer of their FLOPs at the GPU's peak and their operand bytes over
  HBM bandwidth. FLOPs run in waves of 128 x 128 output tiles over the streaming multiprocessors
  (NVIDIA's "Matrix Multiplication Background User's Guide": tile and wave quantisation), each
  tile at ``gemm_ceiling`` of the peak: a fitted constant per GPU generation, the fraction of
  peak cuBLAS reaches on large bf16 GEMMs. Multi-head latent attention runs its own projections
  (attention_matrices: the low-rank query and key/value down and up projections and the output),
  not the q, k, v of its heads' widths.
- **Attention** as its kernel runs (service/time/attention_kernels.py, the published tables cited there):
  a causal flash-attention call runs half the s x s square (the diagonal tiles' waste is in the
  published speeds), 2 x s x (a x d) per query token forward, and its backward 2.5 x the forward's FLOPs
  (five products against two, the scores recomputed), each at the published speed of the run's kernel
  (levers.attention_backend: cuDNN's fused attention on Hopper, FlashAttention-2 elsewhere by default) at
  the model's head dim and the sequence length, times ``attention_scale``, a fitted constant per
  generation (1: the kernel as published). Model FLOPs still count the whole square (PaLM appendix B,
  service/time/compute.py): the utilisation is reported as the literature reports it. Without flash
  attention the two batched products run at the GEMM ceiling on the whole square (an unfused
  implementation computes every score, then masks) and the s x s scores go through HBM.
- **Weight gradients into fp32** (the megatron precision: Efficiency.wgrad_fp32_accumulation). Megatron-LM
  keeps an fp32 gradient buffer for bf16 training (megatron/training/arguments.py @1e057005:
  accumulate_allreduce_grads_in_fp32 is set for --bf16 unless --grad-reduce-in-bf16) and by default
  (--no-gradient-accumulation-fusion turns it off) accumulates each weight gradient into it inside the GEMM:
  Transformer Engine's linears and grouped linears with fuse_wgrad_accumulation =
  config.gradient_accumulation_fusion (megatron/core/extensions/transformer_engine.py @1e057005, TELinear and
  TEGroupedLinear), the output layer through fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32
  (megatron/core/tensor_parallel/layers.py); the router's weight is a plain parameter (moe/router.py). The
  epilogue reads the fp32 gradient and writes it back, 8 bytes an output element every micro-batch
  (FP32_ACCUMULATE_BYTES), where a fresh 16-bit gradient writes 2. A weight gradient's arithmetic intensity is
  then about T / 4 FLOPs a byte for T tokens: an expert that receives 512 tokens a micro-batch (Qwen3-235B-A22B
  at t4 e8, 4,096 tokens) runs its weight gradients at HBM speed, not at the GEMM ceiling. Megatron-FSDP's
  sharded gradients (optim_grads, optim_grads_params) refuse the fusion (arguments.py) and add the 16-bit
  gradient into the fp32 buffer with a kernel of their own, no fewer bytes: they are priced the same.
- **Memory-bound work** by bytes over HBM bandwidth: per layer and token two norms (read and
  write h), two residual adds (read 2h, write h) (with sequence parallelism each tensor-parallel rank
  runs them on its s / t of the sequence alone: Korthikanti et al. 2022, section 4.2.2; without it
  every rank repeats them on the whole sequence), the rotary or bias work on q and k, the MLP's
  activation (read the up projection, write its output); backward moves twice the forward's bytes
  (it reads the saved input and the incoming gradient and writes one gradient); the loss reads
  and writes the fp32 logits (12 bytes per vocabulary entry and token, forward and backward), or, as
  Megatron-LM's vocabulary-parallel cross entropy runs without --cross-entropy-loss-fusion
  (activations.cross_entropy vocab_parallel), each of its steps a kernel of its own over an fp32 copy of
  the logits: 38 bytes forward and 14 backward (VOCAB_PARALLEL_LOSS_BYTES).
  The optimizer step streams its shard once: AdamW reads the fp32 master weight, both moments
  and the gradient and writes the three and the 16-bit copy, 30 bytes per weight.
- **Mixture of experts** (Megatron-Core's MoELayer with the all-to-all token dispatcher,
  megatron/core/transformer/moe/ @d98e8a64): the routed experts run as grouped GEMMs, one GEMM per
  local expert (experts.py, TEGroupedMLP / GroupedMLP) at the tokens each receives: a rank routes
  its s b / t tokens to top_k experts each, and after the all-to-all and the expert-tensor gather
  each of its experts / e local experts holds ETP x e x (s b / t) x top_k / experts copies
  (balanced routing), each split f_e / ETP wide; each expert's weights are read once. The
  per-expert cuBLAS GEMMs go round-robin over 4 streams (EXPERT_GEMM_STREAMS: Transformer Engine's
  GroupedLinear, grouped_gemm's gmm on Hopper), so four experts' tiles share the waves: tile and
  wave quantisation apply per group of four (the weight gradients, a few f_e x h tiles over a long
  k, lose up to half a wave each alone). The router is a GEMM (h x experts), its softmax and top-k
  read and write fp32 scores; the permutation (moe_utils.py ``permute`` before the all-to-all,
  ``sort_chunks_by_idxs`` by local expert after it when a rank holds more than one, and their
  inverses, ``unpermute`` weighting the copies by their probabilities) is memory-bound: per routed
  token it reads h and writes top_k x h, the local sort reads and writes the rank's copies, the
  combine the reverse; backward twice the forward's bytes. With DeepEP's dispatcher (levers.
  moe_token_dispatcher deepep: Megatron-Core's flex dispatcher, token_dispatcher.py _DeepepManager, as
  NeMo Automodel carries it at nemo_automodel/components/moe/megatron/token_dispatcher.py @e4581201) the
  dispatch kernel itself reads each token and writes one row per destination rank, r = e (1 -
  C(E - E/e, k) / C(E, k)) of them for k of E experts routed uniformly over e ranks, and the
  permutation that follows reads those rows and writes the top_k copies (the combine the reverse):
  2 (r + top_k) h per token, no sort by local expert. The permutation's counted bytes are its kernels'
  own traffic when fused (levers.moe_permute_fusion: Transformer Engine's moe_permute/moe_unpermute,
  one gather or scatter pass); unfused PyTorch (index_select, scatter_add, the probabilities'
  product) runs them at the memory-bound work's passes.
- **FP8** (levers.fp8: Transformer Engine's per-tensor delayed and current scaling, torchao's dynamic tensorwise
  float8; service/time/fp8.py gives each term's source): the layers' GEMMs (the routed experts' included) run at the
  card's dense FP8 peak times the ceiling times FP8_GEMM_PEAK_SHARE (0.84: torchao's published float8 linear speedup
  on H100 less its casts), reading 1-byte operands; attention, the logits and the loss stay in 16 bits. The
  quantisation runs at HBM bandwidth, bytes per operand element per micro-batch (fp8.Fp8Casts): Transformer
  Engine's cast-transposes, 4 per input (forward) and per output gradient (backward), current scaling's amax pass
  2 more; behind a LayerNorm-fused linear (normed_input_elements) current scaling casts at 4 and delayed scaling
  only transposes the norm's FP8 output, 2; on Blackwell no transpose is written (1 less a cast, and nothing behind
  a norm under delayed scaling); torchao's abs-max and cast
  kernels, 6 each, and the weights' casts (5 forward and 3 backward a weight kept in bf16; the transposed copy of
  the FP8-gathered weight under FSDP2, 2 backward). MXFP8 (levers.mxfp8, recipes fp8_weights and torchao) on a
  Blackwell-class card is priced the same way on the block-scaled FP8 path: the same peak, MXFP8_GEMM_PEAK_SHARE
  (0.84 x 6.812 / 7.161, Transformer Engine's B300 GEMM benchmark), operands of
  1 + 1/32 bytes (the E8M0 scales), and the recipe's casts (fp8.mxfp8_casts): Transformer Engine's 2 + 2 x 33/32
  per input and output gradient, torchao's MX linear 2 + 33/32 a cast, two casts of every input, output gradient
  and weight each micro-batch. The textbook recipe (seed) keeps bf16 GEMMs. A mixture's routed experts quantise
  every routed copy (Transformer Engine's GroupedLinear casts each expert's split of the permuted input and of the
  output gradient): fc1's w inputs and fc2's w output gradients are cast top_k times a token, on the copies a GPU
  computes (fp8_layer_cast_seconds); the attention, shared experts and latent projections once a token.
- **Ring attention as Transformer Engine runs it** (context parallelism, parallelism.context_attention
  "ring": AttnFuncWithCPAndKVP2P, transformer_engine/pytorch/attention/dot_product_attention/
  context_parallel.py @d0067d0d): the causal sequence is cut in 2c chunks, rank r holding chunks r and
  2c - 1 - r, and each of its c steps runs flash attention on the rank's queries against one K/V chunk: on
  the diagonal step every query tile loops over about s / 2c keys as a whole sequence's causal tile loops
  over about s / 2, on the other steps over the half chunk of s / 2c keys. A flash-attention call has a
  fixed cost per query tile (loading the tile, the softmax rescale, writing the output) worth about
  ATTENTION_TILE_OVERHEAD_KEYS keys of its loop: pytorch/benchmark @ff65cb67 (PR 2391) measures, at 16K
  tokens a call and 16 x 128 wide on H100, FlashAttention-3 at 430, 517, 566, 590, 614 and 621 TFLOP/s for
  sequences of 512 to 16K (Triton's FlashAttention-2 329 to 477), both within 1.5% of keys / (keys + 240)
  of their plateau. The published speed is a whole sequence's, so a ring step runs at
  (L / (L + 240)) / (S / (S + 240)) of it, L = s / 2c and S = s / 2 (ring_attention_slowdown; 1 at
  c = 1). Then each step's partial output is merged in 16 bits (flash_attn_fwd_out_correction_init, then
  flash_attn_fwd_out_correction: read the step's output, read and write the running one: 4 bytes an
  element on the first step, 6 on each other) and in the backward each step's dQ, dK and dV are added into
  the running gradients (copy 4, add 6 bytes an element): context_merge_bytes_per_token, HBM traffic
  counted from the kernels themselves (no fitted passes), for the rank that sets the pace (the last,
  whose every step holds all its queries). Llama 3's all-gather variant (AttnFuncWithCPAndKVAllGather)
  loops each query tile over its whole causal prefix and merges nothing: neither term applies.
- Full recomputation runs the layers' forward again (the logits and loss are not checkpointed).
  Selective recomputation (Korthikanti et al. 2022, section 4.2) runs the attention core's
  forward again in the backward: the two batched products, the softmax and its dropout over the
  s x s scores; with flash attention nothing was stored, so it repeats nothing.

Communication (service/time/communication.py prices each ring call with these speeds):
- **Bus bandwidth, not line rate:** NCCL's protocol overhead leaves about 370 of NVLink 4's
  450 GB/s per direction as bus bandwidth (NCCL maintainer, NVIDIA/nccl-tests issue 212), the
  ratio used for every scale-up link; a ring across nodes runs one channel per NIC, so its bus
  bandwidth is all of a node's NICs (G x the per-GPU NIC) at 96% of line rate (nccl-tests issue
  119: 96 GB/s peak bus bandwidth on 4 x 200 Gb/s HDR per node), capped by the scale-up link.
- **One call per bucket or FSDP unit** (service.time.buckets), each priced by NCCL's own tuning model
  (service.time.nccl).
- **Overlap costs compute:** communication kernels hidden under compute take streaming
  multiprocessors and HBM bandwidth from it; the compute they overlap runs
  ``overlap_slowdown`` x the hidden communication time longer (the second fitted constant).

Every function takes Python ints or numpy arrays for b, s, N and G.
"""

from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from models.enums import AttentionBackend, CrossEntropy, GpuGeneration, MoeTokenDispatcher, Recompute
from service.numeric import FloatLike, IntLike, ceil_div, select
from service.recent import recent
from service.time.attention_kernels import default_backend, kernel_peak_share
from service.time.fp8 import (
    FP8_GEMM_PEAK_SHARE,
    FP8_OPERAND_BYTES,
    TRANSFORMER_ENGINE_CASTS,
    Fp8Casts,
    fp8_cast_seconds,
)

TILE = 128  # output tile edge of cuBLAS's large bf16 kernels (NVIDIA Matrix Multiplication Guide)
# Streams a grouped expert GEMM issues its per-expert cuBLAS GEMMs on, round-robin: Transformer Engine's GroupedLinear
# (transformer_engine/common/util/multi_stream.h, num_compute_streams = 4; Megatron-Core's TEGroupedMLP) and
# grouped_gemm's gmm on Hopper (fanshiqing/grouped_gemm v1.1.4 csrc/grouped_gemm.cu: NUM_STREAM 4, cuBLAS for SM90).
EXPERT_GEMM_STREAMS = 4
BYTES_16BIT = 2
# A weight gradient accumulated in its GEMM into an fp32 main gradient (Megatron-LM's gradient accumulation fusion,
# module docstring): the epilogue reads the fp32 gradient and writes it back, 4 + 4 bytes an element, where a GEMM whose
# output is a fresh 16-bit tensor writes 2.
FP32_ACCUMULATE_BYTES = 8
OPTIMIZER_BYTES_PER_WEIGHT = 30  # AdamW: read 4 x fp32 (weight, m, v, grad) + write 3 x fp32 + a 16-bit copy
LOSS_BYTES_PER_VOCAB_TOKEN = 12  # fp32 logits: written, read for the softmax, gradient written
# Megatron-LM's vocabulary-parallel cross entropy without --cross-entropy-loss-fusion, kernel by kernel over the rank's
# b x s x V / t logits (megatron/core/tensor_parallel/cross_entropy.py @1e057005, _VocabParallelCrossEntropy, called by
# language_module.py compute_language_model_loss): forward, .float() (read 2, write 4), max (read 4), the in-place
# subtraction of the max (read 4, write 4), the in-place exp (read 4, write 4), its sum (read 4) and the in-place
# division into the softmax (read 4, write 4): 38 bytes; backward, grad_input.mul_(grad_output) in place (read 4,
# write 4) and autograd's cast of that fp32 gradient to the bf16 logits' dtype (torch/csrc/autograd/engine.cpp,
# validate_outputs: read 4, write 2): 14 bytes. The per-token gathers and all-reduces are left out.
VOCAB_PARALLEL_LOSS_BYTES = (6 + 4 + 8 + 8 + 4 + 8, 8 + 6)
# Flash attention's fixed cost per query tile, in keys of its loop (module docstring: pytorch/benchmark @ff65cb67)
ATTENTION_TILE_OVERHEAD_KEYS = 240
NVLINK_BUS_EFFICIENCY = 370 / 450  # NVIDIA/nccl-tests issue 212: 370 GB/s bus bandwidth of 450 line rate
NIC_BUS_EFFICIENCY = 96 / 100  # NVIDIA/nccl-tests issue 119: 96 GB/s of 4 x 200 Gb/s per node

# Streaming multiprocessors (NVIDIA A100 and H100 whitepapers; V100 whitepaper), compute units for AMD
# (CDNA 3 whitepaper); other cards take the H100 SXM count.
MULTIPROCESSORS: dict[str, int] = {
    "v100-32gb": 80,
    "a100-40gb": 108,
    "a100-80gb": 108,
    "h100-80gb": 132,
    "h100-pcie": 114,
    "h100-nvl": 132,
    "h200": 132,
    "gh200": 132,
    "mi300x": 304,
    "mi325x": 304,
}
DEFAULT_MULTIPROCESSORS = 132
DEFAULT_HBM_BYTES_PER_S = 3.35e12  # H100 SXM5 datasheet, for a card given by its memory alone


@dataclass(frozen=True)
class Calibration:
    """The fitted constants: ``python -m bench.calibration`` fits them on half the published corpus
    (a fixed split) and prints every row beside the committed values; the Ampere and Hopper values here are its
    output of 2026-12-01.

    Fit of 2026-12-01 on the corpus of bench/calibration/corpus.py as of that date: 29 fit rows (MosaicML's MPT
    tables, Narayanan et al. 2021 table 1, Megatron-LM's H100 table, its tensor-parallel rows included; alternate
    rows within each source), fit rows median |error| 5.3%, max 14.7%; the 28 held-out rows 6.4%, max 22.6%.
    With the rows added since (the B200 rows below among them) these constants give fit rows median
    4.5% (max 18.8%) and held-out rows 4.5% (max 20.8%) on 34 and 33 rows. Refitted jointly on today's corpus they
    would move (Ampere's ceiling 0.74, the attention scales 0.54 and 0.58, 1.5 memory-bound passes) with the
    held-out rows no better (median 4.7%, max 21.9%), so the committed values stay.

    Blackwell, fit of 2026-12-02 (``python -m bench.calibration --blackwell``: the B200 rows of bench/calibration/
    corpus_b200.py, every other constant as above): Megatron-Bridge 25.11's DGX-B200 runs, the FP8 current-scaling
    ones fitted (Llama 3 8B -0.4%, Llama 3.1 405B TP4 PP8 CP2 VP8 +1.0%), the MXFP8 ones held out (+0.8%, +0.7%; with
    Hopper's constants they were -24.5% and -8.7%). Refitted once the FP8-CS runs kept their weights in FP8 as their
    recipes do (levers.fp8_param_gather; the fit before it, 0.60 and 2.02, put the 405B's ZeRO-1 parameter gather in
    16 bits). Two rows fix two constants: the ceiling comes out at 0.58, a little under Hopper's 0.60; the attention
    scale, 2.32, is on FlashAttention-2's Hopper fractions (no Blackwell kernel table is carried,
    service.time.attention_kernels), where the runs use Transformer Engine's cuDNN attention. Blackwell Ultra (B300)
    takes Blackwell's (FITTED_FAMILY) and the other generations the defaults: no published run of theirs states
    every input."""

    gemm_ceiling: dict[str, float] = field(default_factory=lambda: {"ampere": 0.75, "hopper": 0.60, "blackwell": 0.58})
    default_gemm_ceiling: float = 0.60  # other generations: Hopper's, the most conservative fitted
    # the attention core's speed relative to its kernel's published one (service.time.attention_kernels)
    attention_scale: dict[str, float] = field(
        default_factory=lambda: {"ampere": 0.58, "hopper": 0.66, "blackwell": 2.32}
    )
    default_attention_scale: float = 0.66  # other generations: Hopper's
    overlap_slowdown: float = 0.05
    elementwise_passes: float = 2.0  # unfused kernels: HBM passes per counted byte of memory-bound work

    def ceiling(self, generation: str | None) -> float:
        return _fitted(self.gemm_ceiling, generation, self.default_gemm_ceiling)

    def attention(self, generation: str | None) -> float:
        return _fitted(self.attention_scale, generation, self.default_attention_scale)


# A generation without fitted constants that shares another's tensor cores and kernels takes that one's: Blackwell
# Ultra (B300, sm_103) is Blackwell's architecture with the same dense bf16 and FP8 peaks in its presets and, by
# NVIDIA's Blackwell Ultra announcement, faster attention (twice the exponentials a cycle), so Blackwell's constants
# are the nearer bound, where Hopper's (the default) would price its attention at a third of a B200's.
FITTED_FAMILY = {"blackwell_ultra": "blackwell"}


def _fitted(values: dict[str, float], generation: str | None, default: float) -> float:
    key = generation or ""
    if key not in values:
        key = FITTED_FAMILY.get(key, key)
    return values.get(key, default)


FITTED = Calibration()


@dataclass(frozen=True)
class Device:
    """What the model needs of the GPU."""

    peak_flops_per_s: float
    hbm_bytes_per_s: float = DEFAULT_HBM_BYTES_PER_S
    multiprocessors: int = DEFAULT_MULTIPROCESSORS
    generation: GpuGeneration | None = None
    fp8_flops_per_s: float | None = None  # the dense FP8 tensor-core peak; None: no FP8 tensor cores (or unknown)
    # what a GEMM reads per operand element (1 in FP8, 1 + 1/32 in MXFP8: Efficiency.gemm_device)
    gemm_operand_bytes: float = BYTES_16BIT


@dataclass(frozen=True)
class KernelShape:
    """The matrices one token meets in each layer; widths per tensor-parallel rank come from ``tensor``."""

    layers: int
    hidden_size: int
    attention_width: int  # a x d: queries and the attention output
    kv_width: int  # kv_heads x d: each of keys and values
    ffn_hidden_size: int  # the MLP a token runs on h (a mixture: top_k routed + shared experts' widths)
    gated: bool  # SwiGLU: the up projection is two matrices
    vocab_size: int
    attention_heads: int = 1
    flash_attention: bool = True  # without it the s x s scores go through HBM
    latent_size: int = 0  # a mixture's latent width l (0: none); its routed experts run on l, not h
    latent_ffn_hidden_size: int = 0  # the inner widths a token runs on l: top_k x f_e (then not in ffn_hidden_size)
    experts: int = 0  # routed experts of a mixture (0: dense); their top_k x f_e is in ffn or latent_ffn_hidden_size
    top_k: int = 0
    expert_ffn_hidden_size: int = 0  # f_e, one routed expert's inner width
    moe_layers: int = 0  # of the layers, those with the mixture (0 with experts: all of them)
    dense_ffn_hidden_size: int = 0  # the MLP width of the other layers (DeepSeek-V3's first 3, Llama 4's interleaved)
    # multi-head latent attention (DeepSeek-V2 report, section 2.1), 0 without: its projections replace q, k, v
    q_lora_rank: int = 0  # the query's down-projection (0: queries projected from h directly)
    kv_lora_rank: int = 0  # the compressed key/value width
    qk_head_dim: int = 0  # d_nope + d_rope of each query and key head
    qk_rope_head_dim: int = 0  # the rotary part, projected with the compressed key/value
    v_head_dim: int = 0


@dataclass(frozen=True)
class Efficiency:
    device: Device
    kernels: KernelShape | None = None  # None: the architecture is unknown, GEMMs at the ceiling
    calibration: Calibration = FITTED
    # the layers' GEMMs in scaled FP8 (levers.fp8; levers.mxfp8 on a Blackwell-class card), at the FP8 peak when the
    # card has one
    fp8: bool = False
    fp8_casts: Fp8Casts = TRANSFORMER_ENGINE_CASTS  # the recipe's quantisation bytes (service.time.fp8)
    fp8_operand_bytes: float = FP8_OPERAND_BYTES  # what an FP8 GEMM reads per operand element (MXFP8: its scales too)
    # of the bf16 GEMMs' share, what an FP8 GEMM keeps of its peak (MXFP8_GEMM_PEAK_SHARE under MXFP8)
    fp8_peak_share: float = FP8_GEMM_PEAK_SHARE
    dispatcher: MoeTokenDispatcher = MoeTokenDispatcher.alltoall  # levers.moe_token_dispatcher
    permute_fusion: bool = False  # levers.moe_permute_fusion: the permutation in one pass over its bytes
    attention_backend: AttentionBackend | None = None  # levers.attention_backend; None: the generation's default
    cross_entropy: CrossEntropy = CrossEntropy.unfused  # activations.cross_entropy: the loss's HBM traffic
    # the weight gradients accumulate into fp32 main gradients inside their GEMMs (the megatron precision: module
    # docstring, "Weight gradients into fp32"); False: each weight gradient GEMM writes a fresh 16-bit gradient
    wgrad_fp32_accumulation: bool = False

    @property
    def wgrad_bytes(self) -> int:
        """HBM bytes a weight gradient GEMM moves per output element: FP32_ACCUMULATE_BYTES when it accumulates into
        an fp32 main gradient, else its 16-bit output written."""
        return FP32_ACCUMULATE_BYTES if self.wgrad_fp32_accumulation else BYTES_16BIT

    @property
    def attention_kernel(self) -> AttentionBackend:
        """The attention kernel the run uses: the one it names, else its generation's default."""
        if self.attention_backend is not None:
            return self.attention_backend
        return default_backend(self.device.generation)

    @property
    def gemm_device(self) -> Device:
        """The device the layers' GEMMs run on: under FP8 its FP8 peak times fp8_peak_share (FP8_GEMM_PEAK_SHARE,
        MXFP8_GEMM_PEAK_SHARE under MXFP8), operands of fp8_operand_bytes (module docstring), else as it is."""
        fp8 = self.device.fp8_flops_per_s
        if not self.fp8 or fp8 is None:
            return self.device
        return replace(
            self.device, peak_flops_per_s=fp8 * self.fp8_peak_share, gemm_operand_bytes=self.fp8_operand_bytes
        )


def loss_bytes_per_vocab_token(cross_entropy: CrossEntropy) -> tuple[int, int]:
    """(forward, backward) HBM bytes of the loss per token and vocabulary entry on the rank (module docstring):
    VOCAB_PARALLEL_LOSS_BYTES for Megatron-LM's unfused vocabulary-parallel cross entropy, else the fp32 logits
    written, read for the softmax and the gradient written (LOSS_BYTES_PER_VOCAB_TOKEN, a third forward)."""
    if cross_entropy is CrossEntropy.vocab_parallel:
        return VOCAB_PARALLEL_LOSS_BYTES
    return LOSS_BYTES_PER_VOCAB_TOKEN // 3, LOSS_BYTES_PER_VOCAB_TOKEN - LOSS_BYTES_PER_VOCAB_TOKEN // 3


def gemm_seconds(
    m: IntLike, k: IntLike, n: IntLike, device: Device, ceiling: float, output_bytes: int = BYTES_16BIT
) -> FloatLike:
    """One (m x k) @ (k x n) product: waves of 128 x 128 tiles at the ceiling, or its bytes over HBM (the operands
    in the device's gemm_operand_bytes, the output's ``output_bytes`` an element: 16 bits written, or
    FP32_ACCUMULATE_BYTES for a weight gradient accumulated into fp32)."""
    tiles = ceil_div(m, TILE) * ceil_div(n, TILE)
    waves = ceil_div(tiles, device.multiprocessors)
    per_tile_s = 2.0 * TILE * TILE * k / (device.peak_flops_per_s * ceiling / device.multiprocessors)
    compute_s = waves * per_tile_s
    memory_s = (device.gemm_operand_bytes * (m * k + k * n) + output_bytes * m * n) / device.hbm_bytes_per_s
    if isinstance(compute_s, np.ndarray) or isinstance(memory_s, np.ndarray):
        return np.maximum(compute_s, memory_s)
    return max(compute_s, memory_s)


def trained_gemm_seconds(
    m: IntLike, k: IntLike, n: IntLike, device: Device, ceiling: float, wgrad_bytes: int = BYTES_16BIT
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward): y = x W, then dx = dy W^T (m x n x k) and dW = x^T dy (k x m x n), the weight
    gradient's output ``wgrad_bytes`` an element (Efficiency.wgrad_bytes)."""
    forward = gemm_seconds(m, k, n, device, ceiling)
    backward = gemm_seconds(m, n, k, device, ceiling) + gemm_seconds(k, m, n, device, ceiling, wgrad_bytes)
    return forward, backward


def layer_matrices(shape: KernelShape, tensor: int = 1, routed: bool = True) -> list[tuple[int, int]]:
    """(k, n) of each projection of one layer on one tensor-parallel rank (Megatron's column/row split).

    With a latent width l the routed experts' MLP runs on l, between the whole (duplicated) projections
    h -> l and l -> h (Megatron-LM megatron/core/transformer/moe/moe_layer.py); an MLP of no width
    (a latent mixture without shared experts) has no matrices. routed False leaves the routed experts out
    (priced as grouped GEMMs, routed_expert_seconds) and adds the router (h x experts, whole on every rank)."""
    h, t = shape.hidden_size, tensor
    gate = 2 if shape.gated else 1
    matrices = attention_matrices(shape, tensor)
    routed_ffn = 0 if routed or not shape.experts else shape.top_k * shape.expert_ffn_hidden_size
    ffn = shape.ffn_hidden_size - (0 if shape.latent_size else routed_ffn)
    if ffn:
        matrices += [(h, gate * ffn // t), (ffn // t, h)]  # MLP up (gate), down
    if shape.latent_size:
        latent, inner = shape.latent_size, shape.latent_ffn_hidden_size - routed_ffn
        matrices += (
            [(h, latent)] + ([(latent, gate * inner // t), (inner // t, latent)] if inner else []) + [(latent, h)]
        )
    if not routed and shape.experts:
        matrices.append((h, shape.experts))  # the router's scores
    return matrices


def fp8_weight_elements(
    shape: KernelShape, tensor: int = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> FloatLike:
    """Weights of one layer a GPU computes with in FP8 (their casts: service.time.fp8): each projection's k x n on
    the rank (layer_matrices), the router left in 16 bits (Megatron-Core's TopKRouter is a plain linear), and of a
    mixture's routed experts the experts / e local ones, each (w x gate f_e + f_e x w) / ETP."""
    dense = layer_matrices(shape, tensor, routed=not shape.experts)
    if shape.experts:
        dense = dense[:-1]  # the router
    weights: FloatLike = sum(k * n for k, n in dense)
    if not shape.experts:
        return weights
    return weights + routed_weight_elements(shape, tensor, expert, expert_tensor)


def routed_weight_elements(
    shape: KernelShape, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> FloatLike:
    """Of fp8_weight_elements, a mixture's routed experts: the experts / e local ones, each (w x gate f_e + f_e x w)
    / ETP."""
    etp = tensor if expert_tensor is None else expert_tensor
    width = shape.latent_size or shape.hidden_size
    gate = 2 if shape.gated else 1
    per_expert = (gate + 1) * width * shape.expert_ffn_hidden_size // etp
    return ceil_div(shape.experts, expert) * per_expert


def fp8_layer_cast_seconds(
    eff: Efficiency, tokens: IntLike, tensor: int = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) seconds of one layer's FP8 or MXFP8 quantisation on one GPU for a micro-batch of
    ``tokens`` on the rank (service.time.fp8.fp8_cast_seconds, the recipe's eff.fp8_casts).

    A dense layer's projections meet each token once (layer_matrices). A mixture's attention, shared experts, latent
    projections (fc1_latent_proj, fc2_latent_proj: duplicated TELinear, applied to the token before the dispatch and
    after the combine) meet it once too (layer_matrices with the routed experts left out, less the router, which
    stays in 16 bits), but its routed experts quantise every routed copy: Megatron-Core's TEGroupedMLP
    (megatron/core/transformer/moe/experts.py @d98e8a64) runs Transformer Engine's GroupedLinear on the permuted
    copies the rank holds, whose forward splits the input by expert and quantises each split with that expert's
    input quantizer (transformer_engine/pytorch/module/grouped_linear.py @d0067d0d, _split_quantize(inp_view,
    m_splits, input_quantizers)) and whose backward does the same to the output gradient (_split_quantize
    (grad_output_view, ctx.m_splits, ctx.grad_output_quantizers)); torchao's MoE float8 and MXFP8 grouped GEMMs
    (torchao/prototype/moe_training) likewise cast the grouped GEMMs' operands. So every routed matrix's inputs and
    output gradients are cast once a copy (fc1's w inputs and fc2's w output gradients top_k x w a token, fc2's
    inputs and fc1's output gradients as wide as the copies' f_e), on ETP x top_k x the tokens / t a tensor-parallel
    rank routes (routed_rows, as routed_expert_seconds counts them), not w once a token as the folded MLP of
    layer_matrices(shape, tensor) had fc1's inputs and fc2's output gradients."""
    shape = eff.kernels
    assert shape is not None
    weights = fp8_weight_elements(shape, tensor, expert, expert_tensor)
    hbm, normed = eff.device.hbm_bytes_per_s, normed_input_elements(shape)
    if not shape.experts:
        return fp8_cast_seconds(eff.fp8_casts, layer_matrices(shape, tensor), weights, tokens, hbm, normed)
    once = layer_matrices(shape, tensor, routed=False)[:-1]  # less the router
    dense_weights = weights - routed_weight_elements(shape, tensor, expert, expert_tensor)
    once_f, once_b = fp8_cast_seconds(eff.fp8_casts, once, dense_weights, tokens, hbm, normed)
    routed_f, routed_b = routed_cast_seconds(eff, tokens, tensor, expert, expert_tensor)
    return once_f + routed_f, once_b + routed_b


def routed_cast_seconds(
    eff: Efficiency, tokens: IntLike, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> tuple[FloatLike, FloatLike]:
    """Of fp8_layer_cast_seconds, a mixture's routed experts: every copy's casts and the local experts' weights', run
    inside the experts' grouped GEMMs (Transformer Engine's GroupedLinear quantises in its own forward and
    backward), so they belong to the experts piece of Megatron-Core's combined 1F1B (moe_layer_pieces)."""
    shape = eff.kernels
    assert shape is not None and shape.experts
    etp = tensor if expert_tensor is None else expert_tensor
    rows = routed_rows(shape, tokens, tensor, expert, expert_tensor)
    weights = routed_weight_elements(shape, tensor, expert, expert_tensor)
    hbm = eff.device.hbm_bytes_per_s
    return fp8_cast_seconds(eff.fp8_casts, [], weights, tokens, hbm, 0, routed_expert_matrices(shape, etp), rows)


def normed_input_elements(shape: KernelShape) -> int:
    """Per token, the inputs of one layer's LayerNorm-fused linears in Megatron-Core's Transformer Engine layer spec
    (megatron/core/models/gpt/gpt_layer_specs.py @1e057005; service.time.fp8, current scaling): the q/k/v
    projection's h (TELayerNormColumnParallelLinear) and a dense MLP's fc1's h (a mixture's follows its own TENorm);
    with multi-head latent attention the q and kv up projections' q_lora and kv_lora ranks behind their norms (the
    down projections share the layer's TENorm)."""
    attention = shape.q_lora_rank + shape.kv_lora_rank if shape.kv_lora_rank else shape.hidden_size
    dense_mlp = shape.hidden_size if shape.ffn_hidden_size and not shape.experts and not shape.latent_size else 0
    return attention + dense_mlp


def attention_matrices(shape: KernelShape, tensor: int = 1) -> list[tuple[int, int]]:
    """(k, n) of the attention's projections on one tensor-parallel rank: q, k, v column parallel and the output
    row parallel; with multi-head latent attention (Megatron-Core's MLASelfAttention, megatron/core/transformer/
    multi_latent_attention.py: linear_q_down_proj and linear_kv_down_proj duplicated on every rank,
    linear_q_up_proj and linear_kv_up_proj column parallel, linear_proj row parallel; DeepSeek-V3's
    DeepseekV3Attention q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj) the a heads' queries come from h
    through the rank q_lora (or directly), keys and values from the compressed kv_lora (with the shared rotary key
    d_rope projected beside it), the output from a x d_v."""
    h, t = shape.hidden_size, tensor
    if not shape.kv_lora_rank:
        return [
            (h, (shape.attention_width + 2 * shape.kv_width) // t),  # q, k, v (column parallel)
            (shape.attention_width // t, h),  # attention output (row parallel)
        ]
    heads = shape.attention_heads
    nope = shape.qk_head_dim - shape.qk_rope_head_dim
    q = heads * shape.qk_head_dim // t
    queries = [(h, shape.q_lora_rank), (shape.q_lora_rank, q)] if shape.q_lora_rank else [(h, q)]
    return queries + [
        (h, shape.kv_lora_rank + shape.qk_rope_head_dim),  # compressed key/value and the rotary key, duplicated
        (shape.kv_lora_rank, heads * (nope + shape.v_head_dim) // t),  # keys and values up (column parallel)
        (heads * shape.v_head_dim // t, h),  # output (row parallel)
    ]


def routed_tokens_per_expert(
    shape: KernelShape, tokens: IntLike, tensor: IntLike, expert: IntLike, etp: IntLike
) -> IntLike:
    """Copies one local expert computes: ETP x e x (tokens / t) x top_k / experts, whole (module docstring)."""
    return ceil_div(etp * expert * tokens * shape.top_k, tensor * shape.experts)


def concurrent_gemm_seconds(
    m: IntLike,
    k: IntLike,
    n: IntLike,
    device: Device,
    ceiling: float,
    concurrent: IntLike,
    output_bytes: int = BYTES_16BIT,
) -> FloatLike:
    """``concurrent`` equal (m x k) @ (k x n) products in flight at once on separate streams: their tiles share the
    waves (ceil(concurrent x tiles / SMs) of them) and each reads its own operands and moves its output's
    ``output_bytes`` an element (gemm_seconds); 0 concurrent takes no time."""
    tiles = ceil_div(m, TILE) * ceil_div(n, TILE) * concurrent
    waves = ceil_div(tiles, device.multiprocessors)
    per_tile_s = 2.0 * TILE * TILE * k / (device.peak_flops_per_s * ceiling / device.multiprocessors)
    compute_s = waves * per_tile_s
    operand_bytes = device.gemm_operand_bytes * (m * k + k * n) + output_bytes * m * n
    memory_s = concurrent * operand_bytes / device.hbm_bytes_per_s
    if isinstance(compute_s, np.ndarray) or isinstance(memory_s, np.ndarray):
        return np.maximum(compute_s, memory_s)
    return max(compute_s, memory_s)


def grouped_gemm_seconds(
    m: IntLike,
    k: IntLike,
    n: IntLike,
    device: Device,
    ceiling: float,
    gemms: IntLike,
    wgrad_bytes: int = BYTES_16BIT,
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) of ``gemms`` equal products y = x W, one per expert, issued round-robin over
    EXPERT_GEMM_STREAMS streams: groups of that many run at once, the last group the remainder (module docstring);
    the weight gradients' outputs ``wgrad_bytes`` an element (Efficiency.wgrad_bytes)."""
    streams = EXPERT_GEMM_STREAMS
    full, rest = gemms // streams, gemms % streams
    forward = full * concurrent_gemm_seconds(m, k, n, device, ceiling, streams) + concurrent_gemm_seconds(
        m, k, n, device, ceiling, rest
    )
    backward = 0.0
    # dx = dy W^T, then dW = x^T dy
    for mm, kk, nn, out in ((m, n, k, BYTES_16BIT), (k, m, n, wgrad_bytes)):
        backward = (
            backward
            + full * concurrent_gemm_seconds(mm, kk, nn, device, ceiling, streams, out)
            + concurrent_gemm_seconds(mm, kk, nn, device, ceiling, rest, out)
        )
    return forward, backward


def routed_expert_seconds(
    eff: Efficiency, tokens: IntLike, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) of one layer's routed experts on one GPU: a GEMM per local expert (experts / e of
    them) at its routed_tokens_per_expert rows, f_e / ETP wide, issued over EXPERT_GEMM_STREAMS streams so that
    that many experts' tiles share the waves (grouped_gemm_seconds), weights read per expert; tokens is the
    micro-batch's s b / c on the rank."""
    shape = eff.kernels
    assert shape is not None and shape.experts
    device, ceiling = eff.gemm_device, eff.calibration.ceiling(eff.device.generation)
    etp = tensor if expert_tensor is None else expert_tensor
    local = ceil_div(shape.experts, expert)
    m = routed_tokens_per_expert(shape, tokens, tensor, expert, etp)
    (width, up), (inner, _) = routed_expert_matrices(shape, etp)
    up_f, up_b = grouped_gemm_seconds(m, width, up, device, ceiling, local, eff.wgrad_bytes)
    down_f, down_b = grouped_gemm_seconds(m, inner, width, device, ceiling, local, eff.wgrad_bytes)
    return up_f + down_f, up_b + down_b


def routed_expert_matrices(shape: KernelShape, etp: IntLike) -> list[tuple[IntLike, IntLike]]:
    """(k, n) of one routed expert's fc1 (w x gate f_e / ETP, column parallel over the expert-tensor group) and fc2
    (f_e / ETP x w), w the routed width (the latent size, else h)."""
    width = shape.latent_size or shape.hidden_size
    inner = shape.expert_ffn_hidden_size // etp
    gate = 2 if shape.gated else 1
    return [(width, gate * inner), (inner, width)]


def routed_rows(
    shape: KernelShape, tokens: IntLike, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> IntLike:
    """Rows the routed experts' GEMMs on one GPU take for a micro-batch of ``tokens`` on the rank: each of its
    experts / e local experts computes routed_tokens_per_expert copies (about ETP x top_k x tokens / t in all), as
    routed_expert_seconds prices them."""
    etp = tensor if expert_tensor is None else expert_tensor
    return ceil_div(shape.experts, expert) * routed_tokens_per_expert(shape, tokens, tensor, expert, etp)


def destination_ranks_per_token(experts: int, top_k: int, expert: IntLike) -> FloatLike:
    """Ranks of the expert group a token's top_k experts land on, in expectation under uniform routing: e (1 -
    C(E - E/e, k) / C(E, k)), the chance a rank holds none of the k being the product over i < k of (E - E/e - i) /
    (E - i); DeepEP's dispatch sends a token once to each such rank (get_dispatch_layout's is_token_in_rank)."""
    local = experts / np.asarray(expert, dtype=float)
    missed = np.ones_like(local)
    for i in range(top_k):
        missed = missed * np.maximum(experts - local - i, 0.0) / (experts - i)
    ranks = np.asarray(expert, dtype=float) * (1.0 - missed)
    return ranks if isinstance(expert, np.ndarray) else float(ranks)


def router_score_bytes_per_token(shape: KernelShape, tensor: IntLike = 1) -> FloatLike:
    """Forward bytes of one layer's router scores per token of the micro-batch on the rank: fp32 scores written,
    read by the softmax or sigmoid and top-k, probabilities written (3 x 4 x experts), over the t ranks that
    each route 1 / t of the tokens."""
    return 3 * 4 * shape.experts / tensor


def permutation_bytes_per_token(
    shape: KernelShape,
    tensor: IntLike = 1,
    expert: IntLike = 1,
    expert_tensor: IntLike | None = None,
    dispatcher: MoeTokenDispatcher = MoeTokenDispatcher.alltoall,
) -> FloatLike:
    """Forward bytes of one layer's permutation and its inverse per token of the micro-batch on the rank, 16-bit
    values of the routed width w (module docstring). alltoall: the permutation reads the token and writes top_k
    copies, the combine's unpermute reads them and writes the token (2 x (w + top_k w)); with more than one local
    expert the copies the rank computes (ETP x top_k per routed token) are sorted by expert and back, each read and
    written (2 x 2 x ETP top_k w). deepep: the r rows DeepEP's dispatch wrote (destination_ranks_per_token) read and
    the top_k copies written, and the reverse (2 x ETP (r + top_k) w)."""
    etp = tensor if expert_tensor is None else expert_tensor
    width = shape.latent_size or shape.hidden_size
    k = shape.top_k
    if dispatcher is MoeTokenDispatcher.deepep:
        rows = destination_ranks_per_token(shape.experts, k, expert)
        return BYTES_16BIT * 2 * etp * (rows + k) * width / tensor
    permute = BYTES_16BIT * 2 * (width + k * width)
    sort = BYTES_16BIT * 2 * 2 * etp * k * width
    local_sort = select(ceil_div(shape.experts, expert) > 1, sort, 0 * sort)
    return (permute + local_sort) / tensor


def routing_bytes_per_token(
    shape: KernelShape,
    tensor: IntLike = 1,
    expert: IntLike = 1,
    expert_tensor: IntLike | None = None,
    dispatcher: MoeTokenDispatcher = MoeTokenDispatcher.alltoall,
) -> FloatLike:
    """Forward bytes of one layer's routing and permutation per token of the micro-batch on the rank (each rank
    routes 1 / t of them): the router's scores (router_score_bytes_per_token) and the permutation
    (permutation_bytes_per_token)."""
    return router_score_bytes_per_token(shape, tensor) + permutation_bytes_per_token(
        shape, tensor, expert, expert_tensor, dispatcher
    )


def elementwise_bytes_per_token(shape: KernelShape, s: IntLike, tensor: int = 1, sequence: IntLike = 1) -> FloatLike:
    """Forward bytes of one layer's memory-bound work per token (module docstring), the attention
    scores' included (``score_bytes_per_token``); ``sequence``: the ranks the norms and residual adds are
    split over along the sequence (t with sequence parallelism, else 1)."""
    h = shape.hidden_size
    norms = 2 * 2 * h
    residuals = 2 * 3 * h
    rotary = 2 * (shape.attention_width + shape.kv_width) // tensor
    activation = (3 if shape.gated else 2) * (shape.ffn_hidden_size + shape.latent_ffn_hidden_size) // tensor
    per_rank = BYTES_16BIT * (rotary + activation) + BYTES_16BIT * (norms + residuals) / sequence
    return per_rank + score_bytes_per_token(shape, s, tensor)


def score_bytes_per_token(shape: KernelShape, s: IntLike, tensor: int = 1) -> IntLike:
    """Forward bytes of the attention scores per token and layer: none with flash attention; without it
    each head's row of s 2-byte scores is written, read and written by the softmax and read by the
    weighted sum (Korthikanti et al. 2022, section 4.1)."""
    if shape.flash_attention:
        return 0 * s
    return BYTES_16BIT * 4 * (shape.attention_heads // tensor) * s


@dataclass(slots=True)  # not frozen: one is built for every plan, and a frozen __init__ costs more
class ComputeTime:
    """Per GPU and micro-batch."""

    forward_s: FloatLike
    backward_s: FloatLike  # the recomputed forward included

    @property
    def total_s(self) -> FloatLike:
        return self.forward_s + self.backward_s


def ring_attention_slowdown(s: IntLike, context: IntLike, ring: bool = True) -> FloatLike:
    """How much longer flash attention runs in ring-attention steps than over the whole sequence (module
    docstring): (S / (S + K0)) / (L / (L + K0)), S = s / 2 and L = s / 2c the keys a query tile loops over,
    K0 = ATTENTION_TILE_OVERHEAD_KEYS; 1 at c = 1 or with the all-gather variant (``ring`` False)."""
    k0 = ATTENTION_TILE_OVERHEAD_KEYS
    whole = s / 2
    step = s / (2 * context)
    slowdown = whole * (step + k0) / (step * (whole + k0))
    return select(ring & (context > 1) if isinstance(context, np.ndarray) else ring and context > 1, slowdown, 1.0)


def context_merge_bytes_per_token(
    shape: KernelShape, context: IntLike, tensor: IntLike = 1, ring: bool = True
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) HBM bytes per token of the rank's chunk and layer that Transformer Engine's ring
    attention adds to flash attention's own (module docstring): the forward merges each step's partial output
    into the running one, 4 bytes an output element on the first step and 6 on each other, (4 + 6 (c - 1)) x
    (a x d) / t; the backward adds each step's dQ into the running dQ and its dK and dV into the running K/V
    gradients, (4 + 6 (c - 1)) x (a x d + 2 w_kv) / t; none at c = 1 or with the all-gather variant."""
    per_element = BYTES_16BIT * 2 + (BYTES_16BIT * 3) * (context - 1)
    forward = per_element * shape.attention_width / tensor
    backward = per_element * (shape.attention_width + 2 * shape.kv_width) / tensor
    merged = ring & (context > 1) if isinstance(context, np.ndarray) else ring and context > 1
    return select(merged, forward, 0.0 * forward), select(merged, backward, 0.0 * backward)


def attention_core_seconds(
    eff: Efficiency, b: IntLike, s: IntLike, tensor: IntLike = 1, context: IntLike = 1, ring: bool = True
) -> FloatLike:
    """The attention core's forward on one GPU for one layer and micro-batch: its b x s / c queries against
    their causal prefix, 2 x s x (a x d) / t FLOPs per query token (half the square: the kernels' own count,
    service.time.attention_kernels), at the published speed of the run's kernel at the model's head dim and
    s tokens a sequence, times the fitted attention scale; unfused, the whole square (4 x s x (a x d) / t) at
    the GEMM ceiling. Run in ring-attention steps over ``context`` ranks (``ring``; ring_attention_slowdown)
    or against all-gathered keys. A ring-attention step (service.time.mesh_traffic) is 1 / c of it: the
    queries against one rank's K/V chunk. attention_core_backward_seconds is its backward. Needs the kernel
    shapes."""
    return _attention_core(eff, b, s, tensor, context, ring, "forward")


def attention_core_backward_seconds(
    eff: Efficiency, b: IntLike, s: IntLike, tensor: IntLike = 1, context: IntLike = 1, ring: bool = True
) -> FloatLike:
    """The attention core's backward for one layer and micro-batch: 2.5 x the forward's FLOPs (five products
    against two, the scores recomputed) at the kernel's published backward speed times the attention scale;
    unfused, twice the forward (its four products at the GEMM ceiling)."""
    if eff.kernels is not None and not eff.kernels.flash_attention:
        return 2.0 * attention_core_seconds(eff, b, s, tensor, context, ring)
    return _attention_core(eff, b, s, tensor, context, ring, "backward")


ATTENTION_BACKWARD_FLOP_RATIO = 2.5  # flash-attention benchmarks/benchmark_flash_attention.py: bwd = 2.5 x fwd


def _attention_core(
    eff: Efficiency, b: IntLike, s: IntLike, tensor: IntLike, context: IntLike, ring: bool, pass_: str
) -> FloatLike:
    shape = eff.kernels
    assert shape is not None, "the attention core needs the model's kernel shapes"
    device, cal = eff.device, eff.calibration
    tokens = b * s // context
    width = shape.attention_width / tensor
    if not shape.flash_attention:  # unfused: every score computed, then masked, at the GEMM ceiling
        return 4.0 * s * width * tokens / (device.peak_flops_per_s * cal.ceiling(device.generation))
    flops = 2.0 * s * width * tokens * (ATTENTION_BACKWARD_FLOP_RATIO if pass_ == "backward" else 1.0)
    head_dim = shape.attention_width // max(shape.attention_heads, 1)
    share = kernel_peak_share(
        device.generation, eff.attention_kernel, "backward" if pass_ == "backward" else "forward", head_dim, s
    )
    rate = device.peak_flops_per_s * share * cal.attention(device.generation)
    return flops / rate * ring_attention_slowdown(s, context, ring)


def micro_batch_compute(
    eff: Efficiency,
    b: IntLike,
    s: IntLike,
    recompute: Recompute,
    model_flops_per_token: FloatLike,
    layers_per_stage: int | None = None,
    tensor: int = 1,
    context: int = 1,
    logits: bool = True,
    expert: IntLike = 1,
    expert_tensor: IntLike | None = None,
    sequence: IntLike = 1,
    ring: bool = True,
) -> ComputeTime:
    """Forward and backward time of one micro-batch on one GPU: a pipeline stage's layers (all by
    default), matrices split over ``tensor`` ranks, the sequence over ``context`` ranks (each GPU's
    s / c tokens still attend to the whole sequence), the logits and loss on the last stage. A mixture's
    routed experts run as grouped GEMMs over the ``expert`` group (routed_expert_seconds), split ``expert_tensor``
    ways (t unless given), with their routing and permutation as memory-bound work; where the model keeps dense
    layers beside its MoE layers a stage's layer costs their mean at the model's share of MoE layers.
    ``sequence``: t with sequence parallelism (the norms and residual adds split along the sequence), else 1.
    ``ring``: the context group runs ring attention (Transformer Engine's p2p ring), else Llama 3's all-gather."""
    device, cal = eff.device, eff.calibration
    ceiling = cal.ceiling(device.generation)
    tokens = b * s // context
    shape = eff.kernels
    if shape is None:  # 6P alone: every FLOP at the ceiling, a third forward
        total = model_flops_per_token * tokens / (device.peak_flops_per_s * ceiling)
        third = total / 3
        again = third if recompute is Recompute.full else 0.0 * third
        return ComputeTime(third, total - third + again)
    layers = shape.layers if layers_per_stage is None else layers_per_stage
    args = (eff, b, s, layers, tensor, context, expert, expert_tensor, sequence, ring, logits)
    arrays = any(isinstance(value, np.ndarray) for value in args)
    # a grid asks again for each recompute mode, which changes only what the backward adds (_recent_stage_passes)
    forward, backward, attention_s, logit_f, logit_b, loss_f, loss_b = (
        _recent_stage_passes if arrays else _stage_passes
    )(*args)
    if recompute is Recompute.full:  # the layers' forward again; the logits and loss are not checkpointed
        backward = backward + forward
    elif recompute is Recompute.selective:  # the attention core's forward again; nothing with flash attention
        scores_s = cal.elementwise_passes * score_bytes_per_token(shape, s, tensor) * tokens / device.hbm_bytes_per_s
        backward = backward + (0.0 if shape.flash_attention else layers * (attention_s + scores_s))
    if not logits:
        return ComputeTime(forward, backward)
    forward = forward + logit_f + loss_f
    backward = backward + logit_b + loss_b
    return ComputeTime(forward, backward)


def _stage_passes(
    eff: Efficiency,
    b: IntLike,
    s: IntLike,
    layers: IntLike,
    tensor: IntLike,
    context: IntLike,
    expert: IntLike,
    expert_tensor: IntLike | None,
    sequence: IntLike,
    ring: bool,
    logits: bool,
) -> tuple[FloatLike, FloatLike, FloatLike, FloatLike, FloatLike, FloatLike, FloatLike]:
    """What micro_batch_compute adds up whatever the recompute mode: (the stage's layers' forward, their backward,
    one layer's attention core forward, the logits' forward, their backward, the loss's memory-bound seconds forward
    and backward (loss_bytes_per_vocab_token); the last four 0 without ``logits``)."""
    shape = eff.kernels
    assert shape is not None
    device, cal = eff.device, eff.calibration
    ceiling = cal.ceiling(device.generation)
    tokens = b * s // context
    forward, backward = _layer_seconds(eff, b, s, tensor, context, expert, expert_tensor, sequence, ring)
    if shape.experts and 0 < shape.moe_layers < shape.layers:
        dense = replace(
            shape,
            ffn_hidden_size=shape.dense_ffn_hidden_size,
            latent_size=0,
            latent_ffn_hidden_size=0,
            experts=0,
            top_k=0,
            expert_ffn_hidden_size=0,
            moe_layers=0,
        )
        dense_f, dense_b = _layer_seconds(
            replace(eff, kernels=dense), b, s, tensor, context, sequence=sequence, ring=ring
        )
        share = shape.moe_layers / shape.layers
        forward = share * forward + (1 - share) * dense_f
        backward = share * backward + (1 - share) * dense_b
    attention_s = attention_core_seconds(eff, b, s, tensor, context, ring)
    forward = layers * forward
    backward = layers * backward
    if not logits:
        return forward, backward, attention_s, 0.0, 0.0, 0.0, 0.0
    logit_f, logit_b = trained_gemm_seconds(
        tokens, shape.hidden_size, shape.vocab_size // tensor, device, ceiling, eff.wgrad_bytes
    )
    loss_forward, loss_backward = loss_bytes_per_vocab_token(eff.cross_entropy)
    entries_per_s = (shape.vocab_size // tensor) * tokens / device.hbm_bytes_per_s
    return forward, backward, attention_s, logit_f, logit_b, loss_forward * entries_per_s, loss_backward * entries_per_s


# the answers are read, never written, by micro_batch_compute
_recent_stage_passes = recent(2)(_stage_passes)


@recent(4)  # asked again for each recompute mode of a grid's layouts (service.engine.layout_grid)
def _layer_seconds(
    eff: Efficiency,
    b: IntLike,
    s: IntLike,
    tensor: int,
    context: int,
    expert: IntLike = 1,
    expert_tensor: IntLike | None = None,
    sequence: IntLike = 1,
    ring: bool = True,
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) of one layer of the kernel shape for one micro-batch on one GPU."""
    shape = eff.kernels
    assert shape is not None
    device, cal = eff.device, eff.calibration
    ceiling = cal.ceiling(device.generation)
    tokens = b * s // context
    forward: FloatLike = 0.0
    backward: FloatLike = 0.0
    gemms = eff.gemm_device
    matrices = layer_matrices(shape, tensor, routed=not shape.experts)
    for i, (k, n) in enumerate(matrices):
        # the router's scores (the last matrix of a mixture) are Megatron-Core's TopKRouter, a plain parameter whose
        # gradient autograd writes: no fused accumulation (Efficiency.wgrad_fp32_accumulation)
        router = bool(shape.experts) and i == len(matrices) - 1
        f, bw = trained_gemm_seconds(tokens, k, n, gemms, ceiling, BYTES_16BIT if router else eff.wgrad_bytes)
        forward, backward = forward + f, backward + bw
    if gemms is not device:  # FP8: the recipe's casts of the inputs, output gradients and weights (service.time.fp8)
        cast_f, cast_b = fp8_layer_cast_seconds(eff, tokens, tensor, expert, expert_tensor)
        forward, backward = forward + cast_f, backward + cast_b
    passes = cal.elementwise_passes
    if shape.experts:
        f, bw = routed_expert_seconds(eff, tokens, tensor, expert, expert_tensor)
        scores = router_score_bytes_per_token(shape, tensor)
        permutation = permutation_bytes_per_token(shape, tensor, expert, expert_tensor, eff.dispatcher)
        forward, backward = forward + f, backward + bw
        permute_passes = 1.0 if eff.permute_fusion else passes  # fused: the kernels' own traffic (module docstring)
        routing_s = (passes * scores + permute_passes * permutation) * tokens / device.hbm_bytes_per_s
        forward, backward = forward + routing_s, backward + 2 * routing_s
    attention_s = attention_core_seconds(eff, b, s, tensor, context, ring)
    attention_backward_s = attention_core_backward_seconds(eff, b, s, tensor, context, ring)
    memory_s = passes * elementwise_bytes_per_token(shape, s, tensor, sequence) * tokens / device.hbm_bytes_per_s
    merge_f, merge_b = context_merge_bytes_per_token(shape, context, tensor, ring)  # counted exactly: no passes
    forward = forward + merge_f * tokens / device.hbm_bytes_per_s
    backward = backward + merge_b * tokens / device.hbm_bytes_per_s
    return forward + attention_s + memory_s, backward + attention_backward_s + 2 * memory_s


def moe_layer_pieces(
    eff: Efficiency,
    b: IntLike,
    s: IntLike,
    tensor: IntLike,
    context: IntLike,
    expert: IntLike = 1,
    expert_tensor: IntLike | None = None,
    sequence: IntLike = 1,
    ring: bool = True,
) -> tuple[FloatLike, FloatLike, FloatLike, FloatLike]:
    """One MoE layer's compute for one micro-batch on one GPU in the two pieces Megatron-Core's combined 1F1B
    schedules apart (service.time.overlaps.COMBINED_PHASES): (attention forward, experts forward, attention backward,
    experts backward), the experts piece the routed experts' grouped GEMMs (routed_expert_seconds; under FP8 with
    their copies' casts, routed_cast_seconds) and the attention piece the rest of the layer (_layer_seconds less
    them: attention, norms, router, permutation). Needs the
    kernel shapes of a mixture."""
    shape = eff.kernels
    assert shape is not None and shape.experts, "the pieces of a MoE layer need a mixture's kernel shapes"
    forward, backward = _layer_seconds(eff, b, s, tensor, context, expert, expert_tensor, sequence, ring)
    tokens = b * s // context
    experts_f, experts_b = routed_expert_seconds(eff, tokens, tensor, expert, expert_tensor)
    if eff.gemm_device is not eff.device:  # FP8: the copies' casts run in the experts' grouped GEMMs
        cast_f, cast_b = routed_cast_seconds(eff, tokens, tensor, expert, expert_tensor)
        experts_f, experts_b = experts_f + cast_f, experts_b + cast_b
    return forward - experts_f, experts_f, backward - experts_b, experts_b


def optimizer_seconds(shard_elements: IntLike, device: Device) -> FloatLike:
    """AdamW over the GPU's shard: 30 bytes per weight through HBM."""
    return OPTIMIZER_BYTES_PER_WEIGHT * shard_elements / device.hbm_bytes_per_s


class LinkSpeeds(Protocol):
    """What the ring cost reads of the links (a LinkSpec, or bus speeds that may be arrays)."""

    @property
    def intra_node_bytes_per_s(self) -> FloatLike: ...
    @property
    def inter_node_bytes_per_s(self) -> FloatLike: ...
    @property
    def host_bytes_per_s(self) -> FloatLike: ...
    @property
    def intra_node_latency_s(self) -> float: ...
    @property
    def inter_node_latency_s(self) -> float: ...


@dataclass(frozen=True)
class BusSpeeds:
    """NCCL's achieved bus bandwidth on each link (module docstring); latencies as the links give them."""

    intra_node_bytes_per_s: FloatLike
    inter_node_bytes_per_s: FloatLike
    host_bytes_per_s: FloatLike
    intra_node_latency_s: float
    inter_node_latency_s: float


def bus_speeds(links: LinkSpeeds, gpus_per_node: IntLike) -> BusSpeeds:
    """A ring across nodes uses every NIC of the node (one channel each), capped by the scale-up link."""
    intra = links.intra_node_bytes_per_s * NVLINK_BUS_EFFICIENCY
    nics = gpus_per_node * links.inter_node_bytes_per_s * NIC_BUS_EFFICIENCY
    inter = np.minimum(intra, nics) if isinstance(nics, np.ndarray) else min(intra, nics)
    return BusSpeeds(intra, inter, links.host_bytes_per_s, links.intra_node_latency_s, links.inter_node_latency_s)


def overlap_slowdown_seconds(hidden_communication_s: FloatLike, calibration: Calibration) -> FloatLike:
    """The compute time the overlapped communication takes from the kernels it runs beside."""
    return calibration.overlap_slowdown * hidden_communication_s
