"""Wall time of the full verifications.

- rings (issue 5, acceptance 4): DP, ZeRO-1, ZeRO-2 and ZeRO-3 on 4 gloo ranks, 1M weights,
  10 steps, every measurement and check on. Target: under 20 s.
- torch (issue 13): PyTorch's DDP, ZeroRedundancyOptimizer, FSDP2 shard_grad_op and zero3, and
  HSDP (2 x 2) on 4 gloo ranks, then tensor 2 x data 2 and pipeline 2 x data 2 (zero3 and
  shard_grad_op each), the default tiny transformer, 3 steps, every check on. Target: the three
  jobs together under 60 s on 2 cores.

    .venv/bin/python bench/sim.py [rings|torch|both]
"""

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.inputs.arrangements import DDP, ZERO1, ZERO2, ZERO3  # noqa: E402
from service.sim.config import RunSpec, SimConfig  # noqa: E402
from service.sim.run import simulate  # noqa: E402

TARGET_S = 20.0
TORCH_TARGET_S = 60.0


def rings() -> bool:
    cfg = SimConfig(
        world_size=4, runs=tuple(RunSpec.of(s) for s in (DDP, ZERO1, ZERO2, ZERO3)), steps=10, parameter_count=1_000_000
    )
    started = time.perf_counter()
    report = simulate(cfg, deadline_s=120)
    wall_s = time.perf_counter() - started
    checks = all(
        a["payload_matches"]
        and a["memory_matches"]
        and a["wire_within_allowance"]
        and a["learning"]["identical"]
        and a["gradient_check"]["passed"]
        for a in report["arrangements"]
    )
    print(
        f"full verification: 4 arrangements x 4 ranks, {report['parameter_count']:,} weights, 10 steps: "
        f"{wall_s:.2f} s wall (target {TARGET_S:g} s); all checks {'pass' if checks else 'FAIL'}"
    )
    return bool(report["succeeded"]) and checks and wall_s < TARGET_S


def torch_engine() -> bool:
    from service.sim.engines.torch_config import TorchSimConfig
    from service.sim.engines.torch_run import simulate as simulate_torch

    jobs = [
        ("data 4", TorchSimConfig(world_size=4)),
        ("tensor 2 x data 2", TorchSimConfig(world_size=4, tensor=2, arrangements=("zero3", "shard_grad_op"))),
        (
            "pipeline 2 x data 2",
            TorchSimConfig(world_size=4, pipeline=2, micro_batches=2, arrangements=("zero3", "shard_grad_op")),
        ),
    ]
    ok, total_s = True, 0.0
    for label, cfg in jobs:
        started = time.perf_counter()
        report = simulate_torch(cfg, deadline_s=120)
        wall_s = time.perf_counter() - started
        total_s += wall_s
        names = ", ".join(a["arrangement"] for a in report["arrangements"])
        print(
            f"torch engine, {label}: {names} x 4 ranks, {report['parameter_count']:,} weights, {cfg.steps} steps: "
            f"{wall_s:.2f} s wall; all checks {'pass' if report['succeeded'] else 'FAIL'}"
        )
        ok = ok and bool(report["succeeded"])
    print(f"torch engine verification: {total_s:.2f} s wall in all (target {TORCH_TARGET_S:g} s)")
    return ok and total_s < TORCH_TARGET_S


SLOW_DELAY_S = 0.3
RISE_TARGET = 0.8
COLLECTIVE_TIMEOUT_S = 2.0
FAILURE_MARGIN_S = 10.0
RUN_MARGIN_S = 20.0


def _engines() -> dict[str, tuple[Callable[..., Any], Callable[..., dict[str, Any]]]]:
    """Per engine: a configuration with faults, and its simulate."""
    from service.sim.engines.torch_config import TorchSimConfig
    from service.sim.engines.torch_run import simulate as simulate_torch

    def rings_config(**faults: Any) -> SimConfig:
        return SimConfig(
            world_size=4,
            runs=(RunSpec.of(ZERO2),),
            steps=6,
            parameter_count=20_000,
            collective_timeout_s=COLLECTIVE_TIMEOUT_S,
            measure_builtin=False,
            **faults,
        )

    def torch_config(**faults: Any) -> TorchSimConfig:
        return TorchSimConfig(
            world_size=2, arrangements=("zero3",), steps=4, collective_timeout_s=COLLECTIVE_TIMEOUT_S, **faults
        )

    return {"rings": (rings_config, simulate), "torch": (torch_config, simulate_torch)}


def faults() -> bool:
    from service.sim.config import DroppedRank, SlowRank

    ok = True
    for engine, (config, run) in _engines().items():
        slow = run(config(slow_rank=SlowRank(rank=1, delay_s=SLOW_DELAY_S)), deadline_s=120)["faults"]["slow_rank"]
        ratios = [rise / SLOW_DELAY_S for rise in slow["rise_s"]]
        passed = slow["slow_rank"] == 1 and min(ratios) >= RISE_TARGET
        ok = ok and passed
        print(
            f"{engine}: slow rank 1 (+{SLOW_DELAY_S:g} s a step), named rank {slow['slow_rank']}; "
            "each rank's rise / delay: "
            + ", ".join(f"{r:.2f}" for r in ratios)
            + f" (target >= {RISE_TARGET:g}) {'pass' if passed else 'MISS'}"
        )
        started = time.perf_counter()
        report = run(config(dropped_rank=DroppedRank(rank=1, step=3, mode="exit")), deadline_s=120)
        wall_s = time.perf_counter() - started
        after = [f["after_s"] for f in report["faults"]["failure"]["failed_ranks"]]
        passed = max(after) <= COLLECTIVE_TIMEOUT_S + FAILURE_MARGIN_S and wall_s <= COLLECTIVE_TIMEOUT_S + RUN_MARGIN_S
        ok = ok and passed
        print(
            f"{engine}: dropped rank 1, the others failed after "
            + ", ".join(f"{a:.2f}" for a in after)
            + f" s (collective timeout {COLLECTIVE_TIMEOUT_S:g} s, target <= +{FAILURE_MARGIN_S:g} s); "
            f"run {wall_s:.2f} s (target <= +{RUN_MARGIN_S:g} s) {'pass' if passed else 'MISS'}"
        )
    return ok


def main(argv: list[str]) -> int:
    which = argv[0] if argv else "both"
    ok = True
    if which in ("rings", "both", "all"):
        ok = rings() and ok
    if which in ("torch", "both", "all"):
        ok = torch_engine() and ok
    if which in ("faults", "all"):
        ok = faults() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
