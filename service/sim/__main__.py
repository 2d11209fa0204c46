"""``python -m service.sim``: one JSON report on stdout; with --out, the report in that file and on stdout
the same tables ``zeroplan simulate`` prints (service/sim/table.py): the verdict, every check, the measurements
beside the plan's figures.

Standalone, it forks --world-size ranks on this machine (launcher.py). Under
``torchrun --nproc-per-node N -m service.sim ...`` each process is one rank (RANK, WORLD_SIZE,
MASTER_ADDR/PORT from torchrun; gloo, so CPU only) and rank 0 prints the report.
Arrangement names: ddp, zero1, zero2, zero3, and zero3-kept (ZeRO-3 keeping the forward gather).
``--engine torch`` runs PyTorch's own DDP, ZeroRedundancyOptimizer, FSDP2 and HSDP instead
(service/sim/engines/torch_cli.py; ``--engine torch --help`` for its flags).
"""

import argparse
import json
import os
import sys
from typing import Any

from models.enums import ArrangementName
from service.inputs.arrangements import sharding_for
from service.sim.config import SIM_PRECISIONS, RunSpec, SimConfig

KEPT_SUFFIX = "-kept"


def run_spec(name: str) -> RunSpec:
    keep = name.endswith(KEPT_SUFFIX)
    return RunSpec.of(sharding_for(ArrangementName(name.removesuffix(KEPT_SUFFIX))), keep_gather=keep)


def parse(argv: list[str]) -> tuple[SimConfig, argparse.Namespace]:
    ap = argparse.ArgumentParser(prog="python -m service.sim", description=__doc__)
    ap.add_argument("--config", help="a SimConfig JSON file (overrides the flags below)")
    ap.add_argument("--world-size", type=int, default=int(os.environ.get("WORLD_SIZE", 4)))
    ap.add_argument("--arrangements", default="ddp,zero1,zero2,zero3,zero3-kept")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--parameter-count", type=int, default=1_000_000)
    ap.add_argument("--precision", choices=sorted(SIM_PRECISIONS), default="mixed_bf16_adam")
    ap.add_argument("--collective-timeout-s", type=float, default=10.0)
    ap.add_argument("--timeout-s", type=float, default=120.0, help="hard wall-clock limit of the job")
    ap.add_argument("--out", help="write the report here instead of stdout")
    args = ap.parse_args(argv)
    if args.config:
        with open(args.config, encoding="utf-8") as f:
            return SimConfig.from_json(json.load(f)), args
    runs = tuple(run_spec(n.strip()) for n in args.arrangements.split(",") if n.strip())
    cfg = SimConfig(
        world_size=args.world_size,
        runs=runs,
        steps=args.steps,
        parameter_count=args.parameter_count,
        precision=args.precision,
        collective_timeout_s=args.collective_timeout_s,
    )
    return cfg, args


def emit(report: dict[str, Any], out: str | None) -> None:
    text = json.dumps(report, indent=1)
    if out:
        from service.sim.table import render_report

        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
        sys.stdout.write(render_report(report) + f"\n\nreport written to {out}\n")
    else:
        sys.stdout.write(text + "\n")


def under_torchrun() -> bool:
    return "TORCHELASTIC_RUN_ID" in os.environ or ("RANK" in os.environ and "LOCAL_RANK" in os.environ)


def torchrun_main(cfg: SimConfig, out: str | None) -> int:
    """One rank under torchrun; rank 0 emits the report (service/sim/torchrun.py)."""
    from service.sim.report import build_report
    from service.sim.torchrun import torchrun_rank
    from service.sim.worker import run_rank

    return torchrun_rank(cfg, run_rank, build_report, emit, out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from service.sim.engines import torch_cli

    if torch_cli.wants_torch(argv):
        return torch_cli.main(argv, emit, under_torchrun())
    cfg, args = parse(argv)
    if under_torchrun():
        return torchrun_main(cfg, args.out)
    from service.sim.run import simulate

    report = simulate(cfg, deadline_s=args.timeout_s)
    emit(report, args.out)
    return 0 if report["succeeded"] else 1


if __name__ == "__main__":
    sys.exit(main())
