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
  inputs of the final layer norm and output projection (4sbh) and the loss's peak over the logits.
  Korthikanti counts the fp32 logits alone (4sbV); the peak is larger, as the loss runs
  (``activations.cross_entropy``): PyTorch's ``cross_entropy(logits.float(), ...)`` (torchtitan's
  loss) keeps the bf16 logits (2sbV) while ``log_softmax`` writes its fp32 output (4sbV), which it
  saves, and its backward writes an fp32 gradient (4sbV) beside that output: 10sbV. Megatron-LM's
  vocabulary-parallel cross entropy (megatron/core/tensor_parallel/cross_entropy.py @d98e8a64, and
  its fusion megatron/core/fusions/fused_cross_entropy.py) makes one fp32 copy of the logits
  (``calculate_logits_max``), exponentiates and normalises it in place into the softmax it saves,
  and writes the gradient in place over it (``grad_input = softmax``): beside the bf16 logits, 6sbV, fused
  (``--cross-entropy-loss-fusion``) or not (``vocab_parallel``).
  Vocabulary-parallel under tensor parallelism: / t.
The 34 assumes multi-head attention and a 4h MLP, as the paper does.

With tensor parallelism t (table 2's rows with t) a layer keeps 10sbh whole on every tensor rank
(the layer norms' inputs, the attention and MLP inputs, the two dropout masks) and divides 24sbh
and the scores by t: sbh(10 + 24/t + 5as/(ht)); sequence parallelism divides the 10sbh too:
sbh(34/t + 5as/(ht)). Context parallelism c gives each rank s/c of the sequence (its queries
against all s keys for the scores). A mixture-of-experts layer (Shazeer et al. 2017) keeps the
attention's 11sbh and the norms' 4sbh, and for each of the top_k routed and the shared experts a
token passes through, the MLP's input and dropout mask (3sbh) and its two inner activations
(4 s b f_e, of the expert's width f_e; 16sbh when f_e = 4h, Korthikanti's 19sbh in all). With a
latent width l (Megatron-LM's --moe-latent-size, megatron/core/transformer/moe/moe_layer.py: tokens
projected h -> l before dispatch and l -> h after combine) a routed expert's input and mask are of
width l, 3sbl, and the two projections keep their inputs for the weight gradients, 2sbh and 2sbl
(Korthikanti's rule for a linear layer's input, section 4.1); the projections are whole on every
tensor rank, so these stay whole too unless sequence parallelism splits the tokens.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from models.enums import CrossEntropy, MlpKind, Recompute
from service.inputs.architecture import (
    Architecture,
    Mla,
    moe_layer_count,
    routed_expert_width,
    shared_expert_width,
)
from service.numeric import FloatLike, IntLike, ceil_div, maximum, select


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
    moe_layers: int = 0  # of the layers, those with a mixture of experts
    expert_outer_width: int = 0  # the widths of the experts' inputs a token passes: top_k x (l or h) + shared x h
    expert_inner_width: int = 0  # their inner widths summed: top_k x f_e + shared x f_s
    latent_size: int = 0  # the routed experts' latent width l (0: none)
    gated_experts: bool = False  # the experts' MLP is gated (SwiGLU): 6 s b f_e kept, not 4
    # Bytes per token of the attention's activations kept whole on each tensor rank and divided over it; 0 and 0:
    # Korthikanti's multi-head attention, 3h and 8h. Multi-head latent attention sets its own (mla_attention_bytes).
    attention_whole_bytes: int = 0
    attention_split_bytes: int = 0
    ffn_hidden_size: int = 0  # the dense MLP's inner width f; 0: Korthikanti's 4h
    gated_mlp: bool = False  # the dense MLP is gated (SwiGLU, GeGLU): three matrices


def mla_attention_bytes(h: int, a: int, mla: Mla) -> tuple[int, int]:
    """(whole, divided over t) bytes per token of multi-head latent attention's activations, 16-bit, as
    Megatron-Core's MLASelfAttention runs it (megatron/core/transformer/multi_latent_attention.py @d98e8a64; DeepSeek-V2
    report, section 2.1): the layer input (2h) and the output dropout mask (h) as Korthikanti's; the down-projections
    are whole on every rank, so the RMSNorm input and up-projection input of the query's rank r_q (2 x 2 r_q) and of
    the compressed key/value rank r_kv (2 x 2 r_kv), and the shared rotary key d_rope (2 d_rope) stay whole. Divided
    over the heads: the queries and keys a (d_nope + d_rope) each, the values a d_v and the output projection's
    input a d_v, 2 bytes each (Korthikanti's 8h at MLA's widths)."""
    qk, v = mla.qk_nope_head_dim + mla.qk_rope_head_dim, mla.v_head_dim
    whole = PROJECTION_INPUT_SB * h + h + 2 * 2 * mla.q_lora_rank + 2 * 2 * mla.kv_lora_rank + 2 * mla.qk_rope_head_dim
    split = 2 * a * qk * 2 + 2 * a * v * 2
    return whole, split


def transformer_shape(arch: Architecture) -> TransformerShape:
    """The activation model's view of an architecture: its MoE layers count by the experts a token uses."""
    moe, h = arch.moe, arch.hidden_size
    whole, split = mla_attention_bytes(h, arch.attention_heads, arch.mla) if arch.mla is not None else (0, 0)
    gated = arch.mlp is not MlpKind.gelu
    if moe is None:
        return TransformerShape(
            arch.layers,
            h,
            arch.attention_heads,
            arch.vocab_size,
            attention_whole_bytes=whole,
            attention_split_bytes=split,
            ffn_hidden_size=arch.ffn_hidden_size,
            gated_mlp=gated,
        )
    return TransformerShape(
        arch.layers,
        h,
        arch.attention_heads,
        arch.vocab_size,
        moe_layer_count(arch),
        moe.top_k * routed_expert_width(arch) + moe.shared_experts * h,
        moe.top_k * moe.expert_ffn_hidden_size + moe.shared_experts * shared_expert_width(moe),
        moe.latent_size or 0,
        gated_experts=gated,
        attention_whole_bytes=whole,
        attention_split_bytes=split,
        ffn_hidden_size=arch.ffn_hidden_size,
        gated_mlp=gated,
    )


@dataclass(frozen=True)
class TensorSplit:
    """How a layer's activations divide over the tensor group; the defaults are one GPU (the degrees may be
    int64 arrays, one per layout; sequence parallelism is one choice for all of them)."""

    tensor: IntLike = 1
    sequence_parallel: bool = False
    context: IntLike = 1


ONE_GPU = TensorSplit()
# Korthikanti table 2: of 34sbh per layer, 10sbh stay whole on each tensor rank without sequence
# parallelism (2sbh input and sbh dropout mask each for attention and MLP, 4sbh of norm inputs).
REPLICATED_SBH, SPLIT_SBH = 10, 24
ATTENTION_SPLIT_SBH = 8  # Q, K, V and the projection input: the attention's share of the 24
EXPERT_REPLICATED_SBH = 3  # an MLP's input (2sbh) and dropout mask (sbh)
EXPERT_INNER_SBF = 4  # an MLP's two inner activations, 2 bytes each, of width f
# A gated MLP's: the first matrix's output of width 2f, which SwiGLU saves (megatron/core/fusions/
# fused_bias_swiglu.py @d98e8a64, SwiGLUFunction.forward: ctx.save_for_backward(input)), and its output of width
# f, the second matrix's input: 2 x 2f + 2f.
GATED_EXPERT_INNER_SBF = 6
ATTENTION_WHOLE_SBH = 3  # of the 10: the attention's input (2sbh) and dropout mask (sbh)
PROJECTION_INPUT_SB = 2  # a linear layer's 16-bit input, per element of its width
# The loss's peak per token and vocabulary entry (module docstring): bf16 logits + fp32 log-softmax + fp32 gradient,
# or bf16 logits + one fp32 buffer that is the softmax and then, in place, the gradient.
LOSS_PEAK_SBV: dict[CrossEntropy, int] = {
    CrossEntropy.unfused: 2 + 4 + 4,
    CrossEntropy.fused: 2 + 4,
    CrossEntropy.vocab_parallel: 2 + 4,  # the same tensors as the fused form, each step its own kernel
}
WORKING_WORDS: dict[bool, str] = {
    False: "one layer's working set while recomputed",
    True: "one layer's working set while recomputed, as DTensor keeps it (all-gathered inputs whole)",
}
GRADIENT_WORDS = "the recomputed layer's activation gradients at its widest (2sbh + 2sbf/t, or 4sbh)"
PIPELINING_WORDS = "torch.distributed.pipelining buffers (receive buffers per micro-batch, held outputs)"
LOSS_PEAK_WORDS: dict[CrossEntropy, str] = {
    CrossEntropy.unfused: "loss peak: bf16 logits, fp32 log-softmax and its fp32 gradient (10sbV)",
    CrossEntropy.fused: "loss peak: bf16 logits and one fp32 softmax, its gradient written in place (6sbV)",
    CrossEntropy.vocab_parallel: "loss peak: bf16 logits and one fp32 softmax, its gradient written in place (6sbV)",
}


def _scores(s: IntLike, b: IntLike, shape: TransformerShape, keep_scores: bool, split: TensorSplit) -> IntLike:
    """5 a s^2 b: the attention scores, softmax and dropout (of the rank's s/c queries against s keys)."""
    return 5 * shape.attention_heads * (s // split.context) * s * b if keep_scores else 0 * s * b


def _divided(replicated: FloatLike, divided: FloatLike, split: TensorSplit) -> IntLike:
    t = split.tensor
    kept: IntLike = ceil_div(replicated + divided, t) if split.sequence_parallel else replicated + ceil_div(divided, t)
    return kept


def _attention(sb: IntLike, shape: TransformerShape) -> tuple[IntLike, IntLike]:
    """(whole, divided) bytes of the attention's activations: Korthikanti's 3sbh and 8sbh, or the shape's own."""
    if shape.attention_whole_bytes or shape.attention_split_bytes:
        return shape.attention_whole_bytes * sb, shape.attention_split_bytes * sb
    sbh = sb * shape.hidden_size
    return ATTENTION_WHOLE_SBH * sbh, ATTENTION_SPLIT_SBH * sbh


def dense_layer_bytes(
    s: IntLike, b: IntLike, shape: TransformerShape, keep_scores: bool, split: TensorSplit = ONE_GPU
) -> IntLike:
    """Korthikanti table 2: sbh(10 + 24/t) + 5as^2b/t; with sequence parallelism sbh(34/t) + 5as^2b/t; multi-head
    latent attention's own widths in place of the attention's 3sbh and 8sbh."""
    sb = (s // split.context) * b
    sbh = sb * shape.hidden_size
    whole, divided = _attention(sb, shape)
    replicated = (REPLICATED_SBH - ATTENTION_WHOLE_SBH) * sbh + whole
    rest = (SPLIT_SBH - ATTENTION_SPLIT_SBH) * sbh + divided
    return _divided(replicated, rest + _scores(s, b, shape, keep_scores, split), split)


def moe_layer_bytes(
    s: IntLike, b: IntLike, shape: TransformerShape, keep_scores: bool, split: TensorSplit = ONE_GPU
) -> IntLike:
    """Attention and norms as a dense layer; the MLP's 3sbh (3sbl routed on a latent width) + 4sbf_e (6sbf_e gated)
    once per expert a token uses; with a latent width the projections' inputs, 2sb(h + l).

    The experts' inner activations divide by t whatever the expert tensor degree ETP: Megatron-Core's
    dispatcher gathers ETP ranks' s'b/t tokens each over the expert tensor group and each rank computes
    f_e / ETP of their width, ETP x s'b/t x f_e / ETP = s'b f_e / t (balanced routing)."""
    sb = (s // split.context) * b
    sbh = sb * shape.hidden_size
    projections = shape.hidden_size + shape.latent_size if shape.latent_size else 0
    experts = EXPERT_REPLICATED_SBH * shape.expert_outer_width + PROJECTION_INPUT_SB * projections
    whole, attention = _attention(sb, shape)
    norms = REPLICATED_SBH - EXPERT_REPLICATED_SBH - ATTENTION_WHOLE_SBH
    replicated = norms * sbh + whole + experts * sb
    inner = GATED_EXPERT_INNER_SBF if shape.gated_experts else EXPERT_INNER_SBF
    divided = attention + inner * sb * shape.expert_inner_width
    return _divided(replicated, divided + _scores(s, b, shape, keep_scores, split), split)


def _ffn_width(shape: TransformerShape, moe: bool) -> int:
    """The inner width f of a layer's MLP: the experts' a token passes summed in a mixture-of-experts layer."""
    if moe:
        return shape.expert_inner_width
    return shape.ffn_hidden_size or 4 * shape.hidden_size


def _gated(shape: TransformerShape, moe: bool) -> bool:
    return shape.gated_experts if moe else shape.gated_mlp


# torchtitan's Llama layer under DTensor tensor and sequence parallelism, as autograd saves it (torchtitan
# torchtitan/models/llama/model.py and torchtitan/parallelisms/parallelize_llama.py @9dec370, the 405B benchmark's
# commit): each norm's input stays sequence-sharded (SequenceParallel; a fused or compiled RMSNorm saves it and a
# per-token scale, the eager composite one two fp32 copies instead), its output is all-gathered to a replicated
# tensor that the projections save whole (PrepareModuleInput, Shard(1) -> Replicate()); the attention saves the
# rotated queries, the keys and values repeated to every local head (repeat_kv) and the output for the
# scaled-dot-product kernel (and a 4-byte log-sum-exp a head, left out); the MLP w2(silu(w1 x) * w3 x) saves w1 x,
# w3 x, silu(w1 x) and their product. tests/sim/test_saved_activations.py counts what autograd saves of such a block.
DTENSOR_NORM_INPUTS_SBH = 2 * 2  # two norms' 16-bit inputs
DTENSOR_GATHERED_INPUTS_SBH = 2 * 2  # the attention's and the MLP's all-gathered inputs, whole on every rank
DTENSOR_ATTENTION_SBH = 4 * 2  # queries, repeated keys and values, the attention output
DTENSOR_GATED_SBF = 4 * 2  # w1 x, w3 x, silu(w1 x) and the product; without a gate fc1's output and GELU's: 2 x 2
DTENSOR_PLAIN_SBF = 2 * 2


def dtensor_layer_bytes(
    s: IntLike, b: IntLike, shape: TransformerShape, keep_scores: bool, split: TensorSplit = ONE_GPU
) -> IntLike:
    """One dense layer's activations as torchtitan keeps them under DTensor tensor and sequence parallelism
    (DTENSOR_* above): sbh(4/t' + 4 + 8/t) + sbf(8 or 4)/t, t' = t with sequence parallelism (else 1), plus the
    scores without flash attention (5as^2b/t, Korthikanti). Beside Korthikanti's sbh(34/t) with sequence
    parallelism the two all-gathered inputs stay whole (Megatron-LM saves them sharded and gathers them again in
    the backward), the keys and values are repeated to every head, the MLP is of its real width and gate, and
    torchtitan's Llama has no dropout masks. Multi-head latent attention: Korthikanti's count at its widths."""
    if shape.attention_whole_bytes or shape.attention_split_bytes:
        return dense_layer_bytes(s, b, shape, keep_scores, split)
    t = split.tensor
    sp_t = t if split.sequence_parallel else 1
    sb = (s // split.context) * b
    sbh = sb * shape.hidden_size
    inner: Any = (DTENSOR_GATED_SBF if shape.gated_mlp else DTENSOR_PLAIN_SBF) * sb * _ffn_width(shape, False)
    divided: Any = DTENSOR_ATTENTION_SBH * sbh + inner + _scores(s, b, shape, keep_scores, split)
    kept: Any = ceil_div(DTENSOR_NORM_INPUTS_SBH * sbh, sp_t) + DTENSOR_GATHERED_INPUTS_SBH * sbh
    total: IntLike = kept + ceil_div(divided, t)
    return total


def backward_gradient_bytes(
    s: IntLike, b: IntLike, shape: TransformerShape, moe: bool, split: TensorSplit = ONE_GPU, *, separate_gate: bool
) -> IntLike:
    """The activation gradients one layer's backward holds at its widest, beyond the tensors it has released by
    then (16-bit; Korthikanti et al. 2022 count none). The MLP is the widest part: its output's gradient arrives
    all-gathered, whole on every tensor rank (the backward of the row-parallel projection's reduce-scatter under
    sequence parallelism; whole anyway without it), and the second matrix's backward writes its input's gradient,
    f/t wide, while that input is still saved: 2sbh + 2sbf/t. With the gate and up projections as two matrices
    (torchtitan's w1 and w3; ``separate_gate``) the MLP input's gradient is written twice, whole, before autograd
    sums the two (torch/csrc/autograd/input_buffer.cpp accumulates into the first), while SwiGLU's product and
    SiLU output are released and the two f-wide gradients take their place: 2 x 2sbh net. Megatron-LM's
    linear_fc1 is one fused matrix of width 2f (megatron/core/transformer/mlp.py @d98e8a64): one gradient."""
    sb = (s // split.context) * b
    h = shape.hidden_size
    second_matrix: Any = 2 * sb * h + ceil_div(2 * sb * _ffn_width(shape, moe), split.tensor)
    two_inputs = 2 * 2 * sb * h if separate_gate and _gated(shape, moe) else 0 * sb
    return maximum(second_matrix, two_inputs)


def layer_working_set_bytes(s: IntLike, b: IntLike, shape: TransformerShape, flash_attention: bool) -> IntLike:
    """Korthikanti table 2, no recomputation: 34sbh + 5as^2b (flash attention: 34sbh)."""
    return dense_layer_bytes(s, b, shape, not flash_attention)


def transformer_activation_components(
    b: IntLike,
    s: IntLike,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    cross_entropy: CrossEntropy = CrossEntropy.unfused,
    *,
    torch_native: bool = False,
) -> dict[str, IntLike]:
    """Bytes of each component on one GPU holding the whole model, keyed by a name the plan explains
    (``torch_native``: as stage_activation_components)."""
    if type(b) is int and type(s) is int:  # one plan: a pure function of hashable values, asked twice per plan
        return dict(_plan_components(b, s, shape, flash_attention, recompute, cross_entropy, torch_native))
    return _components(b, s, shape, flash_attention, recompute, cross_entropy, torch_native)


@lru_cache(maxsize=1024)
def _plan_components(
    b: int,
    s: int,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    cross_entropy: CrossEntropy,
    torch_native: bool = False,
) -> tuple[tuple[str, IntLike], ...]:
    return tuple(_components(b, s, shape, flash_attention, recompute, cross_entropy, torch_native).items())


def _components(
    b: IntLike,
    s: IntLike,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    cross_entropy: CrossEntropy,
    torch_native: bool = False,
) -> dict[str, IntLike]:
    layers = StageLayers(shape.layers - shape.moe_layers, shape.moe_layers, first=True, last=True)
    return stage_activation_components(
        b, s, shape, flash_attention, recompute, layers, cross_entropy=cross_entropy, torch_native=torch_native
    )


class Ratio(Protocol):
    """A Fraction, or a pair of int64 arrays (numerator, denominator) for many stages at once (the denominator
    1 where every stage's is)."""

    @property
    def numerator(self) -> IntLike: ...
    @property
    def denominator(self) -> IntLike: ...


@dataclass(frozen=True)
class ArrayRatio:
    numerator: IntLike
    denominator: IntLike


@dataclass(frozen=True)
class StageLayers:
    """What a pipeline stage holds: its dense and MoE layers, whether it has the embedding or the output layer.

    Python numbers for one stage; int64 and bool arrays for many stages of many layouts (service.engine.layout_grid).
    """

    dense: IntLike
    moe: IntLike
    first: FloatLike
    last: FloatLike
    in_flight: Ratio = Fraction(1)  # micro-batches of these layers held at the peak
    # Micro-batches held of the model chunk with the input embedding and of the one with the output layer (an
    # interleaved stage's chunks hold different counts: service.mesh.pipeline.chunk_in_flight); None: in_flight.
    first_in_flight: Ratio | None = None
    last_in_flight: Ratio | None = None
    # The m micro-batches of a pipelined step and the model chunks the stage runs, for the buffers
    # torch.distributed.pipelining keeps per micro-batch (pipelining_buffer_bytes); 0 micro-batches: no pipeline.
    micro_batches: IntLike = 0
    chunks: IntLike = 1


def _times(value: IntLike, factor: Ratio) -> IntLike:
    scaled = value * factor.numerator
    if not isinstance(factor.denominator, np.ndarray) and factor.denominator == 1:
        return scaled  # whole micro-batches: nothing to round
    return ceil_div(scaled, factor.denominator)


def _held(flag: FloatLike) -> bool:
    """Whether a stage part is reported: always for arrays (zero where the flag is off), else when on."""
    return isinstance(flag, np.ndarray) or bool(flag)


def _on(flag: FloatLike, value: IntLike) -> IntLike:
    if isinstance(flag, np.ndarray):
        return np.where(flag, value, 0)
    return value


def recompute_kind(recompute: Recompute, flash_attention: bool) -> tuple[bool, bool]:
    """What stage_activation_components reads of the recompute mode: whether the layers are recomputed whole, and
    whether the attention scores are kept (recompute none without flash attention). Modes of one kind hold the same
    bytes (selective recomputation drops only the scores, which flash attention never keeps)."""
    return recompute is Recompute.full, not flash_attention and recompute is Recompute.none


def stage_activation_components(
    b: IntLike,
    s: IntLike,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    layers: StageLayers,
    split: TensorSplit = ONE_GPU,
    cross_entropy: CrossEntropy = CrossEntropy.unfused,
    *,
    torch_native: bool = False,
) -> dict[str, IntLike]:
    """Activation bytes of one GPU of a stage, per component, with its micro-batches in flight.

    Beside the layers (Korthikanti et al. 2022, section 4.3): the first stage keeps the embedding
    output's dropout mask (sbh), the last the inputs of the final norm and output projection (4sbh)
    and the loss's peak over the logits (10sbV or 6sbV as the loss runs, module docstring;
    vocabulary-parallel: / t); with sequence parallelism the sbh terms are divided by t as well. Each is held for
    the micro-batches of its own model chunk (``first_in_flight``, ``last_in_flight``): on an interleaved stage the
    output layer's chunk runs each micro-batch's backward right after its forward.

    Under full recomputation one layer's activations are recomputed at a time (torch.utils.checkpoint, non-reentrant:
    the block's first saved tensor unpacked in the backward re-runs its whole forward; Megatron-LM's
    tensor_parallel.checkpoint likewise), so beside the layer inputs a stage holds that layer's working set
    (Korthikanti's layer, or dtensor_layer_bytes as torchtitan keeps it) and the gradients its backward writes
    (backward_gradient_bytes, a row of its own: Megatron-LM's theoretical_memory_usage.py counts none).

    ``torch_native``: the stage runs as torchtitan runs it (FSDP2 on DTensor tensor parallelism, pipelined by
    torch.distributed.pipelining): its recomputed layer as dtensor_layer_bytes, and, pipelined, the buffers
    pipelining_buffer_bytes counts.
    """
    h, flight = shape.hidden_size, layers.in_flight
    sbh = (s // split.context) * b * h
    sp_t = split.tensor if split.sequence_parallel else 1
    _, keep_scores = recompute_kind(recompute, flash_attention)
    dense = dense_layer_bytes(s, b, shape, keep_scores, split)
    moe = moe_layer_bytes(s, b, shape, keep_scores, split)
    per_micro_batch = layers.dense * dense + layers.moe * moe
    parts: dict[str, IntLike]
    if recompute is Recompute.full:
        dense_working = (dtensor_layer_bytes if torch_native else dense_layer_bytes)(
            s, b, shape, not flash_attention, split
        )
        working = select(layers.moe > 0, moe_layer_bytes(s, b, shape, not flash_attention, split), dense_working)
        gradients = select(
            layers.moe > 0,
            backward_gradient_bytes(s, b, shape, True, split, separate_gate=torch_native),
            backward_gradient_bytes(s, b, shape, False, split, separate_gate=torch_native),
        )
        parts = {
            "layer inputs (2sbh per layer)": _times((layers.dense + layers.moe) * ceil_div(2 * sbh, sp_t), flight),
            WORKING_WORDS[torch_native]: working,
            GRADIENT_WORDS: gradients,
        }
    elif recompute is Recompute.selective:
        parts = {"layers (34sbh per layer; attention core recomputed)": _times(per_micro_batch, flight)}
    else:
        parts = {"layers": _times(per_micro_batch, flight)}
    first_flight = flight if layers.first_in_flight is None else layers.first_in_flight
    last_flight = flight if layers.last_in_flight is None else layers.last_in_flight
    if _held(layers.first):
        parts["embedding output dropout mask (sbh)"] = _on(layers.first, _times(ceil_div(sbh, sp_t), first_flight))
    vocab = (s // split.context) * b * shape.vocab_size
    if _held(layers.last):
        parts["output layer: final layer norm and projection inputs (4sbh)"] = _on(
            layers.last, _times(ceil_div(4 * sbh, sp_t), last_flight)
        )
        peak = LOSS_PEAK_SBV[cross_entropy] * vocab
        parts[LOSS_PEAK_WORDS[cross_entropy]] = _on(layers.last, _times(ceil_div(peak, split.tensor), last_flight))
    if torch_native and _pipelined(layers.micro_batches):
        parts[PIPELINING_WORDS] = stage_pipelining_bytes(b, s, shape, layers, split)
    return parts


def stage_pipelining_bytes(
    b: IntLike, s: IntLike, shape: TransformerShape, layers: StageLayers, split: TensorSplit = ONE_GPU
) -> IntLike:
    """pipelining_buffer_bytes of a stage: the boundary tensor 2sbh (/ t with sequence parallelism, s / c) and the
    logits 2sbV (/ t, vocabulary-parallel), each end chunk at its own micro-batches in flight."""
    sp_t = split.tensor if split.sequence_parallel else 1
    sb = (s // split.context) * b
    boundary = ceil_div(2 * sb * shape.hidden_size, sp_t)
    logits = ceil_div(2 * sb * shape.vocab_size, split.tensor)
    first_flight = layers.in_flight if layers.first_in_flight is None else layers.first_in_flight
    last_flight = layers.in_flight if layers.last_in_flight is None else layers.last_in_flight
    return pipelining_buffer_bytes(layers, boundary, logits, first_flight, last_flight)


def _pipelined(micro_batches: IntLike) -> bool:
    return isinstance(micro_batches, np.ndarray) or bool(micro_batches)


def pipelining_buffer_bytes(
    layers: StageLayers, boundary: IntLike, logits: IntLike, first_flight: Ratio, last_flight: Ratio
) -> IntLike:
    """What torch.distributed.pipelining keeps beside the layers' activations on a stage of m micro-batches
    (torch/distributed/pipelining/stage.py @0138610331c9; a stage is one model chunk, a rank runs ``chunks`` of
    them), each ``boundary`` bytes, the tensor between two chunks (2sbh, / t with sequence parallelism):
    - a receive buffer for every micro-batch's input on every chunk but the model's first
      (PipelineStage._prepare_forward_infra) and for every micro-batch's output gradient on every chunk but the
      last (_prepare_backward_infra), allocated at the first step and kept: m x (2 chunks - first - last);
    - each micro-batch's output held in fwd_cache from its forward to its backward (forward_one_chunk; no
      deallocation of the sent output, as Megatron-LM's deallocate_output_tensor does). On a chunk that receives
      its input the held output takes the place of the input buffer the layer inputs already count (the buffer is
      the first layer's input), so only the first chunk's outputs add: its micro-batches in flight x boundary;
      and the last chunk's input buffers in flight are its first layer's inputs, counted once;
    - on the last chunk every micro-batch's output, the ``logits`` (2sbV, / t vocabulary-parallel: torchtitan's
      loss parallel), appended to output_chunks and kept until the next step's clear_runtime_states: m - 1 beside
      the one the loss peak counts.
    Ints for one stage, arrays for many (the flags as bool arrays)."""
    m: Any = layers.micro_batches
    first, last = layers.first, layers.last
    buffers = m * boundary * (2 * layers.chunks - _if(first, 1) - _if(last, 1))
    first_outputs = _if(first, _times(boundary, first_flight))
    last_inputs = _if(last, _times(boundary, last_flight))
    outputs = _if(last, maximum(m - 1, 0) * logits)
    return _if(m > 0, buffers + first_outputs - last_inputs + outputs)


def _if(flag: FloatLike, value: IntLike) -> IntLike:
    """``value`` where ``flag`` holds, else 0: element-wise for arrays."""
    if isinstance(flag, np.ndarray):
        return np.where(flag, value, 0)
    return value if flag else 0 * value


def transformer_activation_bytes(
    b: IntLike,
    s: IntLike,
    shape: TransformerShape,
    flash_attention: bool,
    recompute: Recompute,
    cross_entropy: CrossEntropy = CrossEntropy.unfused,
    *,
    torch_native: bool = False,
) -> IntLike:
    total: IntLike = 0
    parts = transformer_activation_components(
        b, s, shape, flash_attention, recompute, cross_entropy, torch_native=torch_native
    )
    for value in parts.values():
        total = total + value
    return total
