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
        # Under DeepSpeed's convention gradients and optimizer states sharded are its ZeRO stage 2, whatever the
        # arrangement is called (deepspeed.readthedocs.io, "ZeRO": stage 2 shards the gradients); before, a
        # shard_grad_op row read "PyTorch FSDP SHARD_GRAD_OP" under precision deepspeed.
        ("deepspeed", "shard_grad_op", "DeepSpeed ZeRO-2"),
        ("deepspeed", "ddp", "DeepSpeed without ZeRO (stage 0)"),
        # Megatron-LM's convention: its distributed optimizer, and Megatron-FSDP's sharding strategies for more.
        ("megatron", "ddp", "Megatron-LM without the distributed optimizer"),
        ("megatron", "zero1", "Megatron-LM's distributed optimizer"),
        ("megatron", "zero3", "Megatron-FSDP, --data-parallel-sharding-strategy optim_grads_params"),
        # PyTorch's: fully_shard, resharding after the forward or keeping the parameters gathered between passes.
        ("fsdp2", "zero3", "PyTorch FSDP2 FULL_SHARD"),
        ("fsdp2", "shard_grad_op", "PyTorch FSDP2 with reshard_after_forward=False"),
        # A preset that names no framework keeps the arrangement's own words.
        ("mixed_bf16_adam", "shard_grad_op", "PyTorch FSDP SHARD_GRAD_OP"),
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
        assert row.framework.startswith(named), row.framework
        assert row.framework in row.why


def test_megatron_fsdp_forms_its_model_parallel_groups_as_megatron_core():
    """shard_grad_op beside tensor parallelism under Megatron-LM's convention is Megatron-FSDP, whose groups
    Megatron-Core forms; under a preset that names no framework, torchtitan's FSDP2 forms them."""
    restrict = {"tensor": [2], "pipeline": [1], "context": [1], "arrangement": ["shard_grad_op"]}
    megatron = search(SearchRequest.model_validate(DENSE | {"precision": "megatron", "restrict": restrict}), 10**9)
    generic = search(SearchRequest.model_validate(DENSE | {"restrict": restrict}), 10**9)
    assert megatron.layouts and generic.layouts
    assert all("groups as Megatron-Core forms them" in row.framework for row in megatron.layouts)
    assert all("groups as torchtitan forms them around FSDP2" in row.framework for row in generic.layouts)
