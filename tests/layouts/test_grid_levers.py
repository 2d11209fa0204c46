"""The search's grid prices a job under the levers that change its model-parallel calls as /v1/plan does
(service.engine.layout_grid and service.engine.layout take the same steps): DeepEP's dispatcher and the fused
permutation (Megatron-Core's flex dispatcher) and per-tensor FP8's sequence-parallel gathers (torchao
float8_tensor_parallel.py @eab345c2) reach the calls the grid prices once for many rows, as they reach each row's."""

import numpy as np
import pytest

from models.plan import PlanRequest
from models.search import SearchRequest
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.answers.search_space import space
from service.engine.layout_grid import Layouts, StructureTable, evaluate_grid

DEEPEP = {
    "model": {"preset": "qwen3-30b-a3b"},
    "cluster": {"world_size": [8], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 32, "sequence_length": 4096},
    "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True},
    "restrict": {"tensor": [1], "pipeline": [1], "context": [1], "expert": [4, 8], "micro_batch_size": [1]},
}
FP8 = {
    "model": {"preset": "llama-3.1-8b"},
    "cluster": {"world_size": [64], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 8192},
    "levers": {"fp8": "torchao", "tp_comm_overlap": True},
    "restrict": {"tensor": [2, 8], "pipeline": [1], "context": [1], "expert": [1], "micro_batch_size": [1]},
}


@pytest.mark.parametrize("body", [DEEPEP, FP8], ids=["deepep", "fp8"])
def test_a_search_row_under_the_levers_is_its_plan(body):
    prepared = prepare(SearchRequest.model_validate(body))
    case = prepared.case
    training = body["training"]
    world = body["cluster"]["world_size"][0]
    found = space(
        case.arch,
        prepared.candidates,
        training["sequence_length"],
        training["global_batch_size"],
        world,
        case.expert_tensor,
    )
    checked = 0
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
                    request = layout_body(prepared.base, Layouts(columns), 0)
                    assert {k: request["levers"][k] for k in body["levers"]} == body["levers"]
                    answer = plan(PlanRequest.model_validate(request))
                    assert float(grid.step_s[i, a, r, 0]) == pytest.approx(answer.time.step_s, rel=1e-9)
                    checked += 1
    assert checked >= 2
