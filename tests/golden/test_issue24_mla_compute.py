"""Golden projections of multi-head latent attention in the compute model (service.time.efficiency).

Megatron-Core's MLASelfAttention (megatron/core/transformer/multi_latent_attention.py): linear_q_down_proj
(h -> q_lora_rank) and linear_kv_down_proj (h -> kv_lora_rank + d_rope) duplicated on every tensor-parallel rank,
linear_q_up_proj (q_lora_rank -> a (d_nope + d_rope)) and linear_kv_up_proj (kv_lora_rank -> a (d_nope + d_v))
column parallel, linear_proj (a d_v -> h) row parallel; DeepSeek-V3's DeepseekV3Attention names them q_a_proj, q_b_proj,
kv_a_proj_with_mqa, kv_b_proj and o_proj. DeepSeek-V3 (config.json): h 7168, 128 heads, q_lora_rank 1536,
kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128.
"""

import dataclasses

from models.common import ModelSpec
from service.inputs import resolve
from service.inputs.architecture import attention_parameters
from service.time.efficiency import attention_matrices, layer_matrices


def _deepseek_v3():  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset="deepseek-v3")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None
    return arch, shape


def test_deepseek_v3_projections_on_one_rank():
    arch, shape = _deepseek_v3()
    assert attention_matrices(shape) == [
        (7168, 1536),  # q down
        (1536, 128 * (128 + 64)),  # q up: 24,576
        (7168, 512 + 64),  # compressed key/value and the rotary key
        (512, 128 * (128 + 128)),  # keys and values up: 32,768
        (128 * 128, 7168),  # output
    ]
    # 11,010,048 + 37,748,736 + 4,128,768 + 16,777,216 + 117,440,512 = 187,105,280 weights a token multiplies, the
    # layer's attention parameters but the two low-rank RMSNorms' scales (1,536 + 512)
    weights = sum(k * n for k, n in attention_matrices(shape))
    assert weights == 11_010_048 + 37_748_736 + 4_128_768 + 16_777_216 + 117_440_512 == 187_105_280
    assert weights + 1536 + 512 == attention_parameters(arch)
    # the ordinary q, k, v and output of 128 heads of 160 and 128 key/value heads of 56 had 396,361,728: 2.1 x
    assert (7168 * (20480 + 2 * 7168) + 20480 * 7168) / weights > 2.1


def test_deepseek_v3_projections_over_eight_tensor_ranks():
    """The down projections stay whole on every rank; the up projections split their heads, the output its input."""
    _, shape = _deepseek_v3()
    assert attention_matrices(shape, 8) == [
        (7168, 1536),
        (1536, 128 * 192 // 8),
        (7168, 576),
        (512, 128 * 256 // 8),
        (128 * 128 // 8, 7168),
    ]
    assert layer_matrices(shape, 8, routed=False)[:5] == attention_matrices(shape, 8)


def test_queries_without_a_low_rank_step():
    """q_lora_rank 0 (DeepSeek-V2-Lite): the queries come from h directly, h -> a (d_nope + d_rope)."""
    _, shape = _deepseek_v3()
    direct = dataclasses.replace(shape, q_lora_rank=0)
    assert attention_matrices(direct)[0] == (7168, 128 * 192)
    assert len(attention_matrices(direct)) == 4


def test_ordinary_attention_is_unchanged():
    """Qwen3-30B-A3B: 32 query heads and 4 key/value heads of 128: q, k, v h -> 4096 + 2 x 512, output 4096 -> h."""
    arch = resolve.model(ModelSpec(preset="qwen3-30b-a3b")).architecture
    shape = resolve.kernel_shape(arch)
    assert shape is not None
    assert attention_matrices(shape) == [(2048, 4096 + 2 * 512), (4096, 2048)]
    assert attention_matrices(shape, 4) == [(2048, (4096 + 2 * 512) // 4), (4096 // 4, 2048)]
