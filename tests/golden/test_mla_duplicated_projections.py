"""Multi-head latent attention's down-projections are whole on every tensor-parallel rank, in memory as in compute.

Megatron-Core's MLASelfAttention builds linear_q_down_proj and linear_kv_down_proj as Transformer Engine's TELinear
with ``parallel_mode="duplicated"`` (NVIDIA/Megatron-LM megatron/core/transformer/multi_latent_attention.py@d98e8a64,
lines 527 and 574; megatron/core/extensions/transformer_engine.py, "duplicated: No tensor parallelism and weight is
duplicated across TP ranks"), so each rank holds them whole; the up projections are column parallel and the output
row parallel. DeepSeek-V3 (config.json): h 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128,
qk_rope_head_dim 64, v_head_dim 128, 61 layers (3 dense, ffn 18432; 58 MoE, one shared expert of 2048), vocabulary
129,280, embeddings untied.
"""

from models.common import ModelSpec
from service.inputs import resolve
from service.mesh.stages import layer_split

H = 7168
Q_DOWN = H * 1536  # 11,010,048
KV_DOWN = H * (512 + 64)  # 4,128,768
NORMS = 1536 + 512  # the two low-rank RMSNorms
Q_UP = 1536 * 128 * (128 + 64)  # 37,748,736
KV_UP = 512 * 128 * (128 + 128)  # 16,777,216
OUT = 128 * 128 * H  # 117,440,512


def test_a_latent_attention_layer_splits_its_up_and_output_projections_alone():
    arch = resolve.model(ModelSpec(preset="deepseek-v3")).architecture
    assert arch is not None
    dense = layer_split(arch, 0)  # a dense layer: its attention, its MLP (split) and two norms of h (whole)
    assert dense.replicated == Q_DOWN + KV_DOWN + NORMS + 2 * H == 15_155_200
    assert dense.tensor == Q_UP + KV_UP + OUT + 3 * H * 18432 == 568_328_192


def _stage_parameters(client, tensor: int) -> int:  # type: ignore[no-untyped-def]
    body = {
        "model": {"preset": "deepseek-v3"},
        "precision": "megatron",
        "arrangement": "zero1",
        "cluster": {"world_size": 512, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 128},
        "parallelism": {"tensor": tensor, "expert": 64, "expert_tensor": 1, "sequence_parallel": True},
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    (stage,) = response.json()["memory"]["stages"]
    return int(stage["parameters_per_gpu"])


def test_doubling_the_tensor_degree_halves_the_split_parameters_alone(client):  # type: ignore[no-untyped-def]
    """From t 4 to t 8 (routed experts over e 64 with ETP 1, router and norms whole: none of them moves) a GPU
    gives up an eighth of what is split: the up and output projections of 61 layers, 3 dense MLPs, 58 shared experts
    and the two vocabulary-parallel embeddings (129,280 rows divide by 8). Were the down-projections split too, it
    would give up 61 x (Q_DOWN + KV_DOWN) / 8 = 115,433,472 more."""
    split = 61 * (Q_UP + KV_UP + OUT) + 3 * 3 * H * 18432 + 58 * 3 * H * 2048 + 2 * 129_280 * H
    assert split == 16_086_728_704
    assert _stage_parameters(client, 4) - _stage_parameters(client, 8) == split // 4 - split // 8 == 2_010_841_088
