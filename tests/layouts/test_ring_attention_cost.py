"""Ring attention's own cost as Transformer Engine runs it (AttnFuncWithCPAndKVP2P,
transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py @d0067d0d): each step's flash
attention over a short key loop, and the merges of the steps' partial outputs and gradients.

A flash-attention call costs about 240 keys of its loop per query tile beyond its keys: pytorch/benchmark
@ff65cb67 (PR 2391) measured FlashAttention-3 on H100 at 430, 517, 566, 590, 614 and 621 TFLOP/s for 512 to 16K
tokens a sequence at 16K tokens a call. A whole causal sequence's query tile loops over s / 2 keys; a ring step's,
on the load-balanced halves, over s / 2c.
"""

import pytest

from service.time.efficiency import FITTED, ring_attention_slowdown

from .test_context_attention import body

H100_HBM_BYTES_PER_S = 3.35e12  # NVIDIA H100 SXM5 datasheet


def keys_efficiency(keys: float) -> float:
    return keys / (keys + 240)


def test_the_tile_cost_reproduces_the_benchmark():
    """keys / (keys + 240) of the plateau, the plateau from the 16K row: every row within 1.5%."""
    measured = {512: 430.32, 1024: 517.099, 2048: 565.544, 4096: 590.233, 8192: 614.234, 16384: 620.73}
    plateau = measured[16384] / keys_efficiency(16384)
    for keys, tflops in measured.items():
        assert plateau * keys_efficiency(keys) == pytest.approx(tflops, rel=0.015), keys


@pytest.mark.parametrize(("s", "c"), [(2048, 2), (8192, 4), (8192, 16), (131072, 16)])
def test_a_ring_step_runs_at_its_key_loop_efficiency(s, c):
    expected = keys_efficiency(s / 2) / keys_efficiency(s / (2 * c))
    assert ring_attention_slowdown(s, c) == pytest.approx(expected, rel=1e-12)
    assert ring_attention_slowdown(s, c, ring=False) == 1.0  # the all-gather variant loops over the whole prefix


def test_no_context_parallelism_no_slowdown():
    assert ring_attention_slowdown(8192, 1) == 1.0


def test_the_ring_costs_its_slowdown_and_merges_beyond_the_all_gather(client):
    """Llama 3 70B on 512 H100 at 8K, t 4 p 4 c 2 (d 16, m 32, 20 layers a stage): the two variants compute the
    same but for each layer's attention core (forward A, backward B, slowed in the ring) and the ring's merges:
    the forward's (4 + 6 (c - 1)) bytes a output element over a x d / t, the backward's over (a x d + 2 w_kv) / t,
    at the HBM bandwidth, for the rank's s / c tokens."""
    s, c, t, m, layers = 8192, 2, 4, 32, 20
    ring = client.post("/v1/plan", json=body({"context": c, "tensor": t})).json()
    gather = client.post("/v1/plan", json=body({"context": c, "tensor": t, "context_attention": "all_gather"})).json()
    assert ring["parallelism"]["data"] == 16 and ring["parallelism"]["micro_batches"] == m
    tokens = s // c
    # the attention core as cuDNN's fused attention runs it (Shah et al. 2024, arXiv 2407.08608, section 4.1,
    # figures 5-6, head dim 128, 8K): the causal half, 2 s (a x d) / t FLOPs per query token, forward at 529
    # TFLOP/s; the backward 2.5 x those FLOPs at 518 TFLOP/s (printed without the mask) x the forward's causal /
    # non-causal 529 / 600; both times Hopper's fitted scale. (Before: 4 s (a x d) / t at a fitted 0.34 of the
    # peak and a backward of twice the forward: the whole square, though a causal kernel runs half of it.)
    flops = 2 * s * 8192 / t * tokens
    scale = FITTED.attention("hopper")
    forward_s = flops / (529e12 * scale)
    backward_s = 2.5 * flops / (518e12 * 529 / 600 * scale)
    slowed_s = (forward_s + backward_s) * (keys_efficiency(s / 2) / keys_efficiency(s / (2 * c)) - 1)
    per_element = 4 + 6 * (c - 1)
    merges_s = per_element * (8192 + (8192 + 2 * 1024)) / t * tokens / H100_HBM_BYTES_PER_S
    expected = m * layers * (slowed_s + merges_s)
    assert ring["time"]["compute_s"] - gather["time"]["compute_s"] == pytest.approx(expected, rel=1e-9)
