"""/v1/recommend's MXFP8 steps are jobs /v1/plan takes, and say what their recipe does.

- With levers.fp8 given, an MXFP8 step would run two 8-bit recipes on the same matrices, which /v1/plan refuses
  (models.training.eight_bit_conflict): the steps are left out with the plan's words, as steps a lever refuses are.
  They used to be planned anyway, with both levers on.
- An MXFP8 step under mxfp8_recipe torchao stores and sends nothing in 8 bits (torchao's MX linear: the state is
  the precision's own, gathered in bf16), so its words do not claim MXFP8 halves the bytes on the wire, and its
  per-GPU bytes are the arrangement's own."""

from fastapi.testclient import TestClient

JOB = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "b200"},
    "training": {"sequence_length": 4096, "micro_batch_size": 1},
}
TWO_RECIPES = "levers.fp8 transformer_engine and levers.mxfp8 are two 8-bit recipes for the same matrices; choose one"


def test_with_fp8_the_mxfp8_steps_are_left_out_in_the_plans_words(client: TestClient):
    body = JOB | {"levers": {"fp8": "transformer_engine"}}
    answer = client.post("/v1/recommend", json=body)
    assert answer.status_code == 200, answer.text
    steps = answer.json()["steps"]
    assert not any(step["levers"]["mxfp8"] for step in steps)
    refused = client.post(
        "/v1/plan", json=body | {"arrangement": "zero3", "levers": {"fp8": "transformer_engine", "mxfp8": True}}
    )
    assert refused.status_code == 422
    assert TWO_RECIPES in refused.text
    assert any(TWO_RECIPES in warning and "MXFP8" in warning for warning in answer.json()["warnings"])


def test_a_torchao_mxfp8_step_says_what_its_recipe_does(client: TestClient):
    answer = client.post("/v1/recommend", json=JOB | {"levers": {"mxfp8_recipe": "torchao"}})
    assert answer.status_code == 200, answer.text
    steps = {step["lever"]: step for step in answer.json()["steps"]}
    mx = steps["ZeRO-2 with MXFP8 GEMMs (torchao's MX linear)"]
    assert "halves the bytes" not in mx["why"]
    assert mx["per_gpu_bytes"] == steps["ZeRO-2: shard gradients too"]["per_gpu_bytes"]
    seed = client.post("/v1/recommend", json=JOB).json()
    assert "ZeRO-2 with MXFP8 parameters and gradients" in {step["lever"] for step in seed["steps"]}
