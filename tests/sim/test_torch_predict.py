"""The torch engine's predictions and conventions, checked against arithmetic written out here
(no torch needed): the tiny model's weights, FSDP2 shards, ZeroRedundancyOptimizer's partition,
Adam's step counters and gloo's collective costs."""

from models.enums import Dtype
from service.inputs.architecture import parameter_count
from service.sim.engines.torch_config import TinyArchitecture, TorchArrangement, TorchSimConfig, config_errors
from service.sim.engines.torch_predict import (
    binomial_children,
    fsdp_shard_elements,
    gloo_call_cost,
    parameter_shapes,
    predicted_class_bytes,
    zero_partition,
)

# 2 layers, h = 64, 4 heads, f = 256, V = 128 (the default tiny model):
# per layer: q, k, v, o = 4 x (64 x 64 + 64) = 16,640; MLP 64 x 256 + 256 + 256 x 64 + 64 = 33,088;
# two LayerNorms 4 x 64 = 256: 49,984. Embedding and output 2 x 128 x 64 = 16,384; final norm 128.
P = 2 * 49_984 + 16_384 + 128  # 116,480
TENSORS = 2 * 16 + 4  # 16 per block (8 weights, 8 biases); embedding, final norm weight and bias, output


def test_the_tiny_model_has_the_weights_the_planner_counts() -> None:
    m = TinyArchitecture()
    assert parameter_count(m.architecture()) == P
    shapes = parameter_shapes(m)
    assert len(shapes) == TENSORS
    total = 0
    for _, shape in shapes:
        n = 1
        for d in shape:
            n *= d
        total += n
    assert total == P


def test_fsdp2_pads_each_parameter_on_dim_0() -> None:
    assert fsdp_shard_elements((10, 3), 4) == 3 * 3  # ceil(10 / 4) = 3 rows of 3
    assert fsdp_shard_elements((64,), 4) == 16


def test_zero_partition_is_greedy_largest_first() -> None:
    # sizes 5, 4, 3, 3 on 2 ranks: 5 -> r0, 4 -> r1, 3 -> r1 (4 < 5), 3 -> r0 (5 < 7)
    assert zero_partition([3, 5, 4, 3], 2) == [[1, 3], [2, 0]]


def test_per_class_bytes_of_each_arrangement_at_four_ranks() -> None:
    cfg = TorchSimConfig(world_size=4)
    steps = 4 * TENSORS  # Adam's fp32 step counters
    assert predicted_class_bytes(cfg, TorchArrangement.ddp, 0) == {
        "parameters": 4 * P,
        "gradients": 4 * P,
        "optimizer_state": 8 * P + steps,
    }
    for name in (TorchArrangement.zero3, TorchArrangement.shard_grad_op):
        assert predicted_class_bytes(cfg, name, 3) == {
            "parameters": 4 * P // 4,
            "gradients": 4 * P // 4,
            "optimizer_state": 8 * P // 4 + steps,
        }
    assert predicted_class_bytes(cfg, TorchArrangement.hybrid, 1) == {
        "parameters": 4 * P // 2,
        "gradients": 4 * P // 2,
        "optimizer_state": 8 * P // 2 + steps,
    }
    zero1 = [predicted_class_bytes(cfg, TorchArrangement.zero1, r)["optimizer_state"] for r in range(4)]
    assert sum(zero1) == 8 * P + steps  # whole tensors, each on exactly one rank
    assert predicted_class_bytes(cfg, TorchArrangement.zero1, 0)["parameters"] == 4 * P


def test_gloo_costs() -> None:
    # all-reduce of 1,000 fp32 on 4 ranks: 2 x 3 chunks of 250 x 4 B; 2 segments x 6 hops
    cost = gloo_call_cost("all_reduce", 1000, Dtype.fp32, 4, 0, 0)
    assert (cost.payload_bytes, cost.messages) == (6 * 1000, 12)
    # gloo's reduce-scatter reduces the whole input with the all-reduce ring
    assert gloo_call_cost("reduce_scatter", 1000, Dtype.fp32, 4, 2, 0).payload_bytes == 6 * 1000
    assert gloo_call_cost("all_gather", 1000, Dtype.bf16, 4, 1, 0).payload_bytes == 3 * 250 * 2
    # binomial broadcast on 4 from root 1: rank 1 sends to 2 and 3, rank 2 (relative 1) to rank 0
    assert [binomial_children(v, 4) for v in range(4)] == [2, 1, 0, 0]
    assert gloo_call_cost("broadcast", 10, Dtype.fp32, 4, 1, 1).payload_bytes == 2 * 40
    assert gloo_call_cost("broadcast", 10, Dtype.fp32, 4, 0, 1).payload_bytes == 0
    assert gloo_call_cost("all_reduce", 1000, Dtype.fp32, 1, 0, 0).payload_bytes == 0


def test_the_engine_refuses_what_it_cannot_compare_exactly() -> None:
    cfg = TorchSimConfig(world_size=4, model=TinyArchitecture(hidden_size=60, attention_heads=4))
    fields = [f for f, _ in config_errors(cfg)]
    assert fields == ["model.hidden_size"]
    assert [f for f, _ in config_errors(TorchSimConfig(world_size=3, arrangements=("hybrid",)))] == [
        "model.hidden_size",
        "model.ffn_hidden_size",
        "model.vocab_size",
        "ranks_per_node",
    ]


def test_the_plan_for_a_gpu_run_counts_state_and_activations() -> None:
    from service.sim.engines.torch_predict import planned_gpu_memory

    planned = planned_gpu_memory(TorchSimConfig(world_size=4), TorchArrangement.zero3, 80 * 10**9)
    # the planner's mixed_bf16_adam ZeRO-3: 16 bytes a weight over 4 GPUs
    assert planned["model_state_bytes"] == 16 * P // 4
    parts = planned["model_state_bytes"] + planned["working_set_bytes"] + planned["activations_bytes"]
    assert planned["per_gpu_bytes"] == parts
    assert planned["working_set_bytes"] > 0  # ZeRO-3 gathers units of the known architecture
    assert planned["activations_bytes"] > 0
    assert planned["usable_bytes"] <= 80 * 10**9


def test_on_cuda_the_tracker_may_round_each_storage_up_to_a_512_byte_block() -> None:
    from service.sim.engines.torch_report import cuda_rows, memory_rows

    cfg = TorchSimConfig(world_size=2, arrangements=("zero3",), backend="nccl")
    predicted = [predicted_class_bytes(cfg, TorchArrangement.zero3, r) for r in range(2)]
    # 36 parameter tensors: each storage at most 511 bytes over its size
    rounded = [{"held_bytes": {k: v + 511 * TENSORS for k, v in p.items()}} for p in predicted]
    assert all(row["matches"] for row in memory_rows(cfg, TorchArrangement.zero3, rounded))
    over = [{"held_bytes": {k: v + 512 * TENSORS for k, v in p.items()}} for p in predicted]
    assert not any(row["matches"] for row in memory_rows(cfg, TorchArrangement.zero3, over)[:2])
    peaks = {"max_memory_allocated_bytes": 10**7, "max_memory_reserved_bytes": 2 * 10**7, "card_bytes": 80 * 10**9}
    cuda = cuda_rows(cfg, TorchArrangement.zero3, [{"cuda": peaks}] * 2)
    # Adam's step counters live in host memory: not on the card
    assert cuda["predicted_model_state_bytes"] == [sum(p.values()) - 4 * TENSORS for p in predicted]
    assert cuda["reserved_minus_plan_bytes"] == [2 * 10**7 - cuda["plan"]["per_gpu_bytes"]] * 2


# ---- layouts (tensor x pipeline x data) ----------------------------------------------------------
def test_tensor_ranks_hold_half_of_each_matrix_and_whole_norms() -> None:
    from service.sim.engines.torch_predict import rank_parameter_shapes

    shapes = dict(rank_parameter_shapes(TorchSimConfig(world_size=4, tensor=2), 1))
    assert len(shapes) == TENSORS
    assert shapes["embed.weight"] == (64, 64) and shapes["out.weight"] == (64, 64)  # 128 vocabulary rows / 2
    assert shapes["blocks.0.q.weight"] == (32, 64) and shapes["blocks.0.q.bias"] == (32,)
    assert shapes["blocks.0.down.weight"] == (64, 128) and shapes["blocks.0.down.bias"] == (64,)
    assert shapes["blocks.1.norm1.weight"] == (64,) and shapes["norm.bias"] == (64,)


def test_pipeline_stages_hold_their_blocks() -> None:
    from service.sim.engines.torch_predict import rank_parameter_shapes

    cfg = TorchSimConfig(world_size=4, pipeline=2, micro_batches=2)
    first = [n for n, _ in rank_parameter_shapes(cfg, 1)]
    last = [n for n, _ in rank_parameter_shapes(cfg, 2)]
    assert first[0] == "embed.weight" and len(first) == 17 and all(not n.startswith("blocks.1") for n in first)
    assert last[-3:] == ["norm.weight", "norm.bias", "out.weight"] and len(last) == 19


def test_layout_predictions_are_the_stage_share_over_the_data_group() -> None:
    # tensor 2: per layer (16,384 + 192 + 16,640 + 16,384) / 2 + 64 + 64 + 256 = 25,184; embedding and output
    # 4,096 each, final norm 128: 58,688 a tensor rank, over d = 2; fp32 4 + 4 + 8 bytes, 36 step counters
    tp = TorchSimConfig(world_size=4, tensor=2, arrangements=("zero3",))
    share = (2 * 25_184 + 2 * 4_096 + 128) // 2
    assert predicted_class_bytes(tp, TorchArrangement.zero3, 3) == {
        "parameters": 4 * share,
        "gradients": 4 * share,
        "optimizer_state": 8 * share + 4 * 36,
    }
    pp = TorchSimConfig(world_size=4, pipeline=2, micro_batches=2, arrangements=("zero3",))
    last = (49_984 + 128 + 8_192) // 2
    assert predicted_class_bytes(pp, TorchArrangement.zero3, 2)["optimizer_state"] == 8 * last + 4 * 19


def test_layouts_the_engine_cannot_run_name_their_field() -> None:
    fields = [
        f for f, _ in config_errors(TorchSimConfig(world_size=4, pipeline=2, micro_batches=1, arrangements=("zero3",)))
    ]
    assert fields == ["micro_batches"]
    fields = [f for f, _ in config_errors(TorchSimConfig(world_size=4, tensor=2, arrangements=("hybrid",)))]
    assert fields == ["arrangements"]
    assert [
        f for f, _ in config_errors(TorchSimConfig(world_size=4, pipeline=4, micro_batches=4, arrangements=("zero3",)))
    ] == ["parallelism.pipeline"]


def test_collectives_are_labelled_by_the_mesh_dimension_their_ranks_span() -> None:
    # mesh (pipeline, data, tensor), tensor innermost: rank = (stage x d + j) x t + i
    cfg = TorchSimConfig(world_size=8, tensor=2, pipeline=2, micro_batches=2, arrangements=("zero3",))
    assert [cfg.group_label(g) for g in ([4, 5], [4, 6], [1, 5], [0, 1, 2, 3, 4, 5, 6, 7])] == [
        "tensor",
        "data",
        "pipeline",
        "world",
    ]
    assert TorchSimConfig(world_size=4).group_label([0, 1]) == "data"  # hybrid's shard group
