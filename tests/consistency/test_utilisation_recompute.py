"""training.utilisation_recompute: the recomputation a given utilisation was measured with, a field of the request.

A utilisation (MFU) measured without recomputation says how efficiently the hardware ran; full recomputation
repeats the forward at that efficiency, so the same job with it has a lower MFU. /v1/recommend priced its
recomputation steps that way through an argument no request could state, so a step was not the /v1/plan of any
body (with the utilisation, /v1/plan held it for the step's own recomputation: 557.7 s against 418.8 s in one
case). The field states it; omitted, a utilisation holds for the request's own levers.recompute, as before.

Expected values by the definitions (PaLM appendix B): MFU = model FLOPs / (step compute x N x peak) and
HFU = hardware FLOPs / (the same); a utilisation measured at recompute r keeps HFU = MFU x hardware(r) / model.
"""

import pytest

BODY = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "training": {"micro_batch_size": 1, "sequence_length": 4096, "utilisation": 0.4},
}


def plan(client, body: dict) -> dict:
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()["time"]


def with_recompute(recompute: str, measured: str | None = None) -> dict:
    training = BODY["training"] | ({"utilisation_recompute": measured} if measured else {})
    return BODY | {"levers": {"recompute": recompute}, "training": training}


def test_a_utilisation_measured_without_recomputation_keeps_its_hardware_efficiency(client):
    measured = plan(client, with_recompute("none"))
    recomputed = plan(client, with_recompute("full", measured="none"))
    # the hardware efficiency of the measured run, kept: compute scales with the hardware FLOPs
    assert recomputed["compute_s"] == pytest.approx(
        measured["compute_s"] * recomputed["hardware_flops_per_step"] / measured["hardware_flops_per_step"], rel=1e-9
    )
    assert recomputed["hardware_flops_per_step"] > measured["hardware_flops_per_step"]


def test_omitted_the_utilisation_holds_for_the_request_s_own_recomputation(client):
    measured = plan(client, with_recompute("none"))
    own = plan(client, with_recompute("full"))
    assert own["compute_s"] == pytest.approx(measured["compute_s"], rel=1e-9)  # the same MFU, the same model FLOPs
    assert plan(client, with_recompute("full", measured="full")) == own


def test_alone_it_is_a_422_naming_it(client):
    body = BODY | {"training": {"utilisation_recompute": "none"}}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    (error,) = response.json()["errors"]
    assert error["pointer"] == "/training/utilisation_recompute"


def test_each_recommend_step_is_the_plan_of_its_body(client):
    """The step that turns on full recomputation under a utilisation the request measured without it."""
    body = {k: v for k, v in BODY.items() if k != "arrangement"} | {"levers": {"recompute": "none"}}
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    checked = 0
    for option in response.json()["steps"]:
        if option["levers"]["recompute"] != "full":
            continue
        step = with_recompute("full", measured="none") | {"arrangement": option["arrangement"]}
        step["levers"] |= {"offload_optimizer": option["levers"]["offload_optimizer"]}
        step["cluster"] = BODY["cluster"] | {"world_size": option["world_size"]}
        planned = client.post("/v1/plan", json=step)
        assert planned.status_code == 200, planned.text
        assert planned.json()["time"]["step_s"] == pytest.approx(option["step_s"], rel=1e-12), option
        checked += 1
    assert checked
