"""A body /v1/plan answers is a body every other planning endpoint answers: /v1/fit (the count asked about),
/v1/limits, /v1/recommend, /v1/sweep (as its base), every figure and /v1/search (a model without an architecture
over data parallelism alone; levers.offload_parameters and levers.zeropp over the arrangements and layouts that keep
them). Never a 4xx or 5xx.

The bodies are bench.answer_dump's varied /v1/plan requests (presets, Hugging Face configs, architecture fields,
every precision and arrangement, GPUs, links, shapes, levers and layouts), drawn by seed. Before, about one body in
twenty was refused somewhere: /v1/limits, /v1/fit and /v1/recommend refused a global batch without a layout, the
arrangement figures a layout's batch that N replicas cannot share, /v1/recommend a DeepSpeed pipeline, and
/v1/sweep (a model given as hf_config) and the figures (levers.offload_parameters) answered 500.
"""

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bench.answer_dump import plan_body

FIGURES = ["memory-vs-gpus", "bytes-per-weight", "traffic", "step-time", "layout-memory", "layout-traffic"]


def accepted(client, path: str, body: dict) -> None:
    headers = {"Accept": "image/svg+xml"} if "/figures/" in path else {}
    response = client.post(path, json=body, headers=headers)
    assert response.status_code == 200, (path, response.text[:600])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), with_layout=st.booleans())
@example(seed=15, with_layout=True)  # a layout's global batch that its 512 GPUs over data parallelism cannot share
@example(seed=5, with_layout=True)  # a model given as hf_config
def test_a_plan_body_is_answered_by_every_planning_endpoint(client, seed, with_layout):
    body = plan_body(random.Random(seed), with_layout)
    if client.post("/v1/plan", json=body).status_code != 200:
        return  # a body /v1/plan refuses says nothing of the others
    for path in ("/v1/fit", "/v1/limits", "/v1/recommend", *(f"/v1/figures/{name}" for name in FIGURES)):
        accepted(client, path, body)
    accepted(client, "/v1/sweep", {"base": body, "axes": {"recompute": ["none", "full"]}})
    accepted(client, "/v1/search", body | {"top_k": 1})
