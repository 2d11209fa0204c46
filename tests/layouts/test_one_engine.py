"""One engine: a data-parallel plan is the mesh whose model-parallel degrees are 1, the plan, a layout and the
search's grid take the same steps, and the mesh's validity rules are one list over numbers or arrays."""

import numpy as np
import pytest

from models.common import Cluster, ModelSpec
from models.enums import ArrangementName
from models.parallelism import PipelineSchedule
from models.plan import PlanRequest
from models.search import SearchRequest
from models.training import Activations, Levers, Training
from service.answers.plan import plan
from service.answers.search import layout_body, prepare
from service.answers.search_space import space
from service.engine.data_parallel import evaluate
from service.engine.layout import evaluate_layout
from service.engine.layout_grid import ARRANGEMENTS, Layouts, StructureTable, evaluate_grid
from service.engine.step import stage_bubble
from service.inputs import resolve
from service.mesh.degrees import SCHEDULES, Mesh, ModelLimits, layout_problem_masks, layout_problems


def test_hybrid_offload_moves_a_nodes_shard_over_pcie_on_every_path():
    """Hybrid sharding shards the states over a node's G GPUs (PyTorch FSDP's HYBRID_SHARD), so with the
    optimizer offloaded each GPU sends its k micro-batches' bf16 gradient shards down and receives its bf16
    parameter shard back: (2 k + 2) x P / G bytes per step, on the data-parallel plan and on the mesh of
    degrees 1 alike. The layout path used to divide by the world size instead of the node."""
    k, n, g = 4, 16, 8
    training = Training(micro_batch_size=1, sequence_length=2048, gradient_accumulation_steps=k)
    cluster = Cluster(world_size=n, gpus_per_node=g, gpu="h100-80gb")
    levers = Levers(offload_optimizer=True)
    scene = resolve.scenario(
        ModelSpec(preset="qwen3-30b-a3b"), "mixed_bf16_adam", training, Activations(), levers, cluster
    )
    setup = resolve.setup_for(scene, resolve.sharding(ArrangementName.hybrid))
    p = scene.model.parameter_count
    assert p % g == 0
    expected = (2 * k + 2) * p // g
    plain = evaluate(resolve.inputs_for(scene, n, g), setup)
    layout = evaluate_layout(scene.model.architecture, Mesh(n, g), setup, k, 1, 2048, True)
    assert plain.pcie_bytes_per_gpu == expected
    assert layout.pcie_bytes_per_gpu == expected
    assert layout.offload_s == pytest.approx(plain.offload_s, rel=1e-12)
    assert layout.step_s == pytest.approx(plain.step_s, rel=1e-12)
    assert layout.replicated_floor_bytes == plain.replicated_floor_bytes


def test_a_search_row_under_hybrid_offload_is_its_plan():
    """The search's grid prices a hybrid, offloaded layout of degrees 1 as /v1/plan does (Qwen3-30B-A3B on 16
    H100, global batch 64: the grid said 5.294 s a step where the plan says 5.714 s)."""
    body = {
        "model": {"preset": "qwen3-30b-a3b"},
        "cluster": {"world_size": [16], "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 64, "sequence_length": 2048},
        "restrict": {"tensor": [1], "pipeline": [1], "context": [1], "expert": [1], "micro_batch_size": [1]},
    }
    prepared = prepare(SearchRequest.model_validate(body))
    case = prepared.case
    found = space(case.arch, prepared.candidates, 2048, 64, 8, case.expert_tensor)
    hybrid = ARRANGEMENTS.index(ArrangementName.hybrid)
    checked = 0
    for _, block in found.blocks():
        grid = evaluate_grid(case, StructureTable(case), block, found.choices, detail=True)
        valid = found.valid(block.columns)
        a = found.choices.arrangement.index(hybrid)
        o = found.choices.offload_optimizer.index(True)
        for i in range(len(block)):
            for r, recompute in enumerate(found.choices.recompute):
                if not valid[i, a, r, o]:
                    continue
                columns = {k: v[i : i + 1] for k, v in block.columns.items()}
                columns |= {
                    "arrangement": np.array([hybrid]),
                    "recompute": np.array([recompute]),
                    "offload_optimizer": np.array([True]),
                }
                answer = plan(PlanRequest.model_validate(layout_body(prepared.base, Layouts(columns), 0)))
                assert float(grid.step_s[i, a, r, o]) == pytest.approx(answer.time.step_s, rel=1e-9)
                assert float(grid.offload_s[i, a, r, o]) == pytest.approx(answer.time.offload_s, rel=1e-9)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("mesh", "model", "k"),
    [
        (Mesh(100, 8, tensor=8, pipeline=4), ModelLimits(80, 64, 8), 8),  # degrees do not multiply out
        (Mesh(96, 8, tensor=3, pipeline=2), ModelLimits(80, 64, 8), 1),  # heads and micro-batches
        (Mesh(64, 8, expert=3), ModelLimits(32, 32, 8, experts=8), 8),  # experts, and the experts' ranks
        (Mesh(64, 8, tensor=2, expert=2), ModelLimits(), 8),  # no architecture
        (Mesh(64, 8, pipeline=2, schedule=PipelineSchedule.interleaved, virtual_stages=3), ModelLimits(80, 64, 8), 3),
    ],
)
def test_the_rules_on_one_layout_are_the_rules_on_an_array_of_it(mesh, model, k):
    """layout_problems words what layout_problem_masks reports on the layout's numbers; the same rules on an
    array of that one layout report the same rules, in the same order."""
    words = layout_problems(mesh, model, 1, 4096, None, k)
    scalar = layout_problem_masks(model, mesh, mesh.schedule, mesh.sequence_parallel, 1, 4096, None, k)
    assert [(rule.words(), rule.pointer) for rule in scalar if rule.failing] == words
    assert words  # each case has a problem to word
    arrays = Mesh(
        np.array([mesh.world_size]),
        8,
        np.array([mesh.tensor]),
        np.array([mesh.pipeline]),
        np.array([mesh.context]),
        np.array([mesh.expert]),
        virtual_stages=np.array([mesh.virtual_stages]),  # type: ignore[arg-type]
    )
    code = np.array([SCHEDULES.index(mesh.schedule)])
    masks = layout_problem_masks(model, arrays, code, np.array([False]), 1, 4096, None, np.array([k]))
    assert [rule.name for rule in masks] == [rule.name for rule in scalar]
    assert [bool(rule.failing[0]) for rule in masks] == [bool(rule.failing) for rule in scalar]


def test_the_state_classes_of_a_mesh_with_experts_apart_add_up_to_its_model_states():
    """A stage whose experts shard apart (e > 1: over the expert-data-parallel group, the dense share over d x c)
    holds each state class twice, once per part: the evaluation's bytes per class (a sweep row's state columns)
    add both, and with the working set's classes they sum to the stage's model states and working set (the
    experts' rows used to be left out of the classes)."""
    training = Training(micro_batch_size=1, sequence_length=4096, gradient_accumulation_steps=8)
    cluster = Cluster(world_size=64, gpus_per_node=8, gpu="h100-80gb")
    scene = resolve.scenario(
        ModelSpec(preset="mixtral-8x7b"), "mixed_bf16_adam", training, Activations(), Levers(), cluster
    )
    setup = resolve.setup_for(scene, resolve.sharding(ArrangementName.zero1))
    mesh = Mesh(64, 8, tensor=2, expert=4)
    result = evaluate_layout(scene.model.architecture, mesh, setup, 8, 1, 4096, True)
    assert result.top.expert_rows  # the experts shard apart
    dense = sum(row.bytes for row in result.top.rows)
    experts = sum(row.bytes for row in result.top.expert_rows)
    assert dense > 0 and experts > 0
    assert sum(result.state_bytes.values()) == result.model_state_bytes + result.working_set_bytes


def test_the_bubble_of_a_grids_schedule_codes_is_each_schedules():
    """The grid steps every schedule's layouts at once, the schedule a code per layout
    (service.engine.step.stage_bubble). Each layout gets its own schedule's bubble (Narayanan et al. 2021,
    section 2.2): 1F1B idles (p - 1) / m of the compute, the interleaved schedule (p - 1) / (v m). With p 4, m 8, v 2
    and 16 s of compute: 6 s and 3 s."""
    scene = resolve.scenario(
        ModelSpec(preset="llama-3-8b"),
        "mixed_bf16_adam",
        Training(sequence_length=2048),
        Activations(),
        Levers(),
        Cluster(world_size=64, gpus_per_node=8, gpu="h100-80gb"),
    )
    setup = resolve.setup_for(scene, resolve.sharding(ArrangementName.zero1))
    codes = np.array([SCHEDULES.index(s) for s in (PipelineSchedule.one_f_one_b, PipelineSchedule.interleaved)] * 2)
    p, v, m = np.full(4, 4), np.array([1, 2, 1, 2]), np.full(4, 8)
    compute_s, forward_s = np.full(4, 16.0), np.full(4, 16.0 / 3)
    bubble_s = stage_bubble(setup, codes, p, v, m, compute_s, forward_s, False)
    assert bubble_s.tolist() == pytest.approx([6.0, 3.0, 6.0, 3.0], rel=1e-12)
