"""One rank per process under ``torchrun``, for either engine (the rings of service/sim/worker.py or
PyTorch's own in service/sim/engines/): run this rank, gather every rank's result to rank 0, which
writes the JSON report, then leave together.

torchrun sets RANK, WORLD_SIZE and MASTER_ADDR/PORT; the process group is initialised from them
(``env://``, gloo, so CPU only).
"""

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

RunRank = Callable[[Any, int, str], dict[str, Any]]  # (config, rank, init method) -> the rank's result
BuildReport = Callable[[Any, dict[str, Any]], dict[str, Any]]  # (config, launched) -> the report
Emit = Callable[[dict[str, Any], str | None], None]  # (report, --out) -> written


def torchrun_rank(cfg: Any, run_rank: RunRank, build_report: BuildReport, emit: Emit, out: str | None) -> int:
    """This process's rank; 1 when it failed (its failure as a JSON line on stderr). Rank 0 emits the
    report with every rank's result, as the fork launcher's would be."""
    import torch.distributed as dist

    cfg = replace(cfg, world_size=int(os.environ["WORLD_SIZE"]))
    rank = int(os.environ["RANK"])
    started = time.perf_counter()
    result = run_rank(cfg, rank, "env://")
    if result["failure"] is not None:
        sys.stderr.write(json.dumps(result["failure"]) + "\n")
        return 1
    gathered: list[Any] = [None] * cfg.world_size
    dist.gather_object(result, gathered if rank == 0 else None, dst=0)
    if rank == 0:
        ranks = [{"rank": r["rank"], "pid": r["pid"], "exit_code": None, "killed": False} for r in gathered]
        launched = {"results": gathered, "ranks": ranks, "timed_out": False, "wall_s": time.perf_counter() - started}
        emit(build_report(cfg, launched), out)
    leave_together()
    return 0  # not reached: leave_together ends the process


def leave_together() -> None:
    """End a torchrun rank after its peers are done with it, without gloo's teardown.

    The barrier keeps a rank from leaving while a peer still talks to it. The teardown is skipped
    (os._exit after flushing): gloo's pair destructors abort the process ("terminate called without
    an active exception", SIGABRT) when a peer has already closed its sockets, and torchrun then
    reports the job failed although every rank finished.
    """
    import torch.distributed as dist

    dist.barrier()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
