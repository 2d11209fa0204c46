"""cluster.host_memory_bytes under offload: /v1/plan fits only where the node's host memory holds its GPUs' offloaded
states too (host_fits). /v1/fit's minimum, its table, /v1/limits' boundaries and /v1/recommend's needs_gpus weighed the
GPU's bytes alone, and named counts and sizes the plan then found not fitting (Llama 3 8B, ZeRO-3 with the optimizer
offloaded, 1 GB of host memory a node: 128.5 GB of Adam state a node at 8 GPUs; fit said 1 GPU).

Arithmetic: the offloaded fp32 master weights and two moments are 12 B a weight sharded over N, so a node of 8 holds
8 x 12 x P / N bytes: within 1e9 from N = 8 x 12 x 8,030,261,248 / 1e9 = 770.9, i.e. 771 GPUs, before the node's
other offloaded bytes; the counts /v1/plan accepts are whole nodes from there."""

import pytest

P = 8_030_261_248  # Llama 3 8B
HOST = 1_000_000_000


def body(parallelism: dict) -> dict:
    return {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb", "host_memory_bytes": HOST},
        "arrangement": "zero3",
        "parallelism": parallelism,
        "levers": {"offload_optimizer": True},
    }


def plan_at(client, job: dict, n: int) -> dict:  # type: ignore[no-untyped-def]
    response = client.post("/v1/plan", json=job | {"cluster": job["cluster"] | {"world_size": n}})
    assert response.status_code == 200, response.text
    return response.json()["memory"]


@pytest.mark.parametrize("parallelism", [{}, {"tensor": 2}])
def test_fits_minimum_is_where_the_plan_fits_host_included(client, parallelism):
    job = body(parallelism)
    assert not plan_at(client, job, 8)["host_fits"]
    response = client.post("/v1/fit", json=job)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    least = entry["min_gpus"]
    assert least is not None and least >= 8 * 12 * P // HOST  # 770: the host bound, not the GPU's
    assert plan_at(client, job, least)["fits"]
    assert not plan_at(client, job, least - 8)["fits"]  # the whole-node count before it
    assert entry["at_world_size"]["fits"] is False
    assert all(cell["fits"] == plan_at(client, job, cell["world_size"])["fits"] for cell in entry["table"][-3:])


@pytest.mark.parametrize("parallelism", [{}, {"tensor": 2}])
def test_limits_name_no_size_the_host_cannot_hold(client, parallelism):
    response = client.post("/v1/limits", json=body(parallelism))
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    assert entry["largest_micro_batch_size"] is None and entry["longest_sequence_length"] is None
    assert entry["largest_layers"] is None
    assert "host memory" in entry["largest_micro_batch_size_arithmetic"]
    # the plan answers such a job (fits false); it does not refuse it
    assert "the plan refuses" not in entry["largest_micro_batch_size_arithmetic"]


def test_recommends_needs_gpus_are_counts_the_plan_fits(client):
    job = body({})
    response = client.post("/v1/recommend", json=job | {"max_gpus": 64})
    assert response.status_code == 200, response.text
    offloaded = [step for step in response.json()["steps"] if step["levers"]["offload_optimizer"]]
    assert offloaded
    for step in offloaded:
        assert not step["fits"] and step["needs_gpus"] is not None
        needed = job | {"arrangement": step["arrangement"]}
        assert plan_at(client, needed, step["needs_gpus"])["fits"]


def test_a_host_too_small_at_every_count_a_plan_takes_never_fits(client):
    # 1,000 bytes a node: the host would hold the offloaded states only past 10^9 GPUs, beyond the counts /v1/plan
    # takes (models.common.MAX_WORLD_SIZE); fit answered such a count as its minimum
    job = body({})
    job["cluster"]["host_memory_bytes"] = 1000
    response = client.post("/v1/fit", json=job)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    assert entry["never_fits"] and entry["min_gpus"] is None
    assert entry["reason"].startswith("never: the host memory of a node (1,000 B)")


def test_the_reason_names_the_host_where_it_sets_the_count(client):
    (entry,) = client.post("/v1/fit", json=body({})).json()["arrangements"]
    assert entry["reason"].startswith(f"the smallest job that fits is {entry['min_gpus']} GPUs: the host memory")


def test_the_layer_boundary_the_host_sets_says_so(client):
    """At 200 GB of host memory a node the host, not the GPU, stops Llama 3 8B's layer family: a node's 8 GPUs offload
    16 B a weight between them (fp32 master weights, two moments and the fp32 gradients: 128.5 GB at the 8B's 32
    layers), so the family grows to about 200 / 16 = 12.5B parameters on the host, while each 80 GB card holds
    0.5 B a weight of sharded bf16 weights and gradients. The arithmetic named the next depth's bytes as the usable
    bytes + 1."""
    job = body({}) | {"cluster": body({})["cluster"] | {"host_memory_bytes": 200 * HOST}}
    response = client.post("/v1/limits", json=job)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    layers, words = entry["largest_layers"], entry["largest_parameter_count_arithmetic"]
    assert layers is not None and 32 < layers < 80
    at = {"model": {"preset": "llama-3-8b", "layers": layers}}
    assert plan_at(client, job | at, 8)["fits"]
    above = plan_at(client, job | {"model": {"preset": "llama-3-8b", "layers": layers + 1}}, 8)
    assert not above["host_fits"] and above["per_gpu_bytes"] <= above["usable_bytes"]
    host_words = "the host memory of a node (200,000,000,000 B) does not hold its GPUs' offloaded states"
    assert f"; at L = {layers + 1}: {host_words}" in words
    assert f"{above['usable_bytes'] + 1:,}" not in words


@pytest.mark.parametrize(
    ("parallelism", "host_bytes", "fitting", "refused"),
    [
        # DDP offloads the whole optimizer from every GPU: 16 B x P = 128.5 GB each, so a node of n GPUs holds
        # n x 128.5 GB: within 700 GB for n <= 5 (642.4 GB), not at 6 (770.9 GB) or any count of whole nodes
        ({}, 700 * HOST, [1, 2, 4, 5], [6, 8, 16]),
        # on tensor 2 each GPU offloads half of it, 64.2 GB: 128.5 GB a node at 2 GPUs, 257 GB at 4, against 200 GB
        ({"tensor": 2}, 200 * HOST, [2], [4, 6, 8, 16]),
    ],
)
def test_a_host_that_holds_a_replicated_optimizer_within_part_of_a_node_fits_there(
    client, parallelism, host_bytes, fitting, refused
):
    """The node's host holds the offloaded states at small counts and not past them. /v1/fit bisected as if the host
    held them more often as the count grows, and answered never fitting beside a table of counts that fit."""
    job = body(parallelism) | {"arrangement": "ddp"}
    job["cluster"] = job["cluster"] | {"host_memory_bytes": host_bytes, "world_size": fitting[0]}
    for n in fitting:
        assert plan_at(client, job, n)["fits"]
    for n in refused:
        assert not plan_at(client, job, n)["host_fits"]
    response = client.post("/v1/fit", json=job)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    assert not entry["never_fits"]
    assert entry["min_gpus"] == entry["min_gpus_exact"] == entry["min_gpus_on_grid"] == fitting[0]
    assert entry["min_gpus_whole_nodes"] is None  # no count of whole nodes: 8 x the GPU's offload on every node
    assert all(cell["fits"] == plan_at(client, job, cell["world_size"])["fits"] for cell in entry["table"])
    host = f"the host memory of a node ({host_bytes:,} B)"
    last = f"{fitting[-1]} GPU" + ("s" if fitting[-1] > 1 else "")
    assert entry["reason"].endswith(
        f"; {host} holds its GPUs' offloaded states on part of a node up to {last} (each GPU offloads a replicated "
        "share, so a node needs more the more GPUs it holds), and on whole nodes at no count"
    )


def test_on_a_layout_the_reason_names_the_host_where_it_sets_the_count(client):
    """The layout path blamed the GPU ("the busiest GPU keeps at least 23.4 GB ... against 75.5 GB usable")."""
    job = body({"tensor": 2})
    (entry,) = client.post("/v1/fit", json=job).json()["arrangements"]
    assert entry["reason"].startswith(f"the smallest job that fits is {entry['min_gpus']} GPUs: the host memory")
    assert plan_at(client, job, entry["min_gpus"])["fits"]
    ddp = job | {"arrangement": "ddp", "cluster": job["cluster"] | {"host_memory_bytes": 100 * HOST}}
    (entry,) = client.post("/v1/fit", json=ddp).json()["arrangements"]
    # 16 B x P / 2 = 64.2 GB offloaded by each GPU on tensor 2: 128.5 GB a node from 2 GPUs, over 100 GB
    assert entry["never_fits"]
    assert entry["reason"].startswith("never: the host memory of a node (100,000,000,000 B) does not hold")


def test_a_model_smaller_than_a_node_fits_past_its_parameter_count(client):
    """Four parameters fit any card and any host at every count; the host's search stopped at P = 4 GPUs, so a
    hybrid job (whole nodes alone) never fitted, and ZeRO-1's count of whole nodes was null."""
    job = {
        "model": {"parameter_count": 4},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb", "host_memory_bytes": 1000 * HOST},
        "levers": {"offload_optimizer": True},
    }
    for arrangement, least in (("hybrid", 8), ("zero1", 1)):
        fit = job | {"arrangement": arrangement, "max_gpus": 64}
        (entry,) = client.post("/v1/fit", json=fit).json()["arrangements"]
        assert not entry["never_fits"] and entry["min_gpus"] == least and entry["min_gpus_whole_nodes"] == 8
        assert plan_at(client, job | {"arrangement": arrangement}, 8)["fits"]


def test_a_pipelines_host_holds_the_stage_that_offloads_the_most_at_every_shape(client):
    """Qwen2.5-7B on 2 GPUs of one node, pipeline 2 with the loss counted as a layer (15 + 14 of 29 split, the
    last stage 13 layers and the output layer), ZeRO-3 over d = 1 with the optimizer offloaded: 16 B a weight
    (fp32 master weights, two moments and gradients). The first stage holds the embedding, 152,064 x 3,584, and
    15 layers of 233,057,792 weights (q and o 3,584^2, k and v 3,584 x 512, their biases, 3 x 3,584 x 18,944 of MLP
    and two norms); the node holds both GPUs. The host figure was the stage with the most GPU bytes, which moves
    to the last stage (its logits) as the micro-batch grows: 114.4 GB instead of 129.3 GB, and fits flipped."""
    layer = 2 * 3_584**2 + 3_584 + 2 * (3_584 * 512 + 512) + 3 * 3_584 * 18_944 + 2 * 3_584
    first_stage = 152_064 * 3_584 + 15 * layer
    expected = 2 * 16 * first_stage  # 129,307,656,192 B
    job = {
        "model": {"preset": "qwen2.5-7b"},
        "cluster": {"world_size": 2, "gpus_per_node": 8, "gpu": "h200", "host_memory_bytes": 120 * HOST},
        "arrangement": "zero3",
        "levers": {"offload_optimizer": True},
        "parallelism": {"pipeline": 2, "pipeline_loss_layers": 1},
    }
    for b, s in ((1, 1024), (20, 1024), (1, 16_384)):
        shaped = job | {"training": {"micro_batch_size": b, "sequence_length": s, "gradient_accumulation_steps": 8}}
        memory = plan_at(client, shaped, 2)
        assert memory["host_bytes"] == expected and not memory["host_fits"] and not memory["fits"]


def test_where_the_host_stops_is_a_count_the_batch_splits_over(client):
    """700 GiB (751,619,276,800 B) holds 5 x 128.5 GB of DDP-offloaded optimizer (642.4 GB) and not 6 (770.9 GB),
    but a global batch of 32 sequences splits over 1, 2, 4 and 8 GPUs alone: the host stops after 4 (the reason
    said 5, a count the plan refuses)."""
    job = body({}) | {"arrangement": "ddp", "training": {"micro_batch_size": 1, "global_batch_size": 32}}
    job["cluster"] = job["cluster"] | {"host_memory_bytes": 700 * 2**30}
    (entry,) = client.post("/v1/fit", json=job).json()["arrangements"]
    assert "holds its GPUs' offloaded states on part of a node up to 4 GPUs" in entry["reason"]
    assert plan_at(client, job, 4)["fits"] and not plan_at(client, job, 8)["host_fits"]
    refused = client.post("/v1/plan", json=job | {"cluster": job["cluster"] | {"world_size": 5}})
    assert refused.status_code == 422
