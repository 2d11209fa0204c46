"""Golden weight-gradient GEMMs accumulated into fp32 main gradients (service.time.efficiency, "Weight gradients into
fp32").

Megatron-LM accumulates each weight gradient into its fp32 gradient buffer inside the GEMM (gradient accumulation
fusion, on by default: megatron/training/arguments.py @1e057005 --no-gradient-accumulation-fusion; Transformer
Engine's fuse_wgrad_accumulation in megatron/core/extensions/transformer_engine.py, TELinear and TEGroupedLinear): the
epilogue reads the fp32 gradient and writes it back, 8 bytes an output element, where a fresh 16-bit gradient writes 2.
Qwen3-235B-A22B (h 4,096, f_e 1,536, SwiGLU, top 8 of 128 experts) at t4 e8, expert tensor 1, one 4,096-token
micro-batch: a rank routes 4,096 / 4 = 1,024 tokens, each expert receives 8 x 1,024 x 8 / 128 = 512 copies, and a rank
holds 128 / 8 = 16 experts, issued four at a time (Transformer Engine's four GEMM streams).
"""

import math

import pytest

from models.common import ModelSpec
from models.plan import PlanRequest
from service.inputs import resolve
from service.time.efficiency import Device, Efficiency, gemm_seconds, routed_expert_seconds

PEAK, HBM, SMS, CEILING = 989.4e12, 3.35e12, 132, 0.60  # H100 SXM bf16 dense, HBM3, SMs; Hopper's fitted ceiling
DEVICE = Device(PEAK, HBM, SMS)
PER_TILE_K = 2 * 128 * 128 / (PEAK * CEILING / SMS)  # seconds per 128 x 128 tile and unit of k
H, F, TOKENS = 4096, 1536, 512  # hidden, one expert's inner width, copies an expert computes


def test_an_expert_weight_gradient_into_fp32_is_memory_bound():
    """dW of the up projection (gate and up: 2 x 1,536 wide) over k = 512 copies: 32 x 24 = 768 tiles, 6 waves of
    a k = 512 tile, against the operands (2 bytes each) and the fp32 output read and written (8 bytes)."""
    compute = math.ceil(32 * 24 / SMS) * PER_TILE_K * TOKENS
    operands = 2 * (H * TOKENS + TOKENS * 2 * F)
    into_fp32 = (operands + 8 * H * 2 * F) / HBM
    fresh = (operands + 2 * H * 2 * F) / HBM
    assert fresh < compute < into_fp32  # the GEMM ceiling with a 16-bit output, HBM with the fp32 accumulation
    assert gemm_seconds(H, TOKENS, 2 * F, DEVICE, CEILING) == pytest.approx(compute, rel=1e-12)
    assert gemm_seconds(H, TOKENS, 2 * F, DEVICE, CEILING, 8) == pytest.approx(into_fp32, rel=1e-12)


def test_qwen3_235b_experts_at_t4_e8():
    """The 16 experts' backward, four groups of four GEMMs in flight: only the weight gradients change, each group's
    from its tiles' waves to its four fp32 outputs over HBM (up: h x 2 f_e; down: f_e x h)."""
    arch = resolve.model(ModelSpec(preset="qwen3-235b-a22b")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None
    fresh = Efficiency(DEVICE, shape)
    fused = Efficiency(DEVICE, shape, wgrad_fp32_accumulation=True)
    forward_fresh, backward_fresh = routed_expert_seconds(fresh, 4096, 4, 8, 1)
    forward_fused, backward_fused = routed_expert_seconds(fused, 4096, 4, 8, 1)
    assert forward_fused == forward_fresh

    def group(k: int, n: int, output_bytes: int) -> float:  # four dW GEMMs (k x 512) @ (512 x n) at once
        waves = math.ceil(4 * math.ceil(k / 128) * math.ceil(n / 128) / SMS)
        memory = 4 * (2 * (k * TOKENS + TOKENS * n) + output_bytes * k * n) / HBM
        return max(waves * PER_TILE_K * TOKENS, memory)

    up, down = (H, 2 * F), (F, H)
    added = 4 * sum(group(k, n, 8) - group(k, n, 2) for k, n in (up, down))
    assert added > 0
    assert backward_fused - backward_fresh == pytest.approx(added, rel=1e-9)


@pytest.mark.parametrize(
    ("precision", "fused"), [("megatron", True), ("mixed_bf16_adam", False), ("fsdp2", False), ("bf16_adam", False)]
)
def test_the_megatron_precision_accumulates_into_fp32(precision: str, fused: bool) -> None:
    """Megatron-LM's convention (the megatron precision preset) fuses the accumulation; FSDP2's and DeepSpeed's
    conventions write a 16-bit gradient from the GEMM."""
    request = PlanRequest.model_validate(
        {
            "model": {"preset": "qwen3-235b-a22b"},
            "cluster": {"world_size": 256, "gpu": "h100-80gb"},
            "arrangement": "zero1",
            "precision": precision,
        }
    )
    scene = resolve.scenario(
        request.model, request.precision, request.training, request.activations, request.levers, request.cluster
    )
    assert scene.efficiency is not None
    assert scene.efficiency.wgrad_fp32_accumulation is fused
    assert scene.efficiency.wgrad_bytes == (8 if fused else 2)
