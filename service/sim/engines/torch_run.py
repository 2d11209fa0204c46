"""Run a torch-engine job: fork the ranks on this machine, or one rank per process under torchrun.

The fork launcher is the rings engine's (service/sim/launcher.py): torch imported once, ranks
forked, a fresh gloo group on a free 127.0.0.1 port, every rank killed ``collective_timeout_s`` +
2 s after a failure and at the deadline, every child reaped. Under ``torchrun`` (RANK,
WORLD_SIZE, MASTER_ADDR/PORT set) each process is one rank; the results are gathered to rank 0,
which writes the same JSON report.
"""

from typing import Any

from service.sim.engines.torch_config import TorchSimConfig


def launch(cfg: TorchSimConfig, deadline_s: float) -> dict[str, Any]:
    """Run every rank with the rings engine's launcher (service/sim/launcher.py) and this engine's rank."""
    import torch

    torch.set_num_threads(1)
    from service.sim.engines.torch_rank import run_rank  # with FSDP2, DDP and the trackers: once, before the fork
    from service.sim.launcher import launch as launch_ranks

    return launch_ranks(cfg, deadline_s, run_rank, prefix="zeroplan-torch-")


def simulate(cfg: TorchSimConfig, deadline_s: float = 120.0) -> dict[str, Any]:
    from service.sim.engines.torch_report import build_report

    return build_report(cfg, launch(cfg, deadline_s))


def torchrun_main(cfg: TorchSimConfig, emit: Any, out: str | None) -> int:
    """One rank under torchrun; rank 0 emits the report (service/sim/torchrun.py)."""
    from service.sim.engines.torch_rank import run_rank
    from service.sim.engines.torch_report import build_report
    from service.sim.torchrun import torchrun_rank

    return torchrun_rank(cfg, run_rank, build_report, emit, out)
