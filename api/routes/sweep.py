"""POST /v1/sweep: columnar JSON or CSV over the cartesian product of the axes."""

import numpy as np
import orjson
from fastapi import Depends, Request, Response

from api.deps import get_settings
from api.metrics import SWEEP_CELLS
from api.problems import PROBLEM_RESPONSES
from api.routing import v1_router
from api.settings import Settings
from api.tables import csv_text
from models.sweep import SweepRequest, SweepResponse
from service.sweep import sweep_answer

router = v1_router(["sweep"])

CSV_MEDIA_TYPE = "text/csv"


@router.post(
    "/sweep",
    operation_id="sweep",
    summary="Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers",
    description="The cartesian product of `axes` over the `base` plan request, evaluated vectorised through "
    "the same formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are "
    "not valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or parameter_count, "
    "world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length, gradient_accumulation_steps, "
    "recompute, offload_optimizer, mxfp8. Columns name the model and its parameter count and give tokens/s; "
    "with base.training.total_tokens, the run's steps, days, GPU-hours (and cost with a GPU-hour price).",
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
        columns = answer["columns"]
        names = list(columns)
        rows = zip(*(columns[n].tolist() for n in names), strict=True)
        return Response(csv_text(names, rows), media_type=CSV_MEDIA_TYPE)
    answer["columns"] = {name: _jsonable(column) for name, column in answer["columns"].items()}
    return Response(orjson.dumps(answer, option=orjson.OPT_SERIALIZE_NUMPY), media_type="application/json")


def _jsonable(column: np.ndarray) -> object:
    return column.tolist() if column.dtype.kind in "OUS" else column
