"""Issue 14: no orphan processes. A rank whose launcher is killed (SIGKILL, no clean-up runs) is ended
by the kernel, for both engines: the fork launcher is one (service/sim/launcher.py)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(120)]

ROOT = Path(__file__).resolve().parents[2]
LONG_JOB = ["--world-size", "2", "--steps", "100000", "--timeout-s", "90"]


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(
    "engine_args",
    [["--arrangements", "zero3"], ["--engine", "torch", "--arrangements", "zero3"]],
    ids=["rings", "torch"],
)
def test_the_ranks_end_when_their_launcher_is_killed(engine_args: list[str]) -> None:
    launcher = subprocess.Popen(
        [sys.executable, "-m", "service.sim", *engine_args, *LONG_JOB],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(ranks := children_of(launcher.pid)) < 2:
            assert launcher.poll() is None, "the launcher ended before its ranks started"
            assert time.monotonic() < deadline, "the ranks did not start"
            time.sleep(0.05)
    finally:
        if launcher.poll() is None:
            os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait()
    deadline = time.monotonic() + 10
    try:
        while any(alive(pid) for pid in ranks):
            assert time.monotonic() < deadline, f"ranks {ranks} outlived their launcher"
            time.sleep(0.05)
    finally:
        for pid in ranks:  # a failing run leaves nothing behind either
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
