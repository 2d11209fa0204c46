"""A row's equivalents are fields a client can paste into the row's request: each, applied to it, is a /v1/plan body
that plans to the row's own figures (their description: "other choices with identical figures")."""

SEARCH = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 64, "gpus_per_node": 4, "gpu": "a100-80gb"},
    "training": {"sequence_length": 8192, "global_batch_size": 64},
    "restrict": {
        "tensor": [4, 1],
        "pipeline": [4],
        "context": [2],
        "micro_batch_size": [4],
        "arrangement": ["zero3"],
        "pipeline_schedule": ["zb_v", "gpipe"],
        "virtual_stages": [3],
        "expert": [1],
        "pipeline_split": ["embedding_loss", "lighter_ends_1"],
    },
    "objective": "step_s",
    "top_k": 5,
}
CLUSTER_FIELDS = {"world_size"}
TRAINING_FIELDS = {"micro_batch_size"}
LEVER_FIELDS = {"recompute", "offload_optimizer"}


def applied(request: dict, change: dict) -> dict:
    body = {key: dict(value) if isinstance(value, dict) else value for key, value in request.items()}
    for name, value in change.items():
        if name in CLUSTER_FIELDS:
            body["cluster"][name] = value
        elif name in TRAINING_FIELDS:
            body["training"][name] = value
        elif name in LEVER_FIELDS:
            body["levers"][name] = value
        elif name == "arrangement":
            body["arrangement"] = value
        else:
            body["parallelism"][name] = value
    return body


def test_every_equivalent_replans_to_its_rows_figures(client):
    """An equivalent that differs from its row in the split of the layers named the row's embedding and loss
    layers as null (a body leaves a default out), which /v1/plan refuses: 'Input should be a valid integer'."""
    response = client.post("/v1/search", json=SEARCH)
    assert response.status_code == 200, response.text
    rows = response.json()["layouts"]
    checked = 0
    for row in rows:
        for change in row["equivalents"]:
            assert None not in change.values() or change.get("pipeline_layers", 0) is None, change
            planned = client.post("/v1/plan", json=applied(row["request"], change))
            assert planned.status_code == 200, (change, planned.text)
            plan = planned.json()
            assert plan["memory"]["per_gpu_bytes"] == row["per_gpu_bytes"]
            assert plan["time"]["step_s"] == row["step_s"]
            checked += 1
    assert checked, "no row has an equivalent: the case no longer covers them"
