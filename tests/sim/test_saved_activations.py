"""The recomputed layer's count (service.memory.activations.dtensor_layer_bytes) against what autograd really saves.

A Llama block's attention and MLP written as torchtitan's model.py @9dec370 runs them (rotary embedding through
complex multiplication, repeat_kv of the keys and values, scaled_dot_product_attention, w2(silu(w1 x) * w3 x)),
eager, in bf16, on the CPU, its saved tensors counted with torch.autograd.graph.saved_tensors_hooks (one count per
storage; the weights and the rotary table left out). At t = 1 the attention's and the MLP's inputs are the norms'
outputs, which DTensor all-gathers under tensor parallelism. The count's two norm inputs are not in this block:
a fused or compiled RMSNorm (the 405B benchmark runs torch.compile) saves its input and a per-token scale, while
the eager composite one saves two fp32 copies; the scaled-dot-product kernel's log-sum-exp (4 bytes a head and
token) is left out of the count as negligible.
"""

import pytest

torch = pytest.importorskip("torch")

from service.memory.activations import TensorSplit, TransformerShape, dtensor_layer_bytes  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(60)]

H, HEADS, KV_HEADS, F, S, B = 256, 8, 2, 768, 128, 2


def saved_bytes_per_token() -> int:
    functional = torch.nn.functional
    head_dim = H // HEADS
    bf16 = torch.bfloat16
    torch.manual_seed(0)
    wq, wo = (torch.randn(H, H, dtype=bf16, requires_grad=True) for _ in range(2))
    wk, wv = (torch.randn(KV_HEADS * head_dim, H, dtype=bf16, requires_grad=True) for _ in range(2))
    w1, w3 = (torch.randn(F, H, dtype=bf16, requires_grad=True) for _ in range(2))
    w2 = torch.randn(H, F, dtype=bf16, requires_grad=True)
    angles = torch.randn(S, head_dim // 2)
    freqs = torch.polar(torch.ones_like(angles), angles).view(1, S, 1, head_dim // 2)
    skipped = {t.untyped_storage().data_ptr() for t in (wq, wk, wv, wo, w1, w2, w3, freqs)}
    attention_input, mlp_input = (torch.randn(B, S, H, dtype=bf16, requires_grad=True) for _ in range(2))
    storages: dict[int, int] = {}

    def pack(tensor):  # type: ignore[no-untyped-def]
        key = tensor.untyped_storage().data_ptr()
        if key not in skipped:
            storages[key] = tensor.untyped_storage().nbytes()
        return tensor

    def rotate(x):  # type: ignore[no-untyped-def]
        pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(pairs * freqs).flatten(3).type_as(x)

    def repeat(x):  # type: ignore[no-untyped-def]
        rep = HEADS // KV_HEADS
        return x[:, :, :, None, :].expand(B, S, KV_HEADS, rep, head_dim).reshape(B, S, HEADS, head_dim)

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        x = attention_input
        q = rotate((x @ wq.t()).view(B, S, -1, head_dim))
        k = rotate((x @ wk.t()).view(B, S, -1, head_dim))
        v = (x @ wv.t()).view(B, S, -1, head_dim)
        keys, values = repeat(k), repeat(v)
        out = functional.scaled_dot_product_attention(
            q.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2), is_causal=True
        )
        attention = out.transpose(1, 2).contiguous().view(B, S, -1) @ wo.t()
        y = mlp_input
        mlp = (functional.silu(y @ w1.t()) * (y @ w3.t())) @ w2.t()
    (attention.float().sum() + mlp.float().sum()).backward()
    return sum(storages.values()) // (S * B)


def test_the_attention_and_mlp_save_what_the_count_says():
    shape = TransformerShape(1, H, HEADS, 128, ffn_hidden_size=F, gated_mlp=True)
    counted = dtensor_layer_bytes(S, B, shape, False, TensorSplit()) // (S * B)
    # per token at t = 1: two norm inputs 2 x 2h, the two (gathered) inputs 2 x 2h, q, repeated k and v, the
    # attention output 4 x 2h, and w1 x, w3 x, silu(w1 x), their product 4 x 2f
    assert counted == 2 * 2 * H + 2 * 2 * H + 4 * 2 * H + 4 * 2 * F
    log_sum_exp = 4 * HEADS
    assert saved_bytes_per_token() == counted - 2 * 2 * H + log_sum_exp
