"""Admission routes: thin transport over service.answers.admission."""

from api.problems import PROBLEM_RESPONSES
from api.routing import v1_router
from models.admission import AdmissionReview, AdmissionReviewResponse
from service.answers import admission

router = v1_router(["admission"])


@router.post(
    "/admission/kubernetes",
    operation_id="admission_kubernetes",
    summary="Admit or deny a PyTorchJob or JobSet by its plan (Kubernetes AdmissionReview v1)",
    description="A validating or mutating admission webhook: the object's zeroplan.dev/plan annotation holds a "
    "/v1/plan request; the GPUs come from the object's pods. Fits: allowed, the prediction in the warnings and "
    "a JSONPatch adding the zeroplan.dev/prediction annotation. Does not fit, or the plan is not valid: denied "
    "with the reason (status.message). Objects without the annotation are allowed unchanged.",
    response_model=AdmissionReviewResponse,
    responses=PROBLEM_RESPONSES,
)
async def admission_kubernetes(review: AdmissionReview) -> AdmissionReviewResponse:
    return AdmissionReviewResponse(response=admission.review(review.request))
