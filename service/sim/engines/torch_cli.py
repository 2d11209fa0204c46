"""``python -m service.sim --engine torch``: the torch engine's command line (one JSON report).

Standalone it forks --world-size ranks on this machine (gloo, CPU). Under
``torchrun --nnodes M --nproc-per-node G -m service.sim --engine torch ...`` each process is one
rank (gloo, or NCCL with --backend nccl on GPUs) and rank 0 writes the report.
"""

import argparse
import json
import os
from collections.abc import Callable
from typing import Any

from service.sim.engines.torch_config import (
    ALL_ARRANGEMENTS,
    ENGINE,
    LAYOUT_ARRANGEMENTS,
    PIPELINE_SCHEDULES,
    TORCH_PRECISIONS,
    TinyArchitecture,
    TorchSimConfig,
    config_errors,
)

Emit = Callable[[dict[str, Any], str | None], None]


def wants_torch(argv: list[str]) -> bool:
    """True for --engine torch, or a --config file whose ``engine`` is torch."""
    for i, arg in enumerate(argv):
        if arg == f"--engine={ENGINE}" or (arg == "--engine" and argv[i + 1 : i + 2] == [ENGINE]):
            return True
        if arg == "--config" and i + 1 < len(argv):
            with open(argv[i + 1], encoding="utf-8") as f:
                return bool(json.load(f).get("engine") == ENGINE)
    return False


def parse(argv: list[str]) -> tuple[TorchSimConfig, argparse.Namespace]:
    ap = argparse.ArgumentParser(prog="python -m service.sim --engine torch", description=__doc__)
    ap.add_argument("--engine", choices=[ENGINE], default=ENGINE)
    ap.add_argument("--config", help="a TorchSimConfig JSON file (overrides the flags below)")
    ap.add_argument("--world-size", type=int, default=int(os.environ.get("WORLD_SIZE", 4)))
    ap.add_argument(
        "--arrangements", help=f"default {','.join(ALL_ARRANGEMENTS)}; with a layout {','.join(LAYOUT_ARRANGEMENTS)}"
    )
    ap.add_argument("--steps", type=int, default=3, help="optimizer steps, the first 2 unmeasured")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden-size", type=int, default=64)
    ap.add_argument("--attention-heads", type=int, default=4)
    ap.add_argument("--ffn-hidden-size", type=int, default=256)
    ap.add_argument("--vocab-size", type=int, default=128)
    ap.add_argument("--precision", choices=TORCH_PRECISIONS, default="mixed_bf16_adam")
    ap.add_argument("--ranks-per-node", type=int, default=2, help="hybrid's shard degree")
    ap.add_argument("--tensor", type=int, default=1, help="tensor-parallel degree (parallelism.tensor)")
    ap.add_argument("--pipeline", type=int, default=1, help="pipeline stages (parallelism.pipeline)")
    ap.add_argument("--micro-batches", type=int, default=None, help="per step with --pipeline (default: the stages)")
    ap.add_argument("--pipeline-schedule", choices=PIPELINE_SCHEDULES, default="1f1b")
    ap.add_argument("--backend", choices=["auto", "gloo", "nccl"], default="auto", help="auto: nccl when CUDA is there")
    ap.add_argument("--collective-timeout-s", type=float, default=10.0)
    ap.add_argument("--timeout-s", type=float, default=120.0, help="hard wall-clock limit of the job")
    ap.add_argument("--out", help="write the report here instead of stdout")
    args = ap.parse_args(argv)
    if args.config:
        with open(args.config, encoding="utf-8") as f:
            return TorchSimConfig.from_json(json.load(f)), args
    model = TinyArchitecture(args.layers, args.hidden_size, args.attention_heads, args.ffn_hidden_size, args.vocab_size)
    cfg = TorchSimConfig(
        world_size=args.world_size,
        arrangements=_arrangements(args),
        model=model,
        steps=args.steps,
        precision=args.precision,
        ranks_per_node=args.ranks_per_node,
        collective_timeout_s=args.collective_timeout_s,
        backend=_backend(args.backend),
        tensor=args.tensor,
        pipeline=args.pipeline,
        micro_batches=args.micro_batches or args.pipeline,
        pipeline_schedule=args.pipeline_schedule,
    )
    return cfg, args


def _arrangements(args: argparse.Namespace) -> tuple[str, ...]:
    if args.arrangements:
        return tuple(a.strip() for a in args.arrangements.split(",") if a.strip())
    return LAYOUT_ARRANGEMENTS if args.tensor > 1 or args.pipeline > 1 else tuple(ALL_ARRANGEMENTS)


def _backend(choice: str) -> str:
    if choice != "auto":
        return choice
    # NVML's count: initialising CUDA here would break the ranks forked from this process
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    import torch

    return "nccl" if torch.cuda.is_available() else "gloo"


def main(argv: list[str], emit: Emit, under_torchrun: bool) -> int:
    cfg, args = parse(argv)
    errors = config_errors(cfg)
    if errors:
        raise SystemExit("; ".join(message for _, message in errors))
    if under_torchrun:
        from service.sim.engines.torch_run import torchrun_main

        return torchrun_main(cfg, emit, args.out)
    from service.sim.engines.torch_run import simulate

    report = simulate(cfg, deadline_s=args.timeout_s)
    emit(report, args.out)
    return 0 if report["succeeded"] else 1
