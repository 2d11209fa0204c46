"""MXFP8 as practised, and the OCP MX element types as storage dtypes.

- OCP Microscaling Formats (MX) Specification v1.0, section 5: a block of k = 32 elements shares one
  8-bit E8M0 scale; MXFP8 and MXINT8 elements are 8 bits, MXFP6 (E2M3, E3M2) 6, MXFP4 (E2M1) 4:
  33, 25, 25, 17 and 33 bytes per block.
- fp8_weights: Transformer Engine caches each weight's MXFP8 copy once per step, rowwise and
  columnwise (module/linear.py ``is_first_microbatch``; TE docs, low_precision_training/mxfp8);
  torchao's float8 all-gather sends FSDP2's parameters in 8 bits (float8/fsdp_utils.py); gradients
  are reduced in bf16.
"""

import pytest

from tests.golden.test_levers import plan

P = 30_000_000_000
SHARD = P // 8


@pytest.mark.parametrize(
    ("dtype", "block_bytes"),
    [("mxfp8", 33), ("mxint8", 33), ("mxfp6_e2m3", 25), ("mxfp6_e3m2", 25), ("mxfp4_e2m1", 17)],
)
def test_mx_element_types_store_a_shared_scale_per_32(client, dtype, block_bytes):
    p = 3200  # 100 blocks
    spec = {"parameter_dtype": dtype, "gradient_dtype": "bf16"}
    body = plan(client, "ddp", world_size=1, parameter_count=p, precision_spec=spec)
    rows = {r["state"]: r for r in body["memory"]["breakdown"]}
    assert rows["parameters"]["bytes"] == 100 * block_bytes
    assert rows["parameters"]["dtype"] == dtype


def test_a_partial_mxfp4_block(client):
    # 33 values: 132 bits = 17 packed bytes (rounded up) and two scales
    body = plan(client, "ddp", world_size=1, parameter_count=33, precision_spec={"parameter_dtype": "mxfp4_e2m1"})
    assert body["memory"]["breakdown"][0]["bytes"] == 17 + 2


def test_seed_recipe_is_the_textbook_model(client):
    body = plan(client, "zero2", levers={"mxfp8": True, "mxfp8_recipe": "seed"})
    rows = {r["state"]: r["dtype"] for r in body["memory"]["breakdown"]}
    assert rows["parameters"] == "mxfp8" and rows["gradients"] == "mxfp8"
    assert body == plan(client, "zero2", levers={"mxfp8": True})  # seed is the default


def test_fp8_weights_keeps_bf16_state_and_caches_two_mxfp8_copies(client):
    body = plan(client, "zero2", levers={"mxfp8": True, "mxfp8_recipe": "fp8_weights"})
    rows = {r["state"]: r for r in body["memory"]["breakdown"]}
    assert rows["parameters"]["dtype"] == "bf16" and rows["gradients"]["dtype"] == "bf16"
    cache = rows["compute_parameters"]
    assert cache["dtype"] == "mxfp8" and not cache["sharded"]
    assert cache["bytes"] == 2 * (P + P // 32)  # rowwise + columnwise, 33 B per 32 weights each
    assert body["memory"]["model_state_bytes"] == 2 * P + 2 * (P + P // 32) + (2 + 12) * SHARD
    # ZeRO-2's collectives stay in bf16: gradients reduced in bf16, the updated bf16 parameters gathered
    assert {c["dtype"] for c in body["traffic"]["collectives"]} == {"bf16"}


def test_fp8_weights_gathers_in_8_bits_under_zero3(client):
    body = plan(client, "zero3", levers={"mxfp8": True, "mxfp8_recipe": "fp8_weights"})
    states = [r["state"] for r in body["memory"]["breakdown"]]
    assert "compute_parameters" not in states  # gathered unit by unit, not resident
    assert body["memory"]["model_state_bytes"] == 16 * SHARD
    dtypes = [(c["name"], c["dtype"]) for c in body["traffic"]["collectives"]]
    assert dtypes == [("all_gather", "fp8"), ("all_gather", "fp8"), ("reduce_scatter", "bf16")]
    one_fp8_gather = 7 * SHARD * 1
    assert body["traffic"]["bytes_sent_per_gpu"] == 2 * one_fp8_gather + 7 * SHARD * 2  # 105e9 instead of 157.5e9


def test_unknown_recipe_is_a_422(client):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero3",
        "levers": {"mxfp8": True, "mxfp8_recipe": "fp4_everything"},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/levers/mxfp8_recipe"]


@pytest.mark.parametrize("copies", [0, 3])
def test_compute_parameter_copies_out_of_range(client, copies):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero2",
        "precision_spec": {"compute_parameter_dtype": "mxfp8", "compute_parameter_copies": copies},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == ["/precision_spec/compute_parameter_copies"]
