"""Golden activation terms of issue 24, each from its primary source, written out here.

The loss's peak (service.memory.activations). PyTorch's ``F.cross_entropy(logits.float(), labels)`` (torchtitan's
loss): ``logits.float()`` copies the bf16 logits (2 bytes per token and vocabulary entry) to fp32 (4), and
``log_softmax`` writes and saves its fp32 output (4) whose backward writes an fp32 gradient (4) beside it; the
bf16 logits, the log-softmax and its gradient make 2 + 4 + 4 = 10 bytes, where Korthikanti et al. 2022, section
4.3, count the fp32 logits alone (4): 2.5x. Megatron-LM's vocabulary-parallel cross entropy
(megatron/core/tensor_parallel/cross_entropy.py @d98e8a64): ``calculate_logits_max`` takes one fp32 copy,
``torch.exp(vocab_parallel_logits, out=exp_logits)`` and ``exp_logits.div_`` make it the softmax in place, which
``ctx.save_for_backward`` keeps, and the backward writes the gradient into it (``grad_input = softmax``): beside
the bf16 logits 2 + 4 = 6 bytes.
"""

import pytest

S, B, V = 8192, 1, 128_256  # Llama 3 8B's vocabulary


def _components(client, cross_entropy: str | None, tensor: int = 1) -> dict[str, int]:  # type: ignore[no-untyped-def]
    activations: dict = {"model": "transformer"}
    if cross_entropy is not None:
        activations["cross_entropy"] = cross_entropy
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero1",
        "training": {"micro_batch_size": B, "sequence_length": S},
        "activations": activations,
    }
    if tensor > 1:
        body["parallelism"] = {"tensor": tensor, "sequence_parallel": True}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return {c["name"]: c["bytes"] for c in response.json()["memory"]["activations"]["components"]}


def _loss(components: dict[str, int]) -> int:
    (value,) = [v for name, v in components.items() if name.startswith("loss peak")]
    return value


def test_the_unfused_loss_holds_ten_bytes_per_logit_by_default(client):
    default, named = _components(client, None), _components(client, "unfused")
    assert default == named
    assert _loss(default) == (2 + 4 + 4) * S * B * V
    assert 2 * _loss(default) == 5 * 4 * S * B * V  # 2.5x Korthikanti's fp32 logits


def test_the_fused_vocabulary_parallel_loss_holds_six(client):
    fused, unfused = _components(client, "fused"), _components(client, "unfused")
    assert _loss(fused) == (2 + 4) * S * B * V
    assert sum(unfused.values()) - sum(fused.values()) == 4 * S * B * V  # nothing else moves


@pytest.mark.parametrize("cross_entropy", ["unfused", "fused"])
def test_the_peak_divides_over_the_vocabulary_parallel_ranks(client, cross_entropy):
    per_logit = {"unfused": 10, "fused": 6}[cross_entropy]
    assert _loss(_components(client, cross_entropy, tensor=4)) == -(-per_logit * S * B * V // 4)


def test_an_unknown_loss_names_the_field(client):
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "activations": {"cross_entropy": "chunked"},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert "/activations/cross_entropy" in [e["pointer"] for e in response.json()["errors"]]
