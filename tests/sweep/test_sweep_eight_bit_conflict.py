"""A sweep's MXFP8 axis over a base with levers.fp8: the MXFP8 cells are jobs /v1/plan refuses (two 8-bit recipes for
the same matrices, models.training.eight_bit_conflict), so the sweep skips them in the plan's words. It used to answer
them as rows, on the data-parallel and the layout path alike; and the layout path validated every group's request
with the axis's first value, so [true, false] skipped the mxfp8-false cell too, which is the base /v1/plan answers."""

import pytest

TWO_RECIPES = "levers.fp8 transformer_engine and levers.mxfp8 are two 8-bit recipes for the same matrices; choose one"


@pytest.mark.parametrize("axis", [[False, True], [True, False]])
@pytest.mark.parametrize("parallelism", [{}, {"tensor": 2}])
def test_the_mxfp8_cells_are_skipped_as_the_plan_refuses_them(client, parallelism, axis):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "b200"},
        "arrangement": "zero3",
        "parallelism": parallelism,
        "levers": {"fp8": "transformer_engine"},
    }
    refused = client.post("/v1/plan", json=base | {"levers": base["levers"] | {"mxfp8": True}})
    assert refused.status_code == 422 and TWO_RECIPES in refused.text
    assert client.post("/v1/plan", json=base).status_code == 200
    response = client.post("/v1/sweep", json={"base": base, "axes": {"mxfp8": axis}})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["columns"]["mxfp8"] == [False]
    assert answer["skipped_reasons"] == [f"1 cells: {TWO_RECIPES}"]
