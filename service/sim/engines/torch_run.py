"""Run a torch-engine job: fork the ranks on this machine, or one rank per process under torchrun.

The fork launcher is the rings engine's (service/sim/launcher.py): torch imported once, ranks
forked, a fresh gloo group on a free 127.0.0.1 port, every rank killed ``collective_timeout_s`` +
2 s after a failure and at the deadline, every child reaped. Under ``torchrun`` (RANK,
WORLD_SIZE, MASTER_ADDR/PORT set) each process is one rank; the results are gathered to rank 0,
which writes the same JSON report.
"""

import json
import multiprocessing as mp
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from service.sim.engines.torch_config import TorchSimConfig


def _child(cfg_json: dict[str, Any], rank: int, init_method: str, out_dir: str) -> None:
    import torch

    torch.set_num_threads(1)
    from service.sim.engines.torch_rank import run_rank

    result = run_rank(TorchSimConfig.from_json(cfg_json), rank, init_method)
    path = Path(out_dir) / f"rank-{rank}.json"
    path.with_suffix(".tmp").write_text(json.dumps(result))
    path.with_suffix(".tmp").rename(path)
    os._exit(0)  # skip atexit and gloo teardown, which can block on a dead peer


def launch(cfg: TorchSimConfig, deadline_s: float) -> dict[str, Any]:
    """Run every rank; return {"results": [per rank or None], "ranks": [process facts], ...}."""
    import torch

    from service.sim.launcher import _read, _supervise, free_port

    torch.set_num_threads(1)
    import service.sim.engines.torch_rank  # noqa: F401  (with FSDP2, DDP and the trackers: once, before the fork)

    ctx = mp.get_context("fork")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zeroplan-torch-") as out_dir:
        init_method = f"tcp://127.0.0.1:{free_port()}"
        procs = [
            ctx.Process(target=_child, args=(cfg.to_json(), r, init_method, out_dir)) for r in range(cfg.world_size)
        ]
        for p in procs:
            p.start()
        killed, timed_out = _supervise(procs, out_dir, cfg, started, deadline_s)  # type: ignore[arg-type]
        results = [_read(Path(out_dir) / f"rank-{r}.json") for r in range(cfg.world_size)]
    ranks = [{"rank": r, "pid": p.pid, "exit_code": p.exitcode, "killed": r in killed} for r, p in enumerate(procs)]
    return {"results": results, "ranks": ranks, "timed_out": timed_out, "wall_s": time.perf_counter() - started}


def simulate(cfg: TorchSimConfig, deadline_s: float = 120.0) -> dict[str, Any]:
    from service.sim.engines.torch_report import build_report

    return build_report(cfg, launch(cfg, deadline_s))


def torchrun_main(cfg: TorchSimConfig, emit: Any, out: str | None) -> int:
    """One rank under torchrun; rank 0 emits the report (service/sim/torchrun.py)."""
    from service.sim.engines.torch_rank import run_rank
    from service.sim.engines.torch_report import build_report
    from service.sim.torchrun import torchrun_rank

    return torchrun_rank(cfg, run_rank, build_report, emit, out)
