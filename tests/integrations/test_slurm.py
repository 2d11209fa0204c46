"""zeroplan in a real Slurm: job_submit.lua against a real single-node slurmctld and the real service.

Skipped, with the reason, where the Slurm daemons are not installed or the tests do not run as root
(``make test`` installs them as root: ``make slurm``)."""

import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.app import create_app
from api.settings import Settings
from tests.integrations import slurm
from tests.service_contract.live import running_server

WHY = slurm.missing()
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")

INTEGRATION = Path(__file__).resolve().parents[2] / "integrations" / "slurm"
TOKEN = "slurm-test-token"
FITS = {
    "model": {"preset": "llama-3-8b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192, "total_tokens": 1e9},
    "cluster": {"gpu": "h100-80gb"},
    "arrangement": "zero3",
}
TOO_BIG = {"model": {"preset": "llama-3-70b"}, "cluster": {"gpu": "h100-80gb"}, "arrangement": "ddp"}


@pytest.fixture(scope="module")
def planner() -> Iterator[str]:
    with running_server(create_app(Settings(api_token=TOKEN, access_log=False))) as url:  # type: ignore[call-arg]
        yield url


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, planner: str) -> Iterator[slurm.Slurm]:
    root = tmp_path_factory.mktemp("slurm")
    files = {name: (INTEGRATION / name).read_text() for name in ("job_submit.lua", "zeroplan.lua", "zeroplan_admit.py")}
    (root / "presets").mkdir()
    (root / "presets" / "llama3-8b-1b-tokens.json").write_text(json.dumps(FITS))
    token = root / "zeroplan.token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    running = slurm.start(root, files)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture()
def configure(cluster: slurm.Slurm, planner: str):  # noqa: ANN201
    def write(**overrides: object) -> None:
        config = {
            "url": planner,
            "token_file": str(cluster.root / "zeroplan.token"),
            "preset_dir": str(cluster.root / "presets"),
            "timeout_s": 5,
            "margin": 1.25,
            "on_error": "accept",
        } | overrides
        (cluster.root / "zeroplan.json").write_text(json.dumps(config))

    write()
    return write


def submit(cluster: slurm.Slurm, comment: str, *extra: str, gpus: int = 8):  # noqa: ANN201
    return cluster.run(
        "sbatch",
        "--hold",
        "-N",
        "1",
        f"--gres=gpu:{gpus}",
        "--output=/dev/null",
        f"--chdir={cluster.root}",
        f"--comment={comment}",
        *extra,
        "--wrap",
        "true",
    )


def job(cluster: slurm.Slurm, answer) -> dict[str, str]:  # noqa: ANN001
    assert answer.returncode == 0, answer.stderr
    job_id = re.search(r"Submitted batch job (\d+)", answer.stdout).group(1)  # type: ignore[union-attr]
    text = cluster.run("scontrol", "show", "job", job_id).stdout
    return dict(re.findall(r"(\w+)=(.*?)(?=\s+\w+=|\s*$)", text, flags=re.M))


def refused(answer) -> str:  # noqa: ANN001
    assert answer.returncode != 0, answer.stdout
    return answer.stderr


def test_a_job_that_fits_is_queued_with_the_predicted_limit(cluster, configure, planner):
    import httpx

    plan = httpx.post(
        f"{planner}/v1/plan",
        json={**FITS, "cluster": {**FITS["cluster"], "world_size": 8, "gpus_per_node": 8}},
        headers={"Authorization": f"Bearer {TOKEN}"},
    ).json()
    minutes = -(-plan["time"]["training_days"] * 1440 * 1.25 // 1)  # ceil, with the 1.25 margin
    fields = job(cluster, submit(cluster, "zeroplan:" + json.dumps(FITS)))
    hours, rest = divmod(int(minutes), 60)
    days, hours = divmod(hours, 24)
    expected = (f"{days}-" if days else "") + f"{hours:02d}:{rest:02d}:00"
    assert fields["TimeLimit"] == expected
    assert fields["AdminComment"].startswith("zeroplan: fits")
    assert f"time limit {int(minutes)} min" in fields["AdminComment"]


def test_a_preset_plan_and_a_users_own_limit(cluster, configure):
    fields = job(cluster, submit(cluster, "zeroplan:llama3-8b-1b-tokens", "--time=30"))
    assert fields["TimeLimit"] == "00:30:00"  # the user's own limit stays
    assert "the job's own limit of 30 min is shorter than the prediction" in fields["AdminComment"]


def test_a_plan_named_in_the_jobs_environment_is_checked_like_a_comment(cluster, configure):
    # sbatch exports the submitting shell's environment: ZEROPLAN_PLAN names the plan instead of --comment
    import subprocess

    env = cluster.env | {"ZEROPLAN_PLAN": "zeroplan:llama3-8b-1b-tokens"}
    args = ["sbatch", "--hold", "-N", "1", "--gres=gpu:8", "--output=/dev/null", f"--chdir={cluster.root}"]
    answer = subprocess.run([*args, "--wrap", "true"], env=env, capture_output=True, text=True, timeout=20)
    fields = job(cluster, answer)
    assert "AdminComment" in fields, cluster.log("slurmctld")[-3000:]
    assert fields["AdminComment"].startswith("zeroplan: fits")
    assert fields["TimeLimit"] != "UNLIMITED"


def test_a_job_that_cannot_fit_is_refused_with_the_reason_and_the_gpus_that_would_fit(cluster, configure):
    message = refused(submit(cluster, "zeroplan:" + json.dumps(TOO_BIG)))
    assert "the job does not fit" in message and "per GPU needed (ddp, 8 GPUs)" in message
    assert re.search(r"fits from \d+ GPUs", message), message


@pytest.mark.parametrize(
    ("comment", "words"),
    [
        ("zeroplan:{not json", "--comment is not a plan"),
        ("zeroplan:no-such-preset", "unknown zeroplan preset 'no-such-preset'"),
        (
            "zeroplan:" + json.dumps({**FITS, "cluster": {"gpu": "h100-80gb", "world_size": 16}}),
            "cluster.world_size 16 in the plan disagrees with the job's allocation",
        ),
        (
            "zeroplan:"
            + json.dumps({**FITS, "training": {**FITS["training"], "checkpoint": {"storage_bytes_per_s_per_node": 0}}}),
            "training.checkpoint.storage_bytes_per_s_per_node",
        ),
        (
            "zeroplan:"
            + json.dumps({**FITS, "cluster": {**FITS["cluster"], "failures": {"interruptions_per_gpu_hour": -1}}}),
            "cluster.failures.interruptions_per_gpu_hour",
        ),
    ],
)
def test_bad_input_is_a_clear_refusal_naming_the_field(cluster, configure, comment, words):
    assert words in refused(submit(cluster, comment))
    assert "UP" in cluster.run("scontrol", "ping").stdout  # the controller carries on


def test_a_job_without_a_plan_is_left_alone(cluster, configure):
    fields = job(cluster, submit(cluster, "an ordinary comment"))
    assert fields["TimeLimit"] == "UNLIMITED" and fields.get("AdminComment", "(null)") == "(null)"


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_a_planner_that_is_down_is_handled_as_configured(cluster, configure):
    configure(url=_closed_port(), on_error="accept")
    fields = job(cluster, submit(cluster, "zeroplan:" + json.dumps(FITS)))
    assert fields["AdminComment"].startswith("zeroplan: unchecked, the planner was unavailable")
    configure(url=_closed_port(), on_error="reject")
    assert "the planner is unavailable" in refused(submit(cluster, "zeroplan:" + json.dumps(FITS)))


def test_a_slow_planner_is_given_up_on_within_the_timeout(cluster, configure):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:  # accepts and never answers
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        configure(url=f"http://127.0.0.1:{listener.getsockname()[1]}", timeout_s=1, on_error="reject")
        message = refused(submit(cluster, "zeroplan:" + json.dumps(FITS)))
        assert "the planner is unavailable" in message and "refused by site policy" in message
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()
