"""POST /v1/search: every valid layout of a model on a cluster, ranked; thin transport over service.answers.search.

Heavy work (api.work): at most a few at once, in a worker process (api.pool), under the work deadline,
stopped when the client leaves; a space larger than ZEROPLAN_MAX_SEARCH_LAYOUTS is refused before any work.
"""

from functools import partial

from fastapi import Request, Response

from api.encoding import model_json, sizes_named
from api.problems import HEAVY, PROBLEM_RESPONSES
from api.routes.planning import json_response
from api.routing import v1_router
from api.settings import Settings
from api.work import HeavyWork
from models.search import SearchRequest, SearchResponse
from service.answers.search import search
from service.work_budget import WorkBudget

router = v1_router(["search"])


@router.post(
    "/search",
    operation_id="search",
    summary="Every valid layout of a model on a cluster, the best by an objective and the Pareto front",
    description="Considers every valid layout (data, tensor, pipeline, context and expert degrees, ZeRO stage or "
    "FSDP strategy, micro-batch size, recomputation, optimizer offload, pipeline schedule and virtual stages) "
    "of the model on each world size, through the same formulas as /v1/plan, and returns the top_k distinct "
    "layouts that fit by the objective (step_s, tokens_per_s_per_gpu, gpus, training_days, gpu_hours or cost) "
    "and the Pareto front of GPUs against step time. Branch and bound: what a memory lower bound shows cannot "
    "fit, and what a lower bound on the step shows cannot rank, is never evaluated (counted in `pruned`). Each "
    "row carries the /v1/plan request that reproduces it, that plan's memory and time, its equivalents and why "
    "it ranks there. Combinations that are not valid layouts are counted by reason in `skipped`. Bounded: at "
    "most ZEROPLAN_MAX_SEARCH_LAYOUTS combinations (a 422 before any work), a deadline, and a limit on heavy "
    "requests at once (429).",
    response_model=SearchResponse,
    responses=PROBLEM_RESPONSES | HEAVY,
)
async def search_layouts(body: SearchRequest, request: Request) -> Response:
    settings: Settings = request.app.state.settings
    heavy: HeavyWork = request.app.state.heavy

    with sizes_named(body):
        return json_response(
            await heavy.run_in_process(request, partial(compute_search, body, settings.max_search_layouts))
        )


def compute_search(body: SearchRequest, max_layouts: int, budget: WorkBudget) -> bytes:
    """The encoded answer: the heavy work, module-level so a worker process runs it."""
    return model_json(search(body, max_layouts, budget))
