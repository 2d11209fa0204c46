"""CSV of a table: one writer for the API's text/csv answers and the command line's --csv.

Booleans are lowercase `true`/`false` (what JSON and most CSV readers of typed data expect),
null cells are empty, numbers are written as Python writes them (exact integers).
"""

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any


def csv_cell(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return out.getvalue()
