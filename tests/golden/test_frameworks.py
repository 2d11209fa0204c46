"""Frameworks as they are: DeepSpeed's estimators, FSDP2's mixed precision, FSDP's SHARD_GRAD_OP.

Sources:
- DeepSpeed docs/code-docs/source/memory.rst, the tables for a 2851M-parameter model (32M largest
  layer) on one node of 8 GPUs, printed as f"{bytes / 2**30:7.2f}GB"; the ZeRO-2 row without
  offload is stale there (15.93 GB from 4P + 16P/N), and the current code,
  deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs, computes
  2P + int(18P/N) = 11.28 GB.
- deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs.
- PyTorch torch/distributed/fsdp/_fully_shard/_fsdp_api.py, MixedPrecisionPolicy.
- PyTorch torch/distributed/fsdp/api.py, ShardingStrategy.SHARD_GRAD_OP.
"""

import pytest

from tests.golden.test_levers import plan

GIB = 2**30
DS_P = 2_851_000_000
DS_LARGEST = 32_000_000


def deepspeed_plan(client, arrangement, offload_optimizer=False, offload_parameters=False, zero_init=True):
    return plan(
        client,
        arrangement,
        parameter_count=DS_P,
        precision="deepspeed",
        levers={"offload_optimizer": offload_optimizer, "offload_parameters": offload_parameters},
        estimator={"largest_layer_parameters": DS_LARGEST, "zero_init": zero_init},
    )


# (offload_parameters, offload_optimizer, zero_init) -> (per CPU GB, per GPU GB), memory.rst's cold table
ZERO3_TABLE = {
    (True, True, True): (71.69, 0.12),
    (True, True, False): (127.45, 0.12),
    (False, True, True): (63.72, 0.78),
    (False, True, False): (127.45, 0.78),
    (False, False, True): (1.43, 6.09),
    (False, False, False): (127.45, 6.09),
}


@pytest.mark.parametrize(("options", "table"), list(ZERO3_TABLE.items()))
def test_deepspeed_zero3_estimator_table(client, options, table):
    offload_parameters, offload_optimizer, zero_init = options
    body = deepspeed_plan(client, "zero3", offload_optimizer, offload_parameters, zero_init)
    estimate = body["memory"]["framework_estimate"]
    assert (round(estimate["cpu_bytes_per_node"] / GIB, 2), round(estimate["gpu_bytes"] / GIB, 2)) == table
    # GPU: 4 x largest layer + the partitioned bytes per weight the estimator counts
    per_weight = 0 if offload_parameters else 2 if offload_optimizer else 18
    assert estimate["gpu_bytes"] == 4 * DS_LARGEST + per_weight * DS_P // 8
    # the preset's own count is the same partitioned state; the largest layer is the working set
    assert body["memory"]["model_state_bytes"] == per_weight * DS_P // 8
    if offload_optimizer and zero_init:
        # host, steady state: 16 (or 18 with parameters) B/weight per node, times the buffer factor 1.5
        host_per_weight = 18 if offload_parameters else 16
        assert body["memory"]["host_bytes"] == host_per_weight * DS_P
        assert estimate["cpu_bytes_per_node"] == host_per_weight * DS_P * 3 // 2


def test_deepspeed_zero3_is_18_bytes_per_weight_not_20(client):
    body = deepspeed_plan(client, "zero3")
    rows = {r["state"]: (r["dtype"], r["bytes"]) for r in body["memory"]["breakdown"]}
    shard = DS_P // 8
    assert rows == {
        "parameters": ("fp16", 2 * shard),
        "gradients": ("fp32", 4 * shard),
        "master_weights": ("fp32", 4 * shard),
        "momentum": ("fp32", 4 * shard),
        "variance": ("fp32", 4 * shard),
    }
    assert body["memory"]["bytes_per_weight"] == 18 / 8
    # the gradients are reduce-scattered in fp16 before they enter the fp32 partition
    reduce = next(c for c in body["traffic"]["collectives"] if c["name"] == "reduce_scatter")
    assert reduce["dtype"] == "fp16" and reduce["bytes_sent_per_gpu"] == 7 * 2 * shard


@pytest.mark.parametrize(
    ("offload", "gpu_bytes", "cpu_gb", "gpu_gb"),
    [
        (True, 2 * DS_P, 127.45, 5.31),
        # the code's 2P + int(18P/N); memory.rst still prints 15.93 GB (4P + 16P/N)
        (False, 2 * DS_P + 18 * DS_P // 8, 127.45, 11.28),
    ],
)
def test_deepspeed_zero2_estimator(client, offload, gpu_bytes, cpu_gb, gpu_gb):
    body = deepspeed_plan(client, "zero2", offload_optimizer=offload)
    estimate = body["memory"]["framework_estimate"]
    assert estimate["gpu_bytes"] == gpu_bytes == body["memory"]["model_state_bytes"]
    assert round(estimate["cpu_bytes_per_node"] / GIB, 2) == cpu_gb
    assert round(estimate["gpu_bytes"] / GIB, 2) == gpu_gb
    assert estimate["largest_layer_bytes"] == 0
    assert estimate["options"] == ("offload_optimizer=cpu " if offload else "offload_optimizer=none")


def test_deepspeed_zero2_across_nodes_multiplies_by_the_total_gpu_count(client):
    # the code: total_params x max(4 x total_gpus, 16) x 1.5 (the page says GPUs per node)
    body = plan(
        client,
        "zero2",
        world_size=16,
        parameter_count=DS_P,
        precision="deepspeed",
        levers={"offload_optimizer": True},
    )
    assert body["memory"]["framework_estimate"]["cpu_bytes_per_node"] == DS_P * 4 * 16 * 3 // 2


def test_bare_parameter_count_says_the_largest_layer_is_unknown(client):
    body = plan(client, "zero3", precision="deepspeed")
    assert body["memory"]["framework_estimate"]["largest_layer_parameters"] == 0
    assert "unknown" in body["memory"]["framework_estimate"]["note"]


def test_largest_layer_of_llama_3_8b(client):
    # the largest module is the 128256 x 4096 embedding (or output) matrix
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "precision": "deepspeed",
    }
    estimate = client.post("/v1/plan", json=body).json()["memory"]["framework_estimate"]
    assert estimate["largest_layer_parameters"] == 128_256 * 4096
    assert estimate["largest_layer_bytes"] == 4 * 128_256 * 4096  # 2,101,346,304 B, about 2 GiB


def test_no_estimate_outside_deepspeed_stages(client):
    assert plan(client, "zero3")["memory"]["framework_estimate"] is None
    assert plan(client, "zero1", precision="deepspeed")["memory"]["framework_estimate"] is None


def test_largest_layer_larger_than_the_model_is_a_422(client):
    body = {
        "model": {"parameter_count": 1000},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero3",
        "precision": "deepspeed",
        "estimator": {"largest_layer_parameters": 1001},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/estimator/largest_layer_parameters"


@pytest.mark.parametrize(
    ("field", "value"),
    [("largest_layer_parameters", 0), ("additional_buffer_factor", 0.5), ("additional_buffer_factor", 101)],
)
def test_estimator_fields_out_of_range(client, field, value):
    body = {
        "model": {"parameter_count": DS_P},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero3",
        "estimator": {field: value},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == [f"/estimator/{field}"]


FSDP_P = 8_000_000_000


@pytest.mark.parametrize(
    ("arrangement", "rows"),
    [
        # fp32 sharded parameters, fp32 sharded gradients, fp32 moments: 16/N; bf16 copies only per unit
        (
            "full_shard",
            {"parameters": ("fp32", 4, True), "gradients": ("fp32", 4, True), "momentum": ("fp32", 4, True)},
        ),
        # SHARD_GRAD_OP: the bf16 unsharded parameters stay from forward to the end of backward
        (
            "shard_grad_op",
            {
                "parameters": ("fp32", 4, True),
                "compute_parameters": ("bf16", 2, False),
                "gradients": ("fp32", 4, True),
                "momentum": ("fp32", 4, True),
            },
        ),
        (
            "no_shard",
            {
                "parameters": ("fp32", 4, False),
                "compute_parameters": ("bf16", 2, False),
                "gradients": ("fp32", 4, False),
                "momentum": ("fp32", 4, False),
            },
        ),
    ],
)
def test_fsdp2_mixed_precision_layout(client, arrangement, rows):
    body = plan(client, arrangement, parameter_count=FSDP_P, precision="fsdp2")
    got = {r["state"]: r for r in body["memory"]["breakdown"]}
    assert "master_weights" not in got  # the fp32 sharded parameter is the optimizer's copy
    for state, (dtype, per_weight, sharded) in rows.items():
        assert got[state]["dtype"] == dtype and got[state]["sharded"] is sharded
        assert got[state]["bytes"] == per_weight * (FSDP_P // 8 if sharded else FSDP_P)
    # gathers in bf16 (param_dtype), reduces in bf16 (reduce_dtype unset: the compute dtype)
    assert {c["dtype"] for c in body["traffic"]["collectives"]} == {"bf16"}


def test_fsdp2_full_shard_is_16_bytes_over_n(client):
    body = plan(client, "full_shard", parameter_count=FSDP_P, precision="fsdp2")
    assert body["memory"]["model_state_bytes"] == 16 * FSDP_P // 8
    # all-gather forward and backward and reduce-scatter, each 7/8 of P x 2 B (bf16)
    assert body["traffic"]["bytes_sent_per_gpu"] == 3 * 7 * (FSDP_P // 8) * 2


SEED_P = 30_000_000_000


def test_shard_grad_op_moves_2kp_with_eight_micro_batches(client):
    k = 8
    one_buffer = 7 * (SEED_P // 8) * 2  # 7/8 of a bf16 model at ring cost: 52.5e9 B
    sgo = plan(client, "shard_grad_op", training={"gradient_accumulation_steps": k})
    zero2 = plan(client, "zero2", training={"gradient_accumulation_steps": k})
    # a gather before every micro-batch's forward and a reduce-scatter after its backward: 2kP
    assert sgo["traffic"]["bytes_sent_per_gpu"] == 2 * k * one_buffer == 840_000_000_000
    assert sgo["traffic"]["volume_in_p"] == 2 * k
    # DeepSpeed's ZeRO-2: k reduce-scatters and one gather of the updated parameters: (k + 1)P
    assert zero2["traffic"]["bytes_sent_per_gpu"] == (k + 1) * one_buffer
    assert sgo["arrangement"]["name"] == "shard_grad_op"
    calls = {(c["name"], c["count_per_step"]) for c in sgo["traffic"]["collectives"]}
    assert calls == {("all_gather", k), ("reduce_scatter", k)}


def test_shard_grad_op_memory_holds_the_gathered_model(client):
    body = plan(client, "shard_grad_op")
    # a 2 B/weight shard, the 2 B gathered copy on every GPU, 2 B gradient and 12 B optimizer shards
    assert body["memory"]["per_gpu_bytes"] == 2 * SEED_P + 16 * SEED_P // 8 == 120_000_000_000
    assert body["memory"]["replicated_bytes_per_weight"] == 2
    assert not body["memory"]["fits"]


def test_shard_grad_op_cannot_offload_parameters(client):
    body = {
        "model": {"parameter_count": SEED_P},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "shard_grad_op",
        "levers": {"offload_parameters": True},
    }
    assert client.post("/v1/plan", json=body).status_code == 422


def test_fit_lists_shard_grad_op(client):
    body = {"model": {"parameter_count": SEED_P}, "cluster": {"gpu": "seed-80gb"}, "max_gpus": 64}
    fit = {a["arrangement"]: a for a in client.post("/v1/fit", json=body).json()["arrangements"]}
    # 2 x 30e9 + 16 x ceil(30e9 / N) <= 80e9: N >= 24
    assert fit["shard_grad_op"]["min_gpus_exact"] == 24
    assert fit["zero2"]["min_gpus_exact"] == 22


def test_bf16_adam_is_8_bytes_a_weight_and_reduces_in_fp32(client):
    """torch.optim.Adam over a model stored in bf16 (NeMo Automodel's default model.torch_dtype; its
    mixed-precision guide: the Adam buffers "are also stored in bf16"): 2 B parameters + 2 B gradients (FSDP2 casts
    the reduce-scattered gradient to the parameter's dtype) + 2 x 2 B moments, no master; the reduce-scatter in fp32
    (MixedPrecisionPolicy reduce_dtype float32): 7/8 of P x 4 B, beside two bf16 gathers of 7/8 of P x 2 B."""
    body = plan(client, "full_shard", parameter_count=FSDP_P, precision="bf16_adam")
    rows = {r["state"]: (r["dtype"], r["bytes"]) for r in body["memory"]["breakdown"]}
    shard = FSDP_P // 8
    assert rows == {
        "parameters": ("bf16", 2 * shard),
        "gradients": ("bf16", 2 * shard),
        "momentum": ("bf16", 2 * shard),
        "variance": ("bf16", 2 * shard),
    }
    assert body["memory"]["model_state_bytes"] == 8 * shard
    sent: dict[tuple[str, str], int] = {}
    for c in body["traffic"]["collectives"]:
        key = (c["name"], c["dtype"])
        sent[key] = sent.get(key, 0) + c["bytes_sent_per_gpu"]
    assert sent == {("all_gather", "bf16"): 2 * 7 * shard * 2, ("reduce_scatter", "fp32"): 7 * shard * 4}
