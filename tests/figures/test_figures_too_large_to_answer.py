"""A job /v1/plan refuses as too large to answer (answer_out_of_range: an integer of its answer past 2^63 - 1) is
refused by the figures the same way, at the request's size fields. memory-vs-gpus answered it 500 (its curve's
int64 arrays overflowed) while the other figures drew it."""

import pytest

from models.enums import ArrangementName
from models.figures import DRAWN_ARRANGEMENTS as DRAWN
from models.figures import FigureName, FigureRequest
from service.answers.figures import resolve_case

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


# DeepSeek-V3 on 64 B200 at 100,000 x 2,800,125 tokens a micro-batch: under ZeRO-3 just within 2^63 - 1 bytes a GPU,
# under data parallelism (16 more bytes a weight) past it
NEAR = {
    "model": {"preset": "deepseek-v3"},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "b200"},
    "arrangement": "zero3",
    "training": {"micro_batch_size": 100_000, "sequence_length": 2_800_125},
}


@pytest.mark.parametrize("name", ["memory-vs-gpus", "bytes-per-weight", "traffic", "step-time"])
def test_an_arrangement_too_large_to_answer_is_left_out_of_the_drawing(client, name):
    # each arrangement is drawn when its /v1/plan answers, left out with a note when the plan refuses it as too large
    planned = {a: client.post("/v1/plan", json=NEAR | {"arrangement": a.value}) for a in DRAWN}
    refused = {a for a, r in planned.items() if r.status_code == 422 and r.json()["code"] == "answer_out_of_range"}
    answered = {a for a, r in planned.items() if r.status_code == 200}
    assert ArrangementName.ddp in refused and ArrangementName.zero3 in answered and refused | answered == set(DRAWN)
    response = client.post(f"/v1/figures/{name}", json=NEAR, headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200, response.text
    case = resolve_case(FigureRequest.model_validate(NEAR), FigureName(name))
    assert set(case.results) == answered
    left_out = ", ".join(a.value for a in DRAWN if a in refused)
    assert case.left_out_note is not None and f"{left_out} arrangements left out" in case.left_out_note


LAYOUT = {
    "model": {"preset": "gpt-3-175b"},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero1",
    "parallelism": {"tensor": 8, "pipeline": 8},
    "training": {"micro_batch_size": 30_000, "sequence_length": 10_000_000, "gradient_accumulation_steps": 8},
}


@pytest.mark.parametrize("name", ["layout-memory", "layout-traffic"])
def test_a_layout_figure_draws_the_job_its_plan_answers(client, name):
    assert client.post("/v1/plan", json=LAYOUT).status_code == 200
    response = client.post(f"/v1/figures/{name}", json=LAYOUT, headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200, response.text
