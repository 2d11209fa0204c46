"""Megatron-LM's vocabulary-parallel cross entropy without --cross-entropy-loss-fusion (activations.cross_entropy
vocab_parallel): each step its own kernel over an fp32 copy of the rank's b x s x V / t logits
(megatron/core/tensor_parallel/cross_entropy.py @1e057005, _VocabParallelCrossEntropy)."""

from dataclasses import replace

import pytest

from bench.calibration.layout_groups import QWEN3_235B_LAYOUTS
from bench.calibration.model import layout_evaluation, plan_request
from models.enums import CrossEntropy, Recompute
from models.plan import PlanRequest
from service.answers.plan import plan
from service.time.efficiency import Device, Efficiency, KernelShape, loss_bytes_per_vocab_token, micro_batch_compute

H100_HBM_BYTES_PER_S = 3.35e12  # H100 SXM5 datasheet
QWEN3_235B_VOCAB = 151_936


def test_the_kernels_bytes_per_token_and_vocabulary_entry():
    # forward: .float() reads 2 and writes 4; max reads 4; the in-place subtraction of the max reads and writes 4;
    # the in-place exp reads and writes 4; its sum reads 4; the in-place division into the softmax reads and writes 4
    forward = (2 + 4) + 4 + (4 + 4) + (4 + 4) + 4 + (4 + 4)
    # backward: grad_input.mul_(grad_output) reads and writes 4; autograd casts the fp32 gradient to bf16 (4 + 2)
    backward = (4 + 4) + (4 + 2)
    assert loss_bytes_per_vocab_token(CrossEntropy.vocab_parallel) == (forward, backward) == (38, 14)
    # the other forms keep the fp32 logits written, read for the softmax and the gradient written: 12, a third forward
    assert loss_bytes_per_vocab_token(CrossEntropy.unfused) == (4, 8)
    assert loss_bytes_per_vocab_token(CrossEntropy.fused) == (4, 8)


def test_a_micro_batch_with_the_loss_moves_its_bytes_over_hbm():
    shape = KernelShape(
        layers=1,
        hidden_size=4096,
        attention_width=8192,
        kv_width=512,
        ffn_hidden_size=12288,
        gated=True,
        vocab_size=QWEN3_235B_VOCAB,
        attention_heads=64,
    )
    device = Device(989.4e12, H100_HBM_BYTES_PER_S, 132)
    tokens, t = 4096, 2
    plain = micro_batch_compute(Efficiency(device, shape), 1, tokens, Recompute.none, 0.0, 1, tensor=t)
    megatron = micro_batch_compute(
        Efficiency(device, shape, cross_entropy=CrossEntropy.vocab_parallel), 1, tokens, Recompute.none, 0.0, 1, t
    )
    entries = (QWEN3_235B_VOCAB // t) * tokens  # 75,968 x 4,096 on each of the 2 tensor ranks
    assert megatron.forward_s - plain.forward_s == pytest.approx((38 - 4) * entries / H100_HBM_BYTES_PER_S)
    assert megatron.backward_s - plain.backward_s == pytest.approx((14 - 8) * entries / H100_HBM_BYTES_PER_S)


def test_its_peak_is_the_fused_forms():
    run = QWEN3_235B_LAYOUTS[3]
    body = plan_request(run).model_dump(mode="json", exclude_none=True)
    peaks = []
    for loss in (CrossEntropy.fused, CrossEntropy.vocab_parallel):
        body["activations"]["cross_entropy"] = loss.value
        peaks.append(plan(PlanRequest.model_validate(body)).memory.per_gpu_bytes)
    assert peaks[0] == peaks[1]


def test_the_model_zoo_pp32_row_paces_on_its_last_stage_with_the_loss():
    """TP2 EP8 PP32 VPP3 (the Model Zoo's alltoall row): its last stage holds two layers and the loss and sets the
    pace, 512 micro-batches of 4,096 tokens a step; the unfused loss adds (38 + 14) - 12 = 40 bytes per token and
    vocabulary entry of the rank's 75,968."""
    run = QWEN3_235B_LAYOUTS[3]
    assert run.cross_entropy == "vocab_parallel" and run.pipeline == 32 and run.accumulation_steps == 512
    before = layout_evaluation(replace(run, cross_entropy=None))
    after = layout_evaluation(run)
    added_s = 512 * 40 * (QWEN3_235B_VOCAB // 2) * 4096 / H100_HBM_BYTES_PER_S  # 1.90 s
    assert after.compute_s - before.compute_s == pytest.approx(added_s, rel=1e-9)
    assert added_s == pytest.approx(1.90, abs=0.01)
