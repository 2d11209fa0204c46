"""A search with training.total_tokens and cluster.failures ranks only layouts whose run finishes: /v1/plan refuses
the others at /cluster/failures (the run never finishes: interruptions come faster than a restart and a checkpoint
interval absorb), so a row of one would not be a job the plan takes.

Before, the search ranked them as any other layout and then planned its rows: Llama 3 8B over 1,024-8,192 H100 at
one interruption a GPU-hour was a 422 ("the job of 8,192 GPUs is interrupted every 0.439 s"), although every layout
on 1,024-4,096 GPUs finishes; a search none of whose layouts finishes was a 422 naming one of them.
"""

import warnings

import pytest

FAILURES = {"interruptions_per_gpu_hour": 1}
BODY = {
    "model": {"preset": "llama-3-8b"},
    "training": {"sequence_length": 65536, "total_tokens": 10**12, "global_batch_size": 2048},
    "cluster": {"gpu": "h100-80gb", "world_size": [1024, 2048, 4096, 8192], "failures": FAILURES},
    "objective": "step_s",
    "top_k": 3,
}


@pytest.fixture(autouse=True)
def _overflow_is_the_point():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # runs that never finish overflow to infinite days
        yield


@pytest.mark.parametrize("objective", ["step_s", "training_days"])
def test_only_layouts_whose_run_finishes_are_ranked(client, objective):
    response = client.post("/v1/search", json=BODY | {"objective": objective})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["never_finishing"] > 0
    assert 0 < answer["never_finishing"] <= answer["fitting"]
    rows = answer["layouts"] + answer["pareto"]
    assert answer["layouts"]
    for row in rows:
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["time"]["step_s"] == row["step_s"]


def test_what_is_left_out_is_what_the_plan_refuses(client):
    """Without failures the fastest layout on 8,192 GPUs is on the front; with them /v1/plan refuses it, and the
    search with failures shows no layout on 8,192 GPUs."""
    free = BODY | {"cluster": {k: v for k, v in BODY["cluster"].items() if k != "failures"}}
    front = client.post("/v1/search", json=free).json()["pareto"]
    (largest,) = [row for row in front if row["world_size"] == 8192]
    request = largest["request"] | {"cluster": largest["request"]["cluster"] | {"failures": FAILURES}}
    refused = client.post("/v1/plan", json=request)
    assert refused.status_code == 422, refused.text
    assert refused.json()["errors"][0]["pointer"] == "/cluster/failures"
    answer = client.post("/v1/search", json=BODY).json()
    assert 8192 not in {row["world_size"] for row in answer["layouts"] + answer["pareto"]}


def test_a_search_none_of_whose_runs_finishes_says_so(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "training": {"sequence_length": 750_000, "total_tokens": 10**12},
        "cluster": {"gpu": "h100-80gb", "world_size": 1024, "failures": FAILURES},
        "objective": "training_days",
        "top_k": 3,
    }
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["layouts"] == [] and answer["pareto"] == []
    assert answer["never_finishing"] == answer["fitting"] > 0
    assert answer["note"].startswith("no layout's run finishes")


COUNT_ONLY = {
    "model": {"parameter_count": 8_000_000_000},
    "training": {"sequence_length": 4096, "total_tokens": 10**12, "global_batch_size": 8192},
    "cluster": {"gpu": "h100-80gb", "world_size": [8192], "failures": FAILURES},
    "objective": "step_s",
    "top_k": 3,
}


def test_a_model_without_an_architecture_counts_runs_that_never_finish(client):
    """A bare parameter count is searched over data parallelism, each combination planned by /v1/plan: one whose
    run never finishes was filed under skipped ("/v1/plan refuses it (/cluster/failures)") and the note said no
    combination was one /v1/plan takes. It is counted as the layout search counts it: every combination that fits
    on 8,192 GPUs without failures is one whose run never finishes with them."""
    free = COUNT_ONLY | {"cluster": {k: v for k, v in COUNT_ONLY["cluster"].items() if k != "failures"}}
    unfailing = client.post("/v1/search", json=free).json()
    assert unfailing["fitting"] > 0 and unfailing["layouts"]
    for row in unfailing["layouts"]:
        request = row["request"] | {"cluster": row["request"]["cluster"] | {"failures": FAILURES}}
        refused = client.post("/v1/plan", json=request)
        assert refused.status_code == 422 and refused.json()["errors"][0]["pointer"] == "/cluster/failures"
    response = client.post("/v1/search", json=COUNT_ONLY)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["layouts"] == [] and answer["pareto"] == []
    assert answer["never_finishing"] == answer["fitting"] == unfailing["fitting"]
    assert answer["evaluated"] == unfailing["evaluated"] and answer["considered"] == unfailing["considered"]
    assert not any("/cluster/failures" in reason for reason in answer["skipped"])
    assert answer["note"].startswith("no layout's run finishes")


def test_a_model_without_an_architecture_ranks_the_runs_that_finish(client):
    body = COUNT_ONLY | {"cluster": COUNT_ONLY["cluster"] | {"world_size": [1024, 2048, 4096, 8192]}}
    answer = client.post("/v1/search", json=body).json()
    assert 0 < answer["never_finishing"] < answer["fitting"]
    rows = answer["layouts"] + answer["pareto"]
    assert rows and 8192 not in {row["world_size"] for row in rows}
    for row in rows:
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["time"]["step_s"] == row["step_s"]
