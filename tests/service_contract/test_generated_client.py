"""A client generated from openapi/openapi.json (openapi-python-client) drives the live service, unchanged.

Whatever the generator warns about is a defect of the spec, so its output must be clean. One
generator setting: it reads binary bodies only as application/octet-stream, so the figures' image
types (valid OpenAPI: `type: string, format: binary`) are mapped to it; the spec stays as it is.
"""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.openapi import DEFAULT_PATH
from tests.service_contract.conftest import FIT_BODY, PLAN_BODY, app_with
from tests.service_contract.live import running_server

PACKAGE = "zeroplan_generated_client"
GENERATOR_TIMEOUT_S = 120
GENERATOR_CONFIG = {
    "content_type_overrides": {"image/png": "application/octet-stream", "image/svg+xml": "application/octet-stream"}
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("client") / PACKAGE
    config = out.parent / "generator.json"
    config.write_text(json.dumps(GENERATOR_CONFIG))
    bin_dir = Path(sys.executable).parent  # the generator formats with ruff from the same environment
    env = os.environ | {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(bin_dir / "openapi-python-client"), "generate", "--path", str(DEFAULT_PATH), "--meta", "none"]
    command += ["--config", str(config)]
    result = subprocess.run(
        [*command, "--output-path", str(out)], capture_output=True, text=True, env=env, timeout=GENERATOR_TIMEOUT_S
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "warning" not in report.lower() and "error" not in report.lower(), report
    sys.path.insert(0, str(out.parent))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out.parent))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def client(generated):
    with running_server(app_with(access_log=False)) as url:
        with generated.Client(base_url=url, raise_on_unexpected_status=True) as client:
            yield client


def module(generated, name: str):
    return importlib.import_module(f"{generated.__name__}.{name}")


def test_plan(generated, client):
    plan = module(generated, "api.planning.plan")
    PlanRequest = module(generated, "models").PlanRequest
    response = plan.sync_detailed(client=client, body=PlanRequest.from_dict(PLAN_BODY))
    assert response.status_code == 200
    answer = response.parsed
    assert answer.memory.per_gpu_bytes == 60_000_000_000 and answer.memory.fits is True
    assert answer.traffic.volume_in_p == 3.0


def test_fit(generated, client):
    fit = module(generated, "api.planning.fit")
    FitRequest = module(generated, "models").FitRequest
    answer = fit.sync(client=client, body=FitRequest.from_dict(FIT_BODY))
    minimum = {a.arrangement.value: a.min_gpus_exact for a in answer.arrangements}
    assert minimum["zero3"] == 6 and minimum["zero2"] == 22


def test_the_error_path_is_a_problem(generated, client):
    plan = module(generated, "api.planning.plan")
    models = module(generated, "models")
    body = models.PlanRequest.from_dict(PLAN_BODY | {"cluster": PLAN_BODY["cluster"] | {"world_size": 12}})
    response = plan.sync_detailed(client=client, body=body)
    assert response.status_code == 422
    problem = response.parsed
    assert isinstance(problem, models.Problem)
    assert problem.code.value == "validation_error"
    assert [e.pointer for e in problem.errors] == ["/cluster/world_size"]
    assert problem.request_id == response.headers["x-request-id"]
