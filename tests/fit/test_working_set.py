"""The working set: ZeRO-3/FSDP's gathered units and unit gradients, DDP/ZeRO-1/2's gradient buckets.

Units as torchtitan wraps Llama for FSDP (the embedding, each block, the final norm with the
output layer); DeepSpeed's estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py)
counts 4 x largest_layer_params for the same thing without the prefetched unit.
"""

import pytest

H, V, F, KV = 4096, 128_256, 14_336, 1024
EMBEDDING = V * H  # 525,336,576
BLOCK = 2 * H * H + 2 * H * KV + 3 * H * F + 2 * H  # attention, swiglu MLP, two RMSNorms
OUTPUT = V * H + H  # the output layer with the final norm
P = 30_000_000_000


def plan(client, model, arrangement="zero3", world_size=8, levers=None, gpu="seed-80gb"):
    body = {
        "model": model,
        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu": gpu},
        "arrangement": arrangement,
        "levers": levers or {},
        # model states and the working set alone: the golden figures below leave activations out
        "activations": {"model": "none"},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def rows(answer):
    return {r["state"]: r for r in answer["memory"]["breakdown"]}


def test_llama_3_8b_under_zero3_holds_two_units_and_one_units_gradients(client):
    assert (EMBEDDING, BLOCK, OUTPUT) == (525_336_576, 218_112_000, 525_340_672)
    answer = plan(client, {"preset": "llama-3-8b"})
    gathered, grads = rows(answer)["gathered_parameters"], rows(answer)["unit_gradients"]
    # the largest adjacent pair is the last block and the output layer; the largest unit the output layer
    assert gathered["bytes"] == 2 * (BLOCK + OUTPUT) == 1_486_905_344
    assert grads["bytes"] == 2 * OUTPUT == 1_050_681_344
    memory = answer["memory"]
    assert memory["working_set_bytes"] == gathered["bytes"] + grads["bytes"]
    assert memory["per_gpu_bytes"] == memory["model_state_bytes"] + memory["working_set_bytes"]
    # ZeRO-3 replicates nothing but the working set: it is the whole floor
    assert memory["replicated_floor_bytes"] == memory["working_set_bytes"]
    assert "prefetched" in gathered["arithmetic"] and "1,486,905,344 B" in gathered["arithmetic"]


def test_without_the_prefetched_unit_it_is_deepspeeds_largest_layer_term(client):
    # DeepSpeed: largest_layer_memory = 4 x largest_layer_params, the largest module being the embedding
    # (or the output projection) of 525,336,576 weights: 2,101,346,304 B, about 2 GiB (1.96 GiB)
    deepspeed = 4 * EMBEDDING
    assert deepspeed == 2_101_346_304 and round(deepspeed / 2**30, 2) == 1.96
    memory = plan(client, {"preset": "llama-3-8b"})["memory"]
    current_unit = memory["working_set_bytes"] - 2 * BLOCK  # less the prefetched block
    assert current_unit == 4 * OUTPUT == deepspeed + 4 * H  # the output unit carries the final norm too


def test_a_bare_count_takes_the_largest_unit_or_says_it_is_not_counted(client):
    bare = plan(client, {"parameter_count": P})
    assert bare["memory"]["working_set_bytes"] == 0
    assert any("working set" in w and "not counted" in w for w in bare["warnings"])
    given = plan(client, {"parameter_count": P, "largest_unit_parameters": 10**9})
    # a bare largest unit: the prefetched one is taken as large
    assert rows(given)["gathered_parameters"]["bytes"] == 2 * (2 * 10**9)
    assert rows(given)["unit_gradients"]["bytes"] == 2 * 10**9
    assert given["memory"]["per_gpu_bytes"] == 16 * P // 8 + 6 * 10**9
    assert not any("working set" in w for w in given["warnings"])


def test_replicated_parameters_hold_gradient_buckets(client):
    model = {"parameter_count": P, "largest_unit_parameters": 10**9}
    for arrangement in ("ddp", "zero1", "zero2"):
        answer = plan(client, model, arrangement)
        buckets = rows(answer)["gradient_buckets"]
        assert buckets["bytes"] == 2 * 25 * 2**20  # two 25 MiB buckets in flight with overlap
        assert "gathered_parameters" not in rows(answer)
        assert answer["memory"]["replicated_floor_bytes"] >= buckets["bytes"]
    one = plan(client, model, "zero2", levers={"overlap": False, "bucket_bytes": 10**8})
    assert rows(one)["gradient_buckets"]["bytes"] == 10**8
    tiny = plan(client, {"parameter_count": 1000, "largest_unit_parameters": 100}, "ddp")
    assert rows(tiny)["gradient_buckets"]["bytes"] == 2 * 1000  # never more than the gradients themselves


def test_the_minimum_gpu_count_pays_for_the_working_set(client):
    body = {
        "model": {"parameter_count": P, "largest_unit_parameters": 10**9},
        "cluster": {"gpus_per_node": 1, "gpu": "seed-80gb"},
        "max_gpus": 64,
    }
    zero3 = next(a for a in client.post("/v1/fit", json=body).json()["arrangements"] if a["arrangement"] == "zero3")
    # 16 B x ceil(P / N) + 2 x 2 B x 1e9 gathered + 2 B x 1e9 gradients <= 80e9
    expected = next(n for n in range(1, 100) if 16 * -(-P // n) + 6 * 10**9 <= 80 * 10**9)
    assert zero3["min_gpus_exact"] == expected == 7
    assert zero3["replicated_floor_bytes"] == 6 * 10**9


@pytest.mark.parametrize(
    "model",
    [
        {"parameter_count": 10**9, "largest_unit_parameters": 10**9 + 1},
        {"preset": "llama-2-7b", "largest_unit_parameters": 10**12},
        {"parameter_count": 10**9, "largest_unit_parameters": 0},
    ],
)
def test_a_unit_larger_than_the_model_is_a_422(client, model):
    body = {"model": model, "cluster": {"world_size": 8, "gpu": "seed-80gb"}, "arrangement": "zero3"}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert "largest_unit_parameters" in problem["detail"]
    assert "/model/largest_unit_parameters" in [e["pointer"] for e in problem["errors"]]


def test_shard_grad_op_holds_the_gathered_model_and_only_unit_gradients_in_flight(client):
    # FSDP SHARD_GRAD_OP keeps every gathered parameter from the forward to the end of the backward:
    # a whole-model 2-byte copy is resident, so no unit pair is gathered on top of it
    answer = plan(client, {"preset": "llama-3-8b"}, "shard_grad_op")
    breakdown = rows(answer)
    assert "gathered_parameters" not in breakdown
    assert breakdown["unit_gradients"]["bytes"] == 2 * OUTPUT
    p = answer["parameter_count"]
    assert breakdown["compute_parameters"]["bytes"] == 2 * p
    assert answer["memory"]["working_set_bytes"] == 2 * OUTPUT


def llama_8b_zero3_rows(client, precision: str) -> dict:
    """The working set's rows of Llama 3 8B under ZeRO-3 on 8 GPUs, by state class."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "precision": precision,
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
        "arrangement": "zero3",
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return rows(response.json())


def test_fsdp2_gathers_units_in_its_compute_dtype(client):
    # FSDP2's MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16): fp32 shards, units gathered in bf16; a
    # unit's unsharded gradients are bf16 (autograd's, of bf16 parameters) and reduce-scattered in bf16
    # (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, foreach_reduce), only the shard kept in fp32.
    # This read 4 x OUTPUT (fp32) before, the sharded gradient's dtype, which no unsharded unit holds.
    breakdown = llama_8b_zero3_rows(client, "fsdp2")
    assert breakdown["gathered_parameters"]["bytes"] == 2 * (BLOCK + OUTPUT)
    assert breakdown["unit_gradients"]["bytes"] == 2 * OUTPUT


def test_bf16_adam_holds_unit_gradients_in_the_fp32_its_reduce_scatter_takes(client):
    # bf16 parameters and gradients reduced in fp32 (gradient_reduce_dtype): the unit's reduce-scatter input is fp32,
    # 4 B per weight of the largest unit (the output layer with the final norm); this read 2 x OUTPUT (bf16) before
    gradients = llama_8b_zero3_rows(client, "bf16_adam")["unit_gradients"]
    assert (gradients["dtype"], gradients["bytes"]) == ("fp32", 4 * OUTPUT)


# Llama 3 70B (h 8,192, 80 layers, 64 heads, 8 KV heads, SwiGLU 28,672, vocabulary 128,256 untied) on t4 p4 with
# sequence parallelism, 256 H100: the README's examples/fit-layout.json at zero3.
PIPELINED_BODY = {
    "model": {"preset": "llama-3-70b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192, "global_batch_size": 512},
    "cluster": {"world_size": 256, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "parallelism": {"tensor": 4, "pipeline": 4, "sequence_parallel": True},
    "arrangement": "zero3",
}


@pytest.mark.parametrize(
    ("precision", "dtype", "value_bytes"),
    [
        # Megatron-FSDP accumulates into its fp32 main_grad buffer, the dtype its reduce-scatter sends
        ("megatron", "fp32", 4),
        # FSDP2: the unsharded gradients in param_dtype bf16, reduced in reduce_dtype bf16
        ("fsdp2", "bf16", 2),
        # bf16 parameters reduced in fp32: accumulated in the reduce dtype
        ("bf16_adam", "fp32", 4),
    ],
)
def test_a_pipelined_stage_holds_its_gradients_in_the_dtype_its_reduce_scatter_sends(
    client, precision, dtype, value_bytes
):
    """FSDP on a pipeline stage keeps the stage's gradients unsharded until its one reduce-scatter: as many bytes
    as that reduce-scatter's buffer, value_bytes per weight of the stage. Before, the megatron preset counted them
    in bf16 (2 B) while the same answer reduce-scattered them in fp32: 9,082,372,096 B under-counted here."""
    answer = client.post("/v1/plan", json=PIPELINED_BODY | {"precision": precision})
    assert answer.status_code == 200, answer.text
    answer = answer.json()
    grads = rows(answer)["unit_gradients"]
    (scatter,) = [c for c in answer["traffic"]["collectives"] if c["name"] == "reduce_scatter" and c["group"] == "data"]
    # the breakdown is the busiest stage's: value_bytes per weight of one of the stages
    per_stage = {value_bytes * stage["parameters_per_gpu"] for stage in answer["memory"]["stages"]}
    assert grads["dtype"] == scatter["dtype"] == dtype
    assert grads["bytes"] == scatter["buffer_bytes"]
    assert grads["bytes"] in per_stage
