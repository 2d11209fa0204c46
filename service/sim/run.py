"""One simulation job end to end in this process: launch the ranks, build the report."""

from typing import Any

from service.sim.config import SimConfig


def simulate(cfg: SimConfig, deadline_s: float = 120.0) -> dict[str, Any]:
    from service.sim.launcher import launch
    from service.sim.report import build_report

    return build_report(cfg, launch(cfg, deadline_s))
