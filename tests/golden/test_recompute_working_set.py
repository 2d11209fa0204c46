"""What a GPU holds beside the layers' kept activations: the recomputed layer under full recomputation, its
backward's gradients, torch.distributed.pipelining's buffers, and the end chunks of an interleaved pipeline.

Expected values are the arithmetic written out here from the sources each docstring names, never read back from
the code under test.
"""

from fractions import Fraction

import pytest

from models.enums import Recompute
from models.parallelism import PipelineSchedule
from models.presets import ModelPresetName as N
from service.memory.activations import (
    GRADIENT_WORDS,
    PIPELINING_WORDS,
    WORKING_WORDS,
    StageLayers,
    TensorSplit,
    TransformerShape,
    backward_gradient_bytes,
    dtensor_layer_bytes,
    stage_activation_components,
    transformer_shape,
)
from service.mesh.pipeline import end_chunk_in_flight
from tests.layouts.test_pipelined_fsdp import TORCHTITAN_405B_GIB, torchtitan_body
from tests.layouts.test_published import architecture
from tests.layouts.test_uneven_pipeline import LLAMA_405B_META

GIB = 2**30
# Llama 3.1 405B (Dubey et al. 2024, table 3): h 16,384, f 53,248 (SwiGLU), 128 heads, V 128,256.
H, F, A, V = 16384, 53248, 128, 128256
# torchtitan's 405B benchmark (benchmarks/llama3_h100_202412_torchtitan.md @b5bcd76c): local batch 32 over 8
# micro-batches of 4 sequences of 8,192 tokens, TP 8 with sequence parallelism.
S, B, T, M = 8192, 4, 8, 8
SB = S * B
SBH = SB * H


def llama_405b() -> TransformerShape:
    return transformer_shape(architecture(N.llama3_405b))


def test_the_shape_carries_the_mlp_width_and_gate():
    shape = llama_405b()
    assert (shape.hidden_size, shape.ffn_hidden_size, shape.gated_mlp) == (H, F, True)
    gpt3 = transformer_shape(architecture(N.gpt3_175b))
    assert (gpt3.ffn_hidden_size, gpt3.gated_mlp) == (4 * 12288, False)


def test_the_recomputed_layer_as_dtensor_keeps_it():
    """torchtitan/models/llama/model.py and parallelisms/parallelize_llama.py @9dec370, per token, 16-bit:
    attention_norm and ffn_norm inputs sequence-sharded (SequenceParallel): 2 x 2h / t; their outputs all-gathered
    to Replicate() and saved whole by wq/wk/wv and w1/w3: 2 x 2h; SDPA's q, repeat_kv's keys and values (all 128
    heads, / t) and its output: 4 x 2h / t; w1 x, w3 x, silu(w1 x), their product: 4 x 2f / t."""
    expected = 2 * 2 * SBH // T + 2 * 2 * SBH + 4 * 2 * SBH // T + 4 * 2 * SB * F // T
    assert expected == 4_697_620_480  # 4.375 GiB, against Korthikanti's 34 sbh / t = 2,281,701,376 (2.125 GiB)
    split = TensorSplit(T, True)
    assert dtensor_layer_bytes(S, B, llama_405b(), False, split) == expected


def test_the_backward_gradients_at_their_widest():
    """Megatron-LM's fused linear_fc1: the all-gathered output gradient (2sbh, whole) beside the f/t-wide gradient
    of linear_fc2's input, 2sbh + 2sbf/t. torchtitan's separate w1 and w3: the MLP input's gradient twice, whole,
    before autograd sums them, 4sbh (larger than 2sbh + 2sbf/t at f/t = 6,656 < h). GPT-3's GELU MLP (f = 4h):
    2sbh + 2sb(4h)/t."""
    split = TensorSplit(T, True)
    shape = llama_405b()
    assert backward_gradient_bytes(S, B, shape, False, split, separate_gate=False) == 2 * SBH + 2 * SB * F // T
    assert backward_gradient_bytes(S, B, shape, False, split, separate_gate=True) == 4 * SBH
    gpt3 = transformer_shape(architecture(N.gpt3_175b))
    sbh = 2048 * 12288
    expected = 2 * sbh + 2 * 2048 * 4 * 12288 // 8
    assert backward_gradient_bytes(2048, 1, gpt3, False, TensorSplit(8, True), separate_gate=True) == expected


def test_megatrons_full_recomputation_keeps_korthikantis_row_and_adds_the_gradients_apart():
    """Korthikanti et al. 2022 table 2 (full recompute: 2sbh per layer kept) and Megatron-LM's
    theoretical_memory_usage.py @d98e8a64 count neither the recomputed layer nor its gradients. The recomputed
    layer stays Korthikanti's sbh 34 / t (the row every Megatron comparison reads); its backward's gradients are
    a row of their own, so a comparison with Megatron's formula can leave them out by name."""
    gpt3 = transformer_shape(architecture(N.gpt3_175b))
    s, h = 2048, 12288
    sbh = s * h
    layers = StageLayers(dense=12, moe=0, first=False, last=False, in_flight=Fraction(8))
    parts = stage_activation_components(1, s, gpt3, True, Recompute.full, layers, TensorSplit(8, True))
    assert parts["layer inputs (2sbh per layer)"] == 12 * 8 * 2 * sbh // 8
    assert parts[WORKING_WORDS[False]] == 34 * sbh // 8
    assert parts[GRADIENT_WORDS] == 2 * sbh + 2 * s * 4 * h // 8
    assert set(parts) == {"layer inputs (2sbh per layer)", WORKING_WORDS[False], GRADIENT_WORDS}


def test_torch_pipelining_buffers_on_the_first_and_the_last_stage():
    """torch/distributed/pipelining/stage.py @0138610331c9, one chunk per rank (1F1B), m = 8, the boundary tensor
    X = 2sbh / t (the block output, sequence-sharded): the first stage keeps m output-gradient receive buffers
    (_prepare_backward_infra) and its in-flight outputs in fwd_cache (p = 8 on stage 0): 16 X. The last keeps m
    input receive buffers, one of them its first layer's input in flight already counted, and the logits of the
    other m - 1 micro-batches in output_chunks (2sbV / t, loss parallel): 7 X + 7 x 2sbV / t."""
    shape, split = llama_405b(), TensorSplit(T, True)
    boundary = 2 * SBH // T
    first = StageLayers(15, 0, True, False, Fraction(8), micro_batches=M)
    parts = stage_activation_components(B, S, shape, True, Recompute.full, first, split, torch_native=True)
    assert parts[PIPELINING_WORDS] == 16 * boundary == 2 * GIB
    last = StageLayers(15, 0, False, True, Fraction(1), micro_batches=M)
    parts = stage_activation_components(B, S, shape, True, Recompute.full, last, split, torch_native=True)
    assert parts[PIPELINING_WORDS] == 7 * boundary + 7 * (2 * SB * V // T)
    # Megatron-LM deallocates what it sends and receives per call: no such row without the convention.
    parts = stage_activation_components(B, S, shape, True, Recompute.full, first, split)
    assert PIPELINING_WORDS not in parts and parts[WORKING_WORDS[False]] == 34 * SBH // T


def plan(client, body):  # type: ignore[no-untyped-def]
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("gathered", "gathered_bytes"), [("bf16", 2), ("fp8", 1)])
def test_torchtitan_405b_busiest_gpu_written_out(client, gathered, gathered_bytes):
    """Stage 0 of torchtitan's 405B FSDP8 TP8 PP8 (15 layers and the embedding, 1F1B, 8 micro-batches in flight),
    every term written out. Model states: fp32 parameters, gradients and Adam's two moments over d = 8; working set:
    the stage's parameters gathered for the step and fp32 gradients accumulated unsharded (FSDP with pipelining).
    Activations: 15 x 8 layer inputs of 2sbh / t, the recomputed layer as DTensor keeps it, its backward's 4sbh,
    the embedding's sbh / t x 8, and the pipelining buffers, 16 x 2sbh / t. Before these terms: 64.1 GiB (bf16)
    and 58.3 GiB (fp8) allocated, 13.6% and 21.5% under the 82.5 GiB reserved; now 70.4 and 64.6 GiB, 78.2 and
    71.7 GiB reserved at the plan's 10% fragmentation: 5.2% and 13.1% under."""
    answer = plan(client, torchtitan_body(gathered))
    top = max(answer["memory"]["stages"], key=lambda stage: stage["per_gpu_bytes"])
    assert top["stage"] == 0
    share = top["parameters_per_gpu"]
    states = 4 * 4 * share // 8
    working = gathered_bytes * share + 4 * share
    activations = (
        15 * 8 * 2 * SBH // T
        + (2 * 2 * SBH // T + 2 * 2 * SBH + 4 * 2 * SBH // T + 4 * 2 * SB * F // T)
        + 4 * SBH
        + 8 * SBH // T
        + 16 * 2 * SBH // T
    )
    assert top["activations_bytes"] == activations
    assert top["per_gpu_bytes"] == answer["memory"]["per_gpu_bytes"] == states + working + activations
    reserved_gib = states / GIB + working / GIB + activations / GIB
    reserved_gib /= 0.9
    assert abs(reserved_gib / TORCHTITAN_405B_GIB - 1) <= 0.15, reserved_gib


def test_interleaved_end_chunks_hold_their_own_micro_batches():
    """Megatron-Core's interleaved schedule (schedules.py @d98e8a64, get_model_chunk_id: forward k runs chunk
    (k // p) mod v): of stage i's W = min(2 (p - i - 1) + (v - 1) p + 1, m v) warm-up forwards, chunk j holds
    min(p, W - j p) + min(p, W - (v + j) p). Meta's t8 p16 v8, m 32: the embedding's chunk (0 of stage 0) holds
    16 + 15 = 31, the output layer's (7 of stage 15) W - 7 x 16 = 113 - 112 = 1; 1F1B keeps the stage's own."""
    interleaved = PipelineSchedule.interleaved
    assert end_chunk_in_flight(interleaved, 0, 16, 8, 32, 0) == (31, 1)
    assert end_chunk_in_flight(interleaved, 15, 16, 8, 32, 7) == (1, 1)
    assert end_chunk_in_flight(PipelineSchedule.one_f_one_b, 0, 8, 1, 8, 0) == (8, 1)


def test_meta_405b_holds_the_loss_of_one_micro_batch(client):
    """Llama 3.1 405B as Meta ran it (Dubey et al. 2024, section 3.3.2 and table 4: t8 p16 interleaved, one layer
    fewer on the first and last stage, d64, 8K tokens; micro-batch 1 and v8 as the request says). The last stage's
    loss peak and output-layer inputs are held for one micro-batch, not the stage's 16: the busiest stage is now
    stage 1, whose 8 one-layer chunks hold 29 + 7 x 16 = 141 micro-batches of Korthikanti's 34sbh / t (no
    recomputation), 80.4 GB; with 3,187,933,184 parameters at Megatron's 6 + 12/64 bytes (bf16 parameters, fp32
    main gradients, the distributed optimizer over d = 64) and two 25 MiB buckets: 93.3 GiB (97.7 before, with
    the loss counted 16 times on stage 15). It does not fit an 80 GB H100, as Megatron-LM's own estimator
    (theoretical_memory_usage.py @d98e8a64) says of this layout too: s b h (18 + 4 f / h) L / t x (1 + (p - 1) /
    (p v)) = 73.2 GB of activations on the first stage. Sharding the gradients too, as Meta's FSDP does (section
    3.3.1), leaves the activations alone over the usable bytes: no published lever makes this request fit, and
    Meta's statement that it trained at 8K without activation checkpointing (section 3.3.2) rests on memory work
    it describes without figures."""
    answer = plan(client, LLAMA_405B_META)
    top = max(answer["memory"]["stages"], key=lambda stage: stage["per_gpu_bytes"])
    assert (top["stage"], top["layers"]) == (1, 8)
    sbh = 8192 * 1 * H
    assert top["activations_bytes"] == 141 * 34 * sbh // 8
    share = top["parameters_per_gpu"]
    assert share == 3_187_933_184
    states = 2 * share + 4 * share + 3 * (4 * share // 64)
    assert top["per_gpu_bytes"] == states + 2 * 25 * 2**20 + 141 * 34 * sbh // 8
    assert answer["memory"]["fits"] is False
    megatron_first_stage = 8192 * 1 * H * (18 + 4 * F / H) * 126 / 8 * (1 + 15 / (16 * 8))
    assert megatron_first_stage == pytest.approx(73.2e9, rel=1e-3)
    assert megatron_first_stage + states > 80e9
    # Section 3.3.1: Meta's FSDP shards the optimizer states and the gradients (zero2 here): the model states fall
    # to 2 + 16/64 bytes a parameter, the activations stay, and it still does not fit.
    sharded = plan(client, LLAMA_405B_META | {"arrangement": "zero2"})
    assert sharded["memory"]["fits"] is False
    assert sharded["memory"]["per_gpu_bytes"] - sharded["memory"]["usable_bytes"] > 5 * GIB
    last = answer["memory"]["stages"][-1]
    loss_and_output = 10 * 8192 * V // 8 + 4 * sbh // 8  # one micro-batch: Korthikanti's 4sbh and the loss peak
    assert last["activations_bytes"] == 16 * 7 * 34 * sbh // 8 + loss_and_output
