"""Each row names the framework whose conventions its figures follow."""

import pytest

from models.search import SearchRequest
from service.answers.search import search

DENSE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [16], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 128, "sequence_length": 8192},
    "top_k": 3,
}


@pytest.mark.parametrize(
    ("arrangement", "named", "not_named"),
    [
        # Parameters sharded beside tensor parallelism are priced as torchtitan runs FSDP2 (its DTensor activations
        # and working set): DeepSpeed's ZeRO-3 is not what those figures describe.
        ("zero3", "PyTorch FSDP2 FULL_SHARD as torchtitan runs it", "DeepSpeed ZeRO-3"),
        # The distributed optimizer beside tensor parallelism is Megatron-LM's.
        ("zero1", "Megatron-LM's distributed optimizer", "FSDP2"),
    ],
)
def test_a_layouts_framework_is_the_one_its_figures_follow(arrangement, named, not_named):
    body = DENSE | {"restrict": {"tensor": [2], "arrangement": [arrangement]}}
    answer = search(SearchRequest.model_validate(body), 10**9)
    assert answer.layouts
    for row in answer.layouts:
        assert named in row.framework and not_named not in row.framework, row.framework
        assert row.framework in row.why


def test_zero3_without_model_parallelism_names_deepspeed():
    body = DENSE | {"restrict": {"tensor": [1], "pipeline": [1], "context": [1], "arrangement": ["zero3"]}}
    answer = search(SearchRequest.model_validate(body), 10**9)
    assert answer.layouts
    assert all(row.framework.startswith("DeepSpeed ZeRO-3") for row in answer.layouts)


@pytest.mark.parametrize(
    ("precision", "arrangement", "named"),
    [
        # Under DeepSpeed's convention the arrangements are its ZeRO stages (deepspeed.readthedocs.io, "ZeRO"):
        # before, a zero1 row read "DeepSpeed ZeRO-1 or Megatron-LM's distributed optimizer" and a ddp row "PyTorch
        # DDP or Megatron-LM ..." under precision deepspeed.
        ("deepspeed", "zero1", "DeepSpeed ZeRO-1"),
        ("deepspeed", "ddp", "DeepSpeed without ZeRO (stage 0)"),
        # Megatron-LM's convention: its distributed optimizer, and Megatron-FSDP's sharding strategies for more.
        ("megatron", "ddp", "Megatron-LM without the distributed optimizer"),
        ("megatron", "zero1", "Megatron-LM's distributed optimizer"),
        ("megatron", "zero2", "Megatron-FSDP, --data-parallel-sharding-strategy optim_grads"),
        ("megatron", "zero3", "Megatron-FSDP, --data-parallel-sharding-strategy optim_grads_params"),
        # PyTorch's: fully_shard, resharding after the forward or keeping the parameters gathered until the backward.
        ("fsdp2", "zero3", "PyTorch FSDP2 FULL_SHARD"),
        ("fsdp2", "shard_grad_op", "PyTorch FSDP2 with reshard_after_forward=False"),
        # An arrangement the convention's framework does not run keeps its own words: shard_grad_op reshards the
        # parameters after each backward, which DeepSpeed's ZeRO-2 and Megatron-FSDP's optim_grads never do, and
        # FSDP2 always shards the parameters, which zero2 never does.
        ("deepspeed", "shard_grad_op", "PyTorch FSDP SHARD_GRAD_OP"),
        ("megatron", "shard_grad_op", "PyTorch FSDP SHARD_GRAD_OP"),
        ("fsdp2", "zero2", "DeepSpeed ZeRO-2"),
        # A preset that names no framework keeps the arrangement's own words.
        ("mixed_bf16_adam", "zero1", "DeepSpeed ZeRO-1 or Megatron-LM's distributed optimizer"),
    ],
)
def test_a_precision_preset_names_its_frameworks_form_of_the_arrangement(precision, arrangement, named):
    body = DENSE | {
        "precision": precision,
        "restrict": {"tensor": [1], "pipeline": [1], "context": [1], "arrangement": [arrangement]},
    }
    answer = search(SearchRequest.model_validate(body), 10**9)
    assert answer.layouts
    for row in answer.layouts:
        assert row.framework == named, row.framework  # no pipeline and no model parallelism: the sharding alone
        assert row.framework in row.why
