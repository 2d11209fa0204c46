"""A job /v1/plan refuses as too large to answer (answer_out_of_range: an integer of its answer past 2^63 - 1) is
refused by the figures the same way, at the request's size fields. memory-vs-gpus answered it 500 (its curve's
int64 arrays overflowed) while the other figures drew it."""

import pytest

# GPT-3 175B at 100,000 sequences of 10,000,000 tokens a micro-batch: 4.07e19 bytes of activations a GPU
BODY = {
    "model": {"preset": "gpt-3-175b"},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "training": {"micro_batch_size": 100_000, "sequence_length": 10_000_000},
}
SIZE_FIELDS = {"/model", "/training/micro_batch_size", "/training/sequence_length"}


def test_the_plan_refuses_it(client):
    response = client.post("/v1/plan", json=BODY)
    assert response.status_code == 422
    assert response.json()["code"] == "answer_out_of_range"


@pytest.mark.parametrize("name", ["memory-vs-gpus", "bytes-per-weight", "traffic", "step-time", "layout-memory"])
def test_each_figure_refuses_it_as_the_plan_does(client, name):
    response = client.post(f"/v1/figures/{name}", json=BODY, headers={"Accept": "image/svg+xml"})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "answer_out_of_range"
    assert {error["pointer"] for error in problem["errors"]} == SIZE_FIELDS
