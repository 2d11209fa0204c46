"""The committed client (clients/python, generated from openapi/openapi.json) matches the spec and drives
the live service, unchanged.

Drift: regenerating into a temporary folder gives the committed files byte for byte; when it does
not, `make openapi` regenerates both the spec and the client. Whatever the generator warns about
is a defect of the spec, so its report must be clean.
"""

import filecmp
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service_contract.conftest import FIT_BODY, PLAN_BODY, app_with
from tests.service_contract.live import running_server

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "clients" / "python"
PACKAGE = "zeroplan_client"
REGENERATE = "the committed client drifted from openapi/openapi.json: run make openapi and commit clients/python"


# What `pip install ./clients/python` and the tools leave beside the committed files: never compared.
BUILD_OUTPUT = ("__pycache__", ".pytest_cache", ".ruff_cache", "build", "dist")


def tree(folder: Path) -> list[str]:
    """The client's own files: build output (build/, dist/, *.egg-info, caches) left out."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file()
        and not any(part in BUILD_OUTPUT or part.endswith(".egg-info") for part in p.relative_to(folder).parts)
    )


def drift(committed: Path, generated: Path) -> list[str]:
    """Each difference between the two trees, named: files only one side has and files whose bytes differ."""
    ours, theirs = tree(committed), tree(generated)
    lines = [f"only in the generated client: {name}" for name in sorted(set(theirs) - set(ours))]
    lines += [
        f"only in clients/python (not generated from the spec): {name}" for name in sorted(set(ours) - set(theirs))
    ]
    common = sorted(set(ours) & set(theirs))
    _, mismatch, errors = filecmp.cmpfiles(committed, generated, common, shallow=False)
    lines += [f"differs from what the spec generates: {name}" for name in mismatch + errors]
    return lines


def test_the_committed_client_is_what_the_spec_generates(tmp_path):
    out = tmp_path / "python"
    result = subprocess.run(
        [sys.executable, str(ROOT / "clients" / "generate.py"), str(out)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    differences = drift(CLIENT_DIR, out)
    assert differences == [], f"{REGENERATE}:\n" + "\n".join(differences)


def test_build_output_beside_the_client_is_not_drift(tmp_path):
    """`pip install ./clients/python` leaves build/ and *.egg-info; they are no difference from the spec."""
    committed, generated = tmp_path / "committed", tmp_path / "generated"
    for folder in (committed, generated):
        (folder / "pkg").mkdir(parents=True)
        (folder / "pkg" / "a.py").write_text("x = 1\n")
    (committed / "build" / "lib" / "pkg").mkdir(parents=True)
    (committed / "build" / "lib" / "pkg" / "a.py").write_text("x = 1\n")
    (committed / "zeroplan_client.egg-info").mkdir()
    (committed / "zeroplan_client.egg-info" / "PKG-INFO").write_text("Name: zeroplan-client\n")
    assert drift(committed, generated) == []
    (generated / "pkg" / "a.py").write_text("x = 2\n")
    (generated / "pkg" / "b.py").write_text("y = 1\n")
    assert drift(committed, generated) == [
        "only in the generated client: pkg/b.py",
        "differs from what the spec generates: pkg/a.py",
    ]


def test_the_generator_reports_no_warning(tmp_path):
    sys.path.insert(0, str(ROOT / "clients"))
    try:
        from generate import generate  # the script, imported for its report

        report = generate(tmp_path / "python")
    finally:
        sys.path.remove(str(ROOT / "clients"))
    assert "warning" not in report.lower() and "error" not in report.lower(), report


@pytest.fixture(scope="module")
def generated():
    sys.path.insert(0, str(CLIENT_DIR))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(CLIENT_DIR))


@pytest.fixture(scope="module")
def client(generated):
    with running_server(app_with(access_log=False)) as url:
        with generated.Client(base_url=url, raise_on_unexpected_status=True) as client:
            yield client


def module(generated, name: str):
    return importlib.import_module(f"{generated.__name__}.{name}")


def test_the_unions_are_plain_fields(generated):
    models = module(generated, "models")
    request = models.PlanRequest.from_dict(PLAN_BODY)
    assert isinstance(request.arrangement, models.ArrangementName)
    flags = PLAN_BODY | {"sharding": {"shard_optimizer": True, "shard_gradients": True, "shard_parameters": False}}
    del flags["arrangement"]
    assert isinstance(models.PlanRequest.from_dict(flags).sharding, models.ShardingFlags)


def test_plan(generated, client):
    plan = module(generated, "api.planning.plan")
    PlanRequest = module(generated, "models").PlanRequest
    response = plan.sync_detailed(client=client, body=PlanRequest.from_dict(PLAN_BODY))
    assert response.status_code == 200
    answer = response.parsed
    assert answer.memory.per_gpu_bytes == 60_000_000_000 and answer.memory.fits is True
    assert answer.traffic.volume_in_p == 3.0


def test_plan_with_the_split_fields(generated, client):
    plan = module(generated, "api.planning.plan")
    models = module(generated, "models")
    body = models.PlanRequest(
        model=models.ModelSpec(parameter_count=30_000_000_000),
        cluster=models.Cluster(world_size=8, gpus_per_node=8, gpu=models.GpuPresetName("seed-80gb")),
        sharding=models.ShardingFlags(shard_optimizer=True, shard_gradients=True, shard_parameters=False),
        precision_spec=models.PrecisionSpec(
            parameter_dtype=models.Dtype.FP16,
            gradient_dtype=models.Dtype.FP16,
            master_dtype=None,
            optimizer_state_dtype=models.Dtype.FP64,
        ),
    )
    answer = plan.sync(client=client, body=body)
    # the rough sketch (seed_sketch): 2 + 2 + 16 = 20 bytes per weight; ZeRO-2 keeps the 2 parameter bytes whole
    assert answer.arrangement.name.value == "zero2"
    assert answer.memory.per_gpu_bytes == 30_000_000_000 * 2 + 30_000_000_000 * 18 // 8


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


def test_the_spec_splits_each_name_or_object_field():
    import json

    schemas = json.loads((ROOT / "openapi" / "openapi.json").read_text())["components"]["schemas"]
    for model, name, enum, spec_field, spec in [
        ("PlanRequest", "arrangement", "ArrangementName", "sharding", "ShardingFlags"),
        ("PlanRequest", "precision", "PrecisionPresetName", "precision_spec", "PrecisionSpec"),
        ("FitRequest", "precision", "PrecisionPresetName", "precision_spec", "PrecisionSpec"),
        ("Cluster", "links", "LinkPresetName", "link_spec", "LinkSpec"),
        ("FitCluster", "links", "LinkPresetName", "link_spec", "LinkSpec"),
        ("FitRequest", "arrangement", "ArrangementName", "sharding", "ShardingFlags"),
        ("RecommendRequest", "arrangement", "ArrangementName", "sharding", "ShardingFlags"),
    ]:
        properties = schemas[model]["properties"]
        # the name field: the enum alone, or null (the default, or the spec field given instead)
        assert properties[name]["anyOf"] == [{"$ref": f"#/components/schemas/{enum}"}, {"type": "null"}], (model, name)
        assert {"$ref": f"#/components/schemas/{spec}"} in properties[spec_field]["anyOf"], (model, spec_field)


def test_links_is_a_plain_enum_in_the_client(generated):
    models = module(generated, "models")
    cluster = models.Cluster.from_dict({"world_size": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"})
    assert isinstance(cluster.links, models.LinkPresetName)


def test_the_client_readme_is_this_services_and_its_examples_run(generated):
    """The README shipped with the client is written for zeroplan (not the generator's template), and each of
    its Python examples runs against a live service as written, its address aside."""
    import re

    readme = (CLIENT_DIR / "README.md").read_text()
    assert "MyDataModel" not in readme and "api.example.com" not in readme
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 2
    with running_server(app_with(access_log=False)) as url:
        for block in blocks:
            printed: list[tuple] = []
            namespace = {"print": lambda *values, sink=printed: sink.append(values)}
            exec(block.replace("http://127.0.0.1:8000", url.rstrip("/")), namespace)  # noqa: S102
            assert printed, block


def test_a_sweep_as_csv_through_the_client(generated, client):
    sweep_csv = module(generated, "sweep_csv").sweep_csv
    body = {
        "base": {
            "model": {"parameter_count": 7_000_000_000},
            "cluster": {"world_size": 8, "gpu": "h100-80gb"},
            "arrangement": "zero3",
        },
        "axes": {"world_size": [8, 16], "arrangement": ["zero2", "zero3"]},
    }
    lines = sweep_csv(client, body).splitlines()
    header = lines[0].split(",")
    assert {"world_size", "arrangement", "per_gpu_bytes"} <= set(header) and len(lines) == 1 + 2 * 2
    with pytest.raises(generated.errors.UnexpectedStatus) as refused:
        sweep_csv(client, {"base": body["base"], "axes": {"world_size": [0]}})
    assert refused.value.status_code == 422
