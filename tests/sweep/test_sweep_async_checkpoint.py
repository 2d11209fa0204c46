"""A sweep row under asynchronous checkpoints is its plan: the stall is the stage that stages the most.

An asynchronous save (PyTorch DCP async_save) stalls training while each GPU copies its checkpointed states to the
host; the slowest copy, the stage holding the most of them, sets the stall, as /v1/plan takes it (the largest over
its stages). The sweep's layout cells read their busiest stage's states instead (the stage with the most bytes in
all, activations included), which on an uneven pipeline is another stage: an 8-stage Llama 3 8B with lighter ends
priced 18.4757 training days against its plan's 18.5319.
"""

import pytest

BASE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 32, "gpus_per_node": 8, "gpu": "h100-80gb", "failures": {}},
    "arrangement": "zero3",
    "parallelism": {"pipeline": 8, "pipeline_layers": [2, 4, 4, 5, 5, 5, 5, 2]},
    "training": {
        "global_batch_size": 64,
        "sequence_length": 4096,
        "micro_batch_size": 2,
        "total_tokens": 10**11,
        "checkpoint": {"save": "asynchronous", "interval_steps": 1, "storage": "nvme-local"},
    },
}


def test_each_row_is_its_plan_under_asynchronous_saves(client):
    response = client.post("/v1/sweep", json={"base": BASE, "axes": {"recompute": ["none", "full"]}})
    assert response.status_code == 200, response.text
    columns = response.json()["columns"]
    for i, recompute in enumerate(columns["recompute"]):
        planned = client.post("/v1/plan", json=BASE | {"levers": {"recompute": recompute}})
        assert planned.status_code == 200, planned.text
        time = planned.json()["time"]
        assert columns["training_days"][i] == pytest.approx(time["training_days"], rel=1e-12)
        assert columns["goodput"][i] == pytest.approx(time["goodput"], rel=1e-12)
