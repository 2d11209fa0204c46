"""The data group's collectives run on their own stream beside the compute stream's waits on model-parallel
communication over the other link (service.time.communication.data_windows): a ring across nodes keeps its NICs
busy while the compute stream waits on a tensor-parallel collective or an expert all-to-all inside the node."""

import numpy as np
import pytest

from service.engine.step import Part, part_windows
from service.mesh.degrees import Group, Mesh
from service.time.communication import beside_compute_s, data_windows
from service.time.mesh_traffic import beside_data_seconds, links_alone
from tests.layouts.grid_cells import grid_cells


def test_the_windows_take_the_beside_seconds_per_micro_batch_as_the_compute_splits():
    # 0.6 s a step over 2 micro-batches: 0.3 s each, 1/3 of it beside the forward (1.0 of 3.0 s), 2/3 the backward
    forward, backward = data_windows(1.0, 2.0, 0.6, 2)
    assert forward == pytest.approx(1.0 + 0.1)
    assert backward == pytest.approx(2.0 + 0.2)
    assert data_windows(1.0, 2.0, 0.0, 4) == (1.0, 2.0)


def test_the_windows_of_many_cells_at_once():
    forward, backward = data_windows(np.array([1.0, 0.0]), np.array([3.0, 0.0]), np.array([0.8, 0.5]), np.array([2, 1]))
    # 0.4 s a micro-batch: a quarter beside the forward (1 of 4 s); no compute, no window to spread over
    assert forward.tolist() == pytest.approx([1.1, 0.0])
    assert backward.tolist() == pytest.approx([3.3, 0.5])


def test_which_groups_run_on_one_link_alone():
    # Qwen3-235B-A22B under Megatron-FSDP on 256 H100 as the Model Zoo prints it: t 2 and e 8 inside a node
    inside = links_alone(Mesh(256, 8, tensor=2, expert=8, expert_tensor=1))
    assert inside[Group.tensor] == (True, False)
    assert inside[Group.expert] == (True, False)
    # t 2, e 32, p 8: the expert group spans 4 nodes (NVLink and the NIC); neighbouring stages 32 ranks apart
    across = links_alone(Mesh(256, 8, tensor=2, pipeline=8, expert=32, expert_tensor=1))
    assert across[Group.tensor] == (True, False)
    assert across[Group.expert] == (False, False)
    assert across[Group.pipeline] == (False, True)
    # t 2, p 4 on 8 GPUs: neighbouring stages 2 ranks apart, on one node
    assert links_alone(Mesh(8, 8, tensor=2, pipeline=4))[Group.pipeline] == (True, False)
    many = links_alone(Mesh(256, 8, tensor=np.array([2, 16]), expert=np.array([8, 1])))
    assert many[Group.tensor][0].tolist() == [True, False]
    assert many[Group.tensor][1].tolist() == [False, False]


def test_the_beside_seconds_add_the_groups_on_each_link_alone():
    alone = {
        Group.tensor: (True, False),
        Group.context: (False, False),
        Group.pipeline: (False, True),
        Group.expert: (True, False),
    }
    exposed = {Group.tensor: 0.5, Group.context: 0.7, Group.pipeline: 0.3, Group.expert: 2.0}
    assert beside_data_seconds(exposed, alone) == pytest.approx((0.5 + 2.0, 0.3))


def test_a_ring_across_nodes_runs_beside_the_nvlink_seconds_a_ring_inside_one_beside_the_nic_seconds():
    beside = (0.9, 0.3)
    # 32 ranks one a node (the Qwen3-235B FSDP row's expert-data-parallel group): beside the NVLink seconds
    assert part_windows(Part(10, 32, 1), 1.0, 2.0, 3, beside) == pytest.approx((1.1, 2.2))
    # 8 ranks on one node: beside the NIC seconds
    assert part_windows(Part(10, 8, 8), 1.0, 2.0, 3, beside) == pytest.approx((1.0 + 1 / 30, 2.0 + 2 / 30))


FSDP_BESIDE_TP_EP = {
    "model": {"preset": "qwen3-235b-a22b"},
    "cluster": {"world_size": [256], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 512, "sequence_length": 4096},
    "precision": "megatron",
    "expert_tensor": 1,
    "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True, "overlap_param_gather": False},
    "restrict": {"tensor": [2], "pipeline": [1], "context": [1], "expert": [8], "micro_batch_size": [4]},
}


def test_a_search_row_whose_data_rings_run_beside_the_model_parallel_waits_is_its_plan():
    """Qwen3-235B-A22B at t 2 and e 8 inside a node, its data groups across nodes with fp32 gradients and one
    micro-batch of 4 a step, where the experts' gathers and reduce-scatters outlast the compute: the grid spreads
    the same exposed tensor and expert seconds over the data groups' windows as the plan does."""
    checked = 0
    for cell in grid_cells(FSDP_BESIDE_TP_EP):
        step_s = float(cell.grid.step_s[cell.row, cell.arrangement, cell.recompute, 0])
        assert step_s == pytest.approx(cell.answer.time.step_s, rel=1e-9)
        checked += 1
    assert checked >= 2


def test_hidden_data_time_slows_the_compute_only_where_it_runs_beside_it():
    """A data group hidden behind a window of 1 s forward + 2 s backward compute and 1.5 s of model-parallel
    waits: of its 2 s hidden, 2 x 3 / 4.5 = 4/3 s run beside compute kernels (the overlap slowdown's share); beside
    a wait no compute kernel runs. With no waits every hidden second is beside compute."""
    assert beside_compute_s(2.0, 1.0, 2.0, 1.5, 3.0) == pytest.approx(4 / 3, rel=1e-12)
    assert beside_compute_s(2.0, 1.0, 2.0, 1.0, 2.0) == 2.0
    arrays = beside_compute_s(np.array([2.0, 2.0]), 1.0, 2.0, np.array([1.5, 1.0]), np.array([3.0, 2.0]))
    assert arrays.tolist() == pytest.approx([4 / 3, 2.0], rel=1e-12)
