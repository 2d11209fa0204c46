"""A sweep over levers.mxfp8 on a Blackwell-class card: each cell is the plan of its own levers, the MXFP8 cells
priced on the FP8 tensor cores with the recipe's casts (service/time/fp8.py, "MXFP8") as /v1/plan prices them."""

import pytest

from tests.sweep.test_sweep import PLAN_FIELDS, plan_for, rows, sweep


@pytest.mark.parametrize("recipe", ["seed", "fp8_weights", "torchao"])
def test_each_mxfp8_cell_on_b200_equals_its_plan(client, recipe):
    base = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "b200"},
        "arrangement": "zero3",
        "precision": "fsdp2",
        "training": {"sequence_length": 8192, "micro_batch_size": 1},
        "levers": {"mxfp8_recipe": recipe},
    }
    axes = {"world_size": [8, 16], "arrangement": ["zero1", "full_shard"], "mxfp8": [False, True]}
    found = rows(sweep(client, axes, base=base))
    assert len(found) == 8
    compute = {}
    for row in found:
        plan = plan_for(client, base, row)
        for column, (section, field) in PLAN_FIELDS.items():
            assert row[column] == plan[section][field], (column, row)
        compute[(row["world_size"], row["arrangement"], row["mxfp8"])] = row["compute_s"]
    for (n, arrangement, mxfp8), seconds in compute.items():
        if mxfp8:  # FP8 GEMMs for the libraries' recipes; the textbook one keeps bf16's
            bf16 = compute[(n, arrangement, False)]
            assert seconds == bf16 if recipe == "seed" else seconds < bf16
