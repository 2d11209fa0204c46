"""Compute per optimizer step (Kaplan et al. 2020; Narayanan et al. 2021, appendix).

A dense transformer costs 6 x P FLOPs per token: 2 forward, 4 backward. Full recomputation
runs the forward again during the backward: 8 x P ("about a third more"). Selective
recomputation repeats only the attention core, which 6PT does not count (Korthikanti et al.
2022 measure 2.7% on GPT-3). Time = FLOPs / (N x peak x utilisation).
"""

from models.enums import Recompute
from service.numeric import FloatLike, IntLike

FORWARD_FLOPS_PER_WEIGHT_TOKEN = 2
BACKWARD_FLOPS_PER_WEIGHT_TOKEN = 4


def flops_per_weight_token(recompute: Recompute) -> int:
    recomputed = FORWARD_FLOPS_PER_WEIGHT_TOKEN if recompute is Recompute.full else 0
    return FORWARD_FLOPS_PER_WEIGHT_TOKEN + BACKWARD_FLOPS_PER_WEIGHT_TOKEN + recomputed


def tokens_per_step(
    world_size: IntLike, micro_batch_size: IntLike, sequence_length: IntLike, accumulation_steps: IntLike
) -> IntLike:
    return world_size * micro_batch_size * sequence_length * accumulation_steps


def step_flops(parameter_count: IntLike, tokens: IntLike, recompute: Recompute) -> FloatLike:
    """FLOPs of one optimizer step, in floating point (it passes 2**63 in realistic sweeps)."""
    return float(flops_per_weight_token(recompute)) * parameter_count * tokens


def compute_seconds(flops: IntLike, world_size: IntLike, peak_flops_per_s: float, utilisation: float) -> FloatLike:
    return flops / (world_size * peak_flops_per_s * utilisation)


def backward_fraction(recompute: Recompute) -> float:
    """Share of the step's compute in the backward pass (recomputation runs there)."""
    return (flops_per_weight_token(recompute) - FORWARD_FLOPS_PER_WEIGHT_TOKEN) / flops_per_weight_token(recompute)
