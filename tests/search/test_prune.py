"""The search's branch and bound: the same answer as evaluating every layout, counts that add up, objectives of
the whole run, restrictions, and rows that are distinct and say why."""

import numpy as np
import pytest

from api.settings import Settings
from models.plan import PlanRequest
from models.search import SearchObjective, SearchRequest
from service.answers.plan import plan
from service.answers.search import evaluate_space, order, prepare, search
from service.answers.search_space import space

MIXTRAL = {
    "model": {"preset": "mixtral-8x7b"},
    "cluster": {"world_size": [32, 64, 128], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 256, "sequence_length": 4096},
    "top_k": 6,
}
DENSE = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [8, 16, 32], "gpus_per_node": 8, "gpu": "a100-80gb"},
    "training": {"global_batch_size": 128, "sequence_length": 8192},
    "top_k": 6,
}


def _choices(row):
    return row.model_dump(mode="json")["request"]


@pytest.mark.parametrize("body", [MIXTRAL, DENSE], ids=["mixtral-8x7b", "llama-3-8b"])
@pytest.mark.parametrize("objective", ["step_s", "tokens_per_s_per_gpu", "gpus"])
def test_branch_and_bound_answers_as_every_layout_evaluated(body, objective):
    request = SearchRequest.model_validate(body | {"objective": objective})
    pruned, everything = search(request, 10**9), search(request, 10**9, prune=False)
    assert [_choices(r) for r in pruned.layouts] == [_choices(r) for r in everything.layouts]
    assert [_choices(r) for r in pruned.pareto] == [_choices(r) for r in everything.pareto]
    assert [r.why for r in pruned.layouts] == [r.why for r in everything.layouts]
    assert pruned.considered == everything.considered == everything.evaluated
    assert pruned.evaluated + sum(pruned.pruned.values()) == pruned.considered
    assert pruned.evaluated < everything.evaluated


@pytest.mark.parametrize("body", [MIXTRAL, DENSE], ids=["mixtral-8x7b", "llama-3-8b"])
def test_the_best_row_is_the_fastest_of_the_exhaustive_enumeration(body):
    """The enumeration of every valid layout (service.answers.search.evaluate_space, no bound) ranks first the
    layout the branch and bound answers first."""
    request = SearchRequest.model_validate(body)
    prepared = prepare(request)
    case = prepared.case
    found = space(case.arch, prepared.candidates, case.sequence_length, case.global_batch_size, case.gpus_per_node)
    ranked = evaluate_space(case, found)
    first = int(order(ranked, SearchObjective.step_s)[0])
    best = search(request, 10**9).layouts[0]
    assert best.step_s == pytest.approx(float(ranked.step_s[first]), rel=1e-12)
    layouts = ranked.layouts
    assert best.world_size == int(layouts["world_size"][first])
    assert best.parallelism.tensor == int(layouts["tensor"][first])
    assert best.parallelism.pipeline == int(layouts["pipeline"][first])
    assert best.parallelism.context == int(layouts["context"][first])
    assert best.parallelism.expert == int(layouts["expert"][first])
    assert best.micro_batch_size == int(layouts["micro_batch_size"][first])


def test_deepseek_v3_over_1k_to_16k_gpus_is_answered_not_refused():
    """39.9M+ combinations, once a 422 search_too_large: now pruned, most of it never evaluated."""
    request = SearchRequest.model_validate(
        {
            "model": {"preset": "deepseek-v3"},
            "cluster": {"world_size": [1024, 2048, 4096, 8192, 16384], "gpus_per_node": 8, "gpu": "h100-80gb"},
            "training": {"global_batch_size": 4096, "sequence_length": 4096},
            "top_k": 3,
        }
    )
    answer = search(request, Settings().max_search_layouts)  # the default limit: not refused
    assert answer.layouts and all(row.fits for row in answer.layouts)
    assert answer.evaluated + sum(answer.pruned.values()) == answer.considered
    assert answer.evaluated < answer.considered / 4
    steps = [row.step_s for row in answer.layouts]
    assert steps == sorted(steps)
    assert [row.world_size for row in answer.pareto] == [1024, 2048, 4096, 8192, 16384]


def test_rows_are_distinct_and_their_equivalents_plan_to_the_same_figures():
    answer = search(SearchRequest.model_validate(DENSE | {"top_k": 8}), 10**9)
    figures = [(r.world_size, r.step_s, r.per_gpu_bytes) for r in answer.layouts]
    assert len(set(figures)) == len(figures)
    seen = 0
    for row in answer.layouts:
        base = row.model_dump(mode="json")["request"]
        for change in row.equivalents:
            body = {**base, "parallelism": dict(base["parallelism"]), "levers": dict(base["levers"])}
            body["training"] = dict(base["training"])
            for name, value in change.items():
                if name in ("recompute", "offload_optimizer"):
                    body["levers"][name] = value
                elif name == "arrangement":
                    body["arrangement"] = value
                elif name == "micro_batch_size":
                    body["training"][name] = value
                else:
                    body["parallelism"][name] = value
            other = plan(PlanRequest.model_validate(body))
            assert other.time.step_s == row.step_s and other.memory.per_gpu_bytes == row.per_gpu_bytes
            seen += 1
    # Flash attention keeps no attention scores: recompute selective is recompute none here, listed, not ranked.
    assert seen and any({"recompute": "selective"} in row.equivalents for row in answer.layouts)
    assert all(row.recompute.value != "selective" for row in answer.layouts)


def test_why_is_oriented_and_names_the_terms_and_the_framework():
    answer = search(SearchRequest.model_validate(DENSE), 10**9)
    best = answer.layouts[0]
    assert "against the next row" in best.why and "against the best row" not in best.why
    assert best.framework in best.why
    for row in answer.layouts[1:]:
        gap = row.step_s - best.step_s
        against_best = row.why.split("against the best row")[1]
        if gap > 0:
            assert f"{gap:.3g} s longer" in against_best
        bytes_gap = row.per_gpu_bytes - best.per_gpu_bytes
        if bytes_gap:
            assert f"{abs(bytes_gap) / 2**30:.2f} GiB {'more' if bytes_gap > 0 else 'less'} per GPU" in against_best


def test_whole_run_objectives_rank_by_each_rows_plan():
    body = DENSE | {
        "training": DENSE["training"] | {"total_tokens": 1_000_000_000_000},
        "cluster": DENSE["cluster"] | {"gpu_hour_price": 2.5},
    }
    for objective, figure in (("training_days", "training_days"), ("gpu_hours", "gpu_hours"), ("cost", "cost")):
        answer = search(SearchRequest.model_validate(body | {"objective": objective}), 10**9)
        values = [getattr(row.time, figure) for row in answer.layouts]
        assert values == sorted(values) and all(v is not None and v > 0 for v in values)
        everything = search(SearchRequest.model_validate(body | {"objective": objective}), 10**9, prune=False)
        assert [_choices(r) for r in answer.layouts] == [_choices(r) for r in everything.layouts]
    # GPU-hours are steps x step x N / 3600 over the goodput: 1e12 tokens / (128 x 8192) tokens a step.
    row = answer.layouts[0]
    steps = -(-1_000_000_000_000 // (128 * 8192))
    ideal_hours = steps * row.step_s * row.world_size / 3600
    assert row.time.gpu_hours == pytest.approx(ideal_hours / row.time.goodput, rel=1e-9)
    assert row.time.cost == pytest.approx(row.time.gpu_hours * 2.5, rel=1e-12)


@pytest.mark.parametrize(
    ("change", "pointers"),
    [
        ({"objective": "training_days"}, ["/training/total_tokens"]),
        ({"objective": "gpu_hours"}, ["/training/total_tokens"]),
        ({"objective": "cost"}, ["/training/total_tokens", "/cluster/gpu_hour_price"]),
        ({"restrict": {"tensor": {"min": 16}}}, ["/restrict/tensor"]),
        ({"restrict": {"pipeline": {"min": 5, "max": 7}}}, ["/restrict/pipeline"]),
        ({"restrict": {"world_size": [64]}}, ["/restrict/world_size"]),
        ({"restrict": {"world_size": {"min": 64}}}, ["/restrict/world_size"]),
        ({"restrict": {"tensor": {"min": 4, "max": 2}}}, ["/restrict/tensor"]),
        ({"restrict": {"context": [2, 2]}}, ["/restrict/context"]),
        ({"restrict": {"tensor": [3]}}, ["/restrict/tensor"]),  # 32 heads: t = 3 leaves no valid layout
    ],
)
def test_bad_objectives_and_restrictions_are_422s_naming_the_field(client, change, pointers):
    answer = client.post("/v1/search", json=DENSE | change)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    found = [e["pointer"] for e in answer.json()["errors"]]
    for pointer in pointers:
        assert any(p.startswith(pointer) for p in found), found


def test_bounds_restrict_the_default_candidates():
    request = SearchRequest.model_validate(
        DENSE | {"restrict": {"tensor": {"min": 2, "max": 4}, "micro_batch_size": {"max": 2}, "world_size": [16, 32]}}
    )
    answer = search(request, 10**9)
    assert answer.candidates["tensor"] == [2, 4]
    assert answer.candidates["micro_batch_size"] == [1, 2]
    assert answer.candidates["world_size"] == [16, 32]
    for row in answer.layouts:
        assert row.parallelism.tensor in (2, 4) and row.micro_batch_size <= 2 and row.world_size in (16, 32)


def test_each_layout_keeps_only_its_fastest_levers():
    """A layout and arrangement appear once: the same degrees with slower levers are dominated, not ranked."""
    answer = search(SearchRequest.model_validate(MIXTRAL | {"top_k": 20}), 10**9)
    keys = []
    for row in answer.layouts:
        p = row.parallelism
        keys.append(
            (row.world_size, p.tensor, p.pipeline, p.context, p.expert, p.pipeline_schedule, p.virtual_stages)
            + (p.sequence_parallel, row.micro_batch_size, row.arrangement)
        )
    assert len(set(keys)) == len(keys)
    assert answer.dominated > 0
    assert np.all(np.diff([row.step_s for row in answer.layouts]) >= 0)


@pytest.mark.parametrize(
    "body",
    [
        MIXTRAL,
        DENSE,
        DENSE | {"cluster": DENSE["cluster"] | {"world_size": [4, 8]}, "training": {"global_batch_size": 64}},
        {
            "model": {"preset": "qwen3-30b-a3b"},
            "cluster": {"world_size": [16, 32], "gpus_per_node": 8, "gpu": "a100-40gb"},
            "training": {"global_batch_size": 64, "sequence_length": 4096},
        },
    ],
    ids=["mixtral-8x7b", "llama-3-8b", "llama-3-8b-small", "qwen3-30b-a3b"],
)
def test_the_bounds_are_true_bounds_on_every_layout(body):
    """Every valid layout, evaluated: none the memory bounds leave out fits, and none steps faster than its
    shape's bound for its recompute mode."""
    from service.answers.search_prune import BranchAndBound, goal_for
    from service.engine.layout_grid import evaluate_grid

    request = SearchRequest.model_validate(body)
    prepared = prepare(request)
    case = prepared.case
    found = space(case.arch, prepared.candidates, case.sequence_length, case.global_batch_size, case.gpus_per_node)
    search_state = BranchAndBound(case, found, goal_for(case, request.objective, None, None, None), 5)
    bounds = search_state.bounds()
    checked = 0
    for start, block in found.blocks():
        rows = np.arange(start, start + len(block))
        figures = evaluate_grid(case, search_state.table, block, found.choices)
        valid = found.valid(block.columns)
        fits = figures.fits & valid
        # (shapes, A, R, O) against (shapes, A, 1, O) and (shapes, 1, R, 1)
        assert not (fits & ~bounds.cell_fits[rows][:, :, None, :]).any()
        assert not (fits & ~bounds.recompute_ok[rows][:, None, :, None]).any()
        lower = bounds.lower_s[rows][:, None, :, None]
        where = valid & bounds.recompute_ok[rows][:, None, :, None]
        assert np.all(figures.step_s[where] >= np.broadcast_to(lower, where.shape)[where] * (1 - 1e-12))
        checked += int(valid.sum())
    assert checked == found.size


def test_the_best_row_and_the_job_as_asked_name_what_separates_them():
    """Llama 3.1 405B on 16,384 H100 as Dubey et al. 2024 (table 4) ran it: t 8, p 16, c 1, batch 2,048 x 8,192
    (1F1B here: 126 layers do not split into 16 x v interleaved chunks evenly)."""
    body = {
        "model": {"preset": "llama-3.1-405b"},
        "cluster": {"world_size": 16384, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 2048, "sequence_length": 8192, "micro_batch_size": 1},
        "arrangement": "zero1",
        "levers": {"recompute": "selective"},
        "parallelism": {"tensor": 8, "pipeline": 16, "pipeline_schedule": "1f1b", "sequence_parallel": True},
        "restrict": {"context": [1]},
        "top_k": 2,
    }
    answer = search(SearchRequest.model_validate(body), 10**9)
    best, asked = answer.layouts[0], answer.asked
    assert asked is not None and asked.parallelism.pipeline == 16
    gap = asked.step_s - best.step_s
    assert gap > 0
    assert f"{gap:.3g} s shorter" in best.why.split("against the job as asked")[1]
    assert f"{gap:.3g} s longer" in asked.why.split("against the best row")[1]


def test_the_space_bounded_up_front_holds_only_degrees_that_divide_the_world_size():
    """Degrees whose product does not divide the world size form no layout (service.mesh.degrees reports that rule
    alone), so the bound a request is refused on counts the others: DeepSeek-V3 over nine world sizes from 1,024 to
    16,384 (1,536, 3,072... beside the powers of two) was 130.6M combinations, over ZEROPLAN_MAX_SEARCH_LAYOUTS'
    100M, though its layouts are those of the five powers of two."""
    from models.enums import ArrangementName, Recompute
    from models.parallelism import PipelineSchedule
    from service.answers.search_space import Candidates

    candidates = Candidates(
        world_size=[8, 12],
        tensor=[1, 2, 4],
        pipeline=[1, 2],
        context=[1, 3],
        expert=[1],
        schedules=[(PipelineSchedule.one_f_one_b, 1), (PipelineSchedule.gpipe, 1)],
        sequence_parallel=[False, True],
        micro_batch_size=[1, 2],
        arrangement=[ArrangementName.zero1],
        recompute=[Recompute.none],
        offload_optimizer=[False, True],
    )
    # (t, p, c) dividing 8: c 1 only; t 1, 2, 4 at p 1 (3) and at p 2 (3).
    # Dividing 12: c 1: p 1 t 1, 2, 4 (3), p 2 t 1, 2 (2; 4 x 2 = 8 does not divide 12); c 3: p 1 (3), p 2 (2).
    unpipelined, pipelined = 3 + 3 + 3, 3 + 2 + 2
    formed = unpipelined + pipelined * 2  # each pipelined one under both schedules, one split
    assert candidates.combinations == formed * 1 * 2 * 2 * (1 * 1 * 2)  # x expert x SP x micro-batch x levers
