"""The expert all-to-all by dispatcher, and again in a recomputed forward.

DeepEP's dispatch sends a token once to each rank that holds at least one of its top_k experts (get_dispatch_layout's
is_token_in_rank; Megatron-Core's flex dispatcher, _DeepepManager, as NeMo Automodel carries it at
nemo_automodel/components/moe/megatron/token_dispatcher.py @e4581201); the alltoall dispatcher sends its top_k copies.
A layer recomputed in full (Megatron-LM --recompute-granularity full, NeMo Automodel's activation_checkpointing:
checkpoint_wrapper around each decoder block, nemo_automodel/components/moe/parallelizer.py apply_ac) runs its forward
again in the backward, dispatch and combine included.

Qwen3-30B-A3B (config.json: 48 layers, h 2048, 128 experts, top 8) on one node of 8 H100, e 8: a rank holds 16 of the
128 experts and none of a token's 8 with chance C(112, 8) / C(128, 8) = 0.3326, so 8 x (1 - 0.3326) = 5.339 ranks
receive each token. NVLink 4's bus bandwidth 450 GB/s x 370 / 450 (NVIDIA/nccl-tests issue 212), 3 us a step.
"""

import math

import pytest

S, H, LAYERS = 4096, 2048, 48
NVLINK_BUS, INTRA_LATENCY = 450e9 * 370 / 450, 3e-6
RANKS_PER_TOKEN = 8 * (1 - math.comb(112, 8) / math.comb(128, 8))


def _all_to_alls(client, levers: dict[str, object]) -> list[dict]:  # type: ignore[no-untyped-def]
    body = {
        "model": {"preset": "qwen3-30b-a3b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "precision": "megatron",
        "parallelism": {"expert": 8},
        "training": {"micro_batch_size": 1, "sequence_length": S, "gradient_accumulation_steps": 2},
        "levers": levers,
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return [c for c in response.json()["traffic"]["collectives"] if c["name"] == "all_to_all"]


def test_deepep_sends_a_token_once_to_each_rank_of_its_experts(client):
    """4096 tokens x 5.339 ranks x 2048 = 44,789,772 values a call (top_k copies: 67,108,864); each GPU sends 7 of
    its 8 chunks over NVLink."""
    calls = _all_to_alls(client, {"moe_token_dispatcher": "deepep"})
    values = round(S * RANKS_PER_TOKEN * H)
    assert values == 44_789_772
    sent = 7 * math.ceil(values / 8) * 2
    assert [c["bytes_sent_per_gpu"] for c in calls] == [sent, sent]
    assert [c["seconds"] for c in calls] == pytest.approx([7 * INTRA_LATENCY + sent / NVLINK_BUS] * 2, rel=1e-9)
    alltoall = _all_to_alls(client, {})
    assert [c["bytes_sent_per_gpu"] for c in alltoall] == [7 * (S * 8 * H // 8) * 2] * 2


@pytest.mark.parametrize("dispatcher", ["alltoall", "deepep"])
def test_a_recomputed_forward_dispatches_and_combines_again(client, dispatcher: str):
    """Per step, 2 micro-batches x 48 layers x (dispatch + combine) = 192 calls forward and 192 backward; full
    recomputation adds the forward's 192 again."""
    plain = _all_to_alls(client, {"moe_token_dispatcher": dispatcher})
    full = _all_to_alls(client, {"moe_token_dispatcher": dispatcher, "recompute": "full"})
    assert [c["count_per_step"] for c in plain] == [2 * LAYERS * 2, 2 * LAYERS * 2]
    assert [c["count_per_step"] for c in full] == [2 * 2 * LAYERS * 2, 2 * LAYERS * 2]
    assert "again in the recomputed forward" in full[0]["purpose"]
