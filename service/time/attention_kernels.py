"""The attention core's speed as its kernels run: published kernel benchmarks, per GPU generation and backend.

What a flash-attention kernel runs. A causal kernel over a sequence of S tokens computes the score and
value products only for the key tiles at or below the diagonal: about half of the S x S square, plus the
diagonal tiles it runs whole and masks. The kernels' own benchmarks count a causal call's FLOPs as half
the square, 4 x S^2 x (heads x d) / 2 forward (flash-attention ``benchmarks/benchmark_flash_attention.py``:
``flops(...) // (2 if causal else 1)``), and the backward as 2.5 x the forward's (its five products
against the forward's two, the scores recomputed), so the speeds they print already carry the diagonal
tiles' waste at each length. The plan counts the attention core the same way: causal FLOPs halved, the
backward 2.5 x the forward's executed FLOPs, each at its own published speed.

Published speeds, TFLOP/s on an H100 80GB SXM5 (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608,
section 4.1, figures 5 and 6: BF16, batch x sequence = 16K tokens, 2,048 wide), for sequences of 512,
1K, 2K, 4K, 8K and 16K:

| kernel | pass | head dim | causal | 512 | 1K | 2K | 4K | 8K | 16K |
| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| FlashAttention-2 | forward | 64 | yes | 180 | 229 | 262 | 284 | 295 | 299 |
| FlashAttention-2 | forward | 64 | no | 282 | 306 | 318 | 321 | 322 | 324 |
| FlashAttention-2 | forward | 128 | yes | 191 | 260 | 298 | 319 | 333 | 335 |
| FlashAttention-2 | forward | 128 | no | 309 | 350 | 362 | 368 | 370 | 370 |
| FlashAttention-2 | backward | 128 | no | 214 | 260 | 291 | 310 | 318 | 322 |
| cuDNN | forward | 64 | yes | 225 | 288 | 334 | 363 | 379 | 388 |
| cuDNN | forward | 64 | no | 335 | 373 | 395 | 408 | 412 | 413 |
| cuDNN | forward | 128 | yes | 315 | 410 | 484 | 518 | 529 | 539 |
| cuDNN | forward | 128 | no | 497 | 574 | 617 | 609 | 600 | 595 |
| cuDNN | backward | 128 | no | 305 | 408 | 465 | 499 | 518 | 516 |
| FlashAttention-3 | forward | 64 | yes | 197 | 265 | 371 | 420 | 460 | 473 |
| FlashAttention-3 | forward | 64 | no | 333 | 392 | 460 | 476 | 496 | 497 |
| FlashAttention-3 | forward | 128 | yes | 292 | 423 | 521 | 579 | 602 | 616 |
| FlashAttention-3 | forward | 128 | no | 467 | 565 | 625 | 638 | 646 | 648 |
| FlashAttention-3 | backward | 128 | no | 316 | 424 | 501 | 542 | 559 | 561 |

The plan reads them as fractions of the H100 SXM5's dense BF16 peak (989.4 TFLOP/s, H100 whitepaper), so a
Hopper card of another peak (H200, H100 PCIe) scales with its own. Between the lengths the speed is
interpolated in log2 of the length and held flat outside them; between head dims 64 and 128 linearly, held
flat outside (the paper's head-dim-256 causal forward, FlashAttention-2 293 and cuDNN 483 at 4K, is within
10% of head dim 128's). The paper prints the backward without the causal mask only; a causal backward is
taken at the backward's speed times the forward's causal / non-causal ratio at the same length (the same
diagonal tiles run whole in both passes), and a head dim of 64 at the backward's times the forward's
64 / 128 ratio.

Ampere runs FlashAttention-2 (Dao 2023, FlashAttention-2, arXiv 2307.08691, section 4.1, A100 80GB SXM4):
the forward reaches up to 73% of the A100's 312 TFLOP/s and the backward up to 63%, both at head dim 128
without the causal mask at 16K. Its shape over lengths, causal mask and head dims is FlashAttention-2's
on the H100 above (the same kernel, tile sizes and loop), normalised to its 16K non-causal speed.
Other generations (Volta, Ada, Blackwell, AMD's CDNA) take FlashAttention-2's Hopper fractions of their
own peak: no published table of theirs is carried.

Which kernel a run uses (``AttentionBackend``; levers.attention_backend): Transformer Engine's
DotProductAttention (Megatron-Core, NeMo) prefers cuDNN's fused attention over FlashAttention on Hopper
("Disabling FlashAttention to give FusedAttention preference on Hopper+ for performance reasons",
transformer_engine/pytorch/attention/dot_product_attention/utils.py ``get_attention_backend``) and
FlashAttention-2 before it; PyTorch's scaled_dot_product_attention (torchtitan, llm-foundry's torch
attention) dispatches to its bundled FlashAttention-2 kernel; FlashAttention-3 is the flash-attn package's
``hopper`` build, run where a recipe names it.
"""

from functools import lru_cache
from typing import Literal

import numpy as np

from models.enums import AttentionBackend
from service.numeric import FloatLike, IntLike

H100_SXM_BF16_FLOPS = 989.4e12  # the tables' card (H100 whitepaper, dense BF16)
A100_BF16_FLOPS = 312e12  # A100 datasheet, dense BF16
# Dao 2023, section 4.1: up to 73% (forward) and 63% (backward) of the A100's peak, head dim 128, no mask, 16K
A100_FA2_FORWARD_PEAK_SHARE = 0.73
A100_FA2_BACKWARD_PEAK_SHARE = 0.63
# the sequence lengths of the published tables
LENGTHS = (512, 1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128)

Pass = Literal["forward", "backward"]

# TFLOP/s, (kernel, pass, head dim, causal) -> speeds at LENGTHS (module docstring; arXiv 2407.08608, figures 5-6)
H100_TFLOPS: dict[tuple[AttentionBackend, Pass, int, bool], tuple[float, ...]] = {
    (AttentionBackend.flash_attention_2, "forward", 64, True): (180, 229, 262, 284, 295, 299),
    (AttentionBackend.flash_attention_2, "forward", 64, False): (282, 306, 318, 321, 322, 324),
    (AttentionBackend.flash_attention_2, "forward", 128, True): (191, 260, 298, 319, 333, 335),
    (AttentionBackend.flash_attention_2, "forward", 128, False): (309, 350, 362, 368, 370, 370),
    (AttentionBackend.flash_attention_2, "backward", 128, False): (214, 260, 291, 310, 318, 322),
    (AttentionBackend.cudnn, "forward", 64, True): (225, 288, 334, 363, 379, 388),
    (AttentionBackend.cudnn, "forward", 64, False): (335, 373, 395, 408, 412, 413),
    (AttentionBackend.cudnn, "forward", 128, True): (315, 410, 484, 518, 529, 539),
    (AttentionBackend.cudnn, "forward", 128, False): (497, 574, 617, 609, 600, 595),
    (AttentionBackend.cudnn, "backward", 128, False): (305, 408, 465, 499, 518, 516),
    (AttentionBackend.flash_attention_3, "forward", 64, True): (197, 265, 371, 420, 460, 473),
    (AttentionBackend.flash_attention_3, "forward", 64, False): (333, 392, 460, 476, 496, 497),
    (AttentionBackend.flash_attention_3, "forward", 128, True): (292, 423, 521, 579, 602, 616),
    (AttentionBackend.flash_attention_3, "forward", 128, False): (467, 565, 625, 638, 646, 648),
    (AttentionBackend.flash_attention_3, "backward", 128, False): (316, 424, 501, 542, 559, 561),
}


def default_backend(generation: str | None) -> AttentionBackend:
    """The kernel a run uses unless it names one: cuDNN's fused attention on Hopper (Transformer Engine's
    preference there), FlashAttention-2 elsewhere (module docstring)."""
    return AttentionBackend.cudnn if generation == "hopper" else AttentionBackend.flash_attention_2


def _at_length(speeds: tuple[float, ...], length: IntLike) -> FloatLike:
    """A table row at a sequence length: linear in log2 of the length, flat outside 512-16K."""
    return np.interp(np.log2(np.maximum(length, 1)), np.log2(LENGTHS), speeds)


def _hopper_tflops(backend: AttentionBackend, pass_: Pass, head_dim: int, causal: bool, length: IntLike) -> FloatLike:
    """The published H100 speed of one kernel call, TFLOP/s as the benchmarks count FLOPs (module docstring)."""

    def forward(dim: int, masked: bool) -> FloatLike:
        return _at_length(H100_TFLOPS[(backend, "forward", dim, masked)], length)

    def at_dim(dim: int) -> FloatLike:
        if pass_ == "forward":
            return forward(dim, causal)
        speed = _at_length(H100_TFLOPS[(backend, "backward", 128, False)], length)
        if causal:  # the backward's diagonal tiles as the forward's: its causal / non-causal ratio
            speed = speed * forward(dim, True) / forward(dim, False)
        return speed * forward(dim, False) / forward(128, False)  # head dim 64: the forward's 64 / 128 ratio

    d = min(max(head_dim, HEAD_DIMS[0]), HEAD_DIMS[1])
    share = (d - HEAD_DIMS[0]) / (HEAD_DIMS[1] - HEAD_DIMS[0])
    if share == 1:
        return at_dim(HEAD_DIMS[1])
    if share == 0:
        return at_dim(HEAD_DIMS[0])
    return (1 - share) * at_dim(HEAD_DIMS[0]) + share * at_dim(HEAD_DIMS[1])


def kernel_peak_share(
    generation: str | None,
    backend: AttentionBackend,
    pass_: Pass,
    head_dim: int,
    length: IntLike,
    causal: bool = True,
) -> FloatLike:
    """The fraction of the card's dense 16-bit peak one attention call of ``length`` tokens a sequence runs at,
    on FLOPs counted as the kernels' benchmarks count them (module docstring). Only Hopper has cuDNN's and
    FlashAttention-3's tables; other generations run FlashAttention-2's whatever ``backend`` names."""
    if isinstance(length, int | np.integer):  # one layout: remembered
        return _scalar_share(generation, backend, pass_, head_dim, int(length), causal)
    return _share(generation, backend, pass_, head_dim, length, causal)


@lru_cache(maxsize=4096)
def _scalar_share(
    generation: str | None, backend: AttentionBackend, pass_: Pass, head_dim: int, length: int, causal: bool
) -> float:
    return float(_share(generation, backend, pass_, head_dim, length, causal))


def _share(
    generation: str | None, backend: AttentionBackend, pass_: Pass, head_dim: int, length: IntLike, causal: bool
) -> FloatLike:
    if generation != "hopper":
        backend = AttentionBackend.flash_attention_2
    share = _hopper_tflops(backend, pass_, head_dim, causal, length) * 1e12 / H100_SXM_BF16_FLOPS
    if generation != "ampere":
        return share
    # Ampere: FlashAttention-2's Hopper shape, normalised to its 16K non-causal speed, at Dao 2023's plateau
    plateau = _hopper_tflops(backend, pass_, 128, False, LENGTHS[-1]) * 1e12 / H100_SXM_BF16_FLOPS
    a100 = A100_FA2_FORWARD_PEAK_SHARE if pass_ == "forward" else A100_FA2_BACKWARD_PEAK_SHARE
    return share / plateau * a100
