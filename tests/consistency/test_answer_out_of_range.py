"""A job too large to answer (an integer past what a 64-bit client reads, 2^63 - 1) is refused at the fields the
caller sent, and /v1/recommend keeps to the steps /v1/plan answers.

Before: /v1/plan's 422 answer_out_of_range carried no `errors` pointer; /v1/recommend either refused the whole
request because one step's figure passed int64 (B1: 1e15 parameters, 10^6 micro-batches on one GPU, its offload
steps' PCIe bytes 2.0e21) or listed steps /v1/plan refuses (B2: 1e14 parameters on 64 GPUs, the sharded steps'
bytes sent 2e20 and more)."""

from fastapi.testclient import TestClient

INT64_MAX = 2**63 - 1
B1 = {
    "model": {"parameter_count": 10**15},
    "cluster": {"world_size": 1, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"gradient_accumulation_steps": 1_000_000},
}
B2 = B1 | {"model": {"parameter_count": 10**14}, "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"}}


def test_the_plans_refusal_points_at_the_sizes_the_caller_sent(client: TestClient):
    # ZeRO-3 on 64 GPUs: three model-sized collectives of 2 B a value, every micro-batch, well past 2^63 bytes
    assert 3 * 2 * 10**14 * 1_000_000 > INT64_MAX
    answer = client.post("/v1/plan", json=B2 | {"arrangement": "zero3"})
    assert answer.status_code == 422 and answer.json()["code"] == "answer_out_of_range"
    pointers = [error["pointer"] for error in answer.json()["errors"]]
    assert pointers == ["/model", "/training/gradient_accumulation_steps"]


def test_every_recommended_step_is_a_plan_that_answers(client: TestClient):
    for job in (B1, B2):
        answer = client.post("/v1/recommend", json=job)
        assert answer.status_code == 200, answer.text
        recommended = answer.json()
        assert any("64-bit client" in warning for warning in recommended["warnings"])
        for step in recommended["steps"]:
            body = job | {"arrangement": step["arrangement"], "levers": step["levers"]}
            body["cluster"] = job["cluster"] | {"world_size": step["world_size"]}
            planned = client.post("/v1/plan", json=body)
            assert planned.status_code == 200, (step["lever"], planned.text)
            assert planned.json()["memory"]["per_gpu_bytes"] == step["per_gpu_bytes"]
