"""Every number the planning operations answer is finite, for any input the spec allows.

The inputs come from the spec itself (schemathesis builds them from each operation's JSON
Schema, bounds included, and hypothesis leans on the bounds' extremes): a float bound that lets
an output overflow to infinity or divide by an underflowed zero shows up here as a NaN, an
infinity, or a null (how JSON encoders write them) where the response schema has a number.
"""

import json
import math

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel

from api.app import create_app
from api.settings import Settings
from models.fit import FitResponse
from models.plan import PlanResponse
from models.recommend import RecommendResponse
from models.sweep import SweepResponse

RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    "/v1/plan": PlanResponse,
    "/v1/fit": FitResponse,
    "/v1/recommend": RecommendResponse,
    "/v1/sweep": SweepResponse,
}
ENCODED_BY_MODEL = ("/v1/plan", "/v1/fit", "/v1/recommend")
EXAMPLES = 120
# A call may wait past schemathesis' 10 s default on a loaded machine: the first heavy request starts the
# worker processes (api.pool), each importing the core. Past the service's own deadline (work_deadline_s, 30 s)
# the service answers a 503 itself, which the checks see.
CALL_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def schema():
    # Small limits keep each case fast; the bounds under test are the inputs', not the limits'.
    app = create_app(Settings(access_log=False, max_sweep_cells=2_000, max_fit_grid_points=256))
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def refuse_constant(name: str) -> float:
    raise AssertionError(f"the body holds {name}, which is not JSON")


def finite_numbers(value: object, path: str = "") -> list[str]:
    """Paths of the numbers in a decoded body that are not finite."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in finite_numbers(item, f"{path}/{key}")]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in finite_numbers(item, f"{path}/{i}")]
    return []


@pytest.mark.parametrize("path", sorted(RESPONSE_MODELS))
def test_every_number_answered_is_finite(schema, path):
    operation = schema[path]["POST"]
    answered = 0

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(case=operation.as_strategy())
    def check(case):
        nonlocal answered
        response = case.call(timeout=CALL_TIMEOUT_S)
        assert response.status_code < 500, response.text
        if response.status_code != 200:
            return
        answered += 1
        body = json.loads(response.content, parse_constant=refuse_constant)
        assert finite_numbers(body) == [], (case.body, finite_numbers(body))
        # A null where the schema has a number fails here: the response model has no None there.
        answer = RESPONSE_MODELS[path].model_validate(body, strict=False)
        if path in ENCODED_BY_MODEL:  # api.encoding writes these: byte for byte pydantic's JSON of the answer
            assert response.content == answer.model_dump_json().encode()

    check()
    assert answered > 0, f"no case of {path} reached the core"


def resolve(spec: dict, node: dict) -> dict:
    while "$ref" in node:
        node = spec["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def number_fields(spec: dict, node: dict, path: tuple[str, ...] = ()):
    """(path, lowest, highest) of every number or integer a request body can hold outside lists."""
    node = resolve(spec, node)
    for member in node.get("anyOf", []) + node.get("oneOf", []):
        member = resolve(spec, member)
        if member.get("type") in ("number", "integer", "object"):
            yield from number_fields(spec, member, path)
    if node.get("type") in ("number", "integer"):
        lowest = node.get("minimum", math.nextafter(node.get("exclusiveMinimum", -math.inf), math.inf))
        highest = node.get("maximum", math.nextafter(node.get("exclusiveMaximum", math.inf), -math.inf))
        cast = int if node["type"] == "integer" else float
        yield path, cast(lowest), cast(highest)
    for name, child in node.get("properties", {}).items():
        yield from number_fields(spec, child, (*path, name))


def with_value(body: dict, path: tuple[str, ...], value: float) -> dict:
    out = json.loads(json.dumps(body))
    node = out
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value
    return out


def extreme_bodies(spec: dict, path: str):
    """Each number alone at each end of its range, then every float at once at either end."""
    schema = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
    fields = list(number_fields(spec, schema))
    for example in resolve(spec, schema)["examples"]:
        for field, lowest, highest in fields:
            for value in (lowest, highest):
                yield with_value(example, field, value)
        floats = [(f, lo, hi) for f, lo, hi in fields if isinstance(lo, float)]
        for end in (1, 2):
            body = example
            for field, *ends in floats:
                body = with_value(body, field, ends[end - 1])
            yield body


@pytest.mark.parametrize("path", sorted(RESPONSE_MODELS))
def test_numbers_at_the_ends_of_their_ranges_give_finite_answers(path):
    from fastapi.testclient import TestClient

    client = TestClient(create_app(Settings(access_log=False, max_sweep_cells=2_000)), raise_server_exceptions=False)
    spec = client.get("/openapi.json").json()
    answered = 0
    for body in extreme_bodies(spec, path):
        response = client.post(path, json=body)
        assert response.status_code < 500, (body, response.text)
        if response.status_code == 200:
            answered += 1
            decoded = json.loads(response.content, parse_constant=refuse_constant)
            assert finite_numbers(decoded) == [], (body, finite_numbers(decoded))
            RESPONSE_MODELS[path].model_validate(decoded)
    assert answered > 0
