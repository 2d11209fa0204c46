"""Context parallelism's K/V exchange: the ring hidden only behind each step's attention core, Llama 3's all-gather.

Ring attention (Liu et al. 2023) as TransformerEngine runs it (AttnFuncWithCPAndKVP2P.forward in
transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, which Megatron-Core's
context parallelism calls): step i waits for the K/V chunk sent at step i - 1, sends it on to the next rank and
runs attention on it, step 0 on the rank's own chunk. A layer's c - 1 transfers T each overlap one step's
attention core A: exposed per layer = (c - 1) x max(0, T - A). The all-gather variant (Dubey et al. 2024,
section 3.3.2) gathers K and V before attention, on the critical path.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.presets import ModelPresetName
from service.time.efficiency import FITTED
from service.time.mesh_traffic import ring_exposed_seconds

N = ModelPresetName


def body(parallelism: dict, s: int = 8192, world: int = 512, preset: str = N.llama3_70b) -> dict:
    return {
        "model": {"preset": preset},
        "precision": "megatron",
        "arrangement": "zero1",
        "cluster": {"world_size": world, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 1, "sequence_length": s, "global_batch_size": 512, "utilisation": None},
        "parallelism": {"tensor": 8, "pipeline": 4, "sequence_parallel": True} | parallelism,
        "levers": {"recompute": "selective"},
    }


def context_records(answer: dict) -> list[dict]:
    return [c for c in answer["traffic"]["collectives"] if c.get("group") == "context"]


# cuDNN's fused attention (Transformer Engine's choice on Hopper), causal forward, head dim 128, TFLOP/s counting
# half the square: Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608), section 4.1, figure 5
CUDNN_CAUSAL_FORWARD_TFLOPS = {2048: 484, 8192: 529, 16384: 539}


def llama3_70b_step_core_s(s: int, c: int, t: int = 8, b: int = 1) -> float:
    """One ring step's attention core, written out: Llama 3 70B has 64 heads of 128 (a x d = 8192); the rank's
    b s / c queries against one chunk of s / c keys, the causal half of the square as the kernels count it, 2 x
    (s / c) x (a x d) / t FLOPs per query token, at cuDNN's published causal forward speed for s tokens a
    sequence (16K's beyond 16K) times Hopper's fitted attention scale, slowed as a ring step's short key loop
    runs: a query tile costs about 240 keys of its loop beyond its keys (pytorch/benchmark @ff65cb67, PR 2391:
    FlashAttention-3 at 430 TFLOP/s on 512-token sequences, 621 on 16K), and the published speed is a whole
    causal sequence's, s / 2 keys a tile, where a ring step's tiles loop over s / 2c (Transformer Engine's
    load-balanced halves). (It was 4 x (s / c) x (a x d) / t at a fitted 0.34 of the peak: the whole square, the
    causal half's kernel time charged twice over, which the FlashAttention papers' halved count shows.)"""
    queries = b * s // c
    flops = 2 * (s // c) * 8192 / t * queries
    whole, step = s / 2, s / (2 * c)
    slowdown = (whole / (whole + 240)) / (step / (step + 240))
    speed = CUDNN_CAUSAL_FORWARD_TFLOPS[min(s, 16384)] * 1e12 * FITTED.attention("hopper")
    return flops / speed * slowdown


# cuDNN's backward without the mask, head dim 128 (the same figure 6 of Shah et al. 2024), and its forward without
# the mask: a causal backward is taken at the backward's speed times the forward's causal / non-causal ratio
CUDNN_BACKWARD_TFLOPS = {2048: 465, 8192: 518, 16384: 516}
CUDNN_FORWARD_TFLOPS = {2048: 617, 8192: 600, 16384: 595}


def llama3_70b_backward_step_core_s(s: int, c: int, t: int = 8, b: int = 1) -> float:
    """One ring step's attention core in the backward, written out: 2.5 times the forward's FLOPs (five products
    against two), at cuDNN's published backward speed scaled by the forward's causal / non-causal ratio, the same
    fitted scale and the same short-loop slowdown as the forward step."""
    forward_flops = 2 * (s // c) * 8192 / t * (b * s // c)
    whole, step = s / 2, s / (2 * c)
    slowdown = (whole / (whole + 240)) / (step / (step + 240))
    table = min(s, 16384)  # the tables stop at 16K
    causal_ratio = CUDNN_CAUSAL_FORWARD_TFLOPS[table] / CUDNN_FORWARD_TFLOPS[table]
    speed = CUDNN_BACKWARD_TFLOPS[table] * causal_ratio * 1e12 * FITTED.attention("hopper")
    return 2.5 * forward_flops / speed * slowdown


def test_ring_exposure_is_each_transfer_beyond_its_step_core():
    """(c - 1) x L x m transfers, each hidden behind one step's core: calls x max(0, T - A)."""
    assert ring_exposed_seconds(450, 15e-6, 4e-6) == pytest.approx(450 * 11e-6)
    assert ring_exposed_seconds(450, 4e-6, 15e-6) == 0.0  # a step's core longer than its transfer hides it
    assert ring_exposed_seconds(0, 15e-6, 4e-6) == 0.0


def test_a_c16_ring_across_nodes_at_8k_is_mostly_exposed(client):
    """The issue's case: Llama 3 70B on 512 H100 at 8K tokens with c 16 across two nodes. Before, the ring was
    hidden under the stage's whole forward and backward (3e-05 s counted); each step's 512 queries against
    512 keys take a few microseconds (the short key loops of a ring step slow them about 1.8 times), well under a
    transfer, so most of it is on the critical path."""
    answer = client.post("/v1/plan", json=body({"context": 16})).json()
    ring = context_records(answer)
    assert {r["overlaps_with"] for r in ring} == {"forward", "backward"}
    core_s = llama3_70b_step_core_s(8192, 16)
    # K/V of 512 tokens: 2 x 8 kv heads x 128 / t 8 = 256 values a token, 2 bytes each
    assert all(r["buffer_bytes"] == 512 * 256 * 2 for r in ring)
    # m = 512 / (b d) = 512 / 1 = 512 micro-batches (d = 512 / (8 x 4 x 16) = 1); 20 layers on a stage of 80 / 4:
    # (c - 1) = 15 steps a layer forward, 2 x 15 backward
    assert [r["count_per_step"] for r in ring] == [15 * 20 * 512, 2 * 15 * 20 * 512]
    # TE's backward step sends K/V on and dK/dV back beside one backward kernel: each transfer behind half of it
    # (it was behind a forward step's core, as if the backward core were twice the forward's: it is 2.5 times the
    # FLOPs at a slower speed, Shah et al. 2024 figure 6)
    back_window_s = llama3_70b_backward_step_core_s(8192, 16) / 2
    forward, backward = ring
    expected = forward["count_per_step"] * max(0.0, forward["seconds"] - core_s) + backward["count_per_step"] * max(
        0.0, backward["seconds"] - back_window_s
    )
    exchange = sum(r["count_per_step"] * r["seconds"] for r in ring)
    assert answer["time"]["context_parallel_s"] == pytest.approx(expected, rel=1e-9)
    assert answer["time"]["context_parallel_s"] > 0.6 * exchange
    # each record says what hides it: one ring step's core (half a backward step's), and its exposed seconds
    assert f"attention core of {core_s * 1e6:.3g} us" in forward["arithmetic"]
    assert f"attention core, {back_window_s * 1e6:.3g} us" in backward["arithmetic"]
    assert any("parallelism.context 16 spans nodes" in w for w in answer["warnings"])


def test_a_ring_inside_a_node_at_32k_hides_behind_its_step_cores(client):
    """c 2 inside a node (t 4: ranks 4 apart) at 32K tokens: each step's core (16,384 queries against 16,384 keys)
    is far longer than a 16 MiB NVLink transfer: nothing exposed, and no warning."""
    answer = client.post("/v1/plan", json=body({"context": 2, "tensor": 4}, s=32768, world=256)).json()
    ring = context_records(answer)
    core_s = llama3_70b_step_core_s(32768, 2, t=4)
    assert all(r["link"] == "intra_node" and r["seconds"] < core_s for r in ring)
    assert answer["time"]["context_parallel_s"] == 0.0
    assert not any("parallelism.context" in w for w in answer["warnings"])


def test_the_all_gather_variant_gathers_once_per_layer_on_the_critical_path(client):
    """Llama 3's: the layer's K/V, c x the rank's chunk, all-gathered in the forward, gathered again in the
    backward and their gradients reduce-scattered; every call exposed. Same bytes per GPU as the ring, fewer
    calls."""
    ring = client.post("/v1/plan", json=body({"context": 16})).json()
    gather = client.post("/v1/plan", json=body({"context": 16, "context_attention": "all_gather"})).json()
    assert gather["parallelism"]["context_attention"] == "all_gather"
    assert ring["parallelism"]["context_attention"] == "ring"
    calls = context_records(gather)
    assert [(c["name"], c["overlaps_with"]) for c in calls] == [
        ("all_gather", "none"),
        ("all_gather", "none"),
        ("reduce_scatter", "none"),
    ]
    assert all(c["buffer_bytes"] == 16 * 512 * 256 * 2 and c["count_per_step"] == 20 * 512 for c in calls)
    # each sends (c - 1) / c of the gathered buffer: 15 chunks, as the ring's 15 steps send
    assert all(c["bytes_sent_per_gpu"] == 15 * 512 * 256 * 2 for c in calls)
    sent = sum(c["count_per_step"] * c["bytes_sent_per_gpu"] for c in calls)
    assert sent == sum(c["count_per_step"] * c["bytes_sent_per_gpu"] for c in context_records(ring))
    exposed = sum(c["count_per_step"] * c["seconds"] for c in calls)
    assert gather["time"]["context_parallel_s"] == pytest.approx(exposed, rel=1e-9)
    assert any("K/V all-gather" in w for w in gather["warnings"])


def test_an_unknown_context_attention_names_the_field(client):
    response = client.post("/v1/plan", json=body({"context": 2, "context_attention": "ulysses"}))
    assert response.status_code == 422
    assert "context_attention" in response.text


@settings(max_examples=40, deadline=None)
@given(
    c=st.sampled_from([2, 4, 8, 16]),
    s=st.sampled_from([2048, 8192, 32768]),
    t=st.sampled_from([1, 2, 8]),
    recompute=st.sampled_from(["none", "selective", "full"]),
)
def test_a_context_group_exposes_at_least_its_exchange_less_its_attention_core(client, c, s, t, recompute):
    """Whatever the layout: the ring's exposed time is at least its whole exchange less every attention core of
    the stage (the forward's, a recomputed forward's, the backward's), and never more than the exchange."""
    request = body({"context": c, "tensor": t, "sequence_parallel": t > 1}, s=s)
    request["levers"]["recompute"] = recompute
    response = client.post("/v1/plan", json=request)
    if response.status_code != 200:  # a layout the model or the cluster refuses
        return
    answer = response.json()
    ring = context_records(answer)
    exchange = sum(r["count_per_step"] * r["seconds"] for r in ring)
    layers, m = 80 // 4, answer["parallelism"]["micro_batches"]
    forwards = 2 if recompute == "full" else 1
    step_cores_s = forwards * llama3_70b_step_core_s(s, c, t) + llama3_70b_backward_step_core_s(s, c, t)
    cores = c * step_cores_s * layers * m
    exposed = answer["time"]["context_parallel_s"]
    assert exposed >= exchange - cores - 1e-12
    assert exposed <= exchange * (1 + 1e-12)
