"""Golden memory-bound terms of a mixture's token dispatch, by dispatcher and fusion (service.time.efficiency).

DeepEP's dispatcher (Megatron-Core's flex dispatcher, _DeepepManager in token_dispatcher.py, as NeMo Automodel carries
it at nemo_automodel/components/moe/megatron/token_dispatcher.py @e4581201): the dispatch kernel reads a token and
writes one row on each rank that holds at least one of its top_k experts (DeepEP's get_dispatch_layout,
is_token_in_rank); get_permuted_hidden_states_by_experts then permutes those rows into the top_k copies (permute,
fused with moe_permute_fusion) and get_restored_hidden_states_by_experts reverses it before the combine. NeMo
Automodel's GroupedExpertsDeepEP builds it with moe_permute_fusion=True (nemo_automodel/components/moe/experts.py
@e4581201). A fused permutation is one gather (or scatter) pass: the bytes it reads and writes are its traffic.
Qwen3-30B-A3B (config.json: h 2048, 128 experts, top 8).
"""

import dataclasses
import math

import pytest

from models.common import ModelSpec
from models.enums import MoeTokenDispatcher, Recompute
from models.plan import PlanRequest
from service.inputs import resolve
from service.time.efficiency import (
    FITTED,
    Device,
    Efficiency,
    destination_ranks_per_token,
    micro_batch_compute,
    permutation_bytes_per_token,
    routing_bytes_per_token,
)

H, EXPERTS, TOP_K = 2048, 128, 8
PEAK, HBM, SMS = 989.4e12, 3.35e12, 132  # H100 SXM bf16 dense, HBM3, SMs
DEVICE = Device(PEAK, HBM, SMS)
DEEPEP = MoeTokenDispatcher.deepep


def _kernels():  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset="qwen3-30b-a3b")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None and (shape.hidden_size, shape.experts, shape.top_k) == (H, EXPERTS, TOP_K)
    return shape


def test_destination_ranks_of_a_token():
    """E 128 over e 8 ranks, 16 experts each, k 8: a rank holds none of a token's 8 experts with chance
    C(112, 8) / C(128, 8) = (112 x 111 x ... x 105) / (128 x 127 x ... x 121) = 0.3326, so 8 x (1 - 0.3326) =
    5.339 ranks receive it; e 1 is the one rank; e 128 (one expert a rank) is k ranks exactly."""
    missed = math.comb(112, 8) / math.comb(128, 8)
    assert missed == pytest.approx(
        (112 * 111 * 110 * 109 * 108 * 107 * 106 * 105) / (128 * 127 * 126 * 125 * 124 * 123 * 122 * 121)
    )
    assert 0.3325 < missed < 0.3326
    assert destination_ranks_per_token(EXPERTS, TOP_K, 8) == pytest.approx(8 * (1 - missed), rel=1e-12)
    assert destination_ranks_per_token(EXPERTS, TOP_K, 1) == pytest.approx(1.0)
    assert destination_ranks_per_token(EXPERTS, TOP_K, 128) == pytest.approx(8.0)
    # DeepSeek-V3: E 256 over e 64, 4 experts a rank: 64 x (1 - C(252, 8) / C(256, 8))
    assert destination_ranks_per_token(256, 8, 64) == pytest.approx(64 * (1 - math.comb(252, 8) / math.comb(256, 8)))


def test_deepep_permutation_bytes():
    """Per token, e 8, t 1: the permutation reads the 5.339 rows DeepEP wrote and writes 8 copies, the unpermute
    reads the 8 and writes the rows: 2 bytes x 2 x (5.339 + 8) x 2048 = 109,276 bytes; the alltoall dispatcher's
    2 x 2 x (h + 8h) + 2 x 2 x 2 x 8h = 204,800 (permute before the exchange, the sort by local expert after it)."""
    shape = _kernels()
    rows = 8 * (1 - math.comb(112, 8) / math.comb(128, 8))
    deepep = 2 * 2 * (rows + 8) * H
    assert permutation_bytes_per_token(shape, 1, 8, dispatcher=DEEPEP) == pytest.approx(deepep, rel=1e-12)
    assert 109_270 < deepep < 109_280
    assert permutation_bytes_per_token(shape, 1, 8) == 2 * 2 * (H + 8 * H) + 2 * 2 * 2 * 8 * H == 204_800
    # the router's fp32 scores are the same either way: 3 x 4 x 128
    assert routing_bytes_per_token(shape, 1, 8, dispatcher=DEEPEP) == pytest.approx(3 * 4 * EXPERTS + deepep)


def test_a_fused_permutation_is_one_pass_over_its_bytes():
    """One layer, 4096 tokens, e 8: the fused permutation costs its bytes once at HBM bandwidth where the unfused
    one costs them at the fitted memory-bound passes; the backward moves twice the forward's bytes. The difference
    between the two is (passes - 1) x bytes x tokens / HBM forward and twice that backward."""
    shape = _kernels()
    tokens = 4096
    one = {"b": 1, "s": tokens, "recompute": Recompute.none, "model_flops_per_token": 0.0, "logits": False}
    unfused = micro_batch_compute(Efficiency(DEVICE, shape, dispatcher=DEEPEP), layers_per_stage=1, expert=8, **one)
    fused = micro_batch_compute(
        Efficiency(DEVICE, shape, dispatcher=DEEPEP, permute_fusion=True), layers_per_stage=1, expert=8, **one
    )
    bytes_per_token = 2 * 2 * (8 * (1 - math.comb(112, 8) / math.comb(128, 8)) + 8) * H
    saved_s = (FITTED.elementwise_passes - 1) * bytes_per_token * tokens / HBM
    assert unfused.forward_s - fused.forward_s == pytest.approx(saved_s, rel=1e-9)
    assert unfused.backward_s - fused.backward_s == pytest.approx(2 * saved_s, rel=1e-9)


def test_the_levers_reach_the_efficiency_model_and_a_dense_model_ignores_them():
    def setup(model: str, levers: dict[str, object]):  # type: ignore[no-untyped-def]
        request = PlanRequest.model_validate(
            {
                "model": {"preset": model},
                "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
                "arrangement": "full_shard",
                "training": {"micro_batch_size": 1, "sequence_length": 4096},
                "levers": levers,
            }
        )
        scene = resolve.scenario(
            request.model, request.precision, request.training, request.activations, request.levers, request.cluster
        )
        return resolve.setup_for(scene, resolve.sharding(request.arrangement))

    deepep = {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True}
    eff = setup("qwen3-30b-a3b", deepep).efficiency
    assert eff is not None and (eff.dispatcher, eff.permute_fusion) == (DEEPEP, True)
    default = setup("qwen3-30b-a3b", {}).efficiency
    assert default is not None and (default.dispatcher, default.permute_fusion) == (MoeTokenDispatcher.alltoall, False)
    dense = setup("llama-3.1-8b", deepep).efficiency
    plain = setup("llama-3.1-8b", {}).efficiency
    assert dense is not None and plain is not None
    one = {"b": 1, "s": 4096, "recompute": Recompute.none, "model_flops_per_token": 0.0}
    assert micro_batch_compute(dense, **one) == micro_batch_compute(dataclasses.replace(plain), **one)
