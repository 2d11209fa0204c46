"""The README's commands that use examples/ run as written: each file exists and each command succeeds.

The test reads the README's shell code blocks; a line that names a file under examples/ is run:
`zeroplan ...` in process (with `--url` pointed at a live test server when it names one), and
`curl ...` against the same server (its localhost:8000 replaced by the server's address).
"""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from cli.main import run
from tests.service_contract.conftest import app_with
from tests.service_contract.live import running_server

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLES = ROOT / "examples"
DEFAULT_ADDRESS = re.compile(r"(https?://)?(localhost|127\.0\.0\.1):8000")


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, flags=re.S)


def example_commands() -> list[str]:
    commands = []
    for block in shell_blocks(README.read_text()):
        for line in block.replace("\\\n", " ").splitlines():
            if "examples/" not in line:
                continue
            words = shlex.split(line, comments=True)
            if words and any("examples/" in w for w in words) and words[0] in ("zeroplan", "curl"):
                commands.append(line.strip())
    return commands


COMMANDS = example_commands()


def test_the_readme_uses_examples():
    assert len(COMMANDS) >= 5
    named = {m for c in COMMANDS for m in re.findall(r"examples/[\w./-]+", c)}
    for path in named:
        assert (ROOT / path).is_file(), f"README names {path}, which does not exist"


def test_every_example_file_is_in_the_readme():
    named = {m for c in COMMANDS for m in re.findall(r"examples/([\w./-]+)", c)}
    assert {p.name for p in EXAMPLES.iterdir() if p.is_file()} <= named


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("jobs") / "jobs.sqlite3"
    with running_server(app_with(access_log=False, sim_db_path=str(db))) as url:
        yield url.rstrip("/")


@pytest.mark.parametrize("command", COMMANDS)
def test_the_readme_command_runs(command, server_url, capsys, monkeypatch, tmp_path):
    # From a folder of its own that has examples/: what a command writes (memory.svg) stays out of the tree.
    (tmp_path / "examples").symlink_to(EXAMPLES)
    monkeypatch.chdir(tmp_path)
    words = shlex.split(command, comments=True)
    if "simulate" in words or "/v1/simulations" in command:
        pytest.importorskip("torch")
    words = [DEFAULT_ADDRESS.sub(lambda m: server_url if m.group(1) else server_url.split("//")[1], w) for w in words]
    if words[0] == "zeroplan":
        words = ["" if w == "$ZEROPLAN_API_TOKEN" else w for w in words]  # the variable, unset
        code = run(words[1:])
        out, err = capsys.readouterr()
        assert code == 0, f"{command}\n{out}\n{err}"
        assert out.strip()
        return
    if shutil.which("curl") is None:
        pytest.skip("curl is absent")
    result = subprocess.run(
        [*words, "--silent", "--show-error", "--output", "/dev/null", "--write-out", "%{http_code}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"{command}\n{result.stderr}"
    assert result.stdout.startswith("2"), f"{command}: HTTP {result.stdout}"


def test_the_readme_client_snippet_runs(server_url, capsys, monkeypatch):
    """The README's Python block, against the live server, with the committed client on the path."""
    (snippet,) = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    monkeypatch.syspath_prepend(str(ROOT / "clients" / "python"))
    exec(compile(snippet.replace("http://127.0.0.1:8000", server_url), "README.md", "exec"), {})  # noqa: S102
    assert capsys.readouterr().out.strip() == "60000000000"  # ZeRO-3: 16 B/weight x 30e9 weights / 8 GPUs
