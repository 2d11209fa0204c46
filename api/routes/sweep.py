"""POST /v1/sweep: columnar JSON or CSV over the cartesian product of the axes."""

import csv
import io

import numpy as np
import orjson
from fastapi import APIRouter, Depends, Request, Response

from api.deps import get_settings
from api.metrics import SWEEP_CELLS
from api.problems import PROBLEM_RESPONSES
from api.settings import Settings
from models.sweep import SweepRequest, SweepResponse
from service.sweep import sweep_answer

router = APIRouter(prefix="/v1", tags=["sweep"])

CSV_MEDIA_TYPE = "text/csv"


@router.post(
    "/sweep",
    operation_id="sweep",
    summary="Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers",
    description="The cartesian product of `axes` over the `base` plan request, evaluated vectorised through "
    "the same formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are "
    "not valid jobs are skipped and counted.",
    response_model=SweepResponse,
    responses={
        200: {"content": {CSV_MEDIA_TYPE: {"schema": {"type": "string"}}}},
        **PROBLEM_RESPONSES,
    },
)
def sweep_grid(body: SweepRequest, request: Request, settings: Settings = Depends(get_settings)) -> Response:
    # A plain def: FastAPI runs it in the thread pool, so a large sweep never blocks the event loop.
    answer = sweep_answer(body, max_cells=settings.max_sweep_cells)
    SWEEP_CELLS.inc(answer["cells"])
    if CSV_MEDIA_TYPE in request.headers.get("accept", ""):
        return Response(_csv(answer["columns"]), media_type=CSV_MEDIA_TYPE)
    answer["columns"] = {name: _jsonable(column) for name, column in answer["columns"].items()}
    return Response(orjson.dumps(answer, option=orjson.OPT_SERIALIZE_NUMPY), media_type="application/json")


def _jsonable(column: np.ndarray) -> object:
    return column.tolist() if column.dtype.kind in "OUS" else column


def _csv(columns: dict[str, np.ndarray]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = list(columns)
    writer.writerow(names)
    writer.writerows(zip(*(columns[n].tolist() for n in names), strict=True))
    return out.getvalue()
