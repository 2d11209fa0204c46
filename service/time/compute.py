"""Compute per optimizer step: model FLOPs, hardware FLOPs, MFU and throughput.

Model FLOPs per token, as the literature counts them (Chowdhery et al. 2022, PaLM, appendix B;
Korthikanti et al. 2022, section 6; torchtitan ``get_dense_model_nparams_and_flops``):

    6 x N + 12 x L x h x s

N is the parameters that take part in a matrix multiplication: all of them less the input
embedding, a lookup (with tied embeddings the shared matrix stays: it is the output layer's
matmul). 6 = 2 forward + 4 backward per weight and token; 12 x L x h x s is the attention
core (scores and the weighted sum of values, 2 matmuls of h x s per token and layer, forward 4
and backward 8), with causal sparsity not discounted, by the same convention. Without an
architecture only 6 x P is known, and the attention term is left out (said as an assumption).

Hardware FLOPs add what recomputation repeats (Korthikanti et al. 2022, sections 4.2 and 6):
full recomputation runs the forward again (2N + 4Lhs per token); selective recomputation repeats
the attention core's forward (4Lhs) when it was not stored, i.e. without flash attention (flash
attention's own recomputation in its backward is, by torchtitan's convention, not counted).

``training.utilisation`` is MFU: model FLOPs over the compute time at N x peak. A lever that
changes recomputation against the one the utilisation was given for (the request's own) keeps
the hardware efficiency (HFU) and pays for the extra FLOPs in time.
"""

from dataclasses import dataclass

from models.enums import Recompute
from service.numeric import FloatLike, IntLike

FORWARD_FLOPS_PER_WEIGHT_TOKEN = 2
BACKWARD_FLOPS_PER_WEIGHT_TOKEN = 4
ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN = 12  # x L x h x s: forward 4, backward 8
ATTENTION_FORWARD_SHARE = 4


@dataclass(frozen=True)
class FlopShape:
    """What the FLOP count needs of the model; layers = hidden_size = 0 when the architecture is unknown."""

    embedding_parameters: int = 0  # the input embedding: a lookup, no FLOPs (0 when tied to the output layer)
    layers: int = 0
    hidden_size: int = 0
    flash_attention: bool = True

    @property
    def counts_attention(self) -> bool:
        return self.layers > 0


def tokens_per_step(
    world_size: IntLike, micro_batch_size: IntLike, sequence_length: IntLike, accumulation_steps: IntLike
) -> IntLike:
    return world_size * micro_batch_size * sequence_length * accumulation_steps


def matmul_parameters(parameter_count: IntLike, shape: FlopShape) -> IntLike:
    """N of 6N: every parameter but the input embedding's lookup table."""
    return parameter_count - shape.embedding_parameters


def attention_flops_per_token(shape: FlopShape, sequence_length: IntLike) -> FloatLike:
    """12 x L x h x s (PaLM appendix B), in floating point."""
    return float(ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN * shape.layers * shape.hidden_size) * sequence_length


def model_flops_per_token(parameter_count: IntLike, shape: FlopShape, sequence_length: IntLike) -> FloatLike:
    """6 x N + 12 x L x h x s."""
    weights = float(FORWARD_FLOPS_PER_WEIGHT_TOKEN + BACKWARD_FLOPS_PER_WEIGHT_TOKEN)
    return weights * matmul_parameters(parameter_count, shape) + attention_flops_per_token(shape, sequence_length)


def forward_flops_per_token(parameter_count: IntLike, shape: FlopShape, sequence_length: IntLike) -> FloatLike:
    """2 x N + 4 x L x h x s: the forward third of the model FLOPs."""
    attention = attention_flops_per_token(shape, sequence_length) * (
        ATTENTION_FORWARD_SHARE / ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN
    )
    return float(FORWARD_FLOPS_PER_WEIGHT_TOKEN) * matmul_parameters(parameter_count, shape) + attention


def recomputed_flops_per_token(
    parameter_count: IntLike, shape: FlopShape, sequence_length: IntLike, recompute: Recompute
) -> FloatLike:
    """What the backward pass runs again: a whole forward (full), the attention core (selective, no flash)."""
    if recompute is Recompute.full:
        return forward_flops_per_token(parameter_count, shape, sequence_length)
    if recompute is Recompute.selective and not shape.flash_attention:
        return attention_flops_per_token(shape, sequence_length) * (
            ATTENTION_FORWARD_SHARE / ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN
        )
    return 0.0 * sequence_length


def hardware_flops_per_token(
    parameter_count: IntLike, shape: FlopShape, sequence_length: IntLike, recompute: Recompute
) -> FloatLike:
    return model_flops_per_token(parameter_count, shape, sequence_length) + recomputed_flops_per_token(
        parameter_count, shape, sequence_length, recompute
    )


def hardware_efficiency(
    utilisation: float, parameter_count: IntLike, shape: FlopShape, sequence_length: IntLike, measured: Recompute
) -> FloatLike:
    """HFU implied by an MFU given for the ``measured`` recomputation: MFU x hardware / model FLOPs."""
    model = model_flops_per_token(parameter_count, shape, sequence_length)
    return utilisation * hardware_flops_per_token(parameter_count, shape, sequence_length, measured) / model


def compute_seconds(
    hardware_flops: FloatLike, world_size: IntLike, peak_flops_per_s: float, efficiency: FloatLike
) -> FloatLike:
    """Hardware FLOPs over N x peak x the hardware efficiency."""
    return hardware_flops / (world_size * peak_flops_per_s * efficiency)


def flops_utilisation(flops: FloatLike, seconds: FloatLike, world_size: IntLike, peak_flops_per_s: float) -> FloatLike:
    """FLOPs over seconds x N x peak: MFU with model FLOPs, HFU with hardware FLOPs."""
    return flops / (seconds * world_size * peak_flops_per_s)


def tokens_per_second(tokens: IntLike, step_s: FloatLike) -> FloatLike:
    """Throughput of the whole job: tokens per optimizer step over the step time."""
    return tokens / step_s
