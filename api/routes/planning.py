"""Planning routes: thin transport over service.answers.plan."""

from collections.abc import Callable

from fastapi import Request, Response
from pydantic import BaseModel
from starlette.datastructures import State

from api.answers import AnswerCache
from api.encoding import fields_json, model_json, sizes_named
from api.problems import HEAVY, PROBLEM_RESPONSES
from api.routing import v1_router
from api.settings import Settings
from api.work import HeavyWork
from models.fit import FitRequest, FitResponse
from models.limits import LimitsRequest, LimitsResponse
from models.plan import PlanRequest, PlanResponse
from models.presets import PresetsResponse
from models.recommend import RecommendRequest, RecommendResponse
from service.answers import fit as fitting
from service.answers import limits as fit_limits
from service.answers import plan as planner
from service.answers import recommend
from service.answers.plan_cost import light_plan
from service.work_budget import WorkBudget


def json_response(body: bytes) -> Response:
    """A body encoded once (api.encoding); response_model still documents the schema."""
    return Response(body, media_type="application/json")


router = v1_router(["planning"])


@router.post(
    "/plan",
    operation_id="plan",
    summary="Per-GPU memory and traffic of one arrangement",
    description="Bytes every GPU holds, state class by state class with the arithmetic, whether it "
    "fits the card, and the collectives of one optimizer step at ring cost.",
    response_model=PlanResponse,
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def plan(request: PlanRequest, http: Request) -> Response:
    if light_plan(request):
        with sizes_named(request):
            return json_response(plan_answer(http.app.state, request))
    # Thousands of stages or layers on a mesh: heavy work, off the event loop, under its deadline.
    return json_response(await cached_heavy(http, "plan", request, lambda budget: planner.plan(request)))


def plan_answer(state: State, request: PlanRequest) -> bytes:
    """The plan's JSON, from the answer cache or computed on the event loop (a plan takes a fraction of a
    millisecond). Valid requests usually arrive by the direct path (api.fast), not the route."""
    answers: AnswerCache = state.answers
    return answers.answer("plan", request, lambda: planner.plan(request))


def computed_plan(request: PlanRequest) -> bytes:
    """The plan's JSON, computed (the direct path keeps it in the answer cache); a data-parallel plan is
    written from its fields, unvalidated, which is byte for byte the validated model's JSON."""
    answer = planner.plan_fields(request)
    return model_json(answer) if isinstance(answer, PlanResponse) else fields_json(answer, PlanResponse)


@router.post(
    "/fit",
    operation_id="fit",
    summary="Which arrangements fit the card, and from how many GPUs",
    description="For DP, ZeRO-1, ZeRO-2 and ZeRO-3: the replicated floor, the exact minimum GPU count, "
    "the minimum on whole nodes and on the chosen grid, and a table of per-GPU bytes over the grid.",
    response_model=FitResponse,
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def fit(request: FitRequest, http: Request) -> Response:
    # A grid of thousands of GPU counts takes a while: a cache miss is heavy work, off the event loop.
    settings: Settings = http.app.state.settings
    return json_response(
        await cached_heavy(
            http, "fit", request, lambda budget: fitting.fit(request, settings.max_fit_grid_points, budget)
        )
    )


async def cached_heavy(
    http: Request, operation: str, request: BaseModel, compute: Callable[[WorkBudget], BaseModel]
) -> bytes:
    """The cached answer at once, or compute and encode it as heavy work (api.work) and keep it."""
    answers: AnswerCache = http.app.state.answers
    heavy: HeavyWork = http.app.state.heavy
    key, body = answers.lookup(operation, request)
    if body is None:
        with sizes_named(request):
            body = answers.store(key, await heavy.run(http, lambda budget: model_json(compute(budget))))
    return body


@router.post(
    "/recommend",
    operation_id="recommend",
    summary="The levers to reach for, cheapest first, and the first that fits",
    description="Every arrangement and lever (ZeRO stages, hybrid sharding, offload, recomputation, MXFP8) "
    "evaluated at the smallest GPU count where it fits, priced against data parallel in traffic, compute, "
    "PCIe and hardware, and ordered by what it needs and the step time it adds. Says which questions only a "
    "measurement can settle for this case.",
    response_model=RecommendResponse,
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def recommend_levers(request: RecommendRequest, http: Request) -> Response:
    # A dozen evaluations with bisections: a cache miss is heavy work, off the event loop.
    return json_response(
        await cached_heavy(http, "recommend", request, lambda budget: recommend.recommend(request, budget))
    )


@router.post(
    "/limits",
    operation_id="limits",
    summary="The largest model, micro-batch and sequence that fit",
    description="The inverse questions at this world size, per arrangement: the largest parameter count whose "
    "model states fit the usable bytes (the ZeRO paper's table 2) and, with a model, the largest micro-batch and "
    "the longest sequence whose per-GPU bytes fit, each an integer boundary with its arithmetic (null when even "
    "the smallest does not fit). The /v1/plan request with `model` and `arrangement` optional.",
    response_model=LimitsResponse,
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def limits(request: LimitsRequest, http: Request) -> Response:
    # A few hundred evaluations of the memory formulas (bisections): a cache miss is heavy work.
    return json_response(await cached_heavy(http, "limits", request, lambda budget: fit_limits.limits(request, budget)))


@router.get(
    "/presets",
    operation_id="listPresets",
    summary="GPU, precision and model presets, each with its source",
    response_model=PresetsResponse,
    responses={500: PROBLEM_RESPONSES[500]},
)
async def presets() -> PresetsResponse:
    return planner.presets()
