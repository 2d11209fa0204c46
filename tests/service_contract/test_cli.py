"""The zeroplan command: in process through the core, and through a server with --url."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cli.main import run
from models.plan import PlanRequest
from service.answers import plan as planner
from tests.service_contract.conftest import FIT_BODY, PLAN_BODY, TOKEN, app_with
from tests.service_contract.live import running_server

PLAN_FLAGS = ["--parameter-count", "30e9", "--world-size", "8", "--gpu", "seed-80gb", "--arrangement", "zero3"]


def zeroplan(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_from_flags_as_json_equals_the_core(capsys):
    code, out, _ = zeroplan(capsys, "plan", *PLAN_FLAGS, "--json")
    assert code == 0
    assert json.loads(out) == planner.plan(PlanRequest.model_validate(PLAN_BODY)).model_dump(mode="json")


def test_plan_prints_a_table(capsys):
    code, out, _ = zeroplan(capsys, "plan", *PLAN_FLAGS)
    assert code == 0
    assert "arrangement zero3" in out and "reduce_scatter" in out and "fits a card of 74.5 GiB" in out
    assert "7,500,000,000" in out  # bf16 parameters / 8 GPUs


def test_a_yaml_file_with_flags_overriding_it(capsys, tmp_path: Path):
    request = tmp_path / "plan.yaml"
    request.write_text(
        "model:\n  parameter_count: 30_000_000_000\ncluster:\n  world_size: 8\n  gpu: seed-80gb\narrangement: ddp\n"
    )
    code, out, _ = zeroplan(capsys, "plan", "-f", str(request), "--arrangement", "zero2", "--json")
    assert code == 0
    assert json.loads(out)["arrangement"]["name"] == "zero2"


def test_a_json_file_for_fit(capsys, tmp_path: Path):
    request = tmp_path / "fit.json"
    request.write_text(json.dumps(FIT_BODY))
    code, out, _ = zeroplan(capsys, "fit", "-f", str(request))
    assert code == 0
    assert "zero3" in out and "exact minimum is 6 GPUs" in out


def test_fit_with_an_explicit_grid(capsys):
    argv = ["fit", "--parameter-count", "30e9", "--gpu", "seed-80gb", "--gpu-count-grid", "8,16,24", "--json"]
    code, out, _ = zeroplan(capsys, *argv)
    assert code == 0 and json.loads(out)["grid"] == [8, 16, 24]


def test_presets(capsys):
    code, out, _ = zeroplan(capsys, "presets")
    assert code == 0 and "seed-80gb" in out and "mixed_bf16_adam" in out


def test_invalid_input_names_the_field_and_exits_2(capsys):
    code, _, err = zeroplan(capsys, "plan", *PLAN_FLAGS, "--world-size", "12")
    assert code == 2
    assert "--world-size:" in err and "12 = 1 x gpus_per_node 8 + 4" in err


def test_a_count_that_is_not_whole_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        run(["plan", *PLAN_FLAGS, "--parameter-count", "1.5"])
    assert exit_info.value.code == 2
    assert "not a whole number" in capsys.readouterr().err


def test_a_missing_file(capsys, tmp_path: Path):
    code, _, err = zeroplan(capsys, "plan", "-f", str(tmp_path / "nowhere.yaml"))
    assert code == 2 and "nowhere.yaml" in err


@pytest.fixture(scope="module")
def server_url():
    with running_server(app_with(access_log=False)) as url:
        yield url


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", *PLAN_FLAGS],
        ["plan", *PLAN_FLAGS, "--json"],
        ["fit", "--parameter-count", "7e9", "--gpu", "h100-80gb"],
        ["presets"],
    ],
)
def test_url_gives_the_same_answer_as_the_core(capsys, server_url, argv):
    local = zeroplan(capsys, *argv)
    remote = zeroplan(capsys, *argv, "--url", server_url)
    assert remote == local and local[0] == 0


def test_url_reports_the_servers_problem(capsys, server_url):
    code, _, err = zeroplan(capsys, "plan", *PLAN_FLAGS, "--world-size", "12", "--url", server_url)
    assert code == 2
    assert "error 422 validation_error" in err and "--world-size:" in err and "request id" in err


def test_url_with_a_token(capsys):
    with running_server(app_with(access_log=False, api_token=TOKEN)) as url:
        denied = zeroplan(capsys, "presets", "--url", url, "--token", "wrong")
        allowed = zeroplan(capsys, "presets", "--url", url, "--token", TOKEN)
    assert denied[0] == 2 and "error 401 unauthorized" in denied[2]
    assert allowed[0] == 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_runs_uvicorn_with_the_settings():
    port = _free_port()
    env = os.environ | {"ZEROPLAN_LOG_LEVEL": "warning"}
    command = [sys.executable, "-m", "cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        ready = _poll(f"http://127.0.0.1:{port}/readyz", server)
        assert ready["status"] == "ready"
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _poll(url: str, server: subprocess.Popen, timeout_s: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"zeroplan serve exited: {server.stderr.read().decode() if server.stderr else ''}")
        try:
            return httpx.get(url, timeout=1.0).json()
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("zeroplan serve did not answer in time")


def test_recommend(capsys):
    code, out, _ = zeroplan(capsys, "recommend", "--parameter-count", "30e9", "--gpu", "seed-80gb", "--max-gpus", "64")
    assert code == 0 and "rank" in out and "zero3" in out


SWEEP_REQUEST = {
    "base": {
        "model": {"parameter_count": 30_000_000_000},
        "arrangement": "zero3",
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    },
    "axes": {"world_size": [1, 2, 4, 8, 16, 32, 64], "arrangement": ["ddp", "zero1", "zero2", "zero3"]},
    "fits_only": True,
}


def test_sweep_from_a_file_locally_and_through_a_server(capsys, tmp_path: Path, server_url):
    request = tmp_path / "sweep.json"
    request.write_text(json.dumps(SWEEP_REQUEST))
    code, out, _ = zeroplan(capsys, "sweep", "-f", str(request), "--json")
    assert code == 0
    columns = json.loads(out)["columns"]
    # the seeds' table: only ZeRO-2 from 32 and ZeRO-3 from 8 fit, on powers of two
    assert sorted(zip(columns["arrangement"], columns["world_size"], strict=True)) == [
        ("zero2", 32),
        ("zero2", 64),
        ("zero3", 8),
        ("zero3", 16),
        ("zero3", 32),
        ("zero3", 64),
    ]
    assert zeroplan(capsys, "sweep", "-f", str(request), "--json", "--url", server_url) == (code, out, "")
    code, table, _ = zeroplan(capsys, "sweep", "-f", str(request))
    assert code == 0 and "6 rows of 28 cells" in table


def test_simulate_locally_and_through_a_server(capsys, tmp_path: Path):
    pytest.importorskip("torch")
    request = tmp_path / "sim.json"
    request.write_text(json.dumps({"world_size": 2, "arrangements": ["zero2"], "steps": 2, "parameter_count": 50_000}))
    code, out, _ = zeroplan(capsys, "simulate", "-f", str(request), "--json")
    assert code == 0
    local = json.loads(out)
    assert local["status"] == "succeeded"
    assert all(c["payload_matches"] for c in local["report"]["arrangements"][0]["collectives"])
    with running_server(app_with(access_log=False, sim_db_path=str(tmp_path / "jobs.sqlite3"))) as url:
        code, out, _ = zeroplan(capsys, "simulate", "-f", str(request), "--json", "--url", url)
    remote = json.loads(out)
    assert code == 0 and remote["status"] == "succeeded"

    def exact(answer):
        return [
            (c["name"], c["formula_bytes"], c["payload_bytes"])
            for c in answer["report"]["arrangements"][0]["collectives"]
        ]

    assert exact(remote) == exact(local)


def test_an_unreachable_server_is_one_line_and_exit_1(capsys):
    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        code, out, err = zeroplan(capsys, "plan", *PLAN_FLAGS, "--url", url)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: cannot reach {url}: ") and "Traceback" not in err


def test_a_request_file_that_does_not_parse_is_one_line_and_exit_2(capsys, tmp_path):
    files = {
        "broken.yaml": "model: {parameter_count: 7e9}\narrangement: [zero3\n",
        "code.yaml": 'model: !!python/object/apply:os.system ["echo hi"]\n',
        "deep.json": "[" * 5000 + "]" * 5000,
        "broken.json": '{"model": {"parameter_count": 7e9}, "cluster": ',
        "long.json": '{"model": {"parameter_count": ' + "9" * 5000 + "}}",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text)
        code, _, err = zeroplan(capsys, "plan", "-f", str(path))
        assert code == 2, (name, err)
        assert "Traceback" not in err and err.startswith(f"error: {path}"), err


def test_a_figure_that_cannot_be_written_or_drawn_is_one_line_and_exit_2(capsys, tmp_path):
    figure = ["figure", "traffic", "-f", str(Path(__file__).resolve().parents[2] / "examples" / "figure.json")]
    code, _, err = zeroplan(capsys, *figure, "-o", str(tmp_path / "missing" / "t.svg"))
    assert code == 2 and "cannot write" in err and "Traceback" not in err
    code, _, err = zeroplan(capsys, *figure, "-o", str(tmp_path / "t.bmp"))  # PNG bytes were written into t.bmp
    assert code == 2 and ".png or .svg" in err and not (tmp_path / "t.bmp").exists()
    code, _, err = zeroplan(capsys, *figure, "--format", "png", "-o", str(tmp_path / "t.svg"))
    assert code == 2 and "disagree" in err and not (tmp_path / "t.svg").exists()
    flags = ["--model.parameter-count", "7e9", "--cluster.world-size", "8", "--cluster.gpu", "h100-80gb"]
    code, _, err = zeroplan(capsys, "figure", "layout-memory", *flags, "--parallelism.tensor", "2", "-o", "-")
    assert code == 2 and "needs the model's architecture" in err and "Traceback" not in err


def test_sweep_models_by_preset_names_and_no_empty_list_items(capsys):
    sweep = ["sweep", "-f", str(Path(__file__).resolve().parents[2] / "examples" / "sweep-models.yaml"), "--json"]
    code, out, err = zeroplan(capsys, *sweep, "--axes.model", "llama-2-7b,llama-3-8b")
    assert code == 0, err
    assert set(json.loads(out)["columns"]["model"]) == {"llama-2-7b", "llama-3-8b"}
    with pytest.raises(SystemExit) as exit_info:
        run([*sweep, "--axes.world-size", "8,,16"])
    assert exit_info.value.code == 2 and "without empty items" in capsys.readouterr().err


def test_a_simulation_past_the_services_sizes_is_refused_in_process_too(capsys):
    code, _, err = zeroplan(capsys, "simulate", "--world-size", "1000", "--parameter-count", "1000")
    assert code == 2 and "--world-size: 1000 is over the limit of 8" in err


def test_a_simulation_confirms_only_with_a_confirmed_verdict():
    """simulate's exit status: 0 for a job that succeeded with the verdict confirmed (or a report older than
    verdicts), 1 for a failed or cancelled job or a refuted or incomplete verdict."""
    from cli.main import confirmed

    assert confirmed({"status": "succeeded", "report": {"verdict": "confirmed"}})
    assert confirmed({"status": "succeeded", "report": {}})
    assert not confirmed({"status": "succeeded", "report": {"verdict": "refuted"}})
    assert not confirmed({"status": "failed", "report": {"verdict": "incomplete"}})
    assert not confirmed({"status": "cancelled", "report": None})
