"""An expert all-to-all that leaves the node, as NCCL runs it: one grouped send and receive per peer
(ncclGroupStart; src/enqueue.cc gives each peer's transfer its own channel), NVLink's P2P transport for the peers
on the GPU's node and the network for the others, all in flight at once. Only the chunks for other nodes go
through the GPU's NIC; the call lasts the longer of the two parts.

Link figures as the service prices a model-parallel call (service.time.efficiency.bus_speeds, one GPU's NIC):
NVLink 4 at 450 GB/s per direction x 370/450 (NVIDIA/nccl-tests issue 212) = 370 GB/s; NDR 400 Gb/s = 50 GB/s
x 0.96 (nccl-tests issue 119) = 48 GB/s; per-step latency 3 us inside a node, 10 us across (the link preset's).
"""

import pytest

S, TOP_K, H = 4096, 8, 2048  # Qwen3-30B-A3B (its config.json): hidden 2048, 8 of 128 experts a token
NVLINK_BUS, NIC_BUS = 450e9 * 370 / 450, 50e9 * 0.96
INTRA_LATENCY, INTER_LATENCY = 3e-6, 10e-6


def _all_to_alls(client, world: int, expert: int) -> list[dict]:  # type: ignore[no-untyped-def]
    body = {
        "model": {"preset": "qwen3-30b-a3b"},
        "cluster": {"world_size": world, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "precision": "megatron",
        "parallelism": {"expert": expert},
        "training": {"micro_batch_size": 1, "sequence_length": S, "gradient_accumulation_steps": 1},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return [c for c in response.json()["traffic"]["collectives"] if c["name"] == "all_to_all"]


def test_an_all_to_all_over_two_nodes_sends_half_its_bytes_through_the_nic(client):
    """e16 on two nodes of 8: each GPU sends 15 of 16 chunks of its tokens x top_k x h copies; 8 go to the other
    node through its NIC, 7 to its own node's GPUs over NVLink, at the same time."""
    calls = _all_to_alls(client, 16, 16)
    buffer = 2 * S * TOP_K * H  # bf16
    sent = 15 * (buffer // 16)
    assert [c["bytes_sent_per_gpu"] for c in calls] == [sent, sent]
    across, inside = sent * 8 // 15, sent * 7 // 15
    expected = 15 * INTER_LATENCY + max(across / NIC_BUS, inside / NVLINK_BUS)
    assert [c["seconds"] for c in calls] == pytest.approx([expected] * 2, rel=1e-9)
    # every byte through the NIC, as it was priced before, is 1.8 times longer here
    assert (15 * INTER_LATENCY + sent / NIC_BUS) / expected == pytest.approx(1.79, abs=0.01)


def test_an_all_to_all_inside_one_node_stays_on_nvlink(client):
    calls = _all_to_alls(client, 8, 8)
    sent = 7 * (2 * S * TOP_K * H // 8)
    expected = 7 * INTRA_LATENCY + sent / NVLINK_BUS
    assert [c["link"] for c in calls] == ["intra_node"] * 2
    assert [c["seconds"] for c in calls] == pytest.approx([expected] * 2, rel=1e-9)


def test_node_limited_forwarding_inside_the_node_runs_beside_the_network_sends(client):
    """DeepSeek-V3 report, section 3.2.2: each token crosses InfiniBand once per target node (at most 4) and is
    forwarded over NVLink to its experts there, "IB and NVLink communications are fully overlapped". e64 on nodes
    of 8: across 8 nodes 4 copies of each token's h = 7,168, inside the node its 8; the forwarding (1.1 ms) ends
    within the network part (4.4 ms), so it adds nothing."""
    body = {
        "model": {"preset": "deepseek-v3"},
        "cluster": {"world_size": 256, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "precision": "megatron",
        "parallelism": {"expert": 64},
        "training": {"micro_batch_size": 1, "sequence_length": S, "gradient_accumulation_steps": 1},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    calls = [c for c in response.json()["traffic"]["collectives"] if c["name"] == "all_to_all"]
    h = 7168
    across_sent = 7 * (2 * S * 4 * h // 8)
    inside_sent = 7 * (2 * S * 8 * h // 8)
    across_s = 7 * INTER_LATENCY + across_sent / NIC_BUS
    inside_s = 7 * INTRA_LATENCY + inside_sent / NVLINK_BUS
    assert inside_s < across_s
    seconds = {c["link"]: c["seconds"] for c in calls}
    assert seconds["inter_node"] == pytest.approx(across_s, rel=1e-9)
    assert seconds["intra_node"] == 0.0
    moe_layers = 61 - 3
    expert_s = response.json()["time"]["expert_parallel_s"]
    assert expert_s == pytest.approx(2 * (2 * moe_layers) * across_s, rel=1e-9)  # forward and backward, exposed


def test_a_sweep_cell_of_an_all_to_all_across_nodes_is_its_plan(client):
    """service.engine.layout_grid prices each layout's all-to-all on its own links: e 4 and 8 inside a node, e 16
    and 32 over two and four nodes, each row the plan of its layout."""
    from tests.layouts.test_sweep_layouts import assert_row_is_its_plan
    from tests.sweep.test_sweep import rows, sweep

    base = {
        "model": {"preset": "qwen3-30b-a3b"},
        "cluster": {"world_size": 32, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "precision": "megatron",
        "parallelism": {"expert": 8},
        "training": {"micro_batch_size": 1, "sequence_length": 1024, "gradient_accumulation_steps": 1},
    }
    answer = sweep(client, {"expert": [4, 8, 16, 32]}, base=base)
    assert answer["rows"] == 4
    for row in rows(answer):
        assert_row_is_its_plan(client, base, row, base["model"])
