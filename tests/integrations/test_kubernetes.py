"""POST /v1/admission/kubernetes against the published shapes: an AdmissionReview v1
(k8s.io/api/admission/v1 types.go; the example of the Kubernetes docs, "Dynamic Admission Control",
request and response), a PyTorchJob (kubeflow/training-operator examples/pytorch, kubeflow.org/v1) and
a JobSet (kubernetes-sigs/jobset, jobset.x-k8s.io/v1alpha2). No cluster is needed."""

import base64
import json

import pytest
from fastapi.testclient import TestClient

from api.app import create_app

PLAN = {
    "model": {"preset": "llama-3-8b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192, "total_tokens": 1e11},
    "cluster": {"gpu": "h100-80gb"},
    "arrangement": "zero3",
}
UID = "705ab4f5-6393-11e8-b7cc-42010a800002"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def pod(gpus: int) -> dict:
    return {
        "spec": {
            "containers": [
                {
                    "name": "pytorch",
                    "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
                    "command": ["torchrun", "train.py"],
                    "resources": {"limits": {"nvidia.com/gpu": gpus}},
                }
            ]
        }
    }


def pytorchjob(plan: object, workers: int = 1, gpus: int = 8) -> dict:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "llama3", "namespace": "team-a", "annotations": {"zeroplan.dev/plan": plan}},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": pod(gpus)},
                "Worker": {"replicas": workers, "restartPolicy": "OnFailure", "template": pod(gpus)},
            }
        },
    }


def jobset(plan: object, replicas: int, parallelism: int, gpus: int = 8) -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "llama3", "annotations": {"zeroplan.dev/plan": plan}},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": replicas,
                    "template": {
                        "spec": {"parallelism": parallelism, "completions": parallelism, "template": pod(gpus)}
                    },
                }
            ]
        },
    }


def review(obj: dict) -> dict:
    group, version = obj["apiVersion"].split("/")
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": UID,
            "kind": {"group": group, "version": version, "kind": obj["kind"]},
            "resource": {"group": group, "version": version, "resource": obj["kind"].lower() + "s"},
            "name": obj["metadata"]["name"],
            "namespace": "team-a",
            "operation": "CREATE",
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": obj,
            "oldObject": None,
            "dryRun": False,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
        },
    }


def answer(client: TestClient, obj: dict) -> dict:
    response = client.post("/v1/admission/kubernetes", json=review(obj))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["apiVersion"] == "admission.k8s.io/v1" and body["kind"] == "AdmissionReview"
    assert body["response"]["uid"] == UID
    return body["response"]


def test_a_pytorchjob_that_fits_is_allowed_with_the_prediction(client):
    out = answer(client, pytorchjob(json.dumps(PLAN), workers=1))  # master + 1 worker: 16 GPUs on 2 nodes
    assert out["allowed"] is True and out["patchType"] == "JSONPatch"
    assert out["warnings"][0].startswith("zeroplan: fits")
    patch = json.loads(base64.b64decode(out["patch"]))
    assert patch[0]["op"] == "add" and patch[0]["path"] == "/metadata/annotations/zeroplan.dev~1prediction"
    prediction = json.loads(patch[0]["value"])
    plan = client.post(
        "/v1/plan", json={**PLAN, "cluster": {**PLAN["cluster"], "world_size": 16, "gpus_per_node": 8}}
    ).json()
    assert prediction["training_days"] == plan["time"]["training_days"]
    assert prediction["gpu_hours"] == plan["time"]["gpu_hours"]


def test_a_jobset_counts_its_replicas_times_parallelism(client):
    out = answer(client, jobset(json.dumps({**PLAN, "cluster": {"gpu": "h100-80gb", "world_size": 32}}), 2, 2))
    assert out["allowed"] is True  # 2 replicas x 2 pods x 8 GPUs = 32


def test_a_job_that_does_not_fit_is_denied_with_the_reason(client):
    plan = {"model": {"preset": "llama-3-70b"}, "cluster": {"gpu": "h100-80gb"}, "arrangement": "ddp"}
    out = answer(client, pytorchjob(json.dumps(plan)))
    assert out["allowed"] is False and out["status"]["code"] == 403
    assert "the job does not fit" in out["status"]["message"] and "(ddp, 16 GPUs)" in out["status"]["message"]


@pytest.mark.parametrize(
    ("plan", "words"),
    [
        ("{not json", "zeroplan.dev/plan is not a plan"),
        (json.dumps({**PLAN, "cluster": {"gpu": "h100-80gb", "world_size": 64}}), "cluster.world_size 64"),
        (
            json.dumps({**PLAN, "training": {"total_tokens": 1e9, "checkpoint": {"storage_bytes_per_s_per_node": 0}}}),
            "training.checkpoint.storage_bytes_per_s_per_node",
        ),
        (
            json.dumps({**PLAN, "cluster": {"gpu": "h100-80gb", "failures": {"interruptions_per_gpu_hour": -0.1}}}),
            "cluster.failures.interruptions_per_gpu_hour",
        ),
        (json.dumps({**PLAN, "cluster": {"gpu": "no-such-gpu"}}), "cluster.gpu"),
    ],
)
def test_bad_plans_are_denied_naming_the_field(client, plan, words):
    out = answer(client, pytorchjob(plan))
    assert out["allowed"] is False and out["status"]["code"] == 422
    assert words in out["status"]["message"]


def test_an_object_without_a_plan_is_allowed_unchanged(client):
    obj = pytorchjob("x")
    del obj["metadata"]["annotations"]
    out = answer(client, obj)
    assert out == {"uid": UID, "allowed": True, "status": None, "warnings": None, "patchType": None, "patch": None}


def test_a_review_that_is_not_one_is_a_problem(client):
    response = client.post("/v1/admission/kubernetes", json={"apiVersion": "v1", "kind": "Pod"})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize(
    "annotation",
    ["[" * 2000 + "]" * 2000, '{"model": {"parameter_count": ' + "9" * 5000 + "}}"],
    ids=["nested 2,000 deep", "an integer of 5,000 digits"],
)
def test_an_annotation_the_parser_cannot_read_is_denied_not_a_500(client: TestClient, annotation: str):
    """json.loads raised RecursionError, or ValueError past 4,300 digits (CPython's int limit): a 500."""
    decision = answer(client, pytorchjob(annotation))
    assert decision["allowed"] is False
    assert "does not parse" in decision["status"]["message"]


@pytest.mark.parametrize(
    "path, value, words",
    [
        (("spec", "pytorchReplicaSpecs", "Worker", "replicas"), "two", "Worker.replicas 'two' is not a whole number"),
        (("spec", "pytorchReplicaSpecs", "Worker", "replicas"), None, "Worker.replicas None is not a whole number"),
        (("spec", "pytorchReplicaSpecs", "Worker", "template"), "pod", "Worker.template must be an object"),
        (("spec", "pytorchReplicaSpecs"), [], "spec.pytorchReplicaSpecs must be an object"),
        (("spec",), "spec", "spec must be an object"),
    ],
)
def test_an_object_of_the_wrong_shape_is_denied_naming_the_field(client, path, value, words):
    """A mutating webhook runs before a custom resource's schema is checked: these were 500s (int() and .get on
    whatever came), and a failurePolicy of Ignore admits the job unchecked on a 500."""
    obj = pytorchjob(json.dumps(PLAN), workers=1)
    node = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    decision = answer(client, obj)
    assert decision["allowed"] is False and decision["status"]["code"] == 422
    assert words in decision["status"]["message"]


def test_a_host_that_does_not_hold_the_offload_is_named(client):
    """A plan whose GPUs fit and whose node's host does not hold the offloaded states was denied quoting the GPU's
    bytes alone, which read as fitting."""
    plan = PLAN | {"levers": {"offload_optimizer": True}, "cluster": {"gpu": "h100-80gb", "host_memory_bytes": 10**9}}
    reference = client.post(
        "/v1/plan", json=plan | {"cluster": plan["cluster"] | {"world_size": 16, "gpus_per_node": 8}}
    )
    memory = reference.json()["memory"]
    assert memory["per_gpu_bytes"] <= memory["usable_bytes"] and not memory["host_fits"]
    decision = answer(client, pytorchjob(json.dumps(plan), workers=1))
    assert decision["allowed"] is False and "a node's host memory holds 0.9 GiB" in decision["status"]["message"]


def test_a_heavy_plan_is_reviewed_as_v1_plan_answers_it():
    """A plan of 128 pipeline stages is heavy work at /v1/plan (off the event loop, under its deadline); the review
    planned it on the event loop, stalling every other request. It now goes through the same heavy work (from the
    review's thread, anyio.from_thread), and its decision is /v1/plan's."""
    plan = {
        "model": {"layers": 128, "hidden_size": 256, "attention_heads": 4, "ffn_hidden_size": 1024, "vocab_size": 1000},
        "cluster": {"gpu": "h100-80gb"},
        "arrangement": "zero1",
        "parallelism": {"pipeline": 128},
        "training": {"gradient_accumulation_steps": 128},
    }
    obj = jobset(json.dumps(plan), replicas=16, parallelism=1)
    with TestClient(create_app()) as served:
        reference = served.post(
            "/v1/plan", json=plan | {"cluster": plan["cluster"] | {"world_size": 128, "gpus_per_node": 8}}
        )
        assert reference.status_code == 200, reference.text[:300]
        decision = answer(served, obj)
    assert decision["allowed"] is reference.json()["memory"]["fits"] is True


@pytest.mark.parametrize("world_size", ["16", 16.0, " 16 "])
def test_a_count_written_as_the_plan_reads_it_agrees_with_the_pods(client, world_size):
    """A count of "16" or 16.0 is 16 to /v1/plan; the review read it as disagreeing with the pods' 16 GPUs."""
    plan = {**PLAN, "cluster": {"gpu": "h100-80gb", "world_size": world_size}}
    assert answer(client, pytorchjob(json.dumps(plan)))["allowed"] is True  # master + 1 worker x 8 GPUs


@pytest.mark.parametrize(("world_size", "shown"), [("17", "'17'"), (True, "True"), ([16], "[16]")])
def test_a_count_that_is_not_the_pods_is_denied_as_written(client, world_size, shown):
    out = answer(client, pytorchjob(json.dumps({**PLAN, "cluster": {"gpu": "h100-80gb", "world_size": world_size}})))
    assert (
        out["allowed"] is False
        and f"cluster.world_size {shown} in zeroplan.dev/plan disagrees" in out["status"]["message"]
    )


def test_an_invalid_plan_is_denied_in_the_contracts_words(client):
    """The denial spoke pydantic's words: "Value error, ..." and "instance of ModelSpec"."""
    plan = {**PLAN, "model": "llama", "precision": {"parameter_dtype": "bf16"}}
    message = answer(client, pytorchjob(json.dumps(plan)))["status"]["message"]
    assert "model: Input should be an object" in message and "precision: precision takes a name" in message
    assert "Value error" not in message and "ModelSpec" not in message
