"""The newcomer's tasks, each an example under examples/ that the README runs (tests/test_readme_examples.py
runs the commands as written); here what each answer claims is checked against arithmetic written out.
"""

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
import yaml

from cli.main import run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
NEWCOMER = sorted(p.name for p in EXAMPLES.glob("newcomer-*"))


def zeroplan(capsys, *argv: str) -> str:
    code = run(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_every_newcomer_task_has_an_example_the_readme_runs():
    assert NEWCOMER == [
        "newcomer-hf-config.json",
        "newcomer-largest-model.json",
        "newcomer-llama3-70b-15t.yaml",
        "newcomer-mixtral-fsdp.json",
        "newcomer-simulation-rings.json",
        "newcomer-simulation-torch.json",
        "newcomer-sweep.json",
    ]
    for name in NEWCOMER:
        assert f"examples/{name}" in README, name


def test_llama_3_70b_on_512_h100_with_a_15t_budget(capsys):
    path = EXAMPLES / "newcomer-llama3-70b-15t.yaml"
    assert yaml.safe_load(path.read_text())["training"]["total_tokens"] == "15T"  # the command line's grammar
    answer = json.loads(zeroplan(capsys, "plan", "-f", str(path), "--json"))
    time = answer["time"]
    assert answer["world_size"] == 512 and answer["parallelism"]["tensor"] == 8 and answer["parallelism"]["data"] == 64
    assert time["total_tokens"] == 15 * 10**12
    assert time["tokens_per_step"] == 1024 * 8192
    assert time["training_steps"] == math.ceil(15 * 10**12 / (1024 * 8192)) == 1_788_140
    # the ideal steps alone, then the run as it goes: checkpoints, interruptions and restarts on top
    assert time["ideal_training_days"] == pytest.approx(time["training_steps"] * time["step_s"] / 86_400)
    assert time["ideal_gpu_hours"] == pytest.approx(time["training_steps"] * time["step_s"] * 512 / 3_600)
    assert 0 < time["goodput"] < 1
    assert time["training_days"] == pytest.approx(time["ideal_training_days"] / time["goodput"], rel=1e-6)
    assert time["gpu_hours"] == pytest.approx(time["ideal_gpu_hours"] / time["goodput"], rel=1e-6)
    assert answer["memory"]["fits"]


def test_mixtral_8x7b_on_16_a100_with_fsdp_shows_what_decides_the_fit(capsys):
    path = str(EXAMPLES / "newcomer-mixtral-fsdp.json")
    text = zeroplan(capsys, "plan", "-f", path, "--components")
    assert "arrangement full_shard (the flags of zero3" in text and "activation component" in text
    answer = json.loads(zeroplan(capsys, "plan", "-f", path, "--json"))
    memory = answer["memory"]
    assert memory["activations_bytes"] > 0 and memory["working_set_bytes"] > 0
    assert (
        memory["model_state_bytes"] + memory["working_set_bytes"] + memory["activations_bytes"]
        == memory["per_gpu_bytes"]
    )
    # full_shard over 16 GPUs: 16 B per weight / 16 = 1 B per weight of model states
    assert memory["model_state_bytes"] == 16 * answer["parameter_count"] // 16


def test_the_largest_model_on_64_h100_with_zero3_at_8k(capsys):
    answer = json.loads(zeroplan(capsys, "limits", "-f", str(EXAMPLES / "newcomer-largest-model.json"), "--json"))
    (zero3,) = answer["arrangements"]
    assert answer["sequence_length"] == 8192
    # ZeRO-3 on 64 GPUs, states only: 16 B x ceil(P / 64) within the usable bytes
    assert zero3["largest_parameter_count_model_states_only"] == 64 * (answer["usable_bytes"] // 16)
    assert 70 * 10**9 < zero3["largest_parameter_count"] < zero3["largest_parameter_count_model_states_only"]
    body = json.loads((EXAMPLES / "newcomer-largest-model.json").read_text())
    body["model"]["layers"] = zero3["largest_layers"]
    member = json.loads(zeroplan(capsys, "plan", "--json", "-f", _write(body, "member.json")))
    assert member["parameter_count"] == zero3["largest_parameter_count"] and member["memory"]["fits"]


def _write(body: dict, name: str) -> str:
    import tempfile

    path = Path(tempfile.mkdtemp()) / name
    path.write_text(json.dumps(body))
    return str(path)


def test_a_csv_sweep(capsys):
    text = zeroplan(capsys, "sweep", "-f", str(EXAMPLES / "newcomer-sweep.json"), "--csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 4 * 2 * 3  # world sizes x arrangements x recompute
    assert {r["recompute"] for r in rows} == {"none", "selective", "full"}
    for r in rows:
        assert int(r["per_gpu_bytes"]) == int(r["model_state_bytes"]) + int(r["activations_bytes"]) + sum(
            int(r[k]) for k in ("gathered_parameters_bytes", "unit_gradients_bytes", "gradient_buckets_bytes")
        )


def test_a_hugging_face_config(capsys):
    path = EXAMPLES / "newcomer-hf-config.json"
    answer = json.loads(
        zeroplan(
            capsys,
            "plan",
            "--model.hf-config",
            f"@{path}",
            "--world-size",
            "8",
            "--gpu",
            "h100-80gb",
            "--arrangement",
            "zero3",
            "--json",
        )
    )
    # Mistral 7B: h 4096, 32 layers, 32 heads of 128, 8 key/value heads, MLP 14,336 (SwiGLU), V 32,000, untied
    h, f, v, kv = 4096, 14336, 32000, 8 * 128
    layer = 2 * h * h + 2 * h * kv + 3 * h * f + 2 * h
    assert answer["parameter_count"] == 32 * layer + 2 * v * h + h == 7_241_732_096


@pytest.mark.parametrize("name", ["newcomer-simulation-rings.json", "newcomer-simulation-torch.json"])
def test_both_simulations_confirm(capsys, name):
    pytest.importorskip("torch")
    answer = json.loads(zeroplan(capsys, "simulate", "-f", str(EXAMPLES / name), "--json"))
    report = answer["report"]
    assert report["verdict"] == "confirmed", [c for c in report["checks"] if c["passed"] is False]
    assert report["checks"] and all(c["passed"] is not False for c in report["checks"])


def test_the_readme_quotes_the_answers_as_the_commands_give_them(capsys):
    """The worked examples' figures in the README are what the commands print today (they had gone stale)."""
    mixtral = zeroplan(capsys, "plan", "-f", str(EXAMPLES / "newcomer-mixtral-fsdp.json"), "--components")
    after = README.split("zeroplan plan -f examples/newcomer-mixtral-fsdp.json --components")[1]
    table = after.split("```\n\n```\n")[1].split("```")[0]
    assert "= per GPU" in table
    for line in table.strip().splitlines():
        assert line in mixtral, line
    budget = zeroplan(capsys, "plan", "-f", str(EXAMPLES / "newcomer-llama3-70b-15t.yaml"))
    quoted = re.search(r"`(15,000,000,000,000 tokens: [^`]*)`", README)
    assert quoted is not None and quoted.group(1) in budget
    limits = json.loads(zeroplan(capsys, "limits", "-f", str(EXAMPLES / "newcomer-largest-model.json"), "--json"))
    (zero3,) = limits["arrangements"]
    largest = re.search(r"`largest_parameter_count` \(([\d,]+) at (\d+) layers here\)", README)
    assert largest is not None
    assert (int(largest.group(1).replace(",", "")), int(largest.group(2))) == (
        zero3["largest_parameter_count"],
        zero3["largest_layers"],
    )
    states_only = re.search(r"`largest_parameter_count_model_states_only` \(([\d,]+)\)", README)
    assert states_only is not None
    assert int(states_only.group(1).replace(",", "")) == zero3["largest_parameter_count_model_states_only"]
