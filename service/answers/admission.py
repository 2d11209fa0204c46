"""A Kubernetes admission review of a PyTorchJob or JobSet that names its plan in the
``zeroplan.dev/plan`` annotation: allowed with the prediction (warnings and an annotation patch), or
denied with the plan's reason.

The GPUs come from the object, never from the annotation: a PyTorchJob's replicas (Master and Worker,
kubeflow/training-operator pkg/apis/kubeflow.org/v1/pytorch_types.go) times the ``nvidia.com/gpu``
limit of a replica's pod; a JobSet's replicatedJobs (jobset.x-k8s.io/v1alpha2): replicas x the Job's
parallelism x its pod's limit. One pod per node: GPUs per node is the pod's limit.
"""

import base64
import json
import math
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from models.admission import (
    PLAN_ANNOTATION,
    PREDICTION_ANNOTATION,
    AdmissionRequest,
    AdmissionResponse,
    AdmissionStatus,
)
from models.plan import PlanRequest, PlanResponse
from service.answers.plan import plan
from service.errors import DeadlineExceeded, DomainError, WorkCancelled, WorkOutOfMemory, validation_field_errors

GPU_RESOURCE = "nvidia.com/gpu"


class Denied(Exception):
    def __init__(self, message: str, code: int = 403) -> None:
        super().__init__(message)
        self.code = code


Planner = Callable[[PlanRequest], PlanResponse]


def review(request: AdmissionRequest, planner: Planner = plan) -> AdmissionResponse:
    """The decision; ``planner`` answers the job's /v1/plan (the API's sends a heavy plan off the event loop under
    its deadline, as /v1/plan does)."""
    try:
        return _review(request, planner)
    except Denied as denied:
        reason = "Forbidden" if denied.code == 403 else "Invalid"
        status = AdmissionStatus(code=denied.code, reason=reason, message=f"zeroplan: {denied}")
        return AdmissionResponse(uid=request.uid, allowed=False, status=status)


def _review(request: AdmissionRequest, planner: Planner) -> AdmissionResponse:
    job = request.object or {}
    metadata = job.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    text = annotations.get(PLAN_ANNOTATION) if isinstance(annotations, dict) else None
    if text is None or request.operation not in ("CREATE", "UPDATE"):
        return AdmissionResponse(uid=request.uid, allowed=True)
    world, per_node = allocation(job)
    body = plan_body(text, world, per_node)
    try:
        answer = planner(PlanRequest.model_validate(body))
    except ValidationError as error:
        raise Denied(f"the plan in {PLAN_ANNOTATION} is not valid: {_errors(error, body)}", 422) from None
    except (DeadlineExceeded, WorkOutOfMemory, WorkCancelled):
        raise  # the service did not answer in time or memory: not the job's fault, the webhook's failure policy
    except DomainError as error:
        raise Denied(f"the plan in {PLAN_ANNOTATION} is refused: {error}", 422) from None
    memory, time = answer.memory, answer.time
    if not memory.fits:
        if memory.per_gpu_bytes <= memory.usable_bytes and not memory.host_fits:
            short = (
                f"a node's host memory holds {(memory.host_memory_bytes or 0) / 2**30:.1f} GiB, its GPUs offload "
                f"{memory.host_bytes / 2**30:.1f} GiB ({answer.arrangement.name}, {world} GPUs)"
            )
        else:
            short = (
                f"{memory.per_gpu_bytes / 2**30:.1f} GiB per GPU needed ({answer.arrangement.name}, {world} GPUs), "
                f"{memory.usable_bytes / 2**30:.1f} GiB usable"
            )
        raise Denied(f"the job does not fit: {short}; POST /v1/fit gives the smallest GPU count that fits")
    words = (
        f"zeroplan: fits {memory.per_gpu_bytes / 2**30:.1f} of {memory.usable_bytes / 2**30:.1f} GiB per GPU, "
        f"step {time.step_s:.3g} s, goodput {time.goodput:.3f}"
    )
    prediction: dict[str, Any] = {
        "fits": True,
        "per_gpu_bytes": memory.per_gpu_bytes,
        "step_s": time.step_s,
        "goodput": time.goodput,
    }
    if time.training_days is not None:
        words += f", {time.training_days:.3g} days, {time.gpu_hours:,.0f} GPU-hours"
        prediction |= {"training_days": time.training_days, "gpu_hours": time.gpu_hours}
        prediction["active_deadline_seconds"] = math.ceil(time.training_days * 86_400)
    patch = [
        {
            "op": "add",
            "path": "/metadata/annotations/" + PREDICTION_ANNOTATION.replace("~", "~0").replace("/", "~1"),
            "value": json.dumps(prediction, separators=(",", ":")),
        }
    ]
    return AdmissionResponse(
        uid=request.uid,
        allowed=True,
        warnings=[words],
        patchType="JSONPatch",
        patch=base64.b64encode(json.dumps(patch).encode()).decode(),
    )


def plan_body(text: Any, world: int, per_node: int) -> dict[str, Any]:
    if not isinstance(text, str):
        raise Denied(f"{PLAN_ANNOTATION} must be a string holding a /v1/plan request as JSON", 422)
    try:
        body = json.loads(text)
    except json.JSONDecodeError as error:
        raise Denied(f"{PLAN_ANNOTATION} is not a plan: its JSON does not parse ({error.msg})", 422) from None
    except (RecursionError, ValueError):  # nested past the parser's recursion, or an integer of thousands of digits
        raise Denied(
            f"{PLAN_ANNOTATION} is not a plan: its JSON does not parse (nested too deeply, or a number too long)", 422
        ) from None
    if not isinstance(body, dict):
        raise Denied(f"{PLAN_ANNOTATION} is not a plan: a /v1/plan request is a JSON object", 422)
    cluster = body.setdefault("cluster", {})
    if not isinstance(cluster, dict):
        raise Denied(f"cluster in {PLAN_ANNOTATION} must be an object", 422)
    for name, value in (("world_size", world), ("gpus_per_node", per_node)):
        given = cluster.get(name)
        if given is not None and not same_count(given, value):
            raise Denied(
                f"cluster.{name} {given!r} in {PLAN_ANNOTATION} disagrees with the job's pods: {world // per_node} "
                f"pods x {per_node} GPUs = {world} GPUs",
                422,
            )
        cluster[name] = value
    return body


def same_count(given: Any, value: int) -> bool:
    """Whether a plan's count is the pods', written as /v1/plan reads a count: a whole number, also as a float
    (16.0) or a string of digits ("16")."""
    if isinstance(given, bool):
        return False
    if isinstance(given, str):
        given = given.strip()
        return given.isdigit() and int(given) == value
    return isinstance(given, (int, float)) and given == value


def _errors(error: ValidationError, body: dict[str, Any]) -> str:
    return "; ".join(detail for _, detail in validation_field_errors(error.errors(), body))


def _object(value: Any, where: str) -> dict[str, Any]:
    """A field the object schema makes an object (absent: empty); anything else is denied naming it (a mutating
    webhook runs before a custom resource's schema is checked)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Denied(f"{where} must be an object, not {type(value).__name__}", 422)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Denied(f"{where} must be a list, not {type(value).__name__}", 422)
    return value


def _whole(value: Any, where: str) -> int:
    """A count of the object: a whole number of at least 0, as a number or (a resource quantity) its digits."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    raise Denied(f"{where} {value!r} is not a whole number", 422)


def _pod_gpus(template: Any, where: str) -> int:
    spec = _object(_object(template, f"{where}.template").get("spec"), f"{where}.template.spec")
    total = 0
    for i, container in enumerate(_list(spec.get("containers"), f"{where}.template.spec.containers")):
        at = f"{where}.template.spec.containers[{i}]"
        resources = _object(_object(container, at).get("resources"), f"{at}.resources")
        limits = _object(resources.get("limits"), f"{at}.resources.limits")
        total += _whole(limits.get(GPU_RESOURCE, 0), f"{at}.resources.limits[{GPU_RESOURCE}]")
    return total


def allocation(job: dict[str, Any]) -> tuple[int, int]:
    """(world size, GPUs per node) from the PyTorchJob's or JobSet's pods."""
    kind = job.get("kind")
    spec = _object(job.get("spec"), "spec")
    pods: list[tuple[int, int]] = []  # (pods, GPUs per pod)
    if kind == "PyTorchJob":
        replicas = _object(spec.get("pytorchReplicaSpecs"), "spec.pytorchReplicaSpecs")
        for role, replica in replicas.items():
            where = f"spec.pytorchReplicaSpecs.{role}"
            replica = _object(replica, where)
            pods.append(
                (_whole(replica.get("replicas", 1), f"{where}.replicas"), _pod_gpus(replica.get("template"), where))
            )
    elif kind == "JobSet":
        for i, replicated in enumerate(_list(spec.get("replicatedJobs"), "spec.replicatedJobs")):
            where = f"spec.replicatedJobs[{i}]"
            replicated = _object(replicated, where)
            job_spec = _object(
                _object(replicated.get("template"), f"{where}.template").get("spec"), f"{where}.template.spec"
            )
            count = _whole(replicated.get("replicas", 1), f"{where}.replicas") * _whole(
                job_spec.get("parallelism", 1), f"{where}.template.spec.parallelism"
            )
            pods.append((count, _pod_gpus(job_spec.get("template"), f"{where}.template.spec")))
    else:
        raise Denied(f"{PLAN_ANNOTATION} is read on a PyTorchJob or a JobSet, not a {kind}", 422)
    with_gpus = [(n, g) for n, g in pods if g > 0 and n > 0]
    if not with_gpus:
        raise Denied(f"the job's pods ask for no GPUs: set resources.limits[{GPU_RESOURCE}]", 422)
    per_node = {g for _, g in with_gpus}
    if len(per_node) > 1:
        raise Denied(f"the job's pods ask for different GPU counts ({sorted(per_node)}); zeroplan plans one", 422)
    return sum(n * g for n, g in with_gpus), per_node.pop()
