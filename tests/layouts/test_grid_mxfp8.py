"""The search's grid prices MXFP8 on a Blackwell-class card as /v1/plan does (service/time/fp8.py, "MXFP8"): the
layers' GEMMs on the FP8 tensor cores with the recipe's casts, and the sequence-parallel gathers in 8 bits, reach
the figures the grid computes once for many rows as they reach each row's plan."""

import pytest

from models.plan import PlanRequest
from service.answers.plan import plan
from tests.layouts.grid_cells import grid_cells


def body(recipe: str) -> dict[str, object]:
    return {
        "model": {"preset": "llama-3.1-8b"},
        "cluster": {"world_size": [16], "gpus_per_node": 8, "gpu": "b200"},
        "training": {"global_batch_size": 32, "sequence_length": 8192},
        "levers": {"mxfp8": True, "mxfp8_recipe": recipe},
        "restrict": {"tensor": [1, 2], "pipeline": [1, 2], "context": [1], "expert": [1], "micro_batch_size": [1]},
    }


@pytest.mark.parametrize("recipe", ["fp8_weights", "torchao"])
def test_a_search_row_under_mxfp8_is_its_plan(recipe):
    checked = 0
    for cell in grid_cells(body(recipe)):
        assert cell.request["levers"]["mxfp8"] is True and cell.request["levers"]["mxfp8_recipe"] == recipe
        step_s = float(cell.grid.step_s[cell.row, cell.arrangement, cell.recompute, 0])
        assert step_s == pytest.approx(cell.answer.time.step_s, rel=1e-9)
        # the row is priced on the FP8 tensor cores: its compute is below the same request's in bf16
        bf16 = cell.request | {"levers": cell.request["levers"] | {"mxfp8": False}}
        assert cell.answer.time.compute_s < plan(PlanRequest.model_validate(bf16)).time.compute_s
        checked += 1
    assert checked >= 4
