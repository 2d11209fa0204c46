"""The textbook golden table (DP and ZeRO-1/2/3 side by side, Rajbhandari et al. 2020 sec. 5), through the HTTP API.

30e9 weights, 8 GPUs, mixed-precision Adam (16 B/weight), card 80e9 bytes = 74.5 GiB.
Bytes compare exactly; GiB to the table's one decimal.
"""

import pytest

from tests.conftest import SEED_P, plan_body

GIB = 2**30
# arrangement: (replicated B/weight, sharded B/weight, volume in P) from DESIGN.md's flag table
TABLE = {
    "ddp": (16, 0, 2.0),
    "zero1": (4, 12, 2.0),
    "zero2": (2, 14, 2.0),
    "zero3": (0, 16, 3.0),
}
EXPECTED_PER_GPU_BYTES = {"ddp": 480e9, "zero1": 165e9, "zero2": 112.5e9, "zero3": 60e9}
EXPECTED_GIB = {"ddp": 447.0, "zero1": 153.7, "zero2": 104.8, "zero3": 55.9}
EXPECTED_BYTES_PER_WEIGHT = {"ddp": 16.00, "zero1": 5.50, "zero2": 3.75, "zero3": 2.00}


@pytest.mark.parametrize("name", list(TABLE))
def test_per_gpu_bytes_at_eight_gpus(client, name):
    r, s, volume = TABLE[name]
    body = client.post("/v1/plan", json=plan_body(name)).json()
    memory = body["memory"]
    assert memory["per_gpu_bytes"] == SEED_P * r + SEED_P * s // 8 == int(EXPECTED_PER_GPU_BYTES[name])
    assert round(memory["per_gpu_gib"], 1) == EXPECTED_GIB[name]
    assert memory["bytes_per_weight"] == EXPECTED_BYTES_PER_WEIGHT[name]
    assert memory["replicated_floor_bytes"] == SEED_P * r
    assert memory["fits"] is (name == "zero3")
    assert memory["headroom_bytes"] == 80_000_000_000 - memory["per_gpu_bytes"]
    assert body["traffic"]["volume_in_p"] == volume


def test_traffic_bytes_at_ring_cost(client):
    # 2P of bf16 gradients/parameters = 2 x 30e9 x 2 B, times (N-1)/N = 7/8
    two_p = 2 * SEED_P * 2 * 7 // 8
    three_p = 3 * SEED_P * 2 * 7 // 8
    sent = {n: client.post("/v1/plan", json=plan_body(n)).json()["traffic"]["bytes_sent_per_gpu"] for n in TABLE}
    assert sent == {"ddp": two_p, "zero1": two_p, "zero2": two_p, "zero3": three_p}


def test_fsdp_aliases_are_the_same_flag_sets(client):
    # FSDP's SHARD_GRAD_OP is its own arrangement, not zero2 (tests/golden/test_frameworks.py)
    for alias, name in (("no_shard", "ddp"), ("full_shard", "zero3")):
        a = client.post("/v1/plan", json=plan_body(alias)).json()
        b = client.post("/v1/plan", json=plan_body(name)).json()
        assert a == b
        assert a["arrangement"]["name"] == name


def test_flags_give_the_named_arrangement(client):
    flags = {"shard_optimizer": True, "shard_gradients": True, "shard_parameters": False}
    assert (
        client.post("/v1/plan", json=plan_body(flags)).json() == client.post("/v1/plan", json=plan_body("zero2")).json()
    )


def test_breakdown_shows_its_arithmetic(client):
    body = client.post("/v1/plan", json=plan_body("zero1")).json()
    rows = {row["state"]: row for row in body["memory"]["breakdown"]}
    assert list(rows) == ["parameters", "gradients", "master_weights", "momentum", "variance"]
    assert rows["master_weights"]["arithmetic"] == "4 B x 30,000,000,000 weights / 8 GPUs = 15,000,000,000 B"
    assert rows["parameters"]["bytes"] == 60_000_000_000 and not rows["parameters"]["sharded"]
    assert rows["momentum"]["bytes"] == 15_000_000_000 and rows["momentum"]["sharded"]


def fit_seed(client, gpus_per_node=8, **extra):
    cluster = {"gpus_per_node": gpus_per_node, "gpu": "seed-80gb"}
    body = {"model": {"parameter_count": SEED_P}, "cluster": cluster, "max_gpus": 64}
    body.update(extra)
    response = client.post("/v1/fit", json=body)
    assert response.status_code == 200, response.text
    return {a["arrangement"]: a for a in response.json()["arrangements"]}


def test_fit_on_powers_of_two(client):
    fit = fit_seed(client)
    assert fit["ddp"]["never_fits"] and fit["ddp"]["min_gpus_exact"] is None
    assert fit["zero1"]["never_fits"] and fit["zero1"]["min_gpus_on_grid"] is None
    # the 4-byte floor: 4 x 30e9 = 120e9 B = 111.8 GiB
    assert fit["zero1"]["replicated_floor_bytes"] == 120_000_000_000
    assert "111.8 GiB" in fit["zero1"]["reason"] and "floor" in fit["zero1"]["reason"]
    assert (fit["zero2"]["min_gpus_on_grid"], fit["zero2"]["min_gpus_exact"], fit["zero2"]["min_gpus_whole_nodes"]) == (
        32,
        22,
        24,
    )
    assert (fit["zero3"]["min_gpus_on_grid"], fit["zero3"]["min_gpus_exact"], fit["zero3"]["min_gpus_whole_nodes"]) == (
        8,
        6,
        8,
    )
    assert [c["world_size"] for c in fit["zero3"]["table"]] == [1, 2, 4, 8, 16, 32, 64]


def test_exact_minimum_boundaries_in_integer_bytes(client):
    # one GPU per node, so that 21 and 22 are valid jobs
    fit = fit_seed(client, gpus_per_node=1, gpu_count_grid=[6, 21, 22])
    zero3 = {c["world_size"]: c for c in fit["zero3"]["table"]}
    # 30e9 x 16 / 6 is exactly 80e9: fills the card to the byte, and fits
    assert zero3[6]["per_gpu_bytes"] == 80_000_000_000 and zero3[6]["fits"]
    zero2 = {c["world_size"]: c for c in fit["zero2"]["table"]}
    # 2 x 30e9 + 14 x ceil(30e9 / 21): the padded shard puts 21 GPUs six bytes over the card
    assert zero2[21]["per_gpu_bytes"] == 60_000_000_000 + 14 * 1_428_571_429 == 80_000_000_006
    assert not zero2[21]["fits"]
    assert zero2[22]["per_gpu_bytes"] == 60_000_000_000 + 14 * 1_363_636_364 and zero2[22]["fits"]


def test_fit_on_whole_nodes(client):
    fit = fit_seed(client, gpu_count_grid="whole_nodes")
    assert fit["zero2"]["min_gpus_on_grid"] == 24
    assert fit["zero3"]["min_gpus_on_grid"] == 8
    assert [c["world_size"] for c in fit["zero2"]["table"]] == [8, 16, 24, 32, 40, 48, 56, 64]
