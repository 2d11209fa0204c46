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
