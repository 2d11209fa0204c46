"""/v1/search takes training.checkpoint, as /v1/plan does, and ranks the whole-run objectives by it.

The search refused the field (it is a /v1/plan input like any other). Every row now keeps the request's
checkpoint, so each row is the plan of its own request, and training_days, gpu_hours and cost rank by the run's
goodput under it. An asynchronous save stalls training while each GPU copies its checkpointed states to the host, so
its stall is the layout's own (the stage that holds the most, as /v1/plan takes it), and a lever that slows the step
may shorten the run (optimizer offload stages fewer bytes). The checks here are independent of the search's grid:
every combination of a small space is planned one by one through /v1/plan, with bodies written out in the test, and
the best is taken by hand.
"""

import itertools

import pytest

# Saved every 2 steps to the default storage, with failures: the checkpoints' writes and the interruptions are a
# large share of the run, so a ranking that left them out would differ from the plans' training_days.
CHECKPOINT = {"save": "synchronous", "interval_steps": 2}
ASYNCHRONOUS = {"save": "asynchronous", "interval_steps": 2, "storage": "nvme-local"}
MODEL = {"preset": "llama-3-8b"}
CLUSTER = {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb", "failures": {}}
BATCH, SEQUENCE, TOKENS = 64, 2048, 10**11
SPACE = {
    "tensor": [1, 2],
    "pipeline": [1],
    "context": [1],
    "expert": [1],
    "micro_batch_size": [1, 2],
    "arrangement": ["zero1", "zero3"],
    "recompute": ["none", "full"],
    "offload_optimizer": [False],
}


def plan_body(tensor: int, micro_batch_size: int, arrangement: str, recompute: str) -> dict:
    return {
        "model": MODEL,
        "cluster": CLUSTER,
        "arrangement": arrangement,
        "parallelism": {"tensor": tensor, "sequence_parallel": tensor > 1},
        "training": {
            "global_batch_size": BATCH,
            "sequence_length": SEQUENCE,
            "micro_batch_size": micro_batch_size,
            "total_tokens": TOKENS,
            "checkpoint": CHECKPOINT,
        },
        "levers": {"recompute": recompute},
    }


def search_body(checkpoint: dict, objective: str = "training_days", model: dict = MODEL) -> dict:
    return {
        "model": model,
        "cluster": CLUSTER | {"world_size": [16]},
        "training": {"global_batch_size": BATCH, "sequence_length": SEQUENCE, "total_tokens": TOKENS}
        | {"checkpoint": checkpoint},
        "objective": objective,
        "top_k": 16,
        "restrict": SPACE | {"sequence_parallel": [True, False]},
    }


@pytest.fixture(scope="module")
def answer(client) -> dict:
    response = client.post("/v1/search", json=search_body(CHECKPOINT))
    assert response.status_code == 200, response.text
    return response.json()


def test_each_row_keeps_the_checkpoint_and_is_its_plan(client, answer):
    rows = answer["layouts"]
    for row in rows:
        assert row["request"]["training"]["checkpoint"] == CHECKPOINT
        planned = client.post("/v1/plan", json=row["request"])
        assert planned.status_code == 200, planned.text
        assert planned.json()["time"] == row["time"]
        assert row["time"]["goodput"] < 1  # the checkpoints' writes and the interruptions priced on every row
    days = [row["time"]["training_days"] for row in rows]
    assert days == sorted(days)  # ranked by the figures each row's plan reports


def test_the_best_row_is_the_best_of_every_layout_planned_one_by_one(client, answer):
    planned = []
    for t, b, arrangement, recompute in itertools.product(
        SPACE["tensor"], SPACE["micro_batch_size"], SPACE["arrangement"], SPACE["recompute"]
    ):
        response = client.post("/v1/plan", json=plan_body(t, b, arrangement, recompute))
        if response.status_code != 200 or not response.json()["memory"]["fits"]:
            continue
        planned.append(response.json()["time"]["training_days"])
    assert len(planned) > 4
    assert answer["layouts"][0]["time"]["training_days"] == pytest.approx(min(planned), rel=1e-12)


def best_of_every_plan(client, bodies: list[dict]) -> float:
    days = []
    for body in bodies:
        response = client.post("/v1/plan", json=body)
        if response.status_code == 200 and response.json()["memory"]["fits"]:
            days.append(response.json()["time"]["training_days"])
    assert len(days) > 1
    return min(days)


def async_case(world_size: int, sequence_length: int, restrict: dict) -> dict:
    checkpoint = ASYNCHRONOUS | {"interval_steps": 1}
    return {
        "model": MODEL,
        "cluster": CLUSTER | {"world_size": [world_size]},
        "training": {"global_batch_size": BATCH, "sequence_length": sequence_length, "total_tokens": TOKENS}
        | {"checkpoint": checkpoint},
        "objective": "training_days",
        "top_k": 8,
        "restrict": {"tensor": [1], "context": [1], "expert": [1]} | restrict,
    }


def assert_ranked_as_planned(client, body: dict, bodies: list[dict]) -> None:
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200, response.text
    rows = response.json()["layouts"]
    days = [row["time"]["training_days"] for row in rows]
    assert days == sorted(days)  # in the order of their plans' figures
    for row in rows:
        assert client.post("/v1/plan", json=row["request"]).json()["time"] == row["time"]
    assert days[0] == pytest.approx(best_of_every_plan(client, bodies), rel=1e-12)


def test_asynchronous_saves_rank_by_the_stage_that_stages_the_most(client):
    """An uneven pipeline: its busiest stage (by memory) is not the one that holds the most checkpointed states."""
    split = [2, 4, 4, 5, 5, 5, 5, 2]
    body = async_case(
        32,
        4096,
        {
            "pipeline": [2, 8],
            "arrangement": ["zero3"],
            "offload_optimizer": [False],
            "recompute": ["none"],
            "pipeline_split": ["even", "lighter_ends_2"],
            "pipeline_schedule": ["1f1b"],
            "sequence_parallel": [False],
            "micro_batch_size": [1, 2],
        },
    )
    bodies = []
    for pipeline, layers, b in itertools.product((2, 8), (None, split), (1, 2)):
        if pipeline == 2 and layers is not None:
            continue
        parallelism = {"pipeline": pipeline} | ({"pipeline_layers": layers} if layers else {})
        training = body["training"] | {"micro_batch_size": b}
        bodies.append(
            {k: body[k] for k in ("model", "cluster")}
            | {"cluster": CLUSTER | {"world_size": 32}, "arrangement": "zero3", "parallelism": parallelism}
            | {"training": training}
        )
    assert_ranked_as_planned(client, body, bodies)


def test_asynchronous_saves_keep_the_lever_that_stages_fewer_bytes(client):
    """Optimizer offload slows the step but stages fewer bytes: under a save every step it shortens the run."""
    body = async_case(
        8,
        2048,
        {
            "pipeline": [1],
            "micro_batch_size": [1],
            "arrangement": ["zero1"],
            "recompute": ["full"],
            "offload_optimizer": [False, True],
        },
    )
    bodies = [
        {
            "model": MODEL,
            "cluster": CLUSTER | {"world_size": 8},
            "arrangement": "zero1",
            "training": body["training"] | {"micro_batch_size": 1},
            "levers": {"recompute": "full", "offload_optimizer": offload},
        }
        for offload in (False, True)
    ]
    assert_ranked_as_planned(client, body, bodies)
    answer = client.post("/v1/search", json=body).json()
    assert answer["layouts"][0]["offload_optimizer"] is True
    # the front still holds the world size's fastest layout, whatever the objective kept
    (front,) = answer["pareto"]
    steps = [client.post("/v1/plan", json=b).json()["time"]["step_s"] for b in bodies]
    assert front["offload_optimizer"] is False and front["step_s"] == pytest.approx(min(steps), rel=1e-12)


def test_asynchronous_saves_are_kept_by_every_row_under_the_step_objective(client):
    response = client.post("/v1/search", json=search_body(ASYNCHRONOUS, objective="step_s"))
    assert response.status_code == 200, response.text
    for row in response.json()["layouts"][:3]:
        assert row["request"]["training"]["checkpoint"] == ASYNCHRONOUS
        assert client.post("/v1/plan", json=row["request"]).json()["time"] == row["time"]


def test_a_model_without_an_architecture_ranks_asynchronous_saves_by_its_plans(client):
    body = search_body(ASYNCHRONOUS, model={"parameter_count": 8_000_000_000})
    body["restrict"] = {"micro_batch_size": [1, 2], "arrangement": ["zero1", "zero3"]}
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200, response.text
    days = [row["time"]["training_days"] for row in response.json()["layouts"]]
    assert days == sorted(days)
