"""ZeRO++ (Wang et al. 2023, "ZeRO++: Extremely Efficient Collective Communication for Giant Model
Training", section 3 and table 1): cross-node volume per step, ZeRO-3 3M (forward all-gather M,
backward all-gather M, gradient reduce-scatter M) against ZeRO++ 0.75M (qwZ 0.5M, hpZ 0,
qgZ 0.25M), M the fp16 model.

Here on 4 nodes of 8 GPUs, hierarchical schedule: each GPU sends across nodes (nodes - 1) chunks
of its node's share, ceil(P / G / nodes) values each. The quantised collectives add one fp32 scale
per 4096 values (DeepSpeed's CUDAQuantizer targets about 4k).
"""

import pytest

from tests.golden.test_levers import plan

G, NODES = 8, 4
N = G * NODES
P = G * NODES * 4096 * 250  # 32,768,000: whole quantisation groups in every chunk
CHUNK = P // G // NODES  # 1,024,000 values
GROUPS = CHUNK // 4096  # 250 scales per chunk


def zeropp_plan(client, **zeropp):
    return plan(
        client,
        "zero3",
        world_size=N,
        parameter_count=P,
        precision="mixed_fp16_adam",
        levers={"zeropp": zeropp},
    )


def test_the_papers_cross_node_volume(client):
    zero3 = zeropp_plan(client)
    zeropp = zeropp_plan(client, qwz=True, hpz=True, qgz=True)
    hops = NODES - 1
    m_share = hops * CHUNK * 2  # one fp16 model-sized collective's cross-node bytes per GPU: "M"
    assert zero3["traffic"]["inter_node_bytes_per_gpu"] == 3 * m_share
    qwz = hops * (CHUNK * 1 + GROUPS * 4)  # int8 values + scales: 0.5M
    qgz = hops * (CHUNK // 2 + GROUPS * 4)  # int4 values + scales: 0.25M
    assert zeropp["traffic"]["inter_node_bytes_per_gpu"] == qwz + qgz  # hpZ's backward gather stays in the node
    values_only = zeropp["traffic"]["inter_node_bytes_per_gpu"] - 2 * hops * GROUPS * 4
    assert values_only * 3 == 0.75 * zero3["traffic"]["inter_node_bytes_per_gpu"]  # 0.75M against 3M


def test_hpz_memory_price(client):
    body = zeropp_plan(client, hpz=True)
    rows = {r["state"]: r for r in body["memory"]["breakdown"]}
    secondary = rows["secondary_parameters"]
    assert secondary["bytes"] == 2 * P // G and secondary["dtype"] == "fp16"
    assert secondary["arithmetic"] == f"2 B x {P:,} weights / {G} GPUs = {2 * P // G:,} B"
    assert body["memory"]["model_state_bytes"] == 16 * P // N + 2 * P // G
    backward = [c for c in body["traffic"]["collectives"] if "backward" in c["purpose"]]
    assert backward[0]["ranks"] == G and backward[0]["link"] == "intra_node"


def test_qwz_gathers_in_int8_both_ways(client):
    body = zeropp_plan(client, qwz=True)
    gathers = [c for c in body["traffic"]["collectives"] if c["name"] == "all_gather"]
    assert [c["dtype"] for c in gathers] == ["int8_blockwise", "int8_blockwise"]
    # flat ring over 32 GPUs: 31 chunks of P / 32 int8 values plus their scales
    chunk = P // N
    assert gathers[0]["bytes_sent_per_gpu"] == (N - 1) * (chunk + -(-chunk // 4096) * 4)
    assert body["memory"]["model_state_bytes"] == 16 * P // N  # qwZ costs no resident memory


def test_qgz_reduces_in_int4_inside_then_across_nodes(client):
    body = zeropp_plan(client, qgz=True)
    reduces = [c for c in body["traffic"]["collectives"] if c["name"] == "reduce_scatter"]
    assert [(c["ranks"], c["dtype"]) for c in reduces] == [(G, "int4_blockwise"), (NODES, "int4_blockwise")]


@pytest.mark.parametrize("arrangement", ["zero2", "hybrid", "shard_grad_op", "ddp"])
def test_zeropp_needs_zero3(client, arrangement):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"world_size": N, "gpus_per_node": G, "gpu": "seed-80gb"},
        "arrangement": arrangement,
        "levers": {"zeropp": {"qwz": True}},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert "levers.zeropp" in response.json()["detail"]


def test_zeropp_fields_are_booleans(client):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"world_size": N, "gpus_per_node": G, "gpu": "seed-80gb"},
        "arrangement": "zero3",
        "levers": {"zeropp": {"qwz": "often"}},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/levers/zeropp/qwz"]


def test_sweep_cells_with_zeropp_equal_the_plan(client):
    base = {
        "model": {"parameter_count": P},
        "precision": "mixed_fp16_adam",
        "cluster": {"world_size": N, "gpus_per_node": G, "gpu": "seed-80gb"},
        "arrangement": "zero3",
        "levers": {"zeropp": {"qwz": True, "hpz": True, "qgz": True}},
    }
    response = client.post(
        "/v1/sweep", json={"base": base, "axes": {"world_size": [8, 16, 32], "arrangement": ["zero3", "zero2"]}}
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["skipped_cells"] == 3  # zero2 cannot take ZeRO++
    columns = answer["columns"]
    for i in range(answer["rows"]):
        body = {**base, "cluster": {**base["cluster"], "world_size": columns["world_size"][i]}}
        planned = client.post("/v1/plan", json=body).json()
        assert columns["bytes_sent_per_gpu"][i] == planned["traffic"]["bytes_sent_per_gpu"]
        assert columns["per_gpu_bytes"][i] == planned["memory"]["per_gpu_bytes"]
