"""Edges of the contract a generated client meets: no 500 from a deep hf_config or an odd annotation, no 200 that
breaks its own schema, bounds on every integer, errors that point at the field as the caller sent it, and no
error that repeats a caller's key in full."""

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from models.common import MAX_HF_CONFIG_DEPTH

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HF_CONFIG = json.loads((EXAMPLES / "newcomer-hf-config.json").read_text())
CLUSTER = {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"}
PLAN = {"cluster": CLUSTER, "arrangement": "zero3"}


def nested(depth: int) -> dict:
    """An object nested ``depth`` levels deep (the outermost counts as one)."""
    value: dict = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def pointers(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [e["pointer"] for e in response.json().get("errors") or []]


def test_an_hf_config_nested_past_its_bound_is_a_422_at_the_config(client: TestClient):
    """256 levels answered 500 (the answer cache's key hit pydantic's serialisation depth); the config itself nests
    HF_CONFIG plus the unknown key: MAX_HF_CONFIG_DEPTH levels pass, one more is refused, on every endpoint."""
    shallow = {**HF_CONFIG, "x": nested(MAX_HF_CONFIG_DEPTH - 1)}  # the config is level 1
    assert client.post("/v1/plan", json={**PLAN, "model": {"hf_config": shallow}}).status_code == 200
    for depth in (MAX_HF_CONFIG_DEPTH, 256):
        deep = {**HF_CONFIG, "x": nested(depth)}
        for path, body, pointer in [
            ("/v1/plan", {**PLAN, "model": {"hf_config": deep}}, "/model/hf_config"),
            ("/v1/fit", {**PLAN, "model": {"hf_config": deep}}, "/model/hf_config"),
            ("/v1/sweep", {"base": {**PLAN, "model": {"hf_config": deep}}, "axes": {"world_size": [8]}}, None),
            ("/v1/search", {"model": {"hf_config": deep}, "cluster": CLUSTER}, "/model/hf_config"),
            ("/v1/figures/memory-vs-gpus", {**PLAN, "model": {"hf_config": deep}}, "/model/hf_config"),
        ]:
            response = client.post(path, json=body)
            assert response.status_code == 422, (path, depth, response.text[:300])
            assert pointers(response) == [pointer or "/base/model/hf_config"], path


def test_a_sweep_cell_whose_run_never_finishes_is_skipped_as_the_plan_refuses_it(client: TestClient):
    """A million GPUs at the default 1 interruption per 10,000 GPU-hours... fail every 36 s, less than a restart:
    /v1/plan refuses the job at /cluster/failures; the sweep answered the cell with null days and GPU-hours."""
    base = {
        "model": {"parameter_count": 10**15},
        "cluster": {"world_size": 10**6, "gpus_per_node": 8, "gpu": "b300"},
        "arrangement": "zero3",
        "training": {"total_tokens": 10**16},
    }
    refused = client.post("/v1/plan", json=base)
    assert refused.status_code == 422 and pointers(refused) == ["/cluster/failures"]
    response = client.post("/v1/sweep", json={"base": base, "axes": {"world_size": [10**6]}})
    assert response.status_code == 200, response.text[:300]
    answer = response.json()
    assert answer["rows"] == 0 and answer["skipped_cells"] == 1
    assert "never finishes" in answer["skipped_reasons"][0] and "/cluster/failures" in answer["skipped_reasons"][0]
    for values in answer["columns"].values():
        assert None not in values


@pytest.mark.parametrize("bound", [2**64 + 1, 10**30, 1e308, 1_000_001])
def test_search_restriction_bounds_are_bounded_like_the_lists(client: TestClient, bound: object):
    body = {"model": {"preset": "llama-3-8b"}, "cluster": CLUSTER, "restrict": {"world_size": {"max": bound}}}
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text[:300]
    assert "/restrict/world_size/max" in pointers(response)  # beside the list form's own error


def test_a_sweeps_refusals_point_within_the_sweep(client: TestClient):
    without_type = {k: v for k, v in HF_CONFIG.items() if k != "model_type"}
    cases = [
        ({"base": {**PLAN, "model": {"hf_config": without_type}}}, ["/base/model/hf_config/model_type"]),
        (
            {"base": {**PLAN, "model": {"parameter_count": 10**9}, "activations": {"model": "transformer"}}},
            ["/base/activations/model"],
        ),
        (  # a config that does not read is the request's error, not a cell the plan refuses
            {
                "base": {**PLAN, "model": {"preset": "llama-3-8b"}},
                "axes": {"model": [{"preset": "llama-3-8b"}, {"hf_config": {**HF_CONFIG, "hidden_size": "big"}}]},
            },
            ["/axes/model/1/hf_config/hidden_size"],
        ),
        (  # no split of the layers has no stage: never a job, whatever the cell
            {
                "base": {
                    **PLAN,
                    "model": {"preset": "llama-3-8b"},
                    "parallelism": {"pipeline": 2, "pipeline_layers": []},
                }
            },
            ["/base/parallelism/pipeline_layers"],
        ),
    ]
    for body, expected in cases:
        body.setdefault("axes", {"world_size": [8, 16]})
        response = client.post("/v1/sweep", json=body)
        assert response.status_code == 422, (body, response.text[:300])
        assert pointers(response) == expected


def test_restrictions_that_leave_nothing_together_are_each_named(client: TestClient):
    body = json.loads((EXAMPLES / "search.json").read_text())
    body["restrict"] = {"tensor": [3], "arrangement": ["zero1", "zero3"], "micro_batch_size": None}  # null: not one
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text[:300]
    assert pointers(response) == ["/restrict/tensor", "/restrict/arrangement"]  # the model's order, none singled out


def test_an_unknown_key_is_named_by_its_start_and_its_length(client: TestClient):
    key = "k" * 300_000
    response = client.post("/v1/plan", json={**PLAN, "model": {"parameter_count": 10**9}, key: 1})
    assert response.status_code == 422
    assert len(response.content) < 4_000  # 900 KB before: the key three times over
    (pointer,) = pointers(response)
    assert pointer.startswith("/" + "k" * 64) and "300,000 characters" in pointer


def test_an_hf_config_count_may_be_written_as_any_json_number(client: TestClient):
    whole = client.post("/v1/plan", json={**PLAN, "model": {"hf_config": HF_CONFIG}})
    for written in (32.0, 3.2e1):
        config = {**HF_CONFIG, "num_hidden_layers": written}
        response = client.post("/v1/plan", json={**PLAN, "model": {"hf_config": config}})
        assert response.status_code == 200, response.text[:300]
        assert response.json()["parameter_count"] == whole.json()["parameter_count"]
    fraction = client.post("/v1/plan", json={**PLAN, "model": {"hf_config": {**HF_CONFIG, "num_hidden_layers": 32.5}}})
    assert fraction.status_code == 422 and pointers(fraction) == ["/model/hf_config/num_hidden_layers"]
    assert "whole number" in fraction.json()["detail"]
    huge = client.post("/v1/plan", json={**PLAN, "model": {"hf_config": {**HF_CONFIG, "num_hidden_layers": 1e20}}})
    assert huge.status_code == 422 and "must be from 1 to" in huge.json()["detail"]  # a whole number, out of range


def test_a_service_set_to_run_no_simulations_says_so_and_asks_for_no_retry(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ZEROPLAN_SIM_MAX_CONCURRENT_JOBS", "0")
    monkeypatch.setenv("ZEROPLAN_SIM_RUNNER", "worker")  # simulations would run elsewhere: torch not needed here
    with TestClient(create_app(Settings())) as off:
        ready = off.get("/readyz")
        assert ready.json()["simulation_available"] is False
        response = off.post("/v1/simulations", json={"world_size": 2, "parameter_count": 1000, "steps": 1})
        assert response.status_code == 503, response.text[:300]
        assert response.json()["code"] == "simulation_unavailable" and "Retry-After" not in response.headers


def test_an_error_names_an_object_as_an_object_not_a_class(client: TestClient):
    """'Input should be a valid dictionary or instance of ModelSpec' named the service's own classes."""
    base = {**PLAN, "model": {"preset": "llama-3-8b"}}
    for path, body in [
        ("/v1/sweep", {"base": base, "axes": {"model": ["llama-3-8b"]}}),
        ("/v1/search", {"model": {"preset": "llama-3-8b"}, "cluster": CLUSTER, "restrict": {"world_size": "x"}}),
        ("/v1/plan", {**PLAN, "model": "llama-3-8b"}),
    ]:
        response = client.post(path, json=body)
        assert response.status_code == 422
        detail = response.json()["detail"]
        assert "Input should be an object" in detail and "instance of" not in detail, detail


def test_a_sweeps_size_fields_are_those_of_its_models_axis():
    """An answer past 64 bits names the fields its size grows with: a sweep's models are its axis's when it has one
    (it named /base/model whatever the axes said)."""
    from api.encoding import size_pointers
    from models.sweep import SweepRequest

    base = {**PLAN, "model": {"preset": "llama-3-8b"}, "training": {"micro_batch_size": 2}}
    for axes, model in [
        ({"world_size": [8]}, "/base/model"),
        ({"model": [{"preset": "llama-3-8b"}]}, "/axes/model"),
        ({"parameter_count": [10**9]}, "/axes/parameter_count"),
    ]:
        request = SweepRequest.model_validate({"base": base, "axes": axes})
        assert size_pointers(request) == [model, "/base/training/micro_batch_size"]
