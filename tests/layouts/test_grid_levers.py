"""The search's grid prices a job under the levers that change its model-parallel calls as /v1/plan does
(service.engine.layout_grid and service.engine.layout take the same steps): DeepEP's dispatcher and the fused
permutation (Megatron-Core's flex dispatcher) and per-tensor FP8's sequence-parallel gathers (torchao
float8_tensor_parallel.py @eab345c2) reach the calls the grid prices once for many rows, as they reach each row's;
Megatron-LM's unfused vocabulary-parallel cross entropy reaches the last stage's loss on both."""

import pytest

from tests.layouts.grid_cells import grid_cells

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

# Megatron-LM's unfused vocabulary-parallel cross entropy (activations.cross_entropy vocab_parallel) on the last stage
VOCAB_PARALLEL = {
    "model": {"preset": "qwen3-30b-a3b"},
    "cluster": {"world_size": [16], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 32, "sequence_length": 4096},
    "activations": {"cross_entropy": "vocab_parallel"},
    "levers": {"moe_token_dispatcher": "deepep"},
    "restrict": {"tensor": [2], "pipeline": [2, 4], "context": [1], "expert": [4], "micro_batch_size": [1]},
}


@pytest.mark.parametrize("body", [DEEPEP, FP8, VOCAB_PARALLEL], ids=["deepep", "fp8", "vocab_parallel"])
def test_a_search_row_under_the_levers_is_its_plan(body):
    checked = 0
    for cell in grid_cells(body):
        assert {k: cell.request["levers"][k] for k in body["levers"]} == body["levers"]
        loss = body.get("activations", {}).get("cross_entropy", "unfused")
        assert cell.request["activations"]["cross_entropy"] == loss
        step_s = float(cell.grid.step_s[cell.row, cell.arrangement, cell.recompute, 0])
        assert step_s == pytest.approx(cell.answer.time.step_s, rel=1e-9)
        checked += 1
    assert checked >= 2
