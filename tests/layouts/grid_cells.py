"""Every valid cell of a search's grid beside the /v1/plan answer of the request its row carries: what the tests
that hold the grid (service.engine.layout_grid) to the plan (service.engine.layout) walk through."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.plan import PlanRequest, PlanResponse
from models.search import SearchRequest
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.answers.search_space import space
from service.engine.layout_grid import Layouts, StructureTable, evaluate_grid


@dataclass
class Cell:
    grid: Any  # the block's figures (service.engine.layout_grid.Figures)
    row: int
    arrangement: int
    recompute: int
    request: dict[str, Any]
    answer: PlanResponse


def grid_cells(body: dict[str, Any]) -> Iterator[Cell]:
    """Each valid (layout, arrangement, recompute) cell of the search ``body``'s space, its grid figures and the plan
    of its row's request (the first offload choice)."""
    prepared = prepare(SearchRequest.model_validate(body))
    case = prepared.case
    training = body["training"]
    found = space(
        case.arch,
        prepared.candidates,
        training["sequence_length"],
        training["global_batch_size"],
        body["cluster"]["world_size"][0],
        case.expert_tensor,
    )
    for _, block in found.blocks():
        grid = evaluate_grid(case, StructureTable(case), block, found.choices, detail=True)
        valid = found.valid(block.columns)
        for i in range(len(block)):
            for a, arrangement in enumerate(found.choices.arrangement):
                for r, recompute in enumerate(found.choices.recompute):
                    if not valid[i, a, r, 0]:
                        continue
                    columns = {k: v[i : i + 1] for k, v in block.columns.items()}
                    columns |= {
                        "arrangement": np.array([arrangement]),
                        "recompute": np.array([recompute]),
                        "offload_optimizer": np.array([found.choices.offload_optimizer[0]]),
                    }
                    request = layout_body(prepared.base, Layouts(columns), 0, case)
                    yield Cell(grid, i, a, r, request, plan(PlanRequest.model_validate(request)))
