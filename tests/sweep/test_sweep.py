"""POST /v1/sweep: every cell equals /v1/plan's answer for that cell, and the seeds' table as a sweep."""

import csv
import io
import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.presets import PrecisionSpec
from service.inputs.arrangements import NAMED, ZERO3, ZeroPlusPlus
from service.time.traffic import step_collectives

P = 30_000_000_000
BASE = {
    "model": {"parameter_count": P},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}
# Compared column by column with the plan's answer for the same cell.
PLAN_FIELDS = {
    "per_gpu_bytes": ("memory", "per_gpu_bytes"),
    "model_state_bytes": ("memory", "model_state_bytes"),
    "activations_bytes": ("memory", "activations_bytes"),
    "fits": ("memory", "fits"),
    "headroom_bytes": ("memory", "headroom_bytes"),
    "replicated_floor_bytes": ("memory", "replicated_floor_bytes"),
    "host_bytes": ("memory", "host_bytes"),
    "bytes_sent_per_gpu": ("traffic", "bytes_sent_per_gpu"),
    "pcie_bytes_per_gpu": ("traffic", "pcie_bytes_per_gpu"),
    "tokens_per_step": ("time", "tokens_per_step"),
    "compute_s": ("time", "compute_s"),
    "communication_s": ("time", "communication_s"),
    "exposed_communication_s": ("time", "exposed_communication_s"),
    "offload_s": ("time", "offload_s"),
    "step_s": ("time", "step_s"),
}


def sweep(client, axes, base=BASE, **extra):
    response = client.post("/v1/sweep", json={"base": base, "axes": axes, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def rows(answer):
    columns = answer["columns"]
    return [{name: values[i] for name, values in columns.items()} for i in range(answer["rows"])]


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
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_seed_table_as_a_sweep(client):
    answer = sweep(client, {"world_size": [1, 2, 4, 8, 16, 32, 64], "arrangement": ["ddp", "zero1", "zero2", "zero3"]})
    assert answer["rows"] == answer["cells"] == 28
    first_fit = {}
    for row in rows(answer):
        if row["fits"]:
            first_fit[row["arrangement"]] = min(first_fit.get(row["arrangement"], 10**9), row["world_size"])
    assert first_fit == {"zero2": 32, "zero3": 8}  # DP never, ZeRO-1 never
    eight = {r["arrangement"]: r["per_gpu_bytes"] for r in rows(answer) if r["world_size"] == 8}
    assert eight == {"ddp": 480 * 10**9, "zero1": 165 * 10**9, "zero2": 1125 * 10**8, "zero3": 60 * 10**9}


architectures = st.sampled_from([{"parameter_count": P}, {"preset": "llama-2-7b"}, {"preset": "llama-3-70b"}])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    model=architectures,
    world_sizes=st.lists(
        st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16, 21, 22, 24, 32, 64]), min_size=1, max_size=4, unique=True
    ),
    arrangements=st.lists(
        st.sampled_from(["ddp", "zero1", "zero2", "zero3", "hybrid", "shard_grad_op"]),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    precision=st.sampled_from(["mixed_bf16_adam", "deepspeed", "fsdp2"]),
    micro_batch=st.lists(st.integers(1, 8), min_size=1, max_size=2, unique=True),
    accumulation=st.lists(st.integers(1, 4), min_size=1, max_size=2, unique=True),
    recompute=st.lists(st.sampled_from(["none", "selective", "full"]), min_size=1, max_size=2, unique=True),
    offload=st.lists(st.booleans(), min_size=1, max_size=2, unique=True),
    mxfp8=st.lists(st.booleans(), min_size=1, max_size=2, unique=True),
    gpus_per_node=st.sampled_from([1, 4, 8]),
    card=st.sampled_from([80_000_000_000, 60_000_000_000, 85_899_345_920]),
)
def test_every_sweep_cell_equals_the_plan(
    client,
    model,
    world_sizes,
    arrangements,
    precision,
    micro_batch,
    accumulation,
    recompute,
    offload,
    mxfp8,
    gpus_per_node,
    card,
):
    base = {
        "model": model,
        "precision": precision,
        "cluster": {"world_size": 1, "gpus_per_node": gpus_per_node, "gpu_memory_bytes": card},
        "arrangement": "zero3",
        "training": {"sequence_length": 1024},
    }
    axes = {
        "world_size": world_sizes,
        "arrangement": arrangements,
        "micro_batch_size": micro_batch,
        "gradient_accumulation_steps": accumulation,
        "recompute": recompute,
        "offload_optimizer": offload,
        "mxfp8": mxfp8,
    }
    answer = sweep(client, axes, base=base)
    assert answer["rows"] + answer["skipped_cells"] == answer["cells"]
    for row in rows(answer)[:12]:
        plan = plan_for(client, base, row)
        for column, (section, field) in PLAN_FIELDS.items():
            assert row[column] == plan[section][field], (column, row)
        gpu_rows = {r["state"]: r["bytes"] for r in plan["memory"]["breakdown"] if r["location"] == "gpu"}
        for state, value in gpu_rows.items():
            assert row[f"{state}_bytes"] == value


def test_the_fit_boundary_cell_by_cell(client):
    # ZeRO-2 at 21 GPUs is six bytes over an 80e9-byte card; at 22 it fits (one GPU per node: valid jobs)
    base = {**BASE, "cluster": {"world_size": 1, "gpus_per_node": 1, "gpu": "seed-80gb"}}
    answer = sweep(client, {"world_size": [21, 22], "arrangement": ["zero2"]}, base=base)
    by_n = {r["world_size"]: r for r in rows(answer)}
    assert by_n[21]["headroom_bytes"] == -6 and not by_n[21]["fits"]
    assert by_n[22]["fits"]


def test_filter_sort_and_paging(client):
    axes = {"world_size": [1, 2, 4, 8, 16, 32, 64], "arrangement": ["ddp", "zero1", "zero2", "zero3"]}
    fitting = sweep(client, axes, fits_only=True, sort_by="per_gpu_bytes")
    assert fitting["matched_rows"] == fitting["rows"] == 6  # ZeRO-2 at 32 and 64, ZeRO-3 at 8..64
    per_gpu = fitting["columns"]["per_gpu_bytes"]
    assert per_gpu == sorted(per_gpu)
    page = sweep(client, axes, fits_only=True, sort_by="per_gpu_bytes", offset=2, limit=3)
    assert page["columns"]["per_gpu_bytes"] == per_gpu[2:5]
    down = sweep(client, axes, sort_by="world_size", descending=True, limit=4)
    assert down["columns"]["world_size"] == [64, 64, 64, 64]


def test_csv(client):
    response = client.post(
        "/v1/sweep", json={"base": BASE, "axes": {"arrangement": ["zero2", "zero3"]}}, headers={"accept": "text/csv"}
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(response.text)))
    assert [r["arrangement"] for r in table] == ["zero2", "zero3"]
    assert int(table[1]["per_gpu_bytes"]) == 60 * 10**9


@pytest.mark.parametrize(
    ("axes", "pointer"),
    [
        ({"world_size": []}, "/axes/world_size"),
        ({"world_size": [8, 8]}, "/axes/world_size"),
        ({"arrangement": ["zero4"]}, "/axes/arrangement/0"),
        ({"micro_batch_size": [-1]}, "/axes/micro_batch_size/0"),
        ({"colour": ["blue"]}, "/axes/colour"),
        ({"world_size": "8"}, "/axes/world_size"),
    ],
)
def test_malformed_axes_are_problems(client, axes, pointer):
    response = client.post("/v1/sweep", json={"base": BASE, "axes": axes})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert pointer in [e["pointer"] for e in response.json()["errors"]]


def test_over_the_cell_limit_says_how_many(client):
    axes = {
        "world_size": list(range(1, 1001)),
        "micro_batch_size": list(range(1, 1001)),
        "arrangement": ["ddp", "zero1"],
    }
    response = client.post("/v1/sweep", json={"base": BASE, "axes": axes})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "sweep_too_large"
    assert "2,000,000 cells" in body["detail"] and "1,000,000" in body["detail"]


def test_a_cell_past_64_bit_integers_is_refused(client):
    base = {
        **BASE,
        "model": {"preset": "llama-3.1-405b"},
        "activations": {"model": "transformer", "flash_attention": False},
    }
    response = client.post(
        "/v1/sweep", json={"base": base, "axes": {"sequence_length": [10_000_000], "micro_batch_size": [100_000]}}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "sweep_overflow"
    assert "beyond 64-bit integers" in response.json()["detail"]


def test_a_layout_cell_past_64_bit_integers_is_refused_naming_the_count(client):
    base = {
        **BASE,
        "model": {"preset": "llama-3.1-405b"},
        "cluster": {**BASE["cluster"], "world_size": 64},
        "parallelism": {"tensor": 8},
        "activations": {"model": "transformer", "flash_attention": False},
    }
    axes = {"sequence_length": [10_000_000], "micro_batch_size": [100_000]}
    response = client.post("/v1/sweep", json={"base": base, "axes": axes})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "sweep_overflow"
    # a stage's bytes: the attention scores alone are 5 x a x s^2 x b per layer (Korthikanti et al., table 2) =
    # 5 x 128 x 10^14 x 10^5 / 8 ranks = 8e20 B, past 2^63 - 1
    assert "beyond 64-bit integers" in body["detail"] and " = " in body["detail"]


def test_a_huge_fudge_cell_equals_the_plan(client):
    # b x s x h x L x bytes = 1e5 x 1e7 x 1e5 x 1e3 x 2 passes 2**63 before a fudge of 0.001 brings it back:
    # the product is formed in floating point, so the sweep's arrays agree with the plan's Python numbers
    model = {
        "layers": 1000,
        "hidden_size": 100_000,
        "attention_heads": 100,
        "ffn_hidden_size": 400_000,
        "vocab_size": 1000,
    }
    base = {
        **BASE,
        "model": model,
        "activations": {"model": "fudge", "fudge": 0.001},
        "training": {"micro_batch_size": 100_000, "sequence_length": 10_000_000},
    }
    answer = sweep(client, {"arrangement": ["zero3"]}, base=base)
    plan = plan_for(client, base, rows(answer)[0])
    assert answer["columns"]["activations_bytes"] == [plan["memory"]["activations_bytes"]] == [10**17 * 2]


@pytest.mark.parametrize(
    "levers",
    [
        {"zeropp": {"qwz": True, "hpz": True, "qgz": True}},
        {"zeropp": {"qwz": True}},
        {"mxfp8_recipe": "fp8_weights"},
    ],
)
def test_accumulation_steps_swept_as_an_array_equal_each_plan(client, levers):
    # k is a numeric axis (one evaluation over every k): its per-micro-batch collectives must match
    # the plan's at each k, for ZeRO++ and the other collective schedules as for plain ZeRO-3.
    base = {
        "model": {"preset": "llama-2-7b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu_memory_bytes": 80_000_000_000},
        "arrangement": "zero3",
        "training": {"sequence_length": 1024},
        "levers": levers,
    }
    arrangements = ["zero3"] if "zeropp" in levers else ["zero2", "zero3", "shard_grad_op", "hybrid"]
    axes = {"gradient_accumulation_steps": [1, 2, 5], "arrangement": arrangements, "mxfp8": [True]}
    for row in rows(sweep(client, axes, base=base)):
        plan = plan_for(client, base, row)
        for column, (section, field) in PLAN_FIELDS.items():
            assert row[column] == plan[section][field], (column, row)


def every_schedule():
    zero_plus_plus = [ZeroPlusPlus(*flags) for flags in itertools.product([False, True], repeat=3)]
    return [*NAMED.values(), *(replace(ZERO3, zeropp=z) for z in zero_plus_plus)]


@pytest.mark.parametrize("sharding", every_schedule())
def test_the_collectives_that_run_every_micro_batch_say_so(sharding):
    # The timing reads per_micro_batch (k may be an array in a sweep): it must mark exactly the
    # collectives that run k times a step, which their purposes name "every micro-batch".
    for collective in step_collectives(PrecisionSpec(), sharding, micro_batches=3):
        assert collective.per_micro_batch == (collective.count_per_step == 3), collective
        assert collective.per_micro_batch == ("every micro-batch" in collective.purpose), collective
