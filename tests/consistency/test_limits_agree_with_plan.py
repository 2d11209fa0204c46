"""/v1/limits' boundaries are what /v1/plan says: at the longest sequence and the largest micro-batch a
/v1/plan body is answered as fitting, and one more token or one more sequence is not. A /v1/plan body is a
valid /v1/limits body (it used to refuse a parallelism block)."""

from hypothesis import given, settings
from hypothesis import strategies as st


def fits(client, body: dict, **training: int) -> bool:
    response = client.post("/v1/plan", json=body | {"training": body["training"] | training})
    assert response.status_code == 200, response.text
    return response.json()["memory"]["fits"]


@settings(max_examples=12)
@given(
    preset=st.sampled_from(["llama-3-8b", "qwen2.5-7b", "mixtral-8x7b"]),
    gpu=st.sampled_from(["a100-80gb", "h100-80gb", "a100-40gb"]),
    arrangement=st.sampled_from(["zero1", "zero2", "zero3", "full_shard"]),
    world_size=st.sampled_from([8, 16, 64]),
    recompute=st.sampled_from(["none", "full"]),
    tensor=st.sampled_from([1, 2]),
)
def test_the_boundaries_plan_as_fitting_and_one_more_does_not(
    client, preset, gpu, arrangement, world_size, recompute, tensor
):
    body: dict = {
        "model": {"preset": preset},
        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu": gpu},
        "arrangement": arrangement,
        "training": {"sequence_length": 4096, "micro_batch_size": 1},
        "levers": {"recompute": recompute},
        "parallelism": {"tensor": tensor, "sequence_parallel": tensor > 1},
    }
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    s, b = entry["longest_sequence_length"], entry["largest_micro_batch_size"]
    if s is not None:
        assert fits(client, body, sequence_length=s)
        assert not fits(client, body, sequence_length=s + 1)
    if b is not None:
        assert fits(client, body, micro_batch_size=b)
        assert not fits(client, body, micro_batch_size=b + 1)
