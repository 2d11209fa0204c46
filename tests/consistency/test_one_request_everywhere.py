"""A /v1/plan body is a valid body for every other planning endpoint, with the same meaning: a /v1/search
row's `request` (a complete /v1/plan body on a layout) is accepted by /v1/plan, /v1/fit, /v1/limits, /v1/recommend,
/v1/sweep,
/v1/search itself and every figure, and the same job gets the same figures from each.

Before, /v1/figures/layout-memory refused a search row ("needs a fixed data-parallel degree"), /v1/fit
refused cluster.world_size and arrangement, /v1/recommend a layout, /v1/search precision and
training.total_tokens, and /v1/limits the row's global batch ("needs a fixed data-parallel degree").
"""

import pytest

SEARCH = {
    "model": {"preset": "llama-3-8b"},
    "precision": "megatron",
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 128, "sequence_length": 4096, "total_tokens": 10**12},
    "objective": "step_s",
    "top_k": 2,
    "restrict": {"tensor": [2], "pipeline": [2], "context": [1], "arrangement": ["zero1"]},
}
FIGURES = ["memory-vs-gpus", "bytes-per-weight", "traffic", "step-time", "layout-memory", "layout-traffic"]


@pytest.fixture(scope="module")
def row(client) -> dict:
    response = client.post("/v1/search", json=SEARCH)
    assert response.status_code == 200, response.text
    return response.json()["layouts"][0]


def test_a_global_batch_is_kept_by_every_cell_of_a_sweep(client, row):
    """A search row's request (it carries the job's global batch) swept over world sizes: each cell keeps the
    global batch B = 128, its micro-batches per step m = B / (b x d) with d = N / (t x p), as /v1/plan resolves
    them, and every row is that cell's plan. A world size whose b x d does not divide B is skipped, as /v1/plan
    refuses it at /training/global_batch_size. (The sweep used to refuse any world_size axis with a global batch:
    a /v1/plan body was not a base to ask "how does this job scale?" with.)"""
    request = row["request"]
    t, p = request["parallelism"]["tensor"], request["parallelism"]["pipeline"]
    b = request["training"]["micro_batch_size"]
    assert (t, p, request["training"]["global_batch_size"]) == (2, 2, 128)
    sizes = [32, 64, 96, 128]
    response = client.post("/v1/sweep", json={"base": request, "axes": {"world_size": sizes}})
    assert response.status_code == 200, response.text
    answer = response.json()
    columns = answer["columns"]
    dividing = [n for n in sizes if 128 % (b * (n // (t * p))) == 0]
    assert columns["world_size"] == dividing and 96 not in dividing  # 96 / 4 = 24 data ranks: 24 b does not divide 128
    for i, n in enumerate(columns["world_size"]):
        assert columns["gradient_accumulation_steps"][i] == 128 // (b * (n // (t * p)))
        planned = client.post("/v1/plan", json=request | {"cluster": request["cluster"] | {"world_size": n}})
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        assert plan["parallelism"]["micro_batches"] == columns["gradient_accumulation_steps"][i]
        assert columns["per_gpu_bytes"][i] == plan["memory"]["per_gpu_bytes"]
        assert columns["step_s"][i] == plan["time"]["step_s"]
    assert answer["skipped_cells"] == len(sizes) - len(dividing)
    assert any("/training/global_batch_size" in reason for reason in answer["skipped_reasons"])
    refused = client.post("/v1/plan", json=request | {"cluster": request["cluster"] | {"world_size": 96}})
    assert refused.status_code == 422
    assert [e["pointer"] for e in refused.json()["errors"]] == ["/training/global_batch_size"]


def test_a_global_batch_sets_the_micro_batches_a_sweep_cannot_vary(client, row):
    body = {"base": row["request"], "axes": {"gradient_accumulation_steps": [1, 2]}}
    response = client.post("/v1/sweep", json=body)
    assert response.status_code == 422
    (error,) = response.json()["errors"]
    assert error["pointer"] == "/axes" and "base.training.global_batch_size" in error["detail"]


def test_a_search_row_takes_every_input_of_a_plan(row):
    request = row["request"]
    assert request["precision"] == "megatron"
    assert request["training"]["total_tokens"] == 10**12
    assert row["time"]["training_days"] is not None  # a token budget is priced on every row


def test_a_search_row_is_accepted_by_every_planning_endpoint(client, row):
    request = row["request"]
    planned = client.post("/v1/plan", json=request)
    assert planned.status_code == 200, planned.text
    assert planned.json()["memory"] == row["memory"] and planned.json()["time"] == row["time"]

    fit = client.post("/v1/fit", json=request)
    assert fit.status_code == 200, fit.text
    (entry,) = fit.json()["arrangements"]
    assert entry["at_world_size"]["per_gpu_bytes"] == row["per_gpu_bytes"]
    assert entry["at_world_size"]["fits"] == row["fits"]

    limits = client.post("/v1/limits", json=request)
    assert limits.status_code == 200, limits.text
    (entry,) = limits.json()["arrangements"]
    assert entry["arrangement"] == request["arrangement"]
    # the row's own micro-batch fits, so the largest is at least it, and divides the batch's sequences a replica
    data = row["parallelism"]["data"]
    per_replica = request["training"]["global_batch_size"] // data
    largest = entry["largest_micro_batch_size"]
    assert largest >= request["training"]["micro_batch_size"] and per_replica % largest == 0

    recommend = client.post("/v1/recommend", json=request)
    assert recommend.status_code == 200, recommend.text
    asked = [s for s in recommend.json()["steps"] if s["asked"]]
    assert len(asked) == 1 and asked[0]["per_gpu_bytes"] == row["per_gpu_bytes"]
    assert asked[0]["step_s"] == row["step_s"]

    search = client.post("/v1/search", json=request)
    assert search.status_code == 200, search.text
    assert search.json()["asked"]["memory"] == row["memory"]

    sweep = client.post("/v1/sweep", json={"base": request, "axes": {"recompute": ["none", "full"]}})
    assert sweep.status_code == 200, sweep.text
    columns = sweep.json()["columns"]
    asked = columns["recompute"].index(request["levers"]["recompute"])
    assert columns["per_gpu_bytes"][asked] == row["per_gpu_bytes"]
    assert columns["step_s"][asked] == row["step_s"]

    for name in FIGURES:
        figure = client.post(f"/v1/figures/{name}", json=request, headers={"Accept": "image/svg+xml"})
        assert figure.status_code == 200, (name, figure.text)


def test_a_row_whose_batch_does_not_split_over_data_parallelism_is_drawn_with_a_note(client):
    """The four arrangement figures draw the job over data parallelism at N, holding its global batch; a layout's
    row often has a batch N replicas cannot share (48 sequences over 16 replicas of t2 p2 on 64 GPUs, but not
    over 64): each replica then runs the job's own micro-batches, and the figure says so. Before, those figures
    answered 422 ("not a whole number of micro-batches") for a row every other endpoint took, and /v1/fit,
    /v1/recommend and /v1/limits refused the batch without a layout."""
    response = client.post("/v1/search", json=SEARCH | {"training": SEARCH["training"] | {"global_batch_size": 48}})
    assert response.status_code == 200, response.text
    request = response.json()["layouts"][0]["request"]
    assert request["training"]["global_batch_size"] == 48
    for name in FIGURES:
        figure = client.post(f"/v1/figures/{name}", json=request, headers={"Accept": "image/svg+xml"})
        assert figure.status_code == 200, (name, figure.text)
        noted = "does not split into micro-batches of 1 over 64" in figure.text
        assert noted == (name not in ("layout-memory", "layout-traffic")), name
    for path in ("/v1/fit", "/v1/limits", "/v1/recommend"):
        assert client.post(path, json=request).status_code == 200, path
    over_data = {k: v for k, v in request.items() if k != "parallelism"} | {
        "cluster": request["cluster"] | {"world_size": 16}
    }
    for path in ("/v1/plan", "/v1/fit", "/v1/limits", "/v1/recommend"):  # 48 sequences over 16 GPUs: 3 each
        assert client.post(path, json=over_data).status_code == 200, path


def test_a_lever_the_layout_figures_arrangement_cannot_take_is_a_422_naming_it(client):
    """levers.offload_parameters without an arrangement: the layout figures plan under layout_arrangement (zero1
    by default), which keeps parameters whole; that was a 500."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "levers": {"offload_parameters": True},
    }
    for name in ("layout-memory", "layout-traffic"):
        response = client.post(f"/v1/figures/{name}", json=body, headers={"Accept": "image/svg+xml"})
        assert response.status_code == 422, response.text
        (error,) = response.json()["errors"]
        assert error["pointer"] == "/levers" and "layout_arrangement zero1" in error["detail"]
    ok = client.post("/v1/figures/layout-memory", json=body | {"layout_arrangement": "zero3"})
    assert ok.status_code == 200, ok.text


def test_levers_the_restricted_layouts_cannot_keep_are_a_422_naming_the_restriction(client):
    """schemathesis found a 500: ZeRO++ levers in a search, whose rows tried zero1 too. A search now keeps to the
    arrangements and layouts that take the levers (tests/search/test_search_levers.py); this one's restrictions
    (zero1, tensor 2) leave none, which is the restriction's 422."""
    cases = (
        ({"zeropp": {"qgz": True}}, "/restrict/tensor", "levers.zeropp"),
        ({"offload_parameters": True}, "/restrict/arrangement", "levers.offload_parameters"),
    )
    for levers, pointer, word in cases:
        response = client.post("/v1/search", json=SEARCH | {"levers": levers})
        assert response.status_code == 422, response.text
        (error,) = response.json()["errors"]
        assert error["pointer"] == pointer and word in error["detail"], error


def test_an_arrangement_given_by_its_sharding_flags_means_the_same_everywhere(client):
    """{"sharding": zero2's flags} with no arrangement is zero2 to /v1/plan; /v1/fit and /v1/limits answered
    every arrangement for it, /v1/recommend marked no step asked, and the layout figures planned
    layout_arrangement instead (the flags were dropped where the name field was optional)."""
    flags = {"shard_optimizer": True, "shard_gradients": True, "shard_parameters": False}
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "sharding": flags,
    }
    planned = client.post("/v1/plan", json=body).json()
    assert planned["arrangement"]["name"] == "zero2"
    for path in ("/v1/fit", "/v1/limits"):
        assert [a["arrangement"] for a in client.post(path, json=body).json()["arrangements"]] == ["zero2"], path
    steps = client.post("/v1/recommend", json=body).json()["steps"]
    assert [s["arrangement"] for s in steps if s["asked"]] == ["zero2"]
    search = client.post("/v1/search", json=body | {"top_k": 1})
    assert search.status_code == 200, search.text
    assert search.json()["asked"]["per_gpu_bytes"] == planned["memory"]["per_gpu_bytes"]
    svg = {"Accept": "image/svg+xml"}
    by_flags = client.post("/v1/figures/layout-memory", json=body | {"layout_arrangement": "zero3"}, headers=svg)
    named = {k: v for k, v in body.items() if k != "sharding"}
    by_name = client.post("/v1/figures/layout-memory", json=named | {"arrangement": "zero2"}, headers=svg)
    other = client.post("/v1/figures/layout-memory", json=named | {"arrangement": "zero3"}, headers=svg)
    assert by_flags.status_code == by_name.status_code == other.status_code == 200
    assert by_flags.content == by_name.content != other.content  # drawn as zero2, not layout_arrangement's zero3
