"""One simulation job end to end in this process: launch the ranks, build the report (either engine)."""

from typing import Any

from service.sim.config import SimConfig
from service.sim.engines.torch_config import TorchSimConfig


def simulate(cfg: SimConfig | TorchSimConfig, deadline_s: float = 120.0) -> dict[str, Any]:
    if isinstance(cfg, TorchSimConfig):
        from service.sim.engines.torch_run import simulate as simulate_torch

        return simulate_torch(cfg, deadline_s)
    from service.sim.launcher import launch
    from service.sim.report import build_report

    return build_report(cfg, launch(cfg, deadline_s))
