"""Sweeps over the layout axes: every cell with a layout is /v1/plan's answer for that cell.

The layout cells are evaluated at once (service.engine.layout_grid); the property test draws random layout
sweeps (models, degrees, schedules, node sizes, batch shapes, arrangements and levers), plans every
cell of the cartesian product one by one, and checks the sweep against those plans: the same cells
answered, each row's bytes exactly and times to 1e-9, and the refused cells counted under the
reason the plan gives.
"""

import itertools
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from models.plan import PlanRequest
from models.sweep import SweepRequest
from service.answers.plan import plan
from service.answers.sweep import sweep_answer
from service.errors import DomainError
from tests.sweep.test_sweep import PLAN_FIELDS, rows, sweep

LAYOUT_FIELDS = PLAN_FIELDS | {"pipeline_bubble_s": ("time", "pipeline_bubble_s")}
TIME_COLUMNS = {
    "compute_s",
    "communication_s",
    "exposed_communication_s",
    "offload_s",
    "pipeline_bubble_s",
    "step_s",
}
THROUGHPUT = ("tokens_per_s", "tokens_per_s_per_gpu")
LAYOUT = ("tensor", "pipeline", "context", "expert", "virtual_stages")
LEVERS = ("recompute", "offload_optimizer", "mxfp8")
NUMERIC = ("world_size", "gpus_per_node", "micro_batch_size", "sequence_length", "gradient_accumulation_steps")


def plan_body(base, row):
    """The /v1/plan request of a sweep row (or of a cell written as one)."""
    body = {**base, "arrangement": row["arrangement"]}
    if "model" in row:
        body["model"] = {"preset": row["model"]}
    body["cluster"] = {**base["cluster"], "world_size": row["world_size"], "gpus_per_node": row["gpus_per_node"]}
    body["training"] = {
        **base.get("training", {}),
        "micro_batch_size": row["micro_batch_size"],
        "sequence_length": row["sequence_length"],
        "gradient_accumulation_steps": row["gradient_accumulation_steps"],
    }
    body["levers"] = {**base.get("levers", {}), **{lever: row[lever] for lever in LEVERS}}
    body["parallelism"] = {**base.get("parallelism", {}), **{axis: row[axis] for axis in LAYOUT}}
    return body


def assert_row_is_its_plan(client, base, row, model):
    """The row's /v1/plan answer (the model given as the base has it) carries the row's figures."""
    request = plan_body(base, row)
    request["model"] = model
    response = client.post("/v1/plan", json=request)
    assert response.status_code == 200, response.text
    expected = response.json()
    for column, (section, field) in LAYOUT_FIELDS.items():
        assert row[column] == pytest.approx(expected[section][field], rel=1e-12), (column, row)
    return expected


def plan_for(client, base, row):
    response = client.post("/v1/plan", json=plan_body(base, row))
    assert response.status_code == 200, response.text
    return response.json()


def planned(body):
    """The plan of a request, or the reason a sweep gives for refusing it (the first request error's field,
    else every pointer of the plan's problem)."""
    try:
        return plan(PlanRequest.model_validate(body)), None
    except ValidationError as error:
        first = error.errors()[0]
        if first["loc"][:1] == ("levers",) and first["type"] == "value_error":  # the plan's own words for a lever
            return None, first["msg"].removeprefix("Value error, ")
        where = "/".join(str(part) for part in first["loc"][:2])
        return None, f"not a valid plan request (/{where})"
    except DomainError as error:
        pointers = ", ".join(sorted({pointer for _, pointer in error.field_errors()})) or error.code
        return None, f"the layout does not fit the cell ({pointers})"


def held_on_gpu(answer):
    held: dict[str, int] = {}
    for entry in answer.memory.breakdown:
        if entry.location.value == "gpu":
            held[entry.state.value] = held.get(entry.state.value, 0) + entry.bytes
    return held


def distinct(values, most=2):
    return st.lists(st.sampled_from(values), min_size=1, max_size=most, unique=True)


@st.composite
def layout_sweeps(draw):
    """A sweep with no cell of data parallelism alone (those take the data-parallel path): one layout axis
    keeps only degrees above 1. Mostly world sizes the first degrees divide and enough micro-batches for the
    pipeline (the cells that plan), some not."""
    forced = draw(st.sampled_from(LAYOUT))
    schedule = draw(st.sampled_from(["1f1b", "interleaved", "gpipe", "zero_bubble"]))
    if forced == "virtual_stages":
        schedule = "interleaved"
    choices = {
        "tensor": [1, 2, 4, 8],
        "pipeline": [1, 2, 3, 4],
        "context": [1, 2, 4],
        "expert": [1, 1, 2, 4, 8],
        "virtual_stages": [1, 2, 3] if schedule == "interleaved" else [1],
    }
    if forced != "virtual_stages" and draw(st.integers(0, 9)) == 9:
        choices["virtual_stages"] = [1, 2]  # some virtual stages without the interleaved schedule: refused
    axes = {}
    for axis, values in choices.items():
        drawn = sorted(set(draw(st.lists(st.sampled_from(values), min_size=1, max_size=2))))
        axes[axis] = ([v for v in drawn if v > 1] or [values[-1]]) if axis == forced else drawn
    dense, mixtures = ["llama-3-8b", "llama-3.2-1b"], ["mixtral-8x7b", "qwen3-30b-a3b"]
    models = mixtures + dense if max(axes["expert"]) > 1 and draw(st.integers(0, 4)) else dense + mixtures
    first = axes["tensor"][0] * axes["pipeline"][0] * axes["context"][0]
    sizes = {first * draw(st.sampled_from([1, 2, 4, 8])) for _ in range(draw(st.integers(1, 2)))}
    sizes |= set(draw(st.lists(st.sampled_from([4, 12, 16, 24, 64]), max_size=1)))
    axes |= {
        "model": [{"preset": p} for p in draw(distinct(models))],
        "world_size": sorted(sizes),
        "gpus_per_node": draw(st.sampled_from([[8], [8], [4, 8], [4]])),
        "micro_batch_size": draw(distinct([1, 2, 4])),
        "sequence_length": draw(distinct([1024, 2048, 3000, 4096])),
        "gradient_accumulation_steps": draw(distinct([8, 12, 16, 1, 2, 4])),
        "arrangement": draw(distinct(["ddp", "zero1", "zero2", "zero3", "shard_grad_op", "hybrid"])),
        "recompute": draw(distinct(["none", "selective", "full"])),
        "offload_optimizer": draw(distinct([False, True])),
        "mxfp8": draw(distinct([False, True])),
    }
    cells = 1
    for values in axes.values():
        cells *= len(values)
    assume(cells <= 400)
    levers = {"mxfp8_recipe": draw(st.sampled_from(["seed", "fp8_weights"]))}
    zeropp = draw(st.integers(0, 9)) == 9
    if zeropp:
        levers["zeropp"] = {"qwz": True}
    base = {
        "model": {"preset": "llama-3-8b"},
        "precision": draw(st.sampled_from(["megatron", "mixed_bf16_adam", "fsdp2"])),
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": draw(st.sampled_from(["h100-80gb", "a100-40gb"]))},
        "arrangement": "zero3" if zeropp else "zero1",
        "training": {"sequence_length": 2048},
        "parallelism": {"sequence_parallel": draw(st.booleans()), "pipeline_schedule": schedule},
        "levers": levers,
    }
    if draw(st.integers(0, 5)) == 5:
        base["activations"] = {"model": "none"}
    if draw(st.integers(0, 3)) == 3:  # an expert tensor degree of its own, for every cell
        base["parallelism"]["expert_tensor"] = draw(st.sampled_from([1, 2, 4]))
    if draw(st.integers(0, 3)) == 3:  # Llama 3's K/V all-gather in every cell's context group, not the ring
        base["parallelism"]["context_attention"] = "all_gather"
    if draw(st.integers(0, 1)) == 1:  # a given MFU: the compute at that utilisation, the cheaper data schedule
        base["training"]["utilisation"] = draw(st.sampled_from([0.25, 0.4, 0.55]))
    return base, axes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout_sweeps())
def test_every_layout_sweep_cell_is_its_plan(drawn):
    base, axes = drawn
    answer = sweep_answer(SweepRequest.model_validate({"base": base, "axes": axes}), 10**6, 10**6)
    columns = answer["columns"]
    found = {}
    for i in range(answer["rows"]):
        row = {name: values[i] for name, values in columns.items()}
        key = tuple(row[name].item() if hasattr(row[name], "item") else row[name] for name in (*NUMERIC, *LAYOUT))
        key += (str(row["model"]), str(row["arrangement"]), str(row["recompute"]), bool(row["offload_optimizer"]))
        found[key + (bool(row["mxfp8"]),)] = row
    assert len(found) == answer["rows"]
    refused = Counter()
    accepted = 0
    names = ("model", *NUMERIC, *LAYOUT, "arrangement", *LEVERS)
    grid = [[m["preset"] for m in axes["model"]]] + [axes[name] for name in names[1:]]
    for combo in itertools.product(*grid):
        cell = dict(zip(names, combo, strict=True))
        answer_, reason = planned(plan_body(base, cell))
        key = (*(cell[name] for name in (*NUMERIC, *LAYOUT)), cell["model"], cell["arrangement"], cell["recompute"])
        key += (cell["offload_optimizer"], cell["mxfp8"])
        if answer_ is None:
            refused[reason] += 1
            assert key not in found, (reason, cell)
            continue
        accepted += 1
        row = found[key]
        for column, (section, field) in LAYOUT_FIELDS.items():
            expected = getattr(getattr(answer_, section), field)
            if column in TIME_COLUMNS:
                assert float(row[column]) == pytest.approx(expected, rel=1e-9, abs=1e-15), (column, cell)
            else:
                assert row[column] == expected, (column, cell)
        for column in THROUGHPUT:
            assert float(row[column]) == pytest.approx(getattr(answer_.time, column), rel=1e-9), (column, cell)
        assert row["parameter_count"] == answer_.parameter_count
        for state, value in held_on_gpu(answer_).items():
            assert row[f"{state}_bytes"] == value, (state, cell)
    assert accepted == answer["rows"]
    event("some cells planned" if accepted else "every cell refused")
    if "utilisation" in base["training"]:
        event("utilisation given, some cells planned" if accepted else "utilisation given, every cell refused")
    assert answer["skipped_cells"] == sum(refused.values())
    reported = Counter()
    for line in answer["skipped_reasons"]:
        count, reason = re.fullmatch(r"(\d+) cells: (.*)", line).groups()
        reported[reason] = int(count)
    assert reported == refused


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    model=st.sampled_from([{"preset": "llama-3-8b"}, {"preset": "mixtral-8x7b"}]),
    tensor=st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=2, unique=True),
    pipeline=st.lists(st.sampled_from([1, 2, 4]), min_size=1, max_size=2, unique=True),
    expert=st.lists(st.sampled_from([1, 2, 4]), min_size=1, max_size=2, unique=True),
    world_sizes=st.lists(st.sampled_from([8, 16, 32]), min_size=1, max_size=2, unique=True),
)
def test_layout_cells_over_http_equal_the_plan(client, model, tensor, pipeline, expert, world_sizes):
    """The same through the transport: the JSON columns against /v1/plan's JSON."""
    base = {
        "model": model,
        "precision": "megatron",
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"sequence_length": 2048, "gradient_accumulation_steps": 8},
        "parallelism": {"sequence_parallel": True},
    }
    axes = {"tensor": tensor, "pipeline": pipeline, "expert": expert, "world_size": world_sizes}
    answer = sweep(client, axes, base=base)
    assert answer["rows"] + answer["skipped_cells"] == answer["cells"]
    for row in rows(answer)[:6]:
        assert_row_is_its_plan(client, base, row, model)


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


def test_a_wide_layout_sweep_is_answered_whole(client):
    # 2 tensor degrees x 2,099 world sizes: over the 4,096 cells once planned one by one, now one evaluation
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
    }
    world_sizes = list(range(8, 8 * 2100, 8))
    answer = sweep(client, {"tensor": [2, 4], "world_size": world_sizes}, base=base)
    assert answer["cells"] == 2 * 2099
    # every multiple of 8 divides by t = 2 and 4, and t divides llama-3-8b's 32 heads and 8 key/value heads
    assert answer["rows"] == 2 * 2099 and answer["skipped_cells"] == 0
    assert sorted(set(answer["columns"]["tensor"])) == [2, 4]


def test_layout_sweeps_meet_the_sweep_limits(client):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
    }
    # 3 x 3 x 3 x 4 x 3 degrees x 6 arrangements x 3 recomputes x 2 x 2 levers = 23,328 combinations, each
    # evaluated once and checked at 1 corner (no numeric axis swept): 46,656 evaluations, over the default 4,096
    axes = {
        "tensor": [1, 2, 4],
        "pipeline": [1, 2, 4],
        "context": [1, 2, 4],
        "expert": [1, 2, 4, 8],
        "virtual_stages": [1, 2, 3],
        "arrangement": ["ddp", "zero1", "zero2", "zero3", "shard_grad_op", "hybrid"],
        "recompute": ["none", "selective", "full"],
        "offload_optimizer": [False, True],
        "mxfp8": [False, True],
    }
    response = client.post("/v1/sweep", json={"base": base, "axes": axes})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "sweep_too_large" and "46,656 evaluations" in body["detail"]


def test_a_given_utilisation_sweeps_layout_cells_at_once(client):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"utilisation": 0.4},
    }
    small = sweep(client, {"tensor": [2], "world_size": [8, 16]}, base=base)
    assert small["rows"] == 2
    for row in rows(small):
        expected = plan_for(client, base, row)
        assert row["step_s"] == pytest.approx(expected["time"]["step_s"], rel=1e-9)
        assert row["compute_s"] == pytest.approx(expected["time"]["compute_s"], rel=1e-9)
        assert row["per_gpu_bytes"] == expected["memory"]["per_gpu_bytes"]
    # 2 tensor degrees x 2,099 world sizes: over the 4,096 cells a given utilisation once planned one by one
    answer = sweep(client, {"tensor": [2, 4], "world_size": list(range(8, 8 * 2100, 8))}, base=base)
    assert answer["cells"] == 2 * 2099
    # every multiple of 8 divides by t = 2 and 4, and t divides llama-3-8b's 32 heads and 8 key/value heads
    assert answer["rows"] == 2 * 2099 and answer["skipped_cells"] == 0


def test_virtual_stages_alone_on_a_model_without_an_architecture_plan_as_data_parallelism(client):
    """Without an architecture /v1/plan refuses every degree above 1 and plans a layout of virtual stages alone
    as data parallelism (its mesh rules do not read them): the sweep answers those cells as the plan does."""
    base = {
        "model": {"parameter_count": 7_000_000_000},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "training": {"gradient_accumulation_steps": 4},
    }
    axes = {"virtual_stages": [1, 2, 4], "pipeline": [1, 2], "world_size": [8, 16]}
    answer = sweep(client, axes, base=base)
    # 3 x 2 x 2 = 12 cells: the 6 with pipeline 2 need an architecture
    assert answer["cells"] == 12 and answer["rows"] == 6
    assert answer["skipped_reasons"] == ["6 cells: the layout does not fit the cell (/parallelism/pipeline)"]
    for row in rows(answer):
        assert_row_is_its_plan(client, base, row, base["model"])
    assert sorted({row["virtual_stages"] for row in rows(answer)}) == [1, 2, 4]
