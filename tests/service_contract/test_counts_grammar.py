"""One grammar for counts, as the README states it: the JSON contract is numeric; the command line (flags and
request files) and the page take the human forms 70B, 15T, 30e9 and turn them into the same numbers.

Over HTTP a count is a JSON number (30e9 and 30000000000 are the same number); a string such as "70B" is
refused with a 422 that points at the field. The command line reads 70B as 70 x 10**9, exactly.
"""

import json

import pytest

from cli.main import build_parser, request_body
from cli.numbers import NotANumber, parse_count
from cli.operations import OPERATIONS

CASES = {"15T": 15 * 10**12, "70B": 70 * 10**9, "30e9": 30 * 10**9, "1.5T": 1_500 * 10**9, "8": 8}


@pytest.mark.parametrize(("text", "value"), CASES.items())
def test_the_command_line_reads_each_form_exactly(text, value):
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["7.5", "70 billion", "1e-3", "B"])
def test_the_command_line_refuses_what_is_not_a_whole_count(text):
    with pytest.raises(NotANumber):
        parse_count(text)


def test_a_request_file_takes_the_same_forms(tmp_path):
    request = tmp_path / "plan.yaml"
    request.write_text(
        "model: {parameter_count: 70B}\ntraining: {total_tokens: 15T}\n"
        "cluster: {world_size: 8, gpus_per_node: 8, gpu: h100-80gb}\narrangement: zero3\n"
    )
    args = build_parser().parse_args(["plan", "-f", str(request)])
    body = request_body(OPERATIONS["plan"], args)
    assert body["model"]["parameter_count"] == 70 * 10**9 and body["training"]["total_tokens"] == 15 * 10**12


def test_a_word_a_count_field_takes_is_kept_as_the_word(tmp_path):
    # training.checkpoint.interval_steps is a count or "auto" (the Young/Daly optimum): not a number to parse
    request = tmp_path / "plan.yaml"
    request.write_text(
        "model: {parameter_count: 8B}\ntraining: {total_tokens: 1T, checkpoint: {interval_steps: auto}}\n"
        "cluster: {world_size: 8, gpus_per_node: 8, gpu: h100-80gb}\narrangement: zero3\n"
    )
    body = request_body(OPERATIONS["plan"], build_parser().parse_args(["plan", "-f", str(request)]))
    assert body["training"]["checkpoint"]["interval_steps"] == "auto"
    request.write_text(request.read_text().replace("auto", "2K"))
    body = request_body(OPERATIONS["plan"], build_parser().parse_args(["plan", "-f", str(request)]))
    assert body["training"]["checkpoint"]["interval_steps"] == 2_000


def test_http_takes_json_numbers_in_either_notation(client):
    body = {
        "model": {"parameter_count": 0},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
    }
    plain = client.post("/v1/plan", json=body | {"model": {"parameter_count": 30_000_000_000}})
    exponent = client.post(
        "/v1/plan",
        content=json.dumps(body).replace('"parameter_count": 0', '"parameter_count": 30e9'),
        headers={"content-type": "application/json"},
    )
    assert plain.status_code == exponent.status_code == 200, exponent.text
    assert plain.json()["parameter_count"] == exponent.json()["parameter_count"] == 30 * 10**9


@pytest.mark.parametrize(("pointer", "field"), [("/model/parameter_count", "70B"), ("/training/total_tokens", "15T")])
def test_http_refuses_a_suffixed_string_and_names_the_field(client, pointer, field):
    body = {
        "model": {"parameter_count": 70 * 10**9},
        "training": {"micro_batch_size": 1, "sequence_length": 4096},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
    }
    section, name = pointer.strip("/").split("/")
    body[section] = body[section] | {name: field}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert pointer in [e["pointer"] for e in response.json()["errors"]]


def test_comma_lists_where_the_readme_says(tmp_path):
    args = build_parser().parse_args(["simulate", "--arrangements", "ddp,zero3", "--world-size", "2"])
    assert request_body(OPERATIONS["simulate"], args)["arrangements"] == ["ddp", "zero3"]
    flags = '[{"shard_optimizer": true, "shard_gradients": false, "shard_parameters": false}]'
    args = build_parser().parse_args(["simulate", "--arrangements", flags, "--world-size", "2"])
    assert request_body(OPERATIONS["simulate"], args)["arrangements"] == json.loads(flags)


def test_at_file_reads_a_json_field_from_a_file(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    args = build_parser().parse_args(["plan", "--model.hf-config", f"@{config}", "--world-size", "8"])
    assert request_body(OPERATIONS["plan"], args)["model"]["hf_config"]["hidden_size"] == 4096
