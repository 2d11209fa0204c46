"""The committed spec is the product: it must equal the app's, and every operation is documented."""

import json

from api.openapi import DEFAULT_PATH, render, spec

REGENERATE = "regenerate it with `make openapi` (python -m api.openapi) and commit openapi/openapi.json"


def test_committed_spec_equals_the_apps():
    assert DEFAULT_PATH.read_text() == render(), f"openapi/openapi.json drifted from the app: {REGENERATE}"


def operations():
    for path, methods in spec()["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_operation_has_a_unique_id_and_a_summary():
    ids = [op["operationId"] for _, _, op in operations()]
    assert len(ids) == len(set(ids))
    for path, method, op in operations():
        assert op.get("summary"), f"{method} {path} has no summary"


def test_every_v1_operation_declares_its_problem_responses():
    for path, method, op in operations():
        if not path.startswith("/v1"):
            continue
        assert "500" in op["responses"], f"{method} {path}"
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")):
                content = response["content"]
                assert list(content) == ["application/problem+json"], f"{method} {path} {status}"
                assert content["application/problem+json"]["schema"]["$ref"].endswith("/Problem")
        if method == "post":
            assert {"400", "415", "422"} <= op["responses"].keys(), f"{method} {path}"


def test_request_bodies_carry_examples():
    schemas = spec()["components"]["schemas"]
    for name in ("PlanRequest", "FitRequest"):
        assert schemas[name]["examples"], name


def test_the_default_validation_schema_is_not_used():
    assert "HTTPValidationError" not in json.dumps(spec())
