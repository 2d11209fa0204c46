"""/v1/limits' boundaries are what /v1/plan says: at the longest sequence and the largest micro-batch a
/v1/plan body is answered as fitting, and the next sequence length or micro-batch the layout and batch can take
is not. A /v1/plan body is a valid /v1/limits body (it used to refuse a parallelism block, then a global batch)."""

import pytest
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
    # under tensor 2 with sequence parallelism /v1/plan takes even sequences alone: the next is 2 tokens longer
    step = tensor
    if s is None:  # not even the shortest sequence the layout takes fits (a sequence it refuses is no answer)
        assert not fits(client, body, sequence_length=step)
    else:
        assert s % step == 0
        assert fits(client, body, sequence_length=s)
        assert not fits(client, body, sequence_length=s + step)
    if b is not None:
        assert fits(client, body, micro_batch_size=b)
        assert not fits(client, body, micro_batch_size=b + 1)


def test_a_sequence_the_layout_refuses_is_not_read_as_too_long(client):
    """Tensor 2 with sequence parallelism splits the sequence in two: /v1/plan refuses odd lengths (a 422), and
    the bisection used to read that refusal at s = 1 as 'not even the smallest fits'. Llama 3 8B, ZeRO-3 on 16
    H100: 8,192 tokens plan as fitting, so the longest sequence is at least that, and even."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
        "training": {"sequence_length": 4096, "micro_batch_size": 1},
        "parallelism": {"tensor": 2, "sequence_parallel": True},
    }
    assert fits(client, body, sequence_length=8192)
    (entry,) = client.post("/v1/limits", json=body).json()["arrangements"]
    s = entry["longest_sequence_length"]
    assert s is not None and s >= 8192 and s % 2 == 0
    assert "multiples of 2" in entry["longest_sequence_length_arithmetic"]
    assert not fits(client, body, sequence_length=s + 2)


@settings(max_examples=8)
@given(
    world_size=st.sampled_from([16, 32]),
    sequences_per_replica=st.sampled_from([4, 6, 12, 48]),
    pipeline=st.sampled_from([1, 2]),
    arrangement=st.sampled_from(["zero1", "zero3"]),
)
def test_a_global_batch_keeps_its_size_at_the_largest_micro_batch(
    client, world_size, sequences_per_replica, pipeline, arrangement
):
    """With training.global_batch_size the micro-batch boundary is sought among the sizes that divide the batch's
    sequences per data-parallel replica (b x m x d = the batch, as /v1/plan derives m): the boundary plans as
    fitting at the same global batch, and every larger divisor is refused or does not fit."""
    data = world_size // (2 * pipeline)  # tensor 2
    body: dict = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": arrangement,
        "training": {
            "global_batch_size": sequences_per_replica * data,
            "sequence_length": 4096,
            "micro_batch_size": 1,
        },
        "parallelism": {"tensor": 2, "pipeline": pipeline, "sequence_parallel": True},
    }
    if pipeline > sequences_per_replica:
        return
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    b = entry["largest_micro_batch_size"]
    assert b is not None and sequences_per_replica % b == 0
    assert fits(client, body, micro_batch_size=b)
    larger = [x for x in range(b + 1, sequences_per_replica + 1) if sequences_per_replica % x == 0]
    for x in larger:
        planned = client.post("/v1/plan", json=body | {"training": body["training"] | {"micro_batch_size": x}})
        assert planned.status_code == 422 or not planned.json()["memory"]["fits"], x


def fits_with_layers(client, body: dict, layers: int) -> bool:
    response = client.post("/v1/plan", json=body | {"model": body["model"] | {"layers": layers}})
    assert response.status_code == 200, response.text
    return response.json()["memory"]["fits"]


LLAMA_3_8B_ON_ONE_NODE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero1",
    "training": {"gradient_accumulation_steps": 8},
}


@pytest.mark.parametrize(
    "body",
    [
        # the plan takes no fewer layers than the pipeline's chunks (4 x 2 = 8, zb_v's 2 x 4 = 8), the family's
        # shallowest members (4 layers) not at all
        (
            LLAMA_3_8B_ON_ONE_NODE
            | {"parallelism": {"pipeline": 4, "pipeline_schedule": "interleaved", "virtual_stages": 2}}
        ),
        (
            LLAMA_3_8B_ON_ONE_NODE
            | {"parallelism": {"pipeline": 2, "pipeline_schedule": "interleaved", "virtual_stages": 4}}
        ),
        LLAMA_3_8B_ON_ONE_NODE | {"parallelism": {"pipeline": 4, "pipeline_schedule": "zb_v"}},
        # nor fewer than DeepSeek-V3's 3 dense layers
        {
            "model": {"preset": "deepseek-v3"},
            "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "b200"},
            "arrangement": "zero3",
        },
    ],
)
def test_the_layer_family_starts_at_the_fewest_layers_the_plan_takes(client, body):
    """The family's largest member is a depth the plan fits, and the next depth does not fit. The shallowest depths,
    which the plan refuses, were read as too large (no member fits) or as a bare count (no architecture)."""
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    layers = entry["largest_layers"]
    assert layers is not None, entry["largest_parameter_count_arithmetic"]
    assert fits_with_layers(client, body, layers)
    assert not fits_with_layers(client, body, layers + 1)


@pytest.mark.parametrize("pipeline", [2, 4, 8])
def test_the_layer_family_takes_every_depth_the_pipeline_takes(client, pipeline):
    """/v1/plan splits any depth over the stages (the last L mod p stages a layer more), so the largest model is the
    deepest the plan fits, not the deepest multiple of the stages: Llama 3 8B on 4 stages fits 63 layers under
    /v1/plan, yet /v1/limits answered 60 (the family stepped 4 layers at a time: 64 did not fit)."""
    body = LLAMA_3_8B_ON_ONE_NODE | {
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 8},
        "parallelism": {"pipeline": pipeline},
    }
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    layers = entry["largest_layers"]
    assert fits_with_layers(client, body, layers)
    assert not fits_with_layers(client, body, layers + 1)


def test_the_layer_family_keeps_the_requests_own_split(client):
    """A split of the request's own layers was replaced by an even one: 32 layers split [6, 8, 9, 9] fit by /v1/plan,
    yet limits answered 28 (the even split of 32 needs 54,696,869,888 B). The family keeps the split's shape, one layer
    more in each stage a step: its request's own model fits, the next member [7, 9, 10, 10] does not."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {
            "world_size": 4,
            "gpus_per_node": 8,
            "gpu_memory_bytes": 52_000_000_000,
            "reserve_bytes": 0,
            "fragmentation": 0.0,
        },
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 8},
        "arrangement": "zero1",
        "parallelism": {"pipeline": 4, "pipeline_layers": [6, 8, 9, 9]},
    }
    plan = client.post("/v1/plan", json=body).json()
    assert plan["memory"]["fits"]
    (entry,) = client.post("/v1/limits", json=body).json()["arrangements"]
    assert (entry["largest_layers"], entry["largest_parameter_count"]) == (32, plan["parameter_count"])
    deeper = body | {
        "model": {"preset": "llama-3-8b", "layers": 36},
        "parallelism": {"pipeline": 4, "pipeline_layers": [7, 9, 10, 10]},
    }
    response = client.post("/v1/plan", json=deeper)
    assert response.status_code == 200 and not response.json()["memory"]["fits"]
    assert "at L = 36" in entry["largest_parameter_count_arithmetic"]


def test_a_zb_v_split_per_stage_grows_by_its_two_chunks(client):
    """ZB-V runs 2 chunks a stage: a split of one entry a stage grows by 2 layers a stage (by 1 it reached
    [9, 9], which the plan refuses, and limits answered 16 layers for a fitting model of 32). Written per stage or
    per chunk, the same job has the same largest model."""
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 16},
        "arrangement": "zero1",
    }
    answers = []
    for split in ([16, 16], [8, 8, 8, 8]):
        body = base | {"parallelism": {"pipeline": 2, "pipeline_schedule": "zb_v", "pipeline_layers": split}}
        assert client.post("/v1/plan", json=body).json()["memory"]["fits"]
        (entry,) = client.post("/v1/limits", json=body).json()["arrangements"]
        answers.append((entry["largest_layers"], entry["largest_parameter_count"]))
    assert answers[0] == answers[1] and answers[0][0] >= 32
    layers = answers[0][0]
    for depth, fits in ((layers, True), (layers + 4, False)):
        parallelism = {"pipeline": 2, "pipeline_schedule": "zb_v", "pipeline_layers": [depth // 2] * 2}
        body = base | {"model": {"preset": "llama-3-8b", "layers": depth}, "parallelism": parallelism}
        response = client.post("/v1/plan", json=body)
        assert response.status_code == 200 and response.json()["memory"]["fits"] is fits, depth


def test_a_depth_the_model_refuses_is_not_a_500(client):
    """A mixture with 2 dense layers: the layer family's shallowest member (1 layer) is a model its own fields refuse
    (model.moe.dense_layers 2 exceeds model.layers 1). /v1/limits answered 500; it starts the family at the first
    depth the model takes, and its largest depth plans as fitting while one more layer does not."""
    model = {
        "layers": 41,
        "hidden_size": 1536,
        "attention_heads": 24,
        "kv_heads": 3,
        "ffn_hidden_size": 4608,
        "vocab_size": 32768,
        "moe": {"experts": 4, "top_k": 1, "expert_ffn_hidden_size": 256, "dense_layers": 2},
    }
    body = {
        "model": model,
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "a100-40gb"},
        "arrangement": "zero1",
        "parallelism": {"expert": 4},
        "training": {"sequence_length": 4096, "micro_batch_size": 1},
    }
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    layers = entry["largest_layers"]
    assert layers is not None and layers >= 2
    refused = client.post("/v1/plan", json=body | {"model": model | {"layers": 1}})
    assert refused.status_code == 422 and "dense_layers" in refused.text

    def fits(depth: int) -> bool:
        planned = client.post("/v1/plan", json=body | {"model": model | {"layers": depth}})
        assert planned.status_code == 200, planned.text
        return planned.json()["memory"]["fits"]

    assert fits(layers) and not fits(layers + 1)
