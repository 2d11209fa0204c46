"""Layouts against published numbers: Korthikanti et al. 2022 and Megatron-LM's theoretical memory.

Expected values are the published formulas written out here, on the published configurations.
"""

import math
from fractions import Fraction

import pytest

from models.common import ModelSpec
from models.enums import CrossEntropy, Recompute
from models.parallelism import PipelineSchedule
from models.presets import ModelPresetName
from service.inputs import resolve
from service.memory.activations import (
    StageLayers,
    TensorSplit,
    TransformerShape,
    dense_layer_bytes,
    stage_activation_components,
)
from service.mesh.pipeline import in_flight
from service.mesh.stages import stage_shares

N = ModelPresetName


def architecture(name: ModelPresetName):  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset=name)).architecture
    assert arch is not None
    return arch


# Korthikanti et al. 2022, table 3: GPT-3 175B, s = 2048, b = 1, t = 8 (a = 96, h = 12288).
S, B, H, A, T = 2048, 1, 12288, 96, 8
GPT3 = TransformerShape(layers=96, hidden_size=H, attention_heads=A, vocab_size=51200)


@pytest.mark.parametrize(
    ("row", "split", "keep_scores", "expected"),
    [
        # Table 2, per layer: "no parallelism" sbh(34 + 5as/h)
        ("none", TensorSplit(), True, S * B * H * 34 + 5 * A * S * S * B),
        # "tensor parallel (baseline)" sbh(10 + 24/t + 5as/(ht))
        ("tensor", TensorSplit(T), True, S * B * H * 10 + (S * B * H * 24 + 5 * A * S * S * B) // T),
        # "tensor + sequence parallel" sbh(34/t + 5as/(ht))
        ("tensor+sequence", TensorSplit(T, True), True, (S * B * H * 34 + 5 * A * S * S * B) // T),
        # "tensor parallel + selective activation recompute" sbh(10 + 24/t)
        ("tensor+selective", TensorSplit(T), False, S * B * H * 10 + S * B * H * 24 // T),
        # "tensor + sequence parallel + selective activation recompute" sbh(34/t)
        ("tensor+sequence+selective", TensorSplit(T, True), False, S * B * H * 34 // T),
    ],
)
def test_korthikanti_table_2(row, split, keep_scores, expected):
    assert dense_layer_bytes(S, B, GPT3, keep_scores, split) == expected, row


def test_korthikanti_table_2_full_recomputation():
    """Table 2, "full activation recompute": sbh(2) per layer, the layer's input."""
    layers = StageLayers(dense=96, moe=0, first=False, last=False)
    parts = stage_activation_components(B, S, GPT3, False, Recompute.full, layers, TensorSplit(T))
    assert parts["layer inputs (2sbh per layer)"] == 96 * 2 * S * B * H


@pytest.mark.parametrize(
    ("name", "layers", "hidden", "heads", "pipeline"),
    [
        # Korthikanti et al. 2022, table 3: the 530B (MT-NLG) and 1T models, t = 8, s = 2048, b = 1.
        (N.megatron_529_6b, 105, 20480, 128, 35),
        (N.megatron_1t, 128, 25600, 160, 64),
    ],
)
def test_korthikanti_first_stage_530b_and_1t(name, layers, hidden, heads, pipeline):
    """Section 4.2.3: the first stage of 1F1B holds p micro-batches of its L/p layers, so with tensor and
    sequence parallelism and selective recomputation its layers keep sbhL x 34 / t; the embedding's dropout
    mask adds sbh p / t (section 4.3)."""
    arch = architecture(name)
    assert (arch.layers, arch.hidden_size, arch.attention_heads) == (layers, hidden, heads)
    shape = TransformerShape(layers, hidden, heads, arch.vocab_size)
    flight = in_flight(PipelineSchedule.one_f_one_b, 0, pipeline, 1, micro_batches=8 * pipeline)
    assert flight == pipeline
    stage = StageLayers(layers // pipeline, 0, first=True, last=False, in_flight=flight)
    parts = stage_activation_components(1, 2048, shape, True, Recompute.selective, stage, TensorSplit(8, True))
    sbh = 2048 * 1 * hidden
    assert sum(parts.values()) == sbh * layers * 34 // 8 + sbh * pipeline // 8


def test_interleaved_first_stage_holds_korthikanti_penalty():
    """Section 4.2.3: the interleaved schedule holds p (1 + (p - 1)/(p v)) micro-batches on the first stage."""
    for p, v in ((8, 2), (4, 3), (35, 3)):
        assert in_flight(PipelineSchedule.interleaved, 0, p, v, micro_batches=4 * p) == Fraction(p) * (
            1 + Fraction(p - 1, p * v)
        )


# Megatron-LM megatron/training/theoretical_memory_usage.py on Mixtral 8x7B (swiglu, RMSNorm, no biases,
# untied, GQA 32/8 heads, 8 experts top-2 on every layer), with the distributed optimizer and bf16
# parameters, fp32 main gradients: 6 + 12/d bytes per parameter (the `megatron` precision under zero1),
# expert weights over the expert-data-parallel group (6 + 12/edp), expert tensor parallelism = t.
MIX_H, MIX_L, MIX_V, MIX_F, MIX_E = 4096, 32, 32000, 14336, 8


def megatron_most_loaded(t: int, p: int, e: int) -> tuple[float, float, float]:
    """(tp-sharded, replicated, expert-sharded) parameters of Megatron's most loaded shard, as it computes them."""
    h, layers = MIX_H, MIX_L
    attention = 2 * h * h * ((1 + 8 / 32) * 1)  # self_attn_term: kv_channels x heads = h
    layernorm = 2 * h
    router = h * MIX_E
    routed = 2 * h * MIX_F * MIX_E * 3 / 2
    embedding = h * MIX_V
    tp = (attention * layers / p + embedding) / t
    replicated = ((layernorm + router) * layers + h) / p  # the final norm spread over the stages
    expert = routed * layers / p / (t * e)
    if p == 1:
        tp += embedding / t  # untied: the output layer on the same shard
    return tp, replicated, expert


@pytest.mark.parametrize(("world", "t", "p", "e"), [(64, 2, 4, 4), (64, 8, 1, 8), (32, 4, 2, 2)])
def test_megatron_weight_and_optimizer_memory(world, t, p, e):
    arch = architecture(N.mixtral_8x7b)
    d = world // (t * p)
    edp = world // (t * e * p)
    tp, replicated, expert = megatron_most_loaded(t, p, e)
    megatron_bytes = (tp + replicated) * (6 + 12 / d) + expert * (6 + 12 / edp)
    first = stage_shares(arch, t, p, e)[0]
    # Megatron's estimator charges every stage 1/p of the final norm; here it sits on the last stage only.
    final_norm_share = MIX_H / p if p > 1 else 0
    assert first.dense_parameters == tp + replicated - final_norm_share
    assert first.expert_parameters == expert
    ours = first.dense_parameters * 6 + 12 * first.dense_parameters // d + expert * 6 + 12 * int(expert) // edp
    assert math.isclose(ours, megatron_bytes - final_norm_share * (6 + 12 / d), rel_tol=1e-15)


def megatron_activations(t: int, p: int, v: int | None, m: int, vocab: int) -> float:
    """compute_activation_memory (sequence parallel, selective recomputation) for GPT-3 175B, s 2048, b 1;
    ``vocab`` is its padded_vocab_size (given the preset's 50,257 here, unpadded)."""
    s, b, h, ffn, layers = 2048, 1, 12288, 4 * 12288, 96
    memory = s * b * h * (18 + 4 * ffn / h) * layers
    memory += 8 * s * b * p + s * b * h * p
    if v is not None:
        memory *= 1 + (p - 1) / (p * v)
    elif p > 1:
        memory *= min(1, m / p)
    if p == 1:
        memory += s * b * h * 4 * (1 + vocab / h)
    return memory / t


@pytest.mark.parametrize(("t", "p", "v"), [(8, 8, None), (8, 8, 2), (8, 1, None), (4, 16, 3)])
def test_megatron_activation_memory(t, p, v):
    """The first stage as Megatron's estimator has it, less its 8 s b p bytes of input token ids (not
    counted here: they are not activations of the model's layers)."""
    arch = architecture(N.gpt3_175b)
    shape = TransformerShape(arch.layers, arch.hidden_size, arch.attention_heads, arch.vocab_size)
    m = 4 * p
    schedule = PipelineSchedule.interleaved if v else PipelineSchedule.one_f_one_b
    flight = in_flight(schedule, 0, p, v or 1, m)
    stage = StageLayers(96 // p, 0, first=True, last=p == 1, in_flight=flight)
    parts = stage_activation_components(
        1, 2048, shape, True, Recompute.selective, stage, TensorSplit(t, True), CrossEntropy.fused
    )
    penalty = 1 + (p - 1) / (p * v) if v else 1
    token_ids = 8 * 2048 * p * penalty / t
    # The estimator's loss term is the fp32 logits, 4sbV / t; Megatron's own vocabulary-parallel cross entropy
    # (megatron/core/tensor_parallel/cross_entropy.py @d98e8a64) holds the bf16 logits beside them, 2sbV / t more.
    bf16_logits = 2 * 2048 * arch.vocab_size / t if p == 1 else 0
    expected = megatron_activations(t, p, v, m, arch.vocab_size) - token_ids + bf16_logits
    assert math.isclose(sum(parts.values()), expected, rel_tol=1e-12)
