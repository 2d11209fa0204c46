"""Admission routes: thin transport over service.answers.admission."""

import anyio.from_thread
from fastapi import Request
from starlette.concurrency import run_in_threadpool

from api.problems import HEAVY, PROBLEM_RESPONSES
from api.routes.planning import cached_heavy
from api.routing import v1_router
from models.admission import AdmissionReview, AdmissionReviewResponse
from models.plan import PlanRequest, PlanResponse
from service.answers import admission
from service.answers import plan as planner
from service.answers.plan_cost import light_plan

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
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def admission_kubernetes(review: AdmissionReview, http: Request) -> AdmissionReviewResponse:
    def planned(job: PlanRequest) -> PlanResponse:
        """The job's plan: a light one here, a heavy one (thousands of stages) as heavy work under its deadline,
        as /v1/plan answers it (api.routes.planning)."""
        if light_plan(job):
            return planner.plan(job)
        body = anyio.from_thread.run(cached_heavy, http, "plan", job, lambda budget: planner.plan(job))
        return PlanResponse.model_validate_json(body)

    # in a thread: the review waits for a heavy plan without holding the event loop
    return AdmissionReviewResponse(response=await run_in_threadpool(admission.review, review.request, planned))
