"""parallelism.pipeline_runs: the pipeline schedule run several times a step, as torchtitan and NeMo Automodel
accumulate gradients with pipelining.

Both call ``schedule.step`` once per local batch of their gradient accumulation (torchtitan's train step;
NeMo Automodel nemo_automodel/recipes/llm/benchmark.py @36044ad3, the ``ga_steps`` loop, with
``n_microbatches = local_batch_size // microbatch_size`` in
nemo_automodel/components/distributed/pipelining/functional.py): each run fills and drains the pipeline,
and, with FSDP, gathers the stage's parameters and reduce-scatters its gradients once
(torch/distributed/pipelining/stage.py, perform_reduce_grad after the schedule's last backward).
Expected values are the 1F1B bubble's arithmetic, (p - 1) (f + b) per run, written out here.
"""

import pytest

from models.plan import PlanRequest
from service.answers.plan import plan

P, M = 4, 16
BODY = {
    "model": {"preset": "llama-3.1-8b"},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "training": {"global_batch_size": 16 * M, "micro_batch_size": 1, "sequence_length": 4096},
    "parallelism": {"pipeline": P, "pipeline_schedule": "1f1b"},
}


def planned(runs: int, **parallelism: object) -> dict:
    body = BODY | {"parallelism": BODY["parallelism"] | {"pipeline_runs": runs} | parallelism}
    return plan(PlanRequest.model_validate(body)).model_dump(mode="json")


@pytest.mark.parametrize("runs", [1, 2, 4])
def test_each_run_fills_and_drains_the_pipeline(runs):
    """1F1B idles (p - 1) (f + b) a run on the paced stage, f + b its compute over its m micro-batches (no
    recomputation): runs x (p - 1) x compute / m, whatever the runs do to the rest."""
    answer = planned(runs)
    assert answer["parallelism"]["pipeline_runs"] == runs
    assert answer["parallelism"]["micro_batches"] == M  # d = 64 / 4 = 16; 256 / (1 x 16)
    compute_s = answer["time"]["compute_s"]
    assert answer["time"]["pipeline_bubble_s"] == pytest.approx(runs * (P - 1) * compute_s / M, rel=1e-12)


def test_fsdp_gathers_and_reduces_once_per_run():
    one, two = planned(1), planned(2)
    data = [c for c in two["traffic"]["collectives"] if c["group"] == "data"]
    assert [(c["name"], c["count_per_step"]) for c in data] == [("all_gather", 2), ("reduce_scatter", 2)]
    assert all("once per run of the schedule (2 a step)" in c["purpose"] for c in data)
    # a run's calls are priced as the single run's: the same seconds a call (the busiest stage, whose share they
    # gather, is chosen by its bytes, which the runs change: within a few parts in a million)
    before = {c["name"]: c["seconds"] for c in one["traffic"]["collectives"] if c["group"] == "data"}
    assert {c["name"]: c["seconds"] for c in data} == pytest.approx(before, rel=1e-4)
    # the second run's reduce-scatter is exposed as the first's (nothing follows the last backward to hide it)
    assert two["time"]["exposed_communication_s"] > one["time"]["exposed_communication_s"] + before["reduce_scatter"]


def test_a_run_holds_only_its_own_micro_batches():
    """torch.distributed.pipelining allocates each stage's receive buffers and keeps each output for the schedule's
    n_microbatches: fewer a run, fewer bytes; the layers' activations in flight are 1F1B's min(p, m) either way."""
    assert planned(4)["memory"]["per_gpu_bytes"] < planned(1)["memory"]["per_gpu_bytes"]


def test_runs_that_do_not_divide_the_micro_batches_are_refused(client):
    body = BODY | {"parallelism": BODY["parallelism"] | {"pipeline_runs": 3}}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [e["pointer"] for e in errors] == ["/parallelism/pipeline_runs"]
    assert "does not divide the 16 micro-batches" in errors[0]["detail"]


def test_a_run_must_fill_the_pipeline(client):
    body = BODY | {"parallelism": BODY["parallelism"] | {"pipeline_runs": 8}}  # 2 micro-batches a run, 4 stages
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [e["pointer"] for e in errors] == ["/training/global_batch_size"]
    assert (
        "2 micro-batches in each of the 8 runs of the schedule are fewer than the 4 pipeline stages"
        in (errors[0]["detail"])
    )


def test_without_a_pipeline_runs_change_nothing_and_say_so(client):
    body = BODY | {"parallelism": {"pipeline_runs": 2}, "training": BODY["training"] | {"global_batch_size": 128}}
    with_runs = client.post("/v1/plan", json=body).json()
    without = client.post("/v1/plan", json=body | {"parallelism": {}}).json()
    assert "parallelism.pipeline_runs has no effect without pipeline parallelism" in with_runs["warnings"]
    assert with_runs["time"] == without["time"] and with_runs["memory"] == without["memory"]


def test_a_search_row_runs_the_schedule_as_asked_and_is_its_plan(client):
    body = {
        "model": {"preset": "llama-3.1-8b"},
        "cluster": {"world_size": [64], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 512, "sequence_length": 4096},
        "parallelism": {"pipeline_runs": 2},
        "restrict": {"pipeline": [4], "tensor": [1], "context": [1], "arrangement": ["zero3"]},
        "top_k": 3,
    }
    answer = client.post("/v1/search", json=body)
    assert answer.status_code == 200, answer.text
    for row in answer.json()["layouts"]:
        assert row["request"]["parallelism"]["pipeline_runs"] == 2
        planned_row = client.post("/v1/plan", json=row["request"]).json()
        assert planned_row["parallelism"]["pipeline_runs"] == 2
        assert planned_row["time"]["step_s"] == pytest.approx(row["time"]["step_s"], rel=1e-9)
        assert planned_row["memory"]["per_gpu_bytes"] == row["memory"]["per_gpu_bytes"]
