"""restrict.sequence_parallel [true] leaves no layout with tensor 1 (sequence parallelism splits the tensor group's
sequence); those combinations are skipped and counted under their reason, where they were dropped unsaid (and a
search whose restrictions left nothing else answered "the restrictions leave no valid layout ()")."""

BASE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [8], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 2048},
    "top_k": 2,
}
ONE_EACH = {"pipeline": [1], "context": [1], "expert": [1], "micro_batch_size": [1]}
ONE_CHOICE = {"arrangement": ["zero1"], "recompute": ["none"], "offload_optimizer": [False]}


def test_the_tensor_one_layouts_are_counted_under_their_reason(client):
    restrict = {"tensor": [1, 2], "sequence_parallel": [True]} | ONE_EACH | ONE_CHOICE
    response = client.post("/v1/search", json=BASE | {"restrict": restrict})
    assert response.status_code == 200, response.text
    answer = response.json()
    # one world size x (t 1, t 2) x one of everything else x one categorical choice: t 2 with SP is the one layout
    # considered, t 1 with SP the one combination skipped
    assert answer["considered"] == 1
    ((reason, count),) = answer["skipped"].items()
    assert count == 1 and "sequence parallelism without tensor parallelism" in reason


def test_a_search_left_with_nothing_names_the_reason(client):
    # ZeRO++ keeps tensor at 1 (it is modelled over data parallelism alone)
    body = BASE | {"levers": {"zeropp": {"qwz": True}}, "restrict": {"sequence_parallel": [True]}}
    response = client.post("/v1/search", json=body)
    assert response.status_code == 422, response.text
    (error,) = response.json()["errors"]
    assert "sequence parallelism without tensor parallelism" in error["detail"]
