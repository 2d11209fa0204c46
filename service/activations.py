"""Activation memory per GPU: replicated on every GPU, untouched by sharding.

Two models:
- fudge, the textbook line: batch x seq x width x layers x bytes x fudge, where the
  fudge is a fudge and is reported as one.
- transformer, Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models", table 2 (16-bit activations, 1-byte dropout masks, no tensor parallelism):
  per layer s*b*h*(34 + 5*a*s/h) bytes = 34sbh + 5as^2b; flash attention keeps no s x s scores
  and drops the 5as^2b term; selective recomputation keeps 34sbh; full recomputation keeps the
  layer input, 2sbh per layer, plus one layer's working set while it is recomputed. Beside the
  layers (section 4.3, no pipeline parallelism): the embedding output's dropout mask (sbh), the
  inputs of the final layer norm and output projection (4sbh) and the fp32 logits for the loss
  (4sbV).
The 34 assumes multi-head attention and a 4h MLP, as the paper does.
"""

from dataclasses import dataclass

import numpy as np

from models.enums import Recompute
from service.numeric import IntLike


def fudge_activation_bytes(
    micro_batch_size: IntLike,
    sequence_length: IntLike,
    hidden_size: int,
    layers: int,
    bytes_per_value: int,
    fudge: float,
) -> IntLike:
    """b x s x h x L x bytes x fudge, rounded up to whole bytes (in floating point from the start,
    so no intermediate integer product can overflow a sweep's int64 arrays)."""
    raw = float(fudge) * bytes_per_value * hidden_size * layers * micro_batch_size * sequence_length
    if isinstance(raw, np.ndarray):
        return np.ceil(raw).astype(np.int64)
    return int(np.ceil(raw))


@dataclass(frozen=True)
class TransformerShape:
    layers: int
    hidden_size: int
    attention_heads: int
    vocab_size: int


def layer_working_set_bytes(s: IntLike, b: IntLike, shape: TransformerShape, flash_attention: bool) -> IntLike:
    """Korthikanti table 2, no recomputation: 34sbh + 5as^2b (flash attention: 34sbh)."""
    h, a = shape.hidden_size, shape.attention_heads
    scores = 0 if flash_attention else 5 * a * s * s * b
    return 34 * s * b * h + scores


def transformer_activation_components(
    b: IntLike, s: IntLike, shape: TransformerShape, flash_attention: bool, recompute: Recompute
) -> dict[str, IntLike]:
    """Bytes of each component, keyed by a name the plan explains."""
    h, layers = shape.hidden_size, shape.layers
    working_set = layer_working_set_bytes(s, b, shape, flash_attention)
    if recompute is Recompute.full:
        layers_part: dict[str, IntLike] = {
            "layer inputs (2sbh per layer)": layers * 2 * s * b * h,
            "one layer's working set while recomputed": working_set,
        }
    elif recompute is Recompute.selective:
        layers_part = {"layers (34sbh per layer; attention core recomputed)": layers * 34 * s * b * h}
    else:
        layers_part = {"layers": layers * working_set}
    return layers_part | {
        "embedding output dropout mask (sbh)": s * b * h,
        "output layer: final layer norm and projection inputs (4sbh)": 4 * s * b * h,
        "fp32 logits for the loss (4sbV)": 4 * s * b * shape.vocab_size,
    }


def transformer_activation_bytes(
    b: IntLike, s: IntLike, shape: TransformerShape, flash_attention: bool, recompute: Recompute
) -> IntLike:
    total: IntLike = 0
    for value in transformer_activation_components(b, s, shape, flash_attention, recompute).values():
        total = total + value
    return total
