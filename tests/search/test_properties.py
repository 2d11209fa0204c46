"""The search's vectorised evaluation is the /v1/plan answer of each layout's request.

Hypothesis draws a model (presets: dense, grouped-query, mixture of experts, latent attention),
a card, a world size, a training shape and one combination of every search axis; the search's
validity must agree with /v1/plan's (a valid layout plans, an invalid one is refused), and for a
valid layout every figure the vectorised engine computes must equal the plan of its request:
bytes exactly, times to 1e-9.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from models.parallelism import PipelineSchedule
from models.plan import PlanRequest
from models.search import SearchRequest
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.answers.search_space import LIGHTER_ENDS_REASON, REASONS, _first_problem
from service.engine.layout_grid import (
    ARRANGEMENTS,
    RECOMPUTES,
    SCHEDULES,
    Choices,
    Layouts,
    StructureTable,
    evaluate_grid,
)
from service.errors import DomainError
from service.mesh.degrees import Mesh, ModelLimits, layout_problems

MOE_PRESETS = ("mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3")
PRESETS = ["llama-3-8b", "llama-3.2-1b", "mixtral-8x7b", "qwen3-30b-a3b", "gpt-3-175b", "gemma-2-9b", "deepseek-v3"]


def first_problem(arch, columns, case):
    """The search's first failing rule (its reason's index) for one layout given as one-element columns."""
    return _first_problem(
        arch,
        *(columns[k] for k in ("world_size", "tensor", "pipeline", "context", "expert", "schedule", "virtual_stages")),
        columns["sequence_parallel"],
        columns["micro_batch_size"],
        case.sequence_length,
        case.global_batch_size,
        case.expert_tensor,
        case.layer_splits[int(columns["split"][0])] if case.layer_splits else None,
    )[0]


EXACT = ("per_gpu_bytes", "model_state_bytes", "activations_bytes", "working_set_bytes", "tokens_per_step")
TIMES = {
    "compute_s": "compute_s",
    "pipeline_bubble_s": "pipeline_bubble_s",
    "tensor_parallel_s": "tensor_parallel_s",
    "pipeline_p2p_s": "pipeline_p2p_s",
    "context_parallel_s": "context_parallel_s",
    "expert_parallel_s": "expert_parallel_s",
    "offload_s": "offload_s",
    "optimizer_s": "optimizer_s",
    "overlap_slowdown_s": "overlap_slowdown_s",
    "step_s": "step_s",
    "tokens_per_s": "tokens_per_s",
    "mfu": "mfu",
}


@st.composite
def cases(draw):
    """Mostly layouts that divide their world size and batch (the interesting ones), some that do not."""
    preset = draw(st.sampled_from(PRESETS))
    g = draw(st.sampled_from([4, 8]))
    t, p, c = (draw(st.sampled_from(values)) for values in ([1, 2, 4, 8], [1, 2, 3, 4, 8], [1, 2, 4]))
    d = draw(st.sampled_from([1, 2, 4, 3]))
    b = draw(st.sampled_from([1, 2, 4]))
    n = t * p * c * d
    if draw(st.integers(0, 4)) == 0 or (n > g and n % g):
        n = g * draw(st.sampled_from([1, 2, 4, 8, 16, 3]))
    gpu = draw(st.sampled_from(["h100-80gb", "a100-80gb", "a100-40gb", "h200"]))
    s = draw(st.sampled_from([1024, 2048, 4096, 4096, 3000]))
    batch = b * d * p * draw(st.sampled_from([1, 2, 4, 3]))
    if draw(st.integers(0, 4)) == 0:
        batch = draw(st.sampled_from([n, 64, 96, 512]))
    layout = {
        "world_size": n,
        "tensor": t,
        "pipeline": p,
        "context": c,
        "expert": draw(st.sampled_from([1, 1, 1, 2, 4, 8])),
        "schedule": draw(st.integers(0, len(SCHEDULES) - 1)),
        "virtual_stages": draw(st.sampled_from([1, 2, 3, 4])),
        "sequence_parallel": draw(st.booleans()),
        "micro_batch_size": b,
        "arrangement": draw(st.integers(0, len(ARRANGEMENTS) - 1)),
        "recompute": draw(st.integers(0, len(RECOMPUTES) - 1)),
        "offload_optimizer": draw(st.booleans()),
    }
    # As the search space has them: no schedule without a pipeline, no sequence parallelism without t.
    if layout["pipeline"] == 1:
        layout["schedule"] = SCHEDULES.index(PipelineSchedule.one_f_one_b)
    if SCHEDULES[layout["schedule"]] is not PipelineSchedule.interleaved:
        layout["virtual_stages"] = 1
    if layout["tensor"] == 1:
        layout["sequence_parallel"] = False
    body = {
        "model": {"preset": preset},
        "cluster": {"world_size": n, "gpus_per_node": g, "gpu": gpu},
        "training": {"global_batch_size": batch, "sequence_length": s},
    }
    if preset in MOE_PRESETS and draw(st.integers(0, 2)) == 0:
        body["expert_tensor"] = draw(st.sampled_from([1, 2, 4, 8]))  # kept by every layout (Megatron's ETP)
    if draw(st.integers(0, 3)) == 0:  # Llama 3's K/V all-gather, kept by every layout, instead of the ring
        body["parallelism"] = {"context_attention": "all_gather"}
    if draw(st.integers(0, 5)) == 0:  # DeepSpeed's convention: its pipeline engine refuses ZeRO-2/3
        body["precision"] = "deepspeed"
    # The split of the layers: 0 without a pipeline; else one of the searched ones (restrict.pipeline_split's four,
    # or the request's own embedding and loss counted as layers).
    splits = draw(st.sampled_from(["restrict", "restrict", "own", "none"]))
    if splits == "restrict":
        body["restrict"] = {"pipeline_split": ["even", "embedding_loss", "lighter_ends_1", "lighter_ends_2"]}
    elif splits == "own":
        own = {"pipeline_embedding_layers": draw(st.integers(1, 2)), "pipeline_loss_layers": draw(st.integers(0, 2))}
        body["parallelism"] = body.get("parallelism", {}) | own
    count = {"restrict": 4, "own": 1, "none": 1}[splits]
    layout["split"] = 0 if layout["pipeline"] == 1 else draw(st.integers(1, count))
    return SearchRequest.model_validate(body), layout


def _valid(prepared, layout) -> bool:
    columns = {k: np.array([v]) for k, v in layout.items()}
    case = prepared.case
    problem = first_problem(case.arch, columns, case)
    nontrivial = any(layout[k] > 1 for k in ("tensor", "pipeline", "context", "expert"))
    nontrivial |= case.expert_tensor not in (None, 1)
    hybrid = ARRANGEMENTS[layout["arrangement"]].value == "hybrid"
    part_of_node = layout["world_size"] % prepared.case.gpus_per_node != 0
    refused = layout["arrangement"] in prepared.unpipelined and layout["pipeline"] > 1  # DeepSpeed ZeRO-2/3
    return problem < 0 and not (hybrid and (nontrivial or part_of_node)) and not refused


@settings(max_examples=300, deadline=None)
@given(cases())
def test_each_layout_equals_the_plan_of_its_request(drawn):
    request, layout = drawn
    prepared = prepare(request)
    columns = {k: np.array([v]) for k, v in layout.items()}
    if first_problem(prepared.case.arch, columns, prepared.case) == LIGHTER_ENDS_REASON:
        event("lighter ends that do not split this layout: never formed")
        return
    body = layout_body(prepared.base, Layouts(columns), 0, prepared.case)
    valid = _valid(prepared, layout)
    try:
        answer = plan(PlanRequest.model_validate(body))
    except (DomainError, ValidationError):
        event("refused by /v1/plan")
        assert not valid, body
        return
    event("planned")
    assert valid, body
    choices = Choices([layout.pop("arrangement")], [layout.pop("recompute")], [layout.pop("offload_optimizer")])
    shape = Layouts({k: np.array([v]) for k, v in layout.items()})
    event(f"split {layout['split']}")
    grid = evaluate_grid(prepared.case, StructureTable(prepared.case), shape, choices, detail=True)
    # One shape under one choice: every array holds one value, whatever axes it has.
    figures = SimpleNamespace(**{k: np.asarray(v).reshape(-1) for k, v in vars(grid).items()})
    memory, time = answer.memory, answer.time
    assert int(figures.per_gpu_bytes[0]) == memory.per_gpu_bytes
    assert int(figures.model_state_bytes[0]) == memory.model_state_bytes
    assert int(figures.working_set_bytes[0]) == memory.working_set_bytes
    assert int(figures.activations_bytes[0]) == memory.activations_bytes
    assert int(figures.host_bytes[0]) == memory.host_bytes
    assert bool(figures.fits[0]) == memory.fits
    assert int(figures.tokens_per_step[0]) == time.tokens_per_step
    assert int(figures.micro_batches[0]) == answer.parallelism.micro_batches
    assert int(figures.data[0]) == answer.parallelism.data
    for name, field in TIMES.items():
        assert float(getattr(figures, name)[0]) == pytest.approx(getattr(time, field), rel=1e-9, abs=1e-15), (
            name,
            body,
        )
    exposed = figures.data_parallel_exposed_s[0] + figures.tensor_parallel_s[0] + figures.pipeline_p2p_s[0]
    exposed += figures.context_parallel_s[0] + figures.expert_parallel_s[0]
    assert float(exposed) == pytest.approx(time.exposed_communication_s, rel=1e-9, abs=1e-15)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["llama-3-8b", "mixtral-8x7b", "qwen3-30b-a3b", "gpt-3-175b"]),
    st.sampled_from([[8, 16], [16, 32, 64], [24]]),
    st.sampled_from([2048, 4096]),
    st.sampled_from([64, 96]),
    st.randoms(use_true_random=False),
    st.sampled_from([None, None, 1, 2, 4]),
)
def test_every_cell_of_a_search_grid_equals_the_plan_of_its_request(preset, sizes, s, batch, rng, expert_tensor):
    """Many shapes under every arrangement, recompute and offload at once (the broadcasting the search does):
    sampled cells, valid or not for hybrid, against /v1/plan; a mixture of experts with a given expert tensor
    degree too."""
    body = {
        "model": {"preset": preset},
        "cluster": {"world_size": sizes, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": batch, "sequence_length": s},
        "restrict": {
            "context": [1, 2],
            "micro_batch_size": [1, 2],
            "virtual_stages": [2],
            "pipeline_split": ["even", "embedding_loss", "lighter_ends_1"],
        },
    }
    if preset in MOE_PRESETS and expert_tensor is not None:
        body["expert_tensor"] = expert_tensor
    request = SearchRequest.model_validate(body)
    prepared = prepare(request)
    case = prepared.case
    found = prepared.space()
    table = StructureTable(case)
    for _, block in found.blocks():
        grid = evaluate_grid(case, table, block, found.choices, detail=True)
        valid = found.valid(block.columns)
        for _ in range(6):
            cell = tuple(rng.randrange(size) for size in valid.shape)
            i, a, r, o = cell
            columns = {k: v[i : i + 1] for k, v in block.columns.items()}
            columns |= {
                "arrangement": np.array([found.choices.arrangement[a]]),
                "recompute": np.array([found.choices.recompute[r]]),
                "offload_optimizer": np.array([found.choices.offload_optimizer[o]]),
            }
            body = layout_body(prepared.base, Layouts(columns), 0, case)
            try:
                answer = plan(PlanRequest.model_validate(body))
            except (DomainError, ValidationError):
                assert not valid[cell], body
                continue
            assert valid[cell], body
            assert int(grid.per_gpu_bytes[cell]) == answer.memory.per_gpu_bytes, body
            assert bool(grid.fits[cell]) == answer.memory.fits, body
            assert int(grid.model_state_bytes[cell]) == answer.memory.model_state_bytes, body
            assert int(grid.activations_bytes[cell]) == answer.memory.activations_bytes, body
            assert int(grid.host_bytes[cell]) == answer.memory.host_bytes, body
            assert float(grid.step_s[cell]) == pytest.approx(answer.time.step_s, rel=1e-9), body
            assert float(grid.mfu[cell]) == pytest.approx(answer.time.mfu, rel=1e-9), body
            assert float(grid.compute_s[i, r]) == pytest.approx(answer.time.compute_s, rel=1e-9), body


@settings(max_examples=200, deadline=None)
@given(cases())
def test_the_first_failing_rule_is_the_first_problem_of_the_plan(drawn):
    """The search's reason for skipping a combination (service.mesh.degrees.layout_problem_masks' first failing rule)
    names the field of the first problem service.mesh.degrees.layout_problems gives its /v1/plan request."""
    request, layout = drawn
    case = prepare(request).case
    arch = case.arch
    columns = {k: np.array([v]) for k, v in layout.items()}
    problem = first_problem(arch, columns, case)
    if problem == LIGHTER_ENDS_REASON:  # never formed: no request states it
        event(REASONS[problem])
        return
    degrees = {k: layout[k] for k in ("tensor", "pipeline", "context", "expert", "virtual_stages")}
    split = layout_body({"parallelism": {}, "cluster": {}, "training": {}}, Layouts(columns), 0, case)["parallelism"]
    mesh = Mesh(
        layout["world_size"],
        case.gpus_per_node,
        **degrees,
        expert_tensor=case.expert_tensor,
        sequence_parallel=layout["sequence_parallel"],
        schedule=SCHEDULES[layout["schedule"]],
        pipeline_layers=tuple(split["pipeline_layers"]) if "pipeline_layers" in split else None,
        embedding_layers=split.get("pipeline_embedding_layers", 0),
        loss_layers=split.get("pipeline_loss_layers", 0),
    )
    limits = ModelLimits(arch.layers, arch.attention_heads, arch.kv_heads, arch.moe.experts if arch.moe else None)
    problems = layout_problems(
        mesh, limits, layout["micro_batch_size"], case.sequence_length, case.global_batch_size, 1
    )
    if not problems:
        assert problem == -1, layout
        return
    event(REASONS[problem])
    assert REASONS[problem].endswith(f"({problems[0][1]})"), (layout, problems)


def test_a_virtual_stages_restriction_holds_for_zb_h1_too(client):
    """restrict.virtual_stages [2] still offered ZB-H1 without chunks (v 1): every row keeps to the restriction."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 16, "sequence_length": 2048},
        "top_k": 5,
        "restrict": {
            "tensor": [1],
            "pipeline": [2],
            "context": [1],
            "virtual_stages": [2],
            "micro_batch_size": [1],
            "pipeline_schedule": ["zb_h1"],
            "arrangement": ["zero1"],
            "recompute": ["none"],
            "offload_optimizer": [False],
        },
    }
    response = client.post("/v1/search", json=body)
    assert response.status_code == 200, response.text[:300]
    rows = response.json()["layouts"]
    assert rows and {row["parallelism"]["virtual_stages"] for row in rows} == {2}
