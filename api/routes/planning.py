"""Planning routes: thin transport over service.planner."""

from fastapi import APIRouter, Depends, Request, Response

from api.answers import AnswerCache
from api.deps import get_settings
from api.problems import PROBLEM_RESPONSES
from api.settings import Settings
from models.fit import FitRequest, FitResponse
from models.plan import PlanRequest, PlanResponse
from models.presets import PresetsResponse
from models.recommend import RecommendRequest, RecommendResponse
from service import fitting, planner, recommend


async def get_answers(request: Request) -> AnswerCache:
    answers: AnswerCache = request.app.state.answers
    return answers


def json_response(body: bytes) -> Response:
    """Serialised by pydantic's Rust encoder; response_model still documents the schema."""
    return Response(body, media_type="application/json")


router = APIRouter(prefix="/v1", tags=["planning"])


@router.post(
    "/plan",
    operation_id="plan",
    summary="Per-GPU memory and traffic of one arrangement",
    description="Bytes every GPU holds, state class by state class with the arithmetic, whether it "
    "fits the card, and the collectives of one optimizer step at ring cost.",
    response_model=PlanResponse,
    responses=PROBLEM_RESPONSES,
)
async def plan(request: PlanRequest, http: Request) -> Response:
    # The hottest route reads the cache from the app directly: a Depends costs a dependency solve.
    answers: AnswerCache = http.app.state.answers
    return json_response(answers.answer("plan", request, lambda: planner.plan(request)))


@router.post(
    "/fit",
    operation_id="fit",
    summary="Which arrangements fit the card, and from how many GPUs",
    description="For DP, ZeRO-1, ZeRO-2 and ZeRO-3: the replicated floor, the exact minimum GPU count, "
    "the minimum on whole nodes and on the chosen grid, and a table of per-GPU bytes over the grid.",
    response_model=FitResponse,
    responses=PROBLEM_RESPONSES,
)
def fit(
    request: FitRequest, settings: Settings = Depends(get_settings), answers: AnswerCache = Depends(get_answers)
) -> Response:
    # A plain def: a grid of thousands of GPU counts takes a while, so it runs off the event loop.
    return json_response(
        answers.answer("fit", request, lambda: fitting.fit(request, max_points=settings.max_fit_grid_points))
    )


@router.post(
    "/recommend",
    operation_id="recommend",
    summary="The levers to reach for, cheapest first, and the first that fits",
    description="Every arrangement and lever (ZeRO stages, hybrid sharding, offload, recomputation, MXFP8) "
    "evaluated at the smallest GPU count where it fits, priced against data parallel in traffic, compute, "
    "PCIe and hardware, and ordered by what it needs and the step time it adds. Says which questions only a "
    "measurement can settle for this case.",
    response_model=RecommendResponse,
    responses=PROBLEM_RESPONSES,
)
def recommend_levers(request: RecommendRequest, answers: AnswerCache = Depends(get_answers)) -> Response:
    # A plain def: a dozen evaluations with bisections run in the thread pool, off the event loop.
    return json_response(answers.answer("recommend", request, lambda: recommend.recommend(request)))


@router.get(
    "/presets",
    operation_id="listPresets",
    summary="GPU, precision and model presets, each with its source",
    response_model=PresetsResponse,
    responses={500: PROBLEM_RESPONSES[500]},
)
async def presets() -> PresetsResponse:
    return planner.presets()
