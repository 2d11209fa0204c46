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


def test_without_a_pipeline_more_runs_than_micro_batches_change_nothing(client):
    """Tensor parallelism alone, m = 16 / (1 x 8) = 2 micro-batches, 4 runs asked: the field has no effect without a
    pipeline (no rule reads it, the plan is the one without it), however many runs."""
    body = BODY | {
        "cluster": BODY["cluster"] | {"world_size": 16},
        "parallelism": {"tensor": 2, "pipeline_runs": 4},
        "training": BODY["training"] | {"global_batch_size": 16},
    }
    with_runs = client.post("/v1/plan", json=body)
    assert with_runs.status_code == 200, with_runs.text
    without = client.post("/v1/plan", json=body | {"parallelism": {"tensor": 2}}).json()
    assert "parallelism.pipeline_runs has no effect without pipeline parallelism" in with_runs.json()["warnings"]
    assert with_runs.json()["time"] == without["time"]
    search = body | {"cluster": body["cluster"] | {"world_size": [16]}, "top_k": 10}
    search |= {"restrict": {"pipeline": [1, 2], "tensor": [1, 2], "context": [1], "arrangement": ["zero1"]}}
    del search["arrangement"]
    answer = client.post("/v1/search", json=search | {"training": body["training"] | {"global_batch_size": 32}})
    assert answer.status_code == 200, answer.text


def test_a_run_holds_the_buffers_of_its_own_micro_batches():
    """torch.distributed.pipelining's buffers are sized for the schedule's micro-batches: 4 runs of 4 hold what one
    run of 4 holds (a global batch a quarter as large), the layers' activations in flight too."""

    def pipelining_bytes(runs: int, global_batch: int) -> int:
        body = BODY | {
            "parallelism": BODY["parallelism"] | {"pipeline_runs": runs},
            "training": BODY["training"] | {"global_batch_size": global_batch},
        }
        answer = plan(PlanRequest.model_validate(body)).model_dump(mode="json")
        components = answer["memory"]["activations"]["components"]
        return sum(c["bytes"] for c in components if "pipelining" in c["name"])

    assert pipelining_bytes(4, 16 * M) == pipelining_bytes(1, 4 * M) > 0
    assert pipelining_bytes(4, 16 * M) < pipelining_bytes(1, 16 * M)


MOE = {
    "model": {"preset": "qwen3-30b-a3b"},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero1",
    "training": {"global_batch_size": 64, "sequence_length": 4096, "micro_batch_size": 1},
    "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True},
    "parallelism": {"pipeline": 2, "expert": 8, "pipeline_schedule": "interleaved", "virtual_stages": 2},
}


@pytest.mark.parametrize(("runs", "paired_share"), [(1, (16 - 5) / 16), (2, 2 * (8 - 5) / 16), (4, 0.0)])
def test_each_run_of_the_combined_1f1b_has_its_own_warmup(runs, paired_share):
    """The expert overlap's combined 1F1B (Megatron-Core's interleaved schedule) leaves 2 (p - 1) + (v - 1) p + 1 = 5
    chunk passes of each run unpaired on the first rank (schedules.py, get_pp_rank_microbatches). d = 16 / 2 = 8,
    m = 64 / 8 = 8 micro-batches, m v = 16 chunk passes: one run pairs 16 - 5; two runs of 4 micro-batches 8 - 5 each;
    four runs of 2 micro-batches hold 4 chunk passes each, fewer than the warmup: none. A paired phase beside DeepEP
    still costs its piece 20 of the 132 SMs (the rest of the whole all-to-all is hidden)."""
    parallelism = MOE["parallelism"] | {"pipeline_runs": runs}
    off = plan(PlanRequest.model_validate(MOE | {"parallelism": parallelism}))
    levers = MOE["levers"] | {"overlap_moe_expert_parallel_comm": True}
    on = plan(PlanRequest.model_validate(MOE | {"levers": levers, "parallelism": parallelism}))
    whole_s = off.time.expert_parallel_s
    assert whole_s > 0
    expected = (1 - paired_share + paired_share * 20 / 132) * whole_s
    assert on.time.expert_parallel_s == pytest.approx(expected, rel=1e-9)
