"""Command-line flags of each request field, by argparse dest (see operations.*_FLAGS)."""

import argparse
from typing import Any

from cli.inputs import count, grid

FLAG_OPTIONS: dict[str, dict[str, Any]] = {
    "model_preset": {"help": "model preset, e.g. llama-3-8b (see `zeroplan presets`)"},
    "parameter_count": {"type": count, "help": "parameter count, e.g. 30e9"},
    "precision": {"help": "precision preset, e.g. mixed_bf16_adam"},
    "gpu": {"help": "GPU preset, e.g. seed-80gb, h100-80gb"},
    "gpu_memory_bytes": {"type": count, "help": "usable GPU memory in bytes, e.g. 80e9"},
    "gpus_per_node": {"type": count, "help": "GPUs per node (G)"},
    "world_size": {"type": count, "help": "data-parallel GPU count (N)"},
    "arrangement": {"help": "ddp, zero1, zero2, zero3, no_shard, shard_grad_op, full_shard"},
    "gpu_count_grid": {"type": grid, "help": "powers_of_two, whole_nodes, or GPU counts like 8,16,24"},
    "max_gpus": {"type": count, "help": "largest GPU count tabulated"},
}


def add_request_flags(parser: argparse.ArgumentParser, dests: list[str]) -> None:
    for dest in dests:
        options = FLAG_OPTIONS.get(dest, {"help": dest})
        parser.add_argument("--" + dest.replace("_", "-"), dest=dest, **options)
