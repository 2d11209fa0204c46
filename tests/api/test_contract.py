"""The validator is exactly as strict as the spec: no coercion, every parse failure a 400, a full Allow."""

import gzip
import json

import pytest
from pydantic import BaseModel

from models.base import non_strict_scalars
from tests.api.test_problems import assert_problem
from tests.conftest import plan_body

JSON = {"content-type": "application/json"}


def post_raw(client, path: str, raw: bytes, headers: dict[str, str] | None = None):
    return client.post(path, content=raw, headers=JSON | (headers or {}))


def with_cluster(**cluster):
    body = plan_body("zero3")
    body["cluster"] = {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"} | cluster
    return body


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        (plan_body("zero3", parameter_count="30000000000"), "/model/parameter_count"),
        (plan_body("zero3", parameter_count=True), "/model/parameter_count"),
        (plan_body("zero3", parameter_count=False), "/model/parameter_count"),
        (plan_body("zero3") | {"levers": {"overlap": 1}}, "/levers/overlap"),
        (plan_body("zero3") | {"levers": {"mxfp8": 0}}, "/levers/mxfp8"),
        (plan_body("zero3") | {"levers": {"overlap": "true"}}, "/levers/overlap"),
        (with_cluster(world_size=8.5), "/cluster/world_size"),
        (with_cluster(world_size="8"), "/cluster/world_size"),
        (with_cluster(peak_flops_per_s="1e15"), "/cluster/peak_flops_per_s"),
        (with_cluster(peak_flops_per_s=True), "/cluster/peak_flops_per_s"),
        (
            plan_body({"shard_optimizer": 1, "shard_gradients": 0, "shard_parameters": 0}),
            "/sharding/shard_optimizer",
        ),
        (plan_body("zero3") | {"training": {"utilisation": "0.4"}}, "/training/utilisation"),
    ],
)
def test_no_coercion_between_booleans_numbers_and_strings(client, body, pointer):
    assert_problem(client.post("/v1/plan", json=body), 422, "validation_error", pointer)


def test_a_whole_number_float_is_a_count(client):
    # JSON Schema counts 3e10 and 8.0 as integers; clients write them.
    raw = b'{"model": {"parameter_count": 3e10}, "cluster": {"world_size": 8.0, "gpu": "seed-80gb"}, '
    raw += b'"arrangement": "zero3"}'
    response = post_raw(client, "/v1/plan", raw)
    assert response.status_code == 200, response.text
    assert response.json()["parameter_count"] == 30_000_000_000 and response.json()["world_size"] == 8


def test_an_integer_is_a_float(client):
    response = client.post("/v1/plan", json=with_cluster(peak_flops_per_s=10**15))
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "peak_flops_per_s", [5e-324, 1e-300, 0.5, 999_999_999.0, 1e18 * 2, -1.0, 0.0], ids=lambda v: f"{v:g}"
)
def test_a_peak_that_would_make_times_infinite_is_refused(client, peak_flops_per_s):
    assert_problem(
        client.post("/v1/plan", json=with_cluster(peak_flops_per_s=peak_flops_per_s)),
        422,
        "validation_error",
        "/cluster/peak_flops_per_s",
    )


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        (plan_body("zero3") | {"training": {"utilisation": 1e-300}}, "/training/utilisation"),
        (with_cluster(link_spec={"inter_node_bytes_per_s": 5e-324}), "/cluster/link_spec/inter_node_bytes_per_s"),
        (with_cluster(link_spec={"host_bytes_per_s": 1e-300}), "/cluster/link_spec/host_bytes_per_s"),
        (plan_body("zero3") | {"activations": {"fudge": 5e-324}}, "/activations/fudge"),
    ],
)
def test_other_floats_that_would_underflow_are_refused(client, body, pointer):
    assert_problem(client.post("/v1/plan", json=body), 422, "validation_error", pointer)


def test_the_slowest_inputs_allowed_still_give_finite_times(client):
    body = with_cluster(
        peak_flops_per_s=1e9,
        link_spec={"intra_node_bytes_per_s": 1e6, "inter_node_bytes_per_s": 1e6, "host_bytes_per_s": 1e6},
    ) | {"training": {"utilisation": 0.001, "gradient_accumulation_steps": 1_000_000, "sequence_length": 10_000_000}}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    time = response.json()["time"]
    # 6 x 30e9 weights x (8 x 1 x 1e7 x 1e6) tokens / (8 GPUs x 1e9 x 0.001)
    assert time["compute_s"] == pytest.approx(6 * 30e9 * 8e13 / (8 * 1e9 * 0.001))
    assert all(isinstance(time[k], float) for k in ("compute_s", "communication_s", "offload_s", "step_s"))


GZIPPED_PLAN = gzip.compress(json.dumps(plan_body("zero3")).encode())


@pytest.mark.parametrize(
    ("raw", "headers"),
    [
        (GZIPPED_PLAN, {"content-encoding": "gzip"}),
        (GZIPPED_PLAN, {}),
        (b'{"model": {"preset": "\xff\xfe"}}', {}),
        (b"[" * 5000 + b"]" * 5000, {}),
        (b'{"model": {"parameter_count": ' + b"9" * 4300 + b"}}", {}),
        (b'{"model": {"parameter_count": ' + b"9" * 100_000 + b"}}", {}),
        (b'{"model": ', {}),
        (b"\x00\x01", {}),
        (b"NaN", {}),
    ],
    ids=[
        "gzip-declared",
        "gzip",
        "invalid-utf8",
        "5000-deep",
        "4300-digits",
        "100k-digits",
        "truncated",
        "binary",
        "nan",
    ],
)
def test_every_parse_failure_is_malformed_json(client, raw, headers):
    body = assert_problem(post_raw(client, "/v1/plan", raw, headers), 400, "malformed_json")
    if headers:
        assert "Content-Encoding gzip" in body["detail"]


def test_a_long_integer_within_a_double_is_out_of_range(client):
    # RFC 8259 section 6 lets a parser limit numbers to what a double holds (about 1.8e308): a
    # 300-digit count parses and is refused as a value; 4,300 digits do not parse (above).
    raw = b'{"model": {"parameter_count": ' + b"9" * 300 + b'}, "cluster": {"world_size": 8, "gpu": "seed-80gb"}, '
    raw += b'"arrangement": "zero3"}'
    assert_problem(post_raw(client, "/v1/plan", raw), 422, "validation_error", "/model/parameter_count")


def documented_methods(client) -> dict[str, set[str]]:
    paths = client.get("/openapi.json").json()["paths"]
    out = {}
    for path, operations in paths.items():
        methods = {m.upper() for m in operations}
        out[path] = methods | ({"HEAD"} if "GET" in methods else set())
    return out


def concrete(template: str) -> str:
    return template.replace("{name}", "traffic").replace("{job_id}", "00000000000000000000000000000000")


def test_every_documented_path_answers_405_with_its_complete_allow(client):
    for template, methods in documented_methods(client).items():
        path = concrete(template)
        for method in {"GET", "POST", "PUT", "PATCH", "DELETE"} - methods:
            # A JSON body or none, any content type: the method decides, before the body is looked at.
            for kwargs in ({}, {"content": b"x", "headers": {"content-type": "text/plain"}}, {"json": {}}):
                response = client.request(method, path, **kwargs)
                assert_problem(response, 405, "method_not_allowed")
                allowed = {m.strip() for m in response.headers["allow"].split(",")}
                assert allowed == methods, (method, path, allowed)


def test_an_unknown_path_is_a_404_whatever_the_body(client):
    response = client.post("/v1/nowhere", content=b"x", headers={"content-type": "text/plain"})
    assert_problem(response, 404, "not_found")


def test_a_huge_invalid_request_gets_a_short_problem(client):
    count = 50_000
    body = {"base": plan_body("zero3"), "axes": {"world_size": [-1 - i for i in range(count)]}}
    response = client.post("/v1/sweep", json=body)
    problem = assert_problem(response, 422, "validation_error")
    assert len(problem["errors"]) == 20 and problem["error_count"] == count
    assert problem["errors"][0]["pointer"] == "/axes/world_size/0"
    assert f"{count - 20:,} more" in problem["detail"]
    assert len(response.content) < 10_000


def request_models() -> list[type[BaseModel]]:
    from models.admission import AdmissionReview
    from models.figures import FigureRequest
    from models.fit import FitRequest
    from models.limits import LimitsRequest
    from models.plan import PlanRequest
    from models.recommend import RecommendRequest
    from models.search import SearchRequest
    from models.simulation import SimulationRequest
    from models.sweep import SweepRequest

    return [
        PlanRequest,
        FitRequest,
        LimitsRequest,
        RecommendRequest,
        SweepRequest,
        SearchRequest,
        FigureRequest,
        SimulationRequest,
        AdmissionReview,
    ]


def test_every_body_the_spec_names_is_checked_here(client):
    spec = client.get("/openapi.json").json()
    named = set()
    for operations in spec["paths"].values():
        for operation in operations.values():
            ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if "$ref" in ref:
                named.add(ref["$ref"].rsplit("/", 1)[1])
    assert named <= {m.__name__ for m in request_models()}, named


@pytest.mark.parametrize("model", request_models(), ids=lambda m: m.__name__)
def test_every_scalar_of_every_request_is_strict(model):
    # Whatever field is added to a request, nested at any depth, its base class makes it strict.
    assert non_strict_scalars(model.__pydantic_core_schema__) == []


SKETCH = {
    "parameter_dtype": "fp16",
    "gradient_dtype": "fp16",
    "master_dtype": None,
    "optimizer": "adam",
    "optimizer_state_dtype": "fp64",
}
LINKS = {"intra_node_bytes_per_s": 4e11, "inter_node_bytes_per_s": 4e10, "host_bytes_per_s": 5e10}


def test_an_object_where_a_name_goes_is_refused_naming_its_field(client):
    for body, pointer, spec_field in [
        (plan_body("zero3") | {"precision": SKETCH}, "/precision", "precision_spec"),
        (plan_body("zero3") | {"arrangement": {"shard_optimizer": True}}, "/arrangement", "sharding"),
        (with_cluster(links=LINKS), "/cluster/links", "link_spec"),
    ]:
        response = client.post("/v1/plan", json=body)
        assert_problem(response, 422, "validation_error", pointer)
        assert spec_field in response.text


def test_layouts_planned_inside_a_sweep_and_a_figure_keep_the_spec_fields(client):
    # 16 GPUs as tensor 2 x pipeline 2 (d = 4), 4 micro-batches, the sketch's dtypes and explicit links
    base = {
        "model": {"preset": "llama-3-8b"},
        "precision_spec": SKETCH,
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb", "link_spec": LINKS},
        "arrangement": "zero1",
        "training": {"gradient_accumulation_steps": 4},
    }
    layout = {"tensor": 2, "pipeline": 2}
    plan = client.post("/v1/plan", json=base | {"parallelism": layout})
    assert plan.status_code == 200, plan.text
    sweep = client.post("/v1/sweep", json={"base": base, "axes": {"tensor": [2], "pipeline": [2]}})
    assert sweep.status_code == 200, sweep.text
    assert sweep.json()["columns"]["per_gpu_bytes"] == [plan.json()["memory"]["per_gpu_bytes"]]
    figure = base | {"layout_arrangement": "zero1", "parallelism": layout}
    figure.pop("arrangement")
    drawn = client.post("/v1/figures/layout-memory?format=svg", json=figure)
    assert drawn.status_code == 200, drawn.text


def test_a_layout_sweep_over_a_base_given_by_its_sharding_flags_plans_every_cell(client):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "sharding": {"shard_optimizer": True, "shard_gradients": False, "shard_parameters": False},
        "training": {"gradient_accumulation_steps": 4},
    }
    plan = client.post("/v1/plan", json=base | {"parallelism": {"tensor": 2, "pipeline": 2}})
    assert plan.status_code == 200, plan.text
    sweep = client.post("/v1/sweep", json={"base": base, "axes": {"tensor": [2], "pipeline": [2]}})
    assert sweep.status_code == 200, sweep.text
    answer = sweep.json()
    assert answer["skipped_cells"] == 0, answer["skipped_reasons"]
    assert answer["columns"]["arrangement"] == ["zero1"]
    assert answer["columns"]["per_gpu_bytes"] == [plan.json()["memory"]["per_gpu_bytes"]]
