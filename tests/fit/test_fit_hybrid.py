"""/v1/fit under hybrid sharding: ZeRO-3 inside a node, replicas across nodes (PyTorch FSDP's HYBRID_SHARD), so every
GPU of every hybrid job holds the states sharded over one node's G GPUs, whatever the count.

- The exact minimum is one node when a node's job fits (it was 1 GPU: the bytes do not change with N, and the
  bisection stopped at its lower end), none when it does not.
- Never fitting is said in those terms: Mixtral 8x7B (46.7e9 weights) on H100 80GB holds 111.5 GiB a GPU of a node of
  8, where the reason compared the 24.5 GiB replicated floor with the 70.3 GiB usable and called it more."""


def fit(client, gpu: str) -> dict:  # type: ignore[no-untyped-def]
    body = {
        "model": {"preset": "mixtral-8x7b"},
        "cluster": {"gpus_per_node": 8, "gpu": gpu},
        "arrangement": "hybrid",
        "max_gpus": 64,
    }
    response = client.post("/v1/fit", json=body)
    assert response.status_code == 200, response.text
    (entry,) = response.json()["arrangements"]
    return entry


def plan_bytes(client, gpu: str, n: int) -> dict:  # type: ignore[no-untyped-def]
    body = {"model": {"preset": "mixtral-8x7b"}, "cluster": {"world_size": n, "gpus_per_node": 8, "gpu": gpu}}
    response = client.post("/v1/plan", json=body | {"arrangement": "hybrid"})
    assert response.status_code == 200, response.text
    return response.json()["memory"]


def test_the_exact_minimum_is_a_node(client):
    entry = fit(client, "b200")
    assert entry["min_gpus_exact"] == entry["min_gpus"] == 8
    assert plan_bytes(client, "b200", 8)["fits"]


def test_never_fitting_names_what_every_hybrid_job_holds(client):
    entry = fit(client, "h100-80gb")
    assert entry["never_fits"] and entry["min_gpus_exact"] is None
    held = plan_bytes(client, "h100-80gb", 8)
    assert not held["fits"] and held["per_gpu_bytes"] == plan_bytes(client, "h100-80gb", 64)["per_gpu_bytes"]
    assert f"{held['per_gpu_bytes']:,} B" in entry["reason"]
    assert "replicated floor" not in entry["reason"]


def test_recommend_says_why_the_hybrid_step_never_fits(client):
    body = {"model": {"preset": "mixtral-8x7b"}, "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"}, "max_gpus": 64}
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    (hybrid,) = [step for step in response.json()["steps"] if step["arrangement"] == "hybrid"]
    assert not hybrid["fits"] and "a node's job, which every hybrid job holds, does not" in hybrid["why"]
