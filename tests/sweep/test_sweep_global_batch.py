"""A sweep whose base gives a global batch: every cell keeps it, as /v1/plan does for that cell.

With training.global_batch_size B a cell's micro-batches per step are m = B / (b x d), b its micro-batch size and
d = N / (t x p x c) its data degree (Megatron-LM's num_microbatches_calculator: global batch over micro-batch times
data-parallel size). Every row is the /v1/plan answer of its cell, and every cell the sweep skips is one /v1/plan
refuses (a b x d that does not divide B among them).
"""

import itertools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Compared column by column with the plan's answer for the same cell.
PLAN_FIELDS = {
    "per_gpu_bytes": ("memory", "per_gpu_bytes"),
    "fits": ("memory", "fits"),
    "activations_bytes": ("memory", "activations_bytes"),
    "bytes_sent_per_gpu": ("traffic", "bytes_sent_per_gpu"),
    "tokens_per_step": ("time", "tokens_per_step"),
    "step_s": ("time", "step_s"),
    "gradient_accumulation_steps": ("parallelism", "micro_batches"),
}


def cell_request(base: dict, axes: dict, world_size: int, micro_batch_size: int, tensor: int, pipeline: int) -> dict:
    body = json.loads(json.dumps(base))
    body["cluster"]["world_size"] = world_size
    body["training"]["micro_batch_size"] = micro_batch_size
    if "tensor" in axes:
        body["parallelism"] = body.get("parallelism", {}) | {"tensor": tensor, "pipeline": pipeline}
    return body


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    preset=st.sampled_from(["llama-3-8b", "qwen2.5-7b", "mixtral-8x7b"]),
    arrangement=st.sampled_from(["zero1", "zero3", "full_shard"]),
    global_batch=st.sampled_from([96, 256, 1536]),
    layouts=st.booleans(),
    schedule=st.sampled_from(["1f1b", "interleaved", "zero_bubble"]),
)
def test_every_cell_keeps_the_global_batch_as_its_plan_does(
    client, preset, arrangement, global_batch, layouts, schedule
):
    base: dict = {
        "model": {"preset": preset},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "arrangement": arrangement,
        "training": {"global_batch_size": global_batch, "sequence_length": 4096},
        "levers": {"recompute": "full"},
    }
    axes: dict = {"world_size": [8, 16, 24, 64], "micro_batch_size": [1, 2, 4]}
    if layouts:
        base["parallelism"] = {"pipeline_schedule": schedule}
        axes |= {"tensor": [1, 2], "pipeline": [1, 2]}
    response = client.post("/v1/sweep", json={"base": base, "axes": axes})
    assert response.status_code == 200, response.text
    answer = response.json()
    columns = answer["columns"]
    rows = set()
    for i in range(answer["rows"]):
        n, b = columns["world_size"][i], columns["micro_batch_size"][i]
        t, p = columns["tensor"][i], columns["pipeline"][i]
        d = n // (t * p)
        assert columns["gradient_accumulation_steps"][i] == global_batch // (b * d)  # m = B / (b x d)
        planned = client.post("/v1/plan", json=cell_request(base, axes, n, b, t, p))
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        for column, (block, field) in PLAN_FIELDS.items():
            assert columns[column][i] == plan[block][field], (column, n, b, t, p)
        rows.add((n, b, t, p))
    cells = list(
        itertools.product(
            axes["world_size"], axes["micro_batch_size"], axes.get("tensor", [1]), axes.get("pipeline", [1])
        )
    )
    assert answer["cells"] == len(cells) and answer["skipped_cells"] == len(cells) - len(rows)
    for n, b, t, p in cells:
        if (n, b, t, p) not in rows:
            refused = client.post("/v1/plan", json=cell_request(base, axes, n, b, t, p))
            assert refused.status_code == 422, (n, b, t, p, refused.text)
