"""The torch.distributed (gloo, CPU) mini-simulation that measures the bytes the service predicts.

This package imports without torch: only the rank-side modules (ring, model, trainer, worker,
launcher, checkpoint, reference) import it, lazily, in the processes that run ranks. The API
asks ``sim_available()`` and answers 503 naming the ``sim`` extra when torch is absent.
"""

import importlib.util

from service.sim.errors import SIM_EXTRA_HINT, SimulationUnavailable


def sim_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def require_sim() -> None:
    if not sim_available():
        raise SimulationUnavailable(f"the simulation needs torch, which is not installed: {SIM_EXTRA_HINT}")
