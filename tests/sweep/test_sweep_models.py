"""Sweeps over models and parameter counts, throughput columns and sorts, and a token budget."""

import csv
import io

import pytest

from tests.sweep.test_sweep import BASE, P, plan_for, rows, sweep


def test_a_model_axis_names_each_model_and_its_count(client):
    axes = {"model": [{"preset": "llama-2-7b"}, {"parameter_count": P}], "world_size": [8, 16]}
    answer = sweep(client, axes)
    assert answer["rows"] == 4
    labels = {(r["model"], r["parameter_count"]) for r in rows(answer)}
    # Llama 2 7B: 6,738,415,616 parameters (Touvron et al. 2023, the released checkpoint's count)
    assert labels == {("llama-2-7b", 6_738_415_616), ("30,000,000,000 parameters", P)}


def test_a_parameter_count_axis(client):
    counts = [7 * 10**9, 13 * 10**9, 70 * 10**9]
    answer = sweep(client, {"parameter_count": counts, "world_size": [8]})
    assert answer["columns"]["parameter_count"] == counts
    # ZeRO-3, mixed-precision Adam: 16 bytes per weight over 8 GPUs, no activations without a shape
    assert answer["columns"]["per_gpu_bytes"] == [16 * c // 8 for c in counts]


def test_model_and_parameter_count_axes_together_are_refused(client):
    body = {"base": BASE, "axes": {"model": [{"preset": "llama-2-7b"}], "parameter_count": [P]}}
    response = client.post("/v1/sweep", json=body)
    assert response.status_code == 422
    assert "not both" in response.json()["detail"]


def test_an_unknown_axis_lists_the_axes(client):
    response = client.post("/v1/sweep", json={"base": BASE, "axes": {"colour": ["blue"]}})
    assert response.status_code == 422
    error = response.json()["errors"][0]
    assert error["pointer"] == "/axes/colour"
    for axis in ("model", "parameter_count", "world_size", "arrangement", "recompute", "mxfp8"):
        assert axis in error["detail"]


@pytest.mark.parametrize("model", [{"preset": "llama-2-7b"}, {"preset": "llama-3-70b"}, {"parameter_count": P}])
def test_each_model_cell_equals_its_plan(client, model):
    base = {**BASE, "training": {"sequence_length": 1024}}
    answer = sweep(client, {"model": [model], "world_size": [8, 64], "arrangement": ["zero2", "zero3"]}, base=base)
    for row in rows(answer):
        plan = plan_for(client, {**base, "model": model}, row)
        assert row["per_gpu_bytes"] == plan["memory"]["per_gpu_bytes"]
        assert row["parameter_count"] == plan["parameter_count"]
        assert row["step_s"] == plan["time"]["step_s"]
        assert row["tokens_per_s"] == plan["time"]["tokens_per_s"]
        assert row["tokens_per_s_per_gpu"] == plan["time"]["tokens_per_s_per_gpu"]


def test_throughput_columns_and_sort(client):
    base = {**BASE, "training": {"sequence_length": 2048}}
    answer = sweep(client, {"world_size": [8, 16, 32]}, base=base, sort_by="tokens_per_s_per_gpu", descending=True)
    per_gpu = answer["columns"]["tokens_per_s_per_gpu"]
    assert per_gpu == sorted(per_gpu, reverse=True)
    for row in rows(answer):
        tokens = row["world_size"] * 1 * 2048  # N x b x s, one micro-batch
        assert row["tokens_per_step"] == tokens
        assert row["tokens_per_s"] == pytest.approx(tokens / row["step_s"], rel=1e-12)
        assert row["tokens_per_s_per_gpu"] == pytest.approx(tokens / row["step_s"] / row["world_size"], rel=1e-12)


def test_csv_booleans_are_lowercase(client):
    response = client.post(
        "/v1/sweep",
        json={"base": BASE, "axes": {"arrangement": ["ddp", "zero3"], "offload_optimizer": [False, True]}},
        headers={"accept": "text/csv"},
    )
    table = list(csv.DictReader(io.StringIO(response.text)))
    assert {r["fits"] for r in table} == {"true", "false"}
    assert {r["offload_optimizer"] for r in table} == {"true", "false"}
    assert "True" not in response.text and "False" not in response.text


def test_a_token_budget_in_the_plan(client):
    tokens_per_step = 8 * 1 * 2048  # N x b x s
    total = tokens_per_step * 1000 + 1  # one token more than 1000 steps: 1001 steps
    body = {
        **BASE,
        "training": {"sequence_length": 2048, "total_tokens": total},
        "cluster": {**BASE["cluster"], "gpu_hour_price": 2.5},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    time = response.json()["time"]
    assert time["total_tokens"] == total and time["training_steps"] == 1001
    assert time["ideal_training_days"] == pytest.approx(1001 * time["step_s"] / 86_400, rel=1e-12)
    assert time["ideal_gpu_hours"] == pytest.approx(1001 * time["step_s"] * 8 / 3600, rel=1e-12)
    # the run as it goes: the ideal time over the goodput, checkpoints and interruptions included
    assert 0 < time["goodput"] < 1
    assert time["training_days"] == pytest.approx(time["ideal_training_days"] / time["goodput"], rel=1e-12)
    assert time["gpu_hours"] == pytest.approx(time["ideal_gpu_hours"] / time["goodput"], rel=1e-12)
    assert time["cost"] == pytest.approx(time["gpu_hours"] * 2.5, rel=1e-12)
    assert time["currency"] == "USD"


def test_no_budget_no_budget_fields(client):
    time = client.post("/v1/plan", json=BASE).json()["time"]
    assert time["training_steps"] is None and time["gpu_hours"] is None and time["cost"] is None


def test_a_budget_sweep_has_its_columns_and_sorts_by_cost(client):
    base = {
        **BASE,
        "training": {"total_tokens": 10**12},
        "cluster": {**BASE["cluster"], "gpu_hour_price": 2.0},
    }
    answer = sweep(client, {"world_size": [8, 16, 32]}, base=base, sort_by="cost")
    for row in rows(answer):
        plan = plan_for(client, base, row)
        for column in ("training_steps", "training_days", "gpu_hours", "cost", "goodput", "ideal_gpu_hours"):
            assert row[column] == plan["time"][column]
    assert answer["columns"]["cost"] == sorted(answer["columns"]["cost"])


def test_sorting_by_a_budget_column_needs_a_budget(client):
    response = client.post("/v1/sweep", json={"base": BASE, "axes": {"world_size": [8]}, "sort_by": "gpu_hours"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/sort_by"


def test_a_hugging_face_config_and_a_preset_with_overrides_are_labelled(client):
    """A base model given as model.hf_config used to be a 500 (its label read a parameter count it does not
    have); a preset with an architecture field beside it is another model, labelled so."""
    config = {
        "model_type": "llama",
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 16,
        "vocab_size": 128256,
        "tie_word_embeddings": True,
    }
    models = [{"hf_config": config}, {"preset": "llama-2-7b", "layers": 16}, {"preset": "llama-2-7b"}]
    answer = sweep(client, {"model": models, "world_size": [8]})
    assert [r["model"] for r in rows(answer)] == ["hf_config llama", "llama-2-7b (layers 16)", "llama-2-7b"]
    base = {**BASE, "model": {"hf_config": config}}
    response = client.post("/v1/sweep", json={"base": base, "axes": {"world_size": [8, 16]}})
    assert response.status_code == 200, response.text
    assert set(response.json()["columns"]["model"]) == {"hf_config llama"}
