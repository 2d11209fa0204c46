"""The Slurm admission script's decisions without a Slurm: its functions on the job's fields, the planner answered by
the service in process (tests/integrations/test_slurm.py runs it under a real slurmctld)."""

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

SCRIPT = Path(__file__).resolve().parents[2] / "integrations" / "slurm" / "zeroplan_admit.py"
spec = importlib.util.spec_from_file_location("zeroplan_admit", SCRIPT)
assert spec is not None and spec.loader is not None
admit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(admit)

CONFIG = admit.DEFAULTS | {"token_file": "", "preset_dir": "/nonexistent"}
TOO_BIG = {"model": {"preset": "llama-3-70b"}, "cluster": {"gpu": "h100-80gb"}, "arrangement": "ddp"}


@pytest.fixture()
def planner(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The script's planner answered in process; ``fails``: paths that answer 429 (a busy service)."""
    fails: dict[str, int] = {}

    def post(self: Any, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path in fails:
            raise admit.Unavailable(f"{path} answered {fails[path]}")
        response = client.post(path, json=body)
        return response.status_code, response.json()

    monkeypatch.setattr(admit.Planner, "__init__", lambda self, config: None)
    monkeypatch.setattr(admit.Planner, "post", post)
    return fails


def job(plan: dict[str, Any], **fields: str) -> dict[str, str]:
    return {"comment": "zeroplan:" + json.dumps(plan), "min_nodes": "1", "tres_per_node": "gres/gpu:8"} | fields


def test_a_job_the_plan_finds_too_big_is_refused_even_when_the_hint_fails(planner):
    """/v1/fit answering 429 after /v1/plan said 'does not fit' raised Unavailable: accepted unchecked."""
    planner["/v1/fit"] = 429
    with pytest.raises(admit.Refusal, match="the job does not fit"):
        admit.decide(job(TOO_BIG), CONFIG)


def test_gpus_without_nodes_are_refused_not_planned_on_one_node(planner):
    """--gpus=16 without --nodes was planned as one node of 16 GPUs; Slurm picks the nodes."""
    with pytest.raises(admit.Refusal, match="without --nodes"):
        admit.allocation({"tres_per_job": "gres/gpu:16"})
    assert admit.allocation({"tres_per_job": "gres/gpu:16", "min_nodes": "2"}) == (16, 8)


def test_a_prediction_past_slurms_largest_limit_sets_none(planner):
    """1e16 tokens at a low utilisation: a time limit of 10^11 minutes overflowed Slurm's uint32 of minutes."""
    plan = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"gpu": "h100-80gb"},
        "arrangement": "zero3",
        "training": {"total_tokens": 10**16, "utilisation": 0.001},
    }
    out = admit.decide(job(plan), CONFIG)
    assert out["decision"] == "accept" and "time_limit" not in out and "no time limit set" in out["message"]


def test_a_refusal_names_each_field_once():
    problem = {"errors": [{"pointer": "/model", "detail": "model: Field required"}, {"pointer": "/x", "detail": "bad"}]}
    assert admit.problem_words(problem) == "model: Field required; x: bad"


def test_a_host_that_does_not_hold_the_offload_is_named():
    memory = {
        "per_gpu_bytes": 10 * 2**30,
        "usable_bytes": 70 * 2**30,
        "host_fits": False,
        "host_bytes": 900 * 2**30,
        "host_memory_bytes": 512 * 2**30,
    }
    words = admit.shortfall(memory, "zero3", 16)
    assert "host memory holds 512.0 GiB" in words and "900.0 GiB" in words


@pytest.mark.parametrize(
    ("tres", "gpus"), [("gres/gpu:8", 8), ("gres/gpu:h100:4", 4), ("gres/gpu:h100", 1), ("", None)]
)
def test_gpus_are_read_from_the_tres_as_slurm_keeps_them(tres, gpus):
    assert admit.gpus_in(tres) == gpus


@pytest.mark.parametrize(
    ("tres", "words"),
    [
        ("gres/gpu:1k", "give the count in digits"),  # was read as 1 GPU
        ("gres/gpu:a100:4,gres/gpu:h100:4", "asks for GPUs 2 times"),  # was the first type's 4 alone
    ],
)
def test_gpu_requests_a_plan_cannot_read_are_refused(tres, words):
    with pytest.raises(admit.Refusal, match=words):
        admit.gpus_in(tres)


@pytest.mark.parametrize(("given", "same"), [(16, True), (16.0, True), ("16", True), ("17", False), (True, False)])
def test_a_plans_count_agrees_with_the_allocation_as_the_service_reads_it(given, same):
    """ "16" in the plan's cluster was refused as disagreeing with an allocation of 16 GPUs."""
    plan = {"cluster": {"world_size": given}}
    if same:
        assert admit.with_allocation(plan, 16, 8)["cluster"]["world_size"] == 16
    else:
        with pytest.raises(admit.Refusal, match=f"cluster.world_size {given!r} in the plan disagrees"):
            admit.with_allocation(plan, 16, 8)
