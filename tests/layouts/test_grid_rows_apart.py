"""A grid row's figures do not depend on the rows evaluated beside it.

service.engine.layout_grid computes each term once per distinct combination of what it reads (the paced stage's
compute, the tensor, context and expert groups), counts the activations of every schedule's rows at once and the
pipeline's sends per schedule. Each row's figures must then be those of the row evaluated alone, bit for bit: here
search spaces dense in rows that share those inputs and differ in the pipeline degree, schedule, virtual stages and
split (DeepSeek-V3's multi-head latent attention and 256 experts, Mixtral's eight with DeepEP's dispatcher and
tp_comm_overlap, a dense model with FP8 gathers) are evaluated as one block, as random subsets and row by row, every
figure compared with np.array_equal; and a few rows' steps against /v1/plan's answers for them.
"""

from dataclasses import fields

import numpy as np
import pytest

from models.plan import PlanRequest
from models.search import SearchRequest
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.engine.layout_grid import Figures, Layouts, StructureTable, evaluate_grid

BODIES = {
    "deepseek-v3": {
        "model": {"preset": "deepseek-v3"},
        "cluster": {"world_size": [1024, 2048], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 4096, "sequence_length": 4096},
        "restrict": {"tensor": [1, 8], "context": [1, 2], "expert": [8, 64], "micro_batch_size": [1, 2]},
    },
    "mixtral-8x22b-deepep": {
        "model": {"preset": "mixtral-8x22b"},
        "cluster": {"world_size": [256, 512], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 1024, "sequence_length": 8192},
        "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True, "tp_comm_overlap": True},
        "restrict": {"tensor": [1, 8], "context": [1, 2], "expert": [1, 8], "micro_batch_size": [1, 4]},
    },
    "llama-3.1-8b-fp8": {
        "model": {"preset": "llama-3.1-8b"},
        "cluster": {"world_size": [64, 128], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 256, "sequence_length": 8192},
        "levers": {"fp8": "torchao", "tp_comm_overlap": True},
        "restrict": {"tensor": [1, 8], "context": [1, 4], "micro_batch_size": [1, 2]},
    },
}
SAMPLE = 1500
SINGLES = 12
PLANNED = 4


def same_figures(whole: Figures, rows: np.ndarray, part: Figures) -> None:
    for spec in fields(Figures):
        a, b = getattr(whole, spec.name), getattr(part, spec.name)
        assert (a is None) == (b is None), spec.name
        if a is None:
            continue
        taken = a[:, rows] if spec.name == "state_bytes" else a[rows]
        assert taken.dtype == b.dtype and taken.shape == b.shape, spec.name
        assert np.array_equal(taken, b, equal_nan=True), spec.name


@pytest.mark.parametrize("name", list(BODIES))
def test_a_rows_figures_are_its_own_whatever_rows_are_beside_it(name: str) -> None:
    prepared = prepare(SearchRequest.model_validate(BODIES[name]))
    case, found = prepared.case, prepared.space()
    count = len(found.shapes["world_size"])
    rng = np.random.default_rng(25)
    sample = np.sort(rng.choice(count, size=min(SAMPLE, count), replace=False))
    block = Layouts({k: v[sample] for k, v in found.shapes.items()})
    # the block spans schedules, virtual stages, splits and sequence parallelism, or the test shows nothing
    for column in ("schedule", "virtual_stages", "sequence_parallel", "world_size"):
        assert len(np.unique(block[column])) > 1, column
    # rows sharing the inputs of the deduplicated terms, or the test shows nothing
    shared = np.stack([block[k] for k in ("world_size", "tensor", "context", "expert", "micro_batch_size")], axis=1)
    assert len(np.unique(shared, axis=0)) * 4 < len(block)
    for detail in (False, True):
        whole = evaluate_grid(case, StructureTable(case), block, found.choices, detail=detail)
        subsets = [np.sort(rng.choice(len(sample), size=size, replace=False)) for size in (len(sample) // 3, 37)]
        subsets += [np.array([i]) for i in rng.choice(len(sample), size=SINGLES, replace=False).tolist()]
        for rows in subsets:
            part = evaluate_grid(case, StructureTable(case), block.take(rows), found.choices, detail=detail)
            same_figures(whole, rows, part)
    # and each row's own figures are its plan's (a fault every row shared would pass the comparisons above)
    valid = found.valid(block.columns)
    checked = 0
    for i in rng.permutation(len(sample)).tolist():
        cells = np.argwhere(valid[i] & whole.fits[i])
        if not len(cells) or checked == PLANNED:
            continue
        a, r, o = cells[len(cells) // 2].tolist()
        c = found.choices
        columns = {k: v[i : i + 1] for k, v in block.columns.items()}
        columns |= {
            "arrangement": np.array([c.arrangement[a]]),
            "recompute": np.array([c.recompute[r]]),
            "offload_optimizer": np.array([c.offload_optimizer[o]]),
        }
        answer = plan(PlanRequest.model_validate(layout_body(prepared.base, Layouts(columns), 0, case)))
        assert float(whole.step_s[i, a, r, o]) == pytest.approx(answer.time.step_s, rel=1e-9)
        assert int(whole.per_gpu_bytes[i, a, r, o]) == answer.memory.per_gpu_bytes
        checked += 1
    assert checked == PLANNED
