"""The layout search prices the weight gradients' fp32 accumulation as /v1/plan does (service.time.efficiency,
"Weight gradients into fp32"): under the megatron precision a search's rows are their plans' steps, and the term
shows in them.

Qwen3-235B-A22B at 4,096 tokens a micro-batch with tensor 4 and expert 8 (expert tensor 1 of the ModelZoo's yaml):
8 x 1,024 x 8 / 128 = 512 tokens an expert, below the roughly 700 at which a weight gradient accumulated into fp32
(about T / 4 FLOPs a byte) leaves the H100's GEMM ceiling, so every row's experts run their weight gradients at HBM
speed under the megatron precision and at the ceiling under FSDP2's convention.
"""

import numpy as np
import pytest

from models.plan import PlanRequest
from models.search import SearchRequest
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.engine.layout_grid import Layouts, StructureTable, evaluate_grid


def body(precision: str) -> dict[str, object]:
    return {
        "model": {"preset": "qwen3-235b-a22b"},
        "cluster": {"world_size": [256], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 2048, "sequence_length": 4096},
        "precision": precision,
        "parallelism": {"expert_tensor": 1},
        "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True},
        "restrict": {
            "tensor": [4],
            "expert": [8],
            "context": [1],
            "micro_batch_size": [1],
            "arrangement": ["zero1"],
            "recompute": ["full"],
        },
    }


def grid(precision: str) -> tuple[object, object, Layouts, object]:
    prepared = prepare(SearchRequest.model_validate(body(precision)))
    found = prepared.space()
    block = Layouts(found.shapes)
    figures = evaluate_grid(prepared.case, StructureTable(prepared.case), block, found.choices, detail=False)
    return prepared, found, block, figures


def test_search_rows_are_their_plans_under_the_megatron_precision() -> None:
    prepared, found, block, figures = grid("megatron")
    valid = found.valid(block.columns)
    rows = [i for i in range(len(block)) if valid[i].any()]
    assert len(rows) >= 2
    for i in rows[:: max(1, len(rows) // 4)]:
        a, r, o = np.argwhere(valid[i])[0].tolist()
        c = found.choices
        columns = {k: v[i : i + 1] for k, v in block.columns.items()}
        columns |= {
            "arrangement": np.array([c.arrangement[a]]),
            "recompute": np.array([c.recompute[r]]),
            "offload_optimizer": np.array([c.offload_optimizer[o]]),
        }
        request = PlanRequest.model_validate(layout_body(prepared.base, Layouts(columns), 0, prepared.case))
        assert request.precision == "megatron"
        answer = plan(request)
        assert float(figures.step_s[i, a, r, o]) == pytest.approx(answer.time.step_s, rel=1e-9)


def test_the_accumulation_lengthens_every_row() -> None:
    """The same rows under FSDP2's convention (a 16-bit gradient written) compute for less time."""
    _, found, block, megatron = grid("megatron")
    _, found_fsdp2, block_fsdp2, fsdp2 = grid("fsdp2")
    assert len(block) == len(block_fsdp2)
    rows = (found.valid(block.columns) & found_fsdp2.valid(block_fsdp2.columns)).any(axis=(1, 2, 3))
    assert rows.any()
    assert np.all(megatron.compute_s[rows] > fsdp2.compute_s[rows])  # (shape, recompute): the compute alone
