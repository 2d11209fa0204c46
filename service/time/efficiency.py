"""Step time from what each operation costs on the GPU: an efficiency model in place of one MFU.

Compute, per GPU and micro-batch of T = b x s tokens (every term a published cost model):
- **Matrix multiplications** (the transformer's q/k/v, output, MLP and logit projections, each
  run three times: forward, input gradient, weight gradient) on a roofline (Williams, Waterman
  and Patterson 2009): the longer of their FLOPs at the GPU's peak and their operand bytes over
  HBM bandwidth. FLOPs run in waves of 128 x 128 output tiles over the streaming multiprocessors
  (NVIDIA's "Matrix Multiplication Background User's Guide": tile and wave quantisation), each
  tile at ``gemm_ceiling`` of the peak: a fitted constant per GPU generation, the fraction of
  peak cuBLAS reaches on large bf16 GEMMs.
- **Attention** by its FLOPs, 12 x s x (a x d) per token and layer counted without the causal
  half (PaLM appendix B), at flash attention's efficiency of the peak, fitted per generation
  (Dao 2023, FlashAttention-2, section 4.1: up to 73% of peak on A100; Shah et al. 2024,
  FlashAttention-3, section 1: FlashAttention-2 reaches 35% on H100). Without flash attention the
  two batched products run at the GEMM ceiling and the s x s scores go through HBM.
- **Memory-bound work** by bytes over HBM bandwidth: per layer and token two norms (read and
  write h), two residual adds (read 2h, write h) (with sequence parallelism each tensor-parallel rank
  runs them on its s / t of the sequence alone: Korthikanti et al. 2022, section 4.2.2; without it
  every rank repeats them on the whole sequence), the rotary or bias work on q and k, the MLP's
  activation (read the up projection, write its output); backward moves twice the forward's bytes
  (it reads the saved input and the incoming gradient and writes one gradient); the loss reads
  and writes the fp32 logits (12 bytes per vocabulary entry and token, forward and backward).
  The optimizer step streams its shard once: AdamW reads the fp32 master weight, both moments
  and the gradient and writes the three and the 16-bit copy, 30 bytes per weight.
- **Mixture of experts** (Megatron-Core's MoELayer with the all-to-all token dispatcher,
  megatron/core/transformer/moe/ @d98e8a64): the routed experts run as grouped GEMMs, one GEMM per
  local expert (experts.py, TEGroupedMLP / GroupedMLP) at the tokens each receives: a rank routes
  its s b / t tokens to top_k experts each, and after the all-to-all and the expert-tensor gather
  each of its experts / e local experts holds ETP x e x (s b / t) x top_k / experts copies
  (balanced routing), each split f_e / ETP wide; tile and wave quantisation apply per expert, and
  each expert's weights are read once. The router is a GEMM (h x experts), its softmax and top-k
  read and write fp32 scores; the permutation (moe_utils.py ``permute`` before the all-to-all,
  ``sort_chunks_by_idxs`` by local expert after it when a rank holds more than one, and their
  inverses, ``unpermute`` weighting the copies by their probabilities) is memory-bound: per routed
  token it reads h and writes top_k x h, the local sort reads and writes the rank's copies, the
  combine the reverse; backward twice the forward's bytes.
- **FP8** (levers.fp8: Transformer Engine's per-tensor delayed or current scaling, torchao's
  tensorwise float8): the layers' GEMMs (the routed experts' included) run at the card's dense FP8
  peak, at the same fitted ceiling (no FP8 run in the corpus calibrates one of its own); attention,
  the logits and the loss stay in 16 bits. Each GEMM's input is cast to FP8 with its transpose
  (Transformer Engine's fused cast-transpose: read 2 bytes, write 1 + 1), in the forward the inputs
  and in the backward the output gradients: 4 bytes per element at HBM bandwidth.
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
  of their plateau. The fitted attention efficiency is a whole sequence's, so a ring step runs at
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

from models.enums import GpuGeneration, Recompute
from service.numeric import FloatLike, IntLike, ceil_div, select
from service.recent import recent

FP8_CAST_BYTES = 2 + 1 + 1  # Transformer Engine's cast-transpose: read bf16, write FP8 and its transpose
TILE = 128  # output tile edge of cuBLAS's large bf16 kernels (NVIDIA Matrix Multiplication Guide)
BYTES_16BIT = 2
OPTIMIZER_BYTES_PER_WEIGHT = 30  # AdamW: read 4 x fp32 (weight, m, v, grad) + write 3 x fp32 + a 16-bit copy
LOSS_BYTES_PER_VOCAB_TOKEN = 12  # fp32 logits: written, read for the softmax, gradient written
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
    (a fixed split) and prints every row; the values here are its output.

    Fit of 2026-12-01 on the corpus of bench/calibration/corpus.py as of that date: 29 fit rows (MosaicML's MPT
    tables, Narayanan et al. 2021 table 1, Megatron-LM's H100 table, its tensor-parallel rows included; alternate
    rows within each source), fit rows median |error| 5.3%, max 14.7%; the 28 held-out rows 6.4%, max 22.6%."""

    gemm_ceiling: dict[str, float] = field(default_factory=lambda: {"ampere": 0.75, "hopper": 0.60})
    default_gemm_ceiling: float = 0.60  # other generations: Hopper's, the most conservative fitted
    attention_efficiency: dict[str, float] = field(default_factory=lambda: {"ampere": 0.54, "hopper": 0.34})
    default_attention_efficiency: float = 0.34
    overlap_slowdown: float = 0.05
    elementwise_passes: float = 2.0  # unfused kernels: HBM passes per counted byte of memory-bound work

    def ceiling(self, generation: str | None) -> float:
        return self.gemm_ceiling.get(generation or "", self.default_gemm_ceiling)

    def attention(self, generation: str | None) -> float:
        return self.attention_efficiency.get(generation or "", self.default_attention_efficiency)


FITTED = Calibration()


@dataclass(frozen=True)
class Device:
    """What the model needs of the GPU."""

    peak_flops_per_s: float
    hbm_bytes_per_s: float = DEFAULT_HBM_BYTES_PER_S
    multiprocessors: int = DEFAULT_MULTIPROCESSORS
    generation: GpuGeneration | None = None
    fp8_flops_per_s: float | None = None  # the dense FP8 tensor-core peak; None: no FP8 tensor cores (or unknown)


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


@dataclass(frozen=True)
class Efficiency:
    device: Device
    kernels: KernelShape | None = None  # None: the architecture is unknown, GEMMs at the ceiling
    calibration: Calibration = FITTED
    fp8: bool = False  # the layers' GEMMs in per-tensor scaled FP8 (levers.fp8), at the FP8 peak when the card has one

    @property
    def gemm_device(self) -> Device:
        """The device the layers' GEMMs run on: at the FP8 peak under FP8 (module docstring), else as it is."""
        fp8 = self.device.fp8_flops_per_s
        if not self.fp8 or fp8 is None:
            return self.device
        return replace(self.device, peak_flops_per_s=fp8)


def gemm_seconds(m: IntLike, k: IntLike, n: IntLike, device: Device, ceiling: float) -> FloatLike:
    """One (m x k) @ (k x n) product: waves of 128 x 128 tiles at the ceiling, or its bytes over HBM."""
    tiles = ceil_div(m, TILE) * ceil_div(n, TILE)
    waves = ceil_div(tiles, device.multiprocessors)
    per_tile_s = 2.0 * TILE * TILE * k / (device.peak_flops_per_s * ceiling / device.multiprocessors)
    compute_s = waves * per_tile_s
    memory_s = BYTES_16BIT * (m * k + k * n + m * n) / device.hbm_bytes_per_s
    if isinstance(compute_s, np.ndarray) or isinstance(memory_s, np.ndarray):
        return np.maximum(compute_s, memory_s)
    return max(compute_s, memory_s)


def trained_gemm_seconds(
    m: IntLike, k: IntLike, n: IntLike, device: Device, ceiling: float
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward): y = x W, then dx = dy W^T (m x n x k) and dW = x^T dy (k x m x n)."""
    forward = gemm_seconds(m, k, n, device, ceiling)
    backward = gemm_seconds(m, n, k, device, ceiling) + gemm_seconds(k, m, n, device, ceiling)
    return forward, backward


def layer_matrices(shape: KernelShape, tensor: int = 1, routed: bool = True) -> list[tuple[int, int]]:
    """(k, n) of each projection of one layer on one tensor-parallel rank (Megatron's column/row split).

    With a latent width l the routed experts' MLP runs on l, between the whole (duplicated) projections
    h -> l and l -> h (Megatron-LM megatron/core/transformer/moe/moe_layer.py); an MLP of no width
    (a latent mixture without shared experts) has no matrices. routed False leaves the routed experts out
    (priced as grouped GEMMs, routed_expert_seconds) and adds the router (h x experts, whole on every rank)."""
    h, t = shape.hidden_size, tensor
    gate = 2 if shape.gated else 1
    matrices = [
        (h, (shape.attention_width + 2 * shape.kv_width) // t),  # q, k, v (column parallel)
        (shape.attention_width // t, h),  # attention output (row parallel)
    ]
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


def routed_tokens_per_expert(
    shape: KernelShape, tokens: IntLike, tensor: IntLike, expert: IntLike, etp: IntLike
) -> IntLike:
    """Copies one local expert computes: ETP x e x (tokens / t) x top_k / experts, whole (module docstring)."""
    return ceil_div(etp * expert * tokens * shape.top_k, tensor * shape.experts)


def routed_expert_seconds(
    eff: Efficiency, tokens: IntLike, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> tuple[FloatLike, FloatLike]:
    """(forward, backward) of one layer's routed experts on one GPU: a GEMM per local expert (experts / e of
    them) at its routed_tokens_per_expert rows, f_e / ETP wide, tiles and waves per expert, weights read per
    expert; tokens is the micro-batch's s b / c on the rank."""
    shape = eff.kernels
    assert shape is not None and shape.experts
    device, ceiling = eff.gemm_device, eff.calibration.ceiling(eff.device.generation)
    etp = tensor if expert_tensor is None else expert_tensor
    local = ceil_div(shape.experts, expert)
    m = routed_tokens_per_expert(shape, tokens, tensor, expert, etp)
    width = shape.latent_size or shape.hidden_size
    inner = shape.expert_ffn_hidden_size // etp
    gate = 2 if shape.gated else 1
    up_f, up_b = trained_gemm_seconds(m, width, gate * inner, device, ceiling)
    down_f, down_b = trained_gemm_seconds(m, inner, width, device, ceiling)
    return local * (up_f + down_f), local * (up_b + down_b)


def routing_bytes_per_token(
    shape: KernelShape, tensor: IntLike = 1, expert: IntLike = 1, expert_tensor: IntLike | None = None
) -> FloatLike:
    """Forward bytes of one layer's routing and permutation per token of the micro-batch on the rank (each rank
    routes 1 / t of them): fp32 router scores written, read by the softmax or sigmoid and top-k and probabilities
    written (3 x 4 x experts); the permutation reads the token (w, the routed width) and writes top_k copies, the
    combine reads them and writes the token (2 x (w + top_k w)); with more than one local expert the copies the
    rank computes (ETP x top_k per routed token) are sorted by expert and back, each read and written
    (2 x 2 x ETP top_k w); 16-bit values."""
    etp = tensor if expert_tensor is None else expert_tensor
    width = shape.latent_size or shape.hidden_size
    k = shape.top_k
    scores = 3 * 4 * shape.experts
    permute = BYTES_16BIT * 2 * (width + k * width)
    sort = BYTES_16BIT * 2 * 2 * etp * k * width
    local_sort = select(ceil_div(shape.experts, expert) > 1, sort, 0 * sort)
    return (scores + permute + local_sort) / tensor


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


@dataclass(frozen=True)
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
    """The attention core's forward on one GPU for one layer and micro-batch: the two batched products of its
    b x s / c queries against all s keys, 4 x s x (a x d) / t FLOPs per query token (PaLM appendix B's 12 x s x
    (a x d) is forward and backward), at flash attention's efficiency (or the GEMM ceiling unfused), run in
    ring-attention steps over ``context`` ranks (``ring``; ring_attention_slowdown) or against all-gathered keys.
    Its backward is twice this. A ring-attention step (service.time.mesh_traffic) is 1 / c of it: the queries
    against one rank's K/V chunk. Needs the kernel shapes."""
    shape = eff.kernels
    assert shape is not None, "the attention core needs the model's kernel shapes"
    device, cal = eff.device, eff.calibration
    tokens = b * s // context
    flops = 4.0 * s * shape.attention_width / tensor * tokens
    rate = cal.attention(device.generation) if shape.flash_attention else cal.ceiling(device.generation)  # unfused
    slowdown = ring_attention_slowdown(s, context, ring) if shape.flash_attention else 1.0
    return flops / (device.peak_flops_per_s * rate) * slowdown


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
    passes = cal.elementwise_passes
    attention_s = attention_core_seconds(eff, b, s, tensor, context, ring)
    forward = layers * forward
    backward = layers * backward
    if recompute is Recompute.full:  # the layers' forward again; the logits and loss are not checkpointed
        backward = backward + forward
    elif recompute is Recompute.selective:  # the attention core's forward again; nothing with flash attention
        scores_s = passes * score_bytes_per_token(shape, s, tensor) * tokens / device.hbm_bytes_per_s
        backward = backward + (0.0 if shape.flash_attention else layers * (attention_s + scores_s))
    if not logits:
        return ComputeTime(forward, backward)
    logit_f, logit_b = trained_gemm_seconds(tokens, shape.hidden_size, shape.vocab_size // tensor, device, ceiling)
    loss_s = LOSS_BYTES_PER_VOCAB_TOKEN * (shape.vocab_size // tensor) * tokens / device.hbm_bytes_per_s
    forward = forward + logit_f + loss_s / 3
    backward = backward + logit_b + 2 * loss_s / 3
    return ComputeTime(forward, backward)


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
    for k, n in layer_matrices(shape, tensor, routed=not shape.experts):
        f, bw = trained_gemm_seconds(tokens, k, n, gemms, ceiling)
        forward, backward = forward + f, backward + bw
    if gemms is not device:  # FP8: each GEMM's input and, in the backward, its output gradient cast with a transpose
        matrices = layer_matrices(shape, tensor)
        inputs = sum(k for k, _ in matrices)
        outputs = sum(n for _, n in matrices)
        forward = forward + FP8_CAST_BYTES * inputs * tokens / device.hbm_bytes_per_s
        backward = backward + FP8_CAST_BYTES * outputs * tokens / device.hbm_bytes_per_s
    passes = cal.elementwise_passes
    if shape.experts:
        f, bw = routed_expert_seconds(eff, tokens, tensor, expert, expert_tensor)
        routing = routing_bytes_per_token(shape, tensor, expert, expert_tensor)
        forward, backward = forward + f, backward + bw
        routing_s = passes * routing * tokens / device.hbm_bytes_per_s
        forward, backward = forward + routing_s, backward + 2 * routing_s
    attention_s = attention_core_seconds(eff, b, s, tensor, context, ring)
    memory_s = passes * elementwise_bytes_per_token(shape, s, tensor, sequence) * tokens / device.hbm_bytes_per_s
    merge_f, merge_b = context_merge_bytes_per_token(shape, context, tensor, ring)  # counted exactly: no passes
    forward = forward + merge_f * tokens / device.hbm_bytes_per_s
    backward = backward + merge_b * tokens / device.hbm_bytes_per_s
    return forward + attention_s + memory_s, backward + 2 * attention_s + 2 * memory_s


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
