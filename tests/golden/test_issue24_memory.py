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


# Gated experts and multi-head latent attention (service.memory.activations), DeepSeek-V3's config.json
# (huggingface.co/deepseek-ai/DeepSeek-V3): h 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512,
# qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128; 256 routed experts of 2048, top 8, one shared; SwiGLU;
# the first 3 of 61 layers dense (intermediate_size 18432).
DS_H, DS_A, DS_RQ, DS_RKV, DS_NOPE, DS_ROPE, DS_V = 7168, 128, 1536, 512, 128, 64, 128
DS_LAYERS, DS_DENSE, DS_TOP_K, DS_FE, DS_SHARED = 61, 3, 8, 2048, 1


def _layers_bytes(client, model: dict, s: int) -> int:  # type: ignore[no-untyped-def]
    body = {
        "model": model,
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h200"},
        "arrangement": "zero3",
        "training": {"micro_batch_size": 1, "sequence_length": s},
        "activations": {"model": "transformer"},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    (layers,) = [c for c in response.json()["memory"]["activations"]["components"] if c["name"] == "layers"]
    return layers["bytes"]


def test_deepseek_v3_layers_by_mla_widths_and_gated_experts(client):
    """Per token, 16-bit. Attention (Megatron-Core's MLASelfAttention, multi_latent_attention.py @d98e8a64):
    Korthikanti's layer input 2h and dropout mask h; the RMSNorm input and up-projection input of the query rank
    (2 x 2 r_q) and of the key/value rank (2 x 2 r_kv); the shared rotary key 2 d_rope; queries and keys
    2 a (d_nope + d_rope) each, values 2 a d_v, the output projection's input 2 a d_v. Norms 4h. Dense MLP: as
    Korthikanti's 4h MLP, 19h with its input and mask (the dense count is not changed here). MoE: per routed
    and shared expert a token passes, input and mask 3h and the gated inner activations 6 f_e (SwiGLU saves its
    2 f_e input, the second matrix its f_e input: megatron/core/fusions/fused_bias_swiglu.py @d98e8a64)."""
    s = 4096
    attention = (
        2 * DS_H
        + DS_H
        + 2 * 2 * DS_RQ
        + 2 * 2 * DS_RKV
        + 2 * DS_ROPE
        + 2 * 2 * DS_A * (DS_NOPE + DS_ROPE)
        + 2 * 2 * DS_A * DS_V
    )
    assert attention == 193_664  # 2.46 x Korthikanti's 11h = 78,848
    dense = attention + 4 * DS_H + 19 * DS_H
    experts = DS_TOP_K + DS_SHARED
    moe = attention + 4 * DS_H + experts * (3 * DS_H + 6 * DS_FE)
    expected = s * (DS_DENSE * dense + (DS_LAYERS - DS_DENSE) * moe)
    assert _layers_bytes(client, {"preset": "deepseek-v3"}, s) == expected


def test_a_gelu_mixture_keeps_four_bytes_of_inner_width(client):
    """Korthikanti's MLP: the first matrix's output (the GeLU's input) and the GeLU's output, 2 x 2 f: 4 s b f."""
    s, h, f, layers, experts, top_k = 1024, 1024, 4096, 4, 8, 2
    arch = {
        "layers": layers,
        "hidden_size": h,
        "attention_heads": 16,
        "ffn_hidden_size": f,
        "vocab_size": 32000,
        "moe": {"experts": experts, "top_k": top_k, "expert_ffn_hidden_size": f},
    }
    per_token = 11 * h + 4 * h + top_k * (3 * h + 4 * f)
    assert _layers_bytes(client, arch | {"mlp": "gelu"}, s) == layers * s * per_token
    gated = 11 * h + 4 * h + top_k * (3 * h + 6 * f)
    assert _layers_bytes(client, arch | {"mlp": "swiglu"}, s) == layers * s * gated
