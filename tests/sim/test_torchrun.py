"""Issue 13, item 4: the simulation entry point under torchrun (one rank per process, rendezvous
through the environment), as a cluster runs it: the job exits 0 and rank 0 writes the same report."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(150)]

ROOT = Path(__file__).resolve().parents[2]


def under_torchrun(tmp_path: Path, ranks: int, args: list[str]) -> dict:
    """The report rank 0 writes for ``python -m service.sim ARGS`` run by torchrun on ``ranks`` processes."""
    out = tmp_path / "report.json"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(ranks)]
    command += ["-m", "service.sim", *args, "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE", "MASTER_", "LOCAL_"))}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=140)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def test_four_ranks_under_torchrun_write_the_report(tmp_path: Path) -> None:
    report = under_torchrun(tmp_path, 4, ["--engine", "torch", "--arrangements", "zero3"])
    assert report["engine"] == "torch" and report["world_size"] == 4 and report["succeeded"] is True
    [run] = report["arrangements"]
    assert run["arrangement"] == "zero3"


def test_the_rings_engine_under_torchrun_writes_the_report(tmp_path: Path) -> None:
    """The default engine (the hand-written rings) takes the same torchrun path: two ranks, ZeRO-2."""
    report = under_torchrun(tmp_path, 2, ["--arrangements", "zero2", "--steps", "2"])
    assert report["world_size"] == 2 and report["succeeded"] is True
    [run] = report["arrangements"]
    assert run["arrangement"] == "zero2"
