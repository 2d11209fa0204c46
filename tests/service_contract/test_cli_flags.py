"""The command line covers the request models: flags derived from them, human numbers, flag-named errors."""

import csv
import io
import json
from pathlib import Path

import pytest

from cli.flags import request_flags
from cli.main import build_parser, run
from cli.numbers import NotANumber, parse_bytes, parse_count, parse_float
from models.fit import FitRequest
from models.plan import PlanRequest
from models.recommend import RecommendRequest
from models.sweep import SweepRequest
from service.answers import plan as planner


def zeroplan(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("70B", 70 * 10**9),
        ("7e9", 7 * 10**9),
        ("1.5T", 1_500_000_000_000),
        ("30_000_000_000", 30 * 10**9),
        ("8", 8),
        ("2k", 2000),
        ("0.5M", 500_000),
    ],
)
def test_human_counts(text, count):
    assert parse_count(text) == count


@pytest.mark.parametrize(
    ("text", "value"), [("80GB", 80 * 10**9), ("80GiB", 80 * 2**30), ("25MiB", 25 * 2**20), ("80e9", 80 * 10**9)]
)
def test_byte_units(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("text", ["1.5", "seven", "7X", "1e-3"])
def test_counts_must_be_whole_numbers(text):
    with pytest.raises(NotANumber):
        parse_count(text)


def test_a_bare_b_is_not_a_byte_unit():
    with pytest.raises(NotANumber, match="bare B"):
        parse_bytes("80B")


def test_floats_take_suffixes_too():
    assert parse_float("989e12") == 989e12 and parse_float("1.5T") == 1.5e12 and parse_float("0.4") == 0.4


def leaf_paths(schema_model) -> set[str]:
    return {flag.dotted for flag in request_flags(schema_model)}


@pytest.mark.parametrize("model", [PlanRequest, FitRequest, RecommendRequest, SweepRequest])
def test_every_request_field_has_a_flag(model):
    """Walk the JSON schema (not the code under test) for the leaf fields, and find a flag for each."""
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})

    def walk(node, prefix):
        node = defs[node["$ref"].split("/")[-1]] if "$ref" in node else node
        members = node.get("anyOf") or node.get("oneOf")
        if members and "properties" not in node:
            objects = [m for m in members if "$ref" in m and "properties" in defs[m["$ref"].split("/")[-1]]]
            others = [m for m in members if m not in objects and m.get("type") != "null"]
            if objects and not others:  # an optional nested object
                return walk(objects[0], prefix)
        if "properties" not in node:
            yield prefix
            return
        for name, sub in node["properties"].items():
            yield from walk(sub, f"{prefix}.{name}" if prefix else name)

    expected = set(walk(schema, ""))
    assert expected <= leaf_paths(model)


def test_dotted_and_short_flags(capsys):
    help_text = build_parser()._subparsers._group_actions[0].choices["plan"].format_help()  # noqa: SLF001
    for name in ("--training.sequence-length", "--sequence-length", "--levers.offload-optimizer", "--world-size"):
        assert name in help_text
    # 'model' is a group: activations.model keeps its dotted name only
    assert "--activations.model" in help_text


def test_flags_reach_training_levers_and_links(capsys):
    argv = ["plan", "--model", "llama-3-8b", "--world-size", "16", "--gpu", "h100-80gb", "--arrangement", "zero3"]
    argv += ["--sequence-length", "4096", "--micro-batch-size", "2", "--recompute", "full", "--offload-optimizer"]
    argv += ["--overlap", "false", "--links", "nvlink4-ib400", "--json"]
    code, out, err = zeroplan(capsys, *argv)
    assert code == 0, err
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
        "arrangement": "zero3",
        "training": {"sequence_length": 4096, "micro_batch_size": 2},
        "levers": {"recompute": "full", "offload_optimizer": True, "overlap": False},
    }
    assert json.loads(out) == planner.plan(PlanRequest.model_validate(body)).model_dump(mode="json")


def test_an_object_field_takes_dotted_flags_and_a_name_field_only_a_name(capsys):
    common = ("plan", "--parameter-count", "30B", "--world-size", "8", "--gpu", "seed-80gb")
    flags = ("--sharding.shard-optimizer", "true", "--sharding.shard-gradients", "true")
    code, out, err = zeroplan(capsys, *common, *flags, "--sharding.shard-parameters", "false", "--json")
    assert code == 0, err
    assert json.loads(out)["arrangement"]["name"] == "zero2"
    # the flags as one object where the name goes: refused, naming the field that takes it
    whole = '{"shard_optimizer": true, "shard_gradients": true, "shard_parameters": false}'
    code, out, err = zeroplan(capsys, *common, "--arrangement", whole, "--json")
    assert code != 0 and "sharding" in err


def test_seventy_billion_in_a_yaml_file(capsys, tmp_path: Path):
    request = tmp_path / "plan.yaml"
    request.write_text(
        "model:\n  parameter_count: 70e9\ncluster:\n  world_size: 64\n  gpu: seed-80gb\n"
        "  gpu_memory_bytes: null\narrangement: zero3\ntraining:\n  total_tokens: 1.5T\n"
    )
    code, out, err = zeroplan(capsys, "plan", "-f", str(request), "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["parameter_count"] == 70 * 10**9
    assert answer["time"]["total_tokens"] == 1_500_000_000_000


def test_missing_fields_are_named_by_their_flags(capsys):
    code, _, err = zeroplan(capsys, "plan", "--parameter-count", "70B", "--gpu", "seed-80gb")
    assert code == 2
    assert "--world-size: Field required" in err and "/cluster/world_size" not in err
    assert "--arrangement" in err


def test_a_bad_flag_value_names_the_flag(capsys):
    with pytest.raises(SystemExit) as exit_:
        run(["plan", "--world-size", "eight"])
    assert exit_.value.code == 2
    assert "--world-size" in capsys.readouterr().err


def test_sweep_from_flags_as_csv(capsys):
    # base.model.parameter_count and axes.parameter_count share a tail: the dotted name tells them apart
    argv = ["sweep", "--model.parameter-count", "30e9", "--cluster.world-size", "8", "--gpu", "seed-80gb"]
    argv += ["--base.arrangement", "zero3", "--axes.world-size", "8,16", "--axes.arrangement", "zero2,zero3", "--csv"]
    code, out, err = zeroplan(capsys, *argv)
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 4
    assert {r["fits"] for r in table} <= {"true", "false"}
    by_cell = {(r["arrangement"], r["world_size"]): r for r in table}
    assert by_cell[("zero3", "8")]["per_gpu_bytes"] == str(2 * 30 * 10**9)  # 16 B/weight / 8 GPUs
    assert by_cell[("zero3", "8")]["model"] == "30,000,000,000 parameters"


def test_nested_objects_by_their_leaves_and_json_from_a_file(capsys):
    config = Path(__file__).resolve().parents[1] / "data" / "hf_configs" / "llama-3.1-8b.json"
    argv = ["plan", "--model.hf-config", f"@{config}", "--world-size", "16", "--gpu", "seed-80gb"]
    argv += ["--arrangement", "zero3", "--cluster.link-spec.inter-node-bytes-per-s", "25e9", "--json"]
    code, out, err = zeroplan(capsys, *argv)
    assert code == 0, err
    answer = json.loads(out)
    assert "25 GB/s across nodes" in " ".join(answer["time"]["assumptions"])
    assert answer["parameter_count"] == 8_030_261_248  # Llama 3.1 8B, its safetensors index


def test_the_table_gives_throughput_and_the_budget(capsys):
    argv = ["plan", "--parameter-count", "30e9", "--world-size", "8", "--gpu", "seed-80gb", "--arrangement", "zero3"]
    code, out, _ = zeroplan(capsys, *argv, "--total-tokens", "16384001", "--gpu-hour-price", "2")
    assert code == 0
    # 8 GPUs x 1 x 2048 tokens per step: 16,384,001 tokens take 1,001 steps
    assert "tokens/s" in out and "16,384,001 tokens: 1,001 steps" in out and "GPU-hours, cost" in out


def test_a_figure_locally_and_through_a_server(capsys, tmp_path: Path):
    from tests.service_contract.conftest import app_with
    from tests.service_contract.live import running_server

    argv = ["figure", "memory-vs-gpus", "--parameter-count", "30e9", "--world-size", "8", "--gpu", "seed-80gb"]
    local = tmp_path / "local.svg"
    code, out, err = zeroplan(capsys, *argv, "-o", str(local))
    assert code == 0, err
    assert local.read_bytes().startswith(b"<?xml") and b"<svg" in local.read_bytes()
    remote = tmp_path / "remote.png"
    with running_server(app_with(access_log=False)) as url:
        code, out, err = zeroplan(capsys, *argv, "-o", str(remote), "--url", url)
    assert code == 0, err
    assert remote.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
