"""POST /v1/sweep: columnar JSON or CSV over the cartesian product of the axes.

The sweep is heavy work (api.work): at most a few at once, in a worker process (api.pool), under a
deadline, stopped when the client leaves. Its answer is encoded in that process too, column by
column (JSON) or in blocks of rows (CSV), counting bytes against ZEROPLAN_MAX_RESPONSE_BYTES: an answer that
would pass it is refused before it is built, or as soon as it passes, never sent half-made.
"""

from functools import partial
from typing import Any

import numpy as np
import orjson
from fastapi import Request, Response

from api.metrics import SWEEP_CELLS
from api.problems import HEAVY, PROBLEM_RESPONSES
from api.routing import v1_router
from api.settings import Settings
from api.work import HeavyWork
from models.sweep import SweepRequest, SweepResponse
from service.answers.sweep import COLUMNS, check_cost, sweep_answer, sweep_cost
from service.errors import ResponseTooLarge
from service.work_budget import WorkBudget

router = v1_router(["sweep"])

CSV_MEDIA_TYPE = "text/csv"
CSV_BLOCK_ROWS = 65_536
# Every value takes at least one character and a separator: the least bytes a row can encode to.
MIN_ROW_BYTES = 2 * len(COLUMNS)


@router.post(
    "/sweep",
    operation_id="sweep",
    summary="Evaluate a plan over a grid of GPU counts, arrangements, shapes and levers",
    description="The cartesian product of `axes` over the `base` plan request, evaluated vectorised through "
    "the same formulas as /v1/plan. Columnar JSON by default; CSV with `Accept: text/csv`. Cells that are "
    "not valid jobs are skipped and counted. Axes: model (presets, counts or architectures) or parameter_count, "
    "world_size, gpus_per_node, arrangement, micro_batch_size, sequence_length, gradient_accumulation_steps, "
    "recompute, offload_optimizer, mxfp8. Columns name the model and its parameter count and give tokens/s; "
    "with base.training.total_tokens, the run's steps, days, GPU-hours (and cost with a GPU-hour price). "
    "Bounded: at most ZEROPLAN_MAX_SWEEP_CELLS cells and "
    "ZEROPLAN_MAX_SWEEP_EVALUATIONS evaluations (one per combination of model, arrangement, recompute, "
    "offload_optimizer and mxfp8, plus overflow checks), an answer of at most ZEROPLAN_MAX_RESPONSE_BYTES "
    "(page with `limit` and `offset`), a deadline, and a limit on heavy requests at once (429).",
    response_model=SweepResponse,
    responses={
        200: {"content": {CSV_MEDIA_TYPE: {"schema": {"type": "string"}}}},
        **PROBLEM_RESPONSES,
        **HEAVY,
    },
)
async def sweep_grid(body: SweepRequest, request: Request) -> Response:
    settings: Settings = request.app.state.settings
    heavy: HeavyWork = request.app.state.heavy
    as_csv = CSV_MEDIA_TYPE in request.headers.get("accept", "")
    limits = (settings.max_sweep_cells, settings.max_sweep_evaluations, settings.max_response_bytes)
    cells, content = await heavy.run_in_process(request, partial(compute_sweep, body, as_csv, *limits))
    SWEEP_CELLS.inc(cells)
    return Response(content, media_type=CSV_MEDIA_TYPE if as_csv else "application/json")


def compute_sweep(
    body: SweepRequest, as_csv: bool, max_cells: int, max_evaluations: int, max_bytes: int, budget: WorkBudget
) -> tuple[int, bytes]:
    """The cells computed and the encoded answer: the heavy work, module-level so a worker process runs it."""
    cost = sweep_cost(body)
    check_cost(cost, max_cells, max_evaluations)
    check_response_bound(body, cost.cells, max_bytes)
    answer = sweep_answer(body, max_cells, max_evaluations, budget)
    encode = encode_csv if as_csv else encode_json
    return answer["cells"], encode(answer, budget, max_bytes, too_large_pointer(body))


def too_large(max_bytes: int, what: str, pointer: str) -> ResponseTooLarge:
    return ResponseTooLarge(
        f"the answer {what} more than the limit of {max_bytes:,} bytes (ZEROPLAN_MAX_RESPONSE_BYTES); ask for "
        "fewer rows with `limit` and `offset`, `fits_only`, or fewer axis values",
        pointer=pointer,
    )


def too_large_pointer(request: SweepRequest) -> str:
    """The field a too large answer points at: the caller's `limit`, or the axes when no limit was sent."""
    return "/limit" if request.limit is not None else "/axes"


def check_response_bound(request: SweepRequest, cells: int, max_bytes: int) -> None:
    """Refuse before computing when even the shortest encoding of the rows asked for is too large."""
    if request.fits_only:
        return  # how many rows fit is known only once computed
    rows = max(0, cells - request.offset)
    if request.limit is not None:
        rows = min(rows, request.limit)
    if rows * MIN_ROW_BYTES > max_bytes:
        raise too_large(
            max_bytes, f"would hold up to {rows:,} rows of {len(COLUMNS)} columns, at least", too_large_pointer(request)
        )


def _jsonable(column: np.ndarray) -> Any:
    return column.tolist() if column.dtype.kind in "OUS" else column


def encode_json(answer: dict[str, Any], budget: WorkBudget, max_bytes: int, pointer: str) -> bytes:
    head = orjson.dumps({name: value for name, value in answer.items() if name != "columns"})
    parts = [head[:-1], b',"columns":{']
    size = sum(len(p) for p in parts) + 2
    for i, (name, column) in enumerate(answer["columns"].items()):
        budget.check()
        encoded = orjson.dumps(_jsonable(column), option=orjson.OPT_SERIALIZE_NUMPY)
        piece = (b"," if i else b"") + orjson.dumps(name) + b":" + encoded
        size += len(piece)
        if size > max_bytes:
            raise too_large(max_bytes, "passed", pointer)
        parts.append(piece)
    parts.append(b"}}")
    return b"".join(parts)


def _csv_fields(column: np.ndarray) -> list[bytes]:
    """Each value of a non-empty column as CSV text: numbers as JSON writes them, true/false, names."""
    if column.dtype.kind in "OUS":
        # few distinct names: quote each once (RFC 4180: a field with a comma or quote is quoted)
        names, index = np.unique(column, return_inverse=True)
        fields = [_csv_text(str(name)) for name in names.tolist()]
        return [fields[i] for i in index.tolist()]
    return orjson.dumps(column, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")


def _csv_text(value: str) -> bytes:
    if any(c in value for c in ',"\r\n'):
        value = '"' + value.replace('"', '""') + '"'
    return value.encode()


def encode_csv(answer: dict[str, Any], budget: WorkBudget, max_bytes: int, pointer: str) -> bytes:
    columns: dict[str, np.ndarray] = answer["columns"]
    parts = [",".join(columns).encode() + b"\n"]
    size = len(parts[0])
    for start in range(0, answer["rows"], CSV_BLOCK_ROWS):
        budget.check()
        fields = [_csv_fields(column[start : start + CSV_BLOCK_ROWS]) for column in columns.values()]
        block = b"\n".join(b",".join(row) for row in zip(*fields, strict=True)) + b"\n"
        size += len(block)
        if size > max_bytes:
            raise too_large(max_bytes, "passed", pointer)
        parts.append(block)
    return b"".join(parts)
