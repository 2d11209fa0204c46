"""Transformer Engine's weights kept in FP8 alone (levers.fp8_param_gather, Megatron-LM's --fp8-param-gather), each
expected value written out here.

- Megatron-LM @d98e8a64: megatron/training/argument_utils.py passes --fp8-param-gather on as
  TransformerConfig.fp8_param ("keep the parameters in fp8 precision to save memory"); the distributed optimizer
  keeps its fp32 master shard and quantises it into the FP8 weights after each step
  (megatron/core/optimizer/distrib_optimizer.py, quantize_param_shard); megatron/training/arguments.py takes the
  flag only "with distributed optimizer, torch fsdp2, megatron fsdp".
- Hopper's FP8 GEMMs are TN-only, so Transformer Engine keeps each FP8 weight's transpose beside it (1 B a weight);
  Blackwell's take any layout and keep none.

Without the lever a Transformer Engine recipe keeps the bf16 parameters (2 B) and an FP8 copy with its transpose
(2 B on Hopper, 1 B on Blackwell): tests/golden/test_issue24_fp8.py.
"""

import pytest

P = 8_030_261_248  # Llama 3 8B (tests/fit/test_limits.py)
N = 8


def _body(arrangement: str = "zero1", gpu: str = "h100-80gb", **levers: object) -> dict:
    return {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": N, "gpus_per_node": 8, "gpu": gpu},
        "arrangement": arrangement,
        "precision": "mixed_bf16_adam",
        "training": {"micro_batch_size": 1, "sequence_length": 8192},
        "levers": {"fp8": "transformer_engine_current_scaling"} | levers,
    }


def _plan(client, body: dict) -> dict:  # type: ignore[no-untyped-def]
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _rows(answer: dict) -> dict[str, dict]:
    return {row["state"]: row for row in answer["memory"]["breakdown"]}


def _shard(elements: int, ranks: int) -> int:
    return -(-elements // ranks)


def test_the_weights_are_fp8_beside_their_transpose_on_hopper(client):
    kept = _rows(_plan(client, _body(fp8_param_gather=True)))
    assert (kept["parameters"]["dtype"], kept["parameters"]["bytes"]) == ("fp8", 1 * P)
    assert (kept["compute_parameters"]["dtype"], kept["compute_parameters"]["bytes"]) == ("fp8", 1 * P)  # transpose
    # mixed_bf16_adam (Megatron-Bridge's grad_reduce_in_fp32 off): bf16 gradients whole, fp32 master weights and
    # both Adam moments over N
    assert kept["gradients"]["bytes"] == 2 * P
    assert [kept[s]["bytes"] for s in ("master_weights", "momentum", "variance")] == [4 * _shard(P, N)] * 3


def test_the_lever_drops_the_16_bit_copy_and_one_fp8_copy_on_hopper(client):
    plain = _plan(client, _body())
    kept = _plan(client, _body(fp8_param_gather=True))
    # bf16 parameters 2 B + FP8 weight and transpose 2 B  ->  FP8 weight 1 B + transpose 1 B
    assert plain["memory"]["model_state_bytes"] - kept["memory"]["model_state_bytes"] == 2 * P


def test_blackwell_keeps_no_transpose(client):
    kept = _rows(_plan(client, _body(gpu="b200", fp8_param_gather=True)))
    assert (kept["parameters"]["dtype"], kept["parameters"]["bytes"]) == ("fp8", 1 * P)
    assert "compute_parameters" not in kept


def test_zero1_gathers_the_updated_parameters_in_fp8(client):
    def gathers(answer: dict) -> set[tuple[str, int]]:
        calls = answer["traffic"]["collectives"]
        return {(c["dtype"], c["buffer_bytes"]) for c in calls if c["name"] == "all_gather"}

    assert gathers(_plan(client, _body())) == {("bf16", 2 * P)}
    assert gathers(_plan(client, _body(fp8_param_gather=True))) == {("fp8", 1 * P)}
    # the gradients' reduce-scatter is unchanged: bf16 over the whole model
    reduces = _plan(client, _body(fp8_param_gather=True))["traffic"]["collectives"]
    assert {(c["dtype"], c["buffer_bytes"]) for c in reduces if c["name"] == "reduce_scatter"} == {("bf16", 2 * P)}


@pytest.mark.parametrize(
    ("body", "pointer", "words"),
    [
        (_body("ddp", fp8_param_gather=True), "/levers", "shards the optimizer"),
        (_body(fp8="none", fp8_param_gather=True), "/levers", "needs levers.fp8 transformer_engine"),
        (_body("full_shard", fp8="torchao", fp8_param_gather=True), "/levers", "needs levers.fp8 transformer_engine"),
        (
            {k: v for k, v in _body(fp8_param_gather=True).items() if k != "precision"}
            | {"precision_spec": {"master_dtype": None}},
            "/levers/fp8_param_gather",
            "master weights",
        ),
    ],
)
def test_what_megatron_does_not_run_is_refused(client, body, pointer, words):
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert words in response.text
    assert any(error["pointer"].startswith(pointer) for error in problem["errors"]), problem


FP8_WEIGHTS_STEP = "ZeRO-1 with FP8 weights alone (Megatron-LM's --fp8-param-gather)"


def _recommend(client, **levers: object) -> dict:  # type: ignore[no-untyped-def]
    body = _body() | {"levers": levers}
    body.pop("arrangement")
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_recommend_offers_the_fp8_weights_under_a_transformer_engine_recipe(client):
    answer = _recommend(client, fp8="transformer_engine_current_scaling")
    steps = {step["lever"]: step for step in answer["steps"]}
    kept, zero1 = steps[FP8_WEIGHTS_STEP], steps["ZeRO-1: shard optimizer state"]
    assert kept["levers"]["fp8_param_gather"] and not zero1["levers"]["fp8_param_gather"]
    # the same ZeRO-1 job on the same 8 GPUs less the bf16 copy and one FP8 copy: 2 B a weight
    assert kept["world_size"] == zero1["world_size"] == N
    assert zero1["per_gpu_bytes"] - kept["per_gpu_bytes"] == 2 * P
    assert "FP8 alone" in kept["why"]
    # the step is the plan of its job
    planned = _plan(client, _body(fp8_param_gather=True))
    assert planned["memory"]["per_gpu_bytes"] == kept["per_gpu_bytes"]


@pytest.mark.parametrize("levers", [{}, {"fp8": "torchao"}, {"fp8": "transformer_engine", "fp8_param_gather": True}])
def test_no_fp8_weights_step_where_the_recipe_cannot_take_it_or_already_does(client, levers):
    answer = _recommend(client, **levers)
    assert FP8_WEIGHTS_STEP not in {step["lever"] for step in answer["steps"] + answer["omitted"]}


def test_a_sweep_row_checkpoints_the_fp8_weights_as_its_plan_does(client):
    # a checkpoint holds the parameters as stored: 1 B a weight in FP8 with the lever, not the precision's 2 B; the
    # sweep priced its rows' checkpoints from the precision alone (goodput, training days) where the plan did not
    base = _body(fp8_param_gather=True)
    base["cluster"] = base["cluster"] | {"failures": {}}
    base["training"] = base["training"] | {"total_tokens": 10**11, "checkpoint": {"interval_steps": 100}}
    response = client.post("/v1/sweep", json={"base": base, "axes": {"world_size": [8, 16]}})
    assert response.status_code == 200, response.text
    columns = response.json()["columns"]
    for i, n in enumerate(columns["world_size"]):
        planned = _plan(client, base | {"cluster": base["cluster"] | {"world_size": n}})
        time = planned["time"]
        assert time["checkpoint"]["bytes"] == 1 * P + 3 * 4 * P  # FP8 weights, fp32 master weights and both moments
        assert columns["goodput"][i] == pytest.approx(time["goodput"], rel=1e-12)
        assert columns["training_days"][i] == pytest.approx(time["training_days"], rel=1e-12)


def test_shard_grad_op_gathers_the_fp8_weight_and_its_transpose_from_an_fp8_shard(client):
    # SHARD_GRAD_OP holds the whole model gathered through forward and backward: on Hopper the FP8 weight and its
    # transpose (2 B a weight), with or without the lever; the lever shards FP8 (1 B) where the bf16 shard took 2
    n = 16
    body = _body("shard_grad_op", fp8_param_gather=True) | {"cluster": {"world_size": n, "gpus_per_node": 8}}
    body["cluster"]["gpu"] = "h100-80gb"
    kept = _rows(_plan(client, body))
    plain = _rows(_plan(client, body | {"levers": {"fp8": "transformer_engine_current_scaling"}}))
    assert kept["compute_parameters"]["bytes"] == plain["compute_parameters"]["bytes"] == 2 * P
    assert (kept["parameters"]["dtype"], kept["parameters"]["bytes"]) == ("fp8", 1 * _shard(P, n))
    assert plain["parameters"]["bytes"] == 2 * _shard(P, n)


@pytest.mark.parametrize("precision", ["bf16_adam", "fp32_adam"])
def test_recommend_leaves_the_fp8_weights_out_for_a_precision_without_master_weights(client, precision):
    # a bf16_adam or fp32_adam job under a Transformer Engine recipe is answered as before: no FP8-weights step
    body = _body() | {"precision": precision}
    body.pop("arrangement")
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    assert FP8_WEIGHTS_STEP not in {step["lever"] for step in response.json()["steps"]}


def test_recommend_steps_say_the_lever_the_request_asked(client):
    body = _body(fp8_param_gather=True)
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["steps"] and all(step["levers"]["fp8_param_gather"] for step in answer["steps"])
    (asked,) = [step for step in answer["steps"] if step["asked"]]
    assert asked["per_gpu_bytes"] == _plan(client, body)["memory"]["per_gpu_bytes"]


@pytest.mark.parametrize("lever", [{"offload_parameters": True}, {"zeropp": {"hpz": True}}])
def test_deepspeeds_levers_are_not_megatrons(client, lever):
    response = client.post("/v1/plan", json=_body("zero3", fp8_param_gather=True, **lever))
    assert response.status_code == 422, response.text
    assert "levers.fp8_param_gather is Megatron-LM's" in response.text
