"""Figure routes: thin transport over service.answers.figures, PNG or SVG by `format` or `Accept`.

Drawing is heavy work (api.work): in a worker process, never on the event loop, a few at once.
Accept is read from the request, not declared as a parameter: OpenAPI ignores a header parameter
named Accept (OpenAPI 3.1, Parameter Object); the 200 response lists both media types instead.
"""

from functools import partial
from typing import Annotated, Any

from fastapi import Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from api.encoding import sizes_named
from api.problems import HEAVY, PROBLEM_RESPONSES
from api.routing import v1_router
from api.work import HeavyWork
from models.figures import FIGURE_MEDIA_TYPES, FigureFormat, FigureName, FigureQuery, FigureRequest
from service.answers.figures import draw
from service.work_budget import WorkBudget

router = v1_router(["figures"])

DESCRIPTION = (
    "memory-vs-gpus: per-GPU bytes against GPU count (log2 axis) for DP, ZeRO-1, ZeRO-2 and ZeRO-3, with the "
    "card and each arrangement's replicated floor. bytes-per-weight: bytes per weight by state class at the "
    "chosen N. traffic: bytes sent per GPU per step by collective, measured bars beside when given. step-time: "
    "compute, exposed communication and offload seconds. PNG or SVG: the `format` query parameter wins over "
    "`Accept`; PNG when neither names one. Same request, same bytes."
)
IMAGE_SCHEMA = {"type": "string", "format": "binary"}
IMAGE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The figure, width_px x height_px.",
        "content": {media_type: {"schema": IMAGE_SCHEMA} for media_type in FIGURE_MEDIA_TYPES.values()},
    }
}
FORMAT_QUERY = Query(alias="format", description="png or svg; wins over the Accept header.")
# Query parameters that stand for nested body fields: ('cluster',) errors point at `gpu`, and so on.
QUERY_FOR_BODY = {"model": "parameter_count", "cluster": "gpu"}


def negotiate(fmt: FigureFormat | None, accept: str | None) -> FigureFormat:
    """`format` if given, else the image type Accept prefers (highest q, first on a tie), else PNG."""
    if fmt is not None:
        return fmt
    chosen, best_q = FigureFormat.png, 0.0
    for part in (accept or "").split(","):
        media_type, *params = (piece.strip().lower() for piece in part.split(";"))
        q = _quality(params)
        for candidate, candidate_type in FIGURE_MEDIA_TYPES.items():
            if media_type == candidate_type and q > best_q:
                chosen, best_q = candidate, q
    return chosen


def _quality(params: list[str]) -> float:
    for param in params:
        name, _, value = param.partition("=")
        if name.strip() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


async def figure_response(http: Request, name: FigureName, request: FigureRequest, fmt: FigureFormat) -> Response:
    """Drawing is heavy work (api.work): bounded in number, in a worker process. A drawing checks no budget
    while the library lays out its bars (ten thousand stages take tens of seconds): in a process it holds no
    lock the event loop needs, and one abandoned at its deadline ends with its worker at shutdown."""
    heavy: HeavyWork = http.app.state.heavy
    headers = {"Vary": "Accept", "Content-Disposition": f'inline; filename="{name.value}.{fmt.value}"'}
    with sizes_named(request):  # a job too large to answer: at the request's size fields, as /v1/plan names them
        image = await heavy.run_in_process(http, partial(draw_task, name, request, fmt))
    return Response(image, media_type=FIGURE_MEDIA_TYPES[fmt], headers=headers)


def draw_task(name: FigureName, request: FigureRequest, fmt: FigureFormat, budget: WorkBudget) -> bytes:
    """The drawing, picklable for a worker process."""
    budget.check()
    return draw(name, request, fmt)


@router.post(
    "/figures/{name}",
    operation_id="drawFigure",
    summary="Draw one of the figures (four of arrangements, two of a layout) for a plan request, as PNG or SVG",
    description=DESCRIPTION,
    response_class=Response,
    responses=IMAGE_RESPONSE | PROBLEM_RESPONSES | HEAVY,
)
async def draw_figure(
    name: FigureName,
    body: FigureRequest,
    http: Request,
    fmt: Annotated[FigureFormat | None, FORMAT_QUERY] = None,
) -> Response:
    return await figure_response(http, name, body, negotiate(fmt, http.headers.get("accept")))


@router.get(
    "/figures/{name}",
    operation_id="getFigure",
    summary="Draw one of the figures (four of arrangements, two of a layout) from query parameters, as PNG or SVG",
    description=DESCRIPTION + " The common case only: a model, a card, N and GPUs per node; POST for the rest.",
    response_class=Response,
    responses=IMAGE_RESPONSE | {status: PROBLEM_RESPONSES[status] for status in (422, 500)} | HEAVY,
)
async def get_figure(name: FigureName, query: Annotated[FigureQuery, Query()], http: Request) -> Response:
    fmt = negotiate(query.format, http.headers.get("accept"))
    return await figure_response(http, name, request_from_query(query), fmt)


def request_from_query(query: FigureQuery) -> FigureRequest:
    """Validate the body the query stands for; its errors point at query parameters."""
    try:
        return FigureRequest.model_validate(query.body())
    except ValidationError as exc:
        raise RequestValidationError([_as_query_error(error) for error in exc.errors()]) from None


def _as_query_error(error: Any) -> dict[str, Any]:
    loc = [str(part) for part in error.get("loc", ()) if not str(part).startswith("~")]
    leaf = next((part for part in reversed(loc) if part in FigureQuery.model_fields), None)
    name = leaf or QUERY_FOR_BODY.get(loc[0] if loc else "", "query")
    return {"loc": ("query", name), "msg": error.get("msg", "invalid"), "type": error.get("type", "value_error")}
