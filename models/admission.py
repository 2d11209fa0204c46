"""POST /v1/admission/kubernetes: a Kubernetes AdmissionReview (admission.k8s.io/v1) for a PyTorchJob
(Kubeflow training operator, kubeflow.org/v1) or a JobSet (jobset.x-k8s.io/v1alpha2).

The shapes follow the published schemas: AdmissionReview, AdmissionRequest and AdmissionResponse of
k8s.io/api/admission/v1 (types.go); only the fields the review reads are declared, the rest are kept
as they come (a review carries much more than this service needs).
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from models.base import Strict

PLAN_ANNOTATION = "zeroplan.dev/plan"
PREDICTION_ANNOTATION = "zeroplan.dev/prediction"


class AdmissionRequest(Strict):
    model_config = ConfigDict(extra="allow")

    uid: str = Field(min_length=1, max_length=256, description="Copied to the response, as the API server expects.")
    kind: dict[str, str] = Field(default_factory=dict, description="group, version and kind of the object.")
    operation: str = Field(default="CREATE", description="CREATE, UPDATE, DELETE or CONNECT.")
    object: dict[str, Any] | None = Field(default=None, description="The PyTorchJob or JobSet as submitted.")


class AdmissionReview(Strict):
    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "apiVersion": "admission.k8s.io/v1",
                    "kind": "AdmissionReview",
                    "request": {
                        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                        "kind": {"group": "kubeflow.org", "version": "v1", "kind": "PyTorchJob"},
                        "operation": "CREATE",
                        "object": {
                            "apiVersion": "kubeflow.org/v1",
                            "kind": "PyTorchJob",
                            "metadata": {
                                "name": "llama3-8b",
                                "annotations": {
                                    PLAN_ANNOTATION: '{"model": {"preset": "llama-3-8b"}, "cluster": {"gpu": '
                                    '"h100-80gb"}, "arrangement": "zero3"}'
                                },
                            },
                            "spec": {
                                "pytorchReplicaSpecs": {
                                    "Worker": {
                                        "replicas": 2,
                                        "template": {
                                            "spec": {
                                                "containers": [
                                                    {
                                                        "name": "pytorch",
                                                        "resources": {"limits": {"nvidia.com/gpu": 8}},
                                                    }
                                                ]
                                            }
                                        },
                                    }
                                }
                            },
                        },
                    },
                }
            ]
        },
    )

    apiVersion: Literal["admission.k8s.io/v1"]
    kind: Literal["AdmissionReview"]
    request: AdmissionRequest


class AdmissionStatus(BaseModel):
    code: int = Field(description="HTTP-like code of a denial: 403, or 422 for a plan that is not valid.")
    reason: str
    message: str = Field(description="Why: shown to the user by kubectl.")


class AdmissionResponse(BaseModel):
    uid: str
    allowed: bool
    status: AdmissionStatus | None = None
    warnings: list[str] | None = Field(default=None, description="The prediction, shown by kubectl as warnings.")
    patchType: Literal["JSONPatch"] | None = None
    patch: str | None = Field(
        default=None, description=f"Base64 of a JSONPatch adding the {PREDICTION_ANNOTATION} annotation."
    )


class AdmissionReviewResponse(BaseModel):
    apiVersion: Literal["admission.k8s.io/v1"] = "admission.k8s.io/v1"
    kind: Literal["AdmissionReview"] = "AdmissionReview"
    response: AdmissionResponse
