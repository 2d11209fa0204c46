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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.arrangements import DDP, ZERO1, ZERO2, ZERO3  # noqa: E402
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


def main(argv: list[str]) -> int:
    which = argv[0] if argv else "both"
    ok = True
    if which in ("rings", "both"):
        ok = rings() and ok
    if which in ("torch", "both"):
        ok = torch_engine() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
