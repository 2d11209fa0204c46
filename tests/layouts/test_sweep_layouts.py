"""Sweeps over the layout axes: every cell with a layout equals /v1/plan's answer for that cell."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sweep.test_sweep import PLAN_FIELDS, rows, sweep

LAYOUT_FIELDS = PLAN_FIELDS | {"pipeline_bubble_s": ("time", "pipeline_bubble_s")}


def plan_for(client, base, row):
    body = {**base, "arrangement": row["arrangement"]}
    body["cluster"] = {**base["cluster"], "world_size": row["world_size"], "gpus_per_node": row["gpus_per_node"]}
    body["training"] = {
        **base.get("training", {}),
        "micro_batch_size": row["micro_batch_size"],
        "sequence_length": row["sequence_length"],
        "gradient_accumulation_steps": row["gradient_accumulation_steps"],
    }
    body["levers"] = {
        **base.get("levers", {}),
        "recompute": row["recompute"],
        "offload_optimizer": row["offload_optimizer"],
        "mxfp8": row["mxfp8"],
    }
    layout = {axis: row[axis] for axis in ("tensor", "pipeline", "context", "expert", "virtual_stages")}
    body["parallelism"] = {**base.get("parallelism", {}), **layout}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    model=st.sampled_from([{"preset": "llama-3-8b"}, {"preset": "mixtral-8x7b"}]),
    tensor=st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=2, unique=True),
    pipeline=st.lists(st.sampled_from([1, 2, 4]), min_size=1, max_size=2, unique=True),
    context=st.lists(st.sampled_from([1, 2]), min_size=1, max_size=2, unique=True),
    expert=st.lists(st.sampled_from([1, 2, 4]), min_size=1, max_size=2, unique=True),
    world_sizes=st.lists(st.sampled_from([8, 16, 32]), min_size=1, max_size=2, unique=True),
    arrangements=st.lists(st.sampled_from(["ddp", "zero1", "zero3"]), min_size=1, max_size=2, unique=True),
    accumulation=st.lists(st.sampled_from([4, 8]), min_size=1, max_size=2, unique=True),
    sequence_parallel=st.booleans(),
    schedule=st.sampled_from(["1f1b", "gpipe", "zero_bubble"]),
)
def test_every_layout_cell_equals_the_plan(
    client,
    model,
    tensor,
    pipeline,
    context,
    expert,
    world_sizes,
    arrangements,
    accumulation,
    sequence_parallel,
    schedule,
):
    base = {
        "model": model,
        "precision": "megatron",
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"sequence_length": 2048},
        "parallelism": {"sequence_parallel": sequence_parallel, "pipeline_schedule": schedule},
    }
    axes = {
        "tensor": tensor,
        "pipeline": pipeline,
        "context": context,
        "expert": expert,
        "world_size": world_sizes,
        "arrangement": arrangements,
        "gradient_accumulation_steps": accumulation,
    }
    answer = sweep(client, axes, base=base)
    assert answer["rows"] + answer["skipped_cells"] == answer["cells"]
    layout_first = sorted(
        rows(answer), key=lambda r: (r["tensor"], r["pipeline"], r["context"], r["expert"]) == (1,) * 4
    )
    for row in layout_first[:6]:
        plan = plan_for(client, base, row)
        for column, (section, field) in LAYOUT_FIELDS.items():
            assert row[column] == plan[section][field], (column, row)
        held: dict[str, int] = {}
        for entry in plan["memory"]["breakdown"]:
            if entry["location"] == "gpu":
                held[entry["state"]] = held.get(entry["state"], 0) + entry["bytes"]
        for state, value in held.items():
            assert row[f"{state}_bytes"] == value


def test_skipped_layouts_name_their_field(client):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"gradient_accumulation_steps": 8},
    }
    answer = sweep(client, {"tensor": [1, 3], "world_size": [8, 24]}, base=base)
    # tensor 3: 8 GPUs do not divide by it (/parallelism); at 24 GPUs it does not divide the 32 heads
    assert answer["rows"] == 2
    assert sorted(answer["skipped_reasons"]) == [
        "1 cells: the layout does not fit the cell (/parallelism)",
        "1 cells: the layout does not fit the cell (/parallelism/tensor)",
    ]


def test_too_many_layout_cells(client):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
    }
    response = client.post(
        "/v1/sweep",
        json={"base": base, "axes": {"tensor": [2, 4], "world_size": list(range(8, 8 * 2100, 8))}},
    )
    assert response.status_code == 413 or response.status_code == 422
    assert "4,096" in response.json()["detail"]
