"""The expert overlap (levers.overlap_moe_expert_parallel_comm) priced as Megatron-Core's combined 1F1B pairs it:
one micro-batch's forward beside another's backward, layer by layer, each all-to-all phase of one hidden only behind
the compute piece of the other the schedule pairs it with (megatron/core/models/common/model_chunk_schedule_plan.py
@d98e8a64, TransformerLayerSchedulePlan.run), the warmup's passes unpaired (megatron/core/pipeline_parallel/
combined_1f1b.py, schedules.py get_pp_rank_microbatches). The expected figures are the schedule's arithmetic."""

import numpy as np
import pytest

from models.plan import PlanRequest
from service.answers.plan import plan
from service.inputs import resolve
from service.time.efficiency import moe_layer_pieces
from service.time.overlaps import CombinedPairs, combined_exposed_seconds, combined_passes
from tests.layouts.grid_cells import grid_cells

# DeepEP's kernels hold 20 of an H100's 132 SMs while a phase runs (Megatron-Core's flex dispatcher's default,
# token_dispatcher.py @d98e8a64; the H100 whitepaper's 132 SMs): a piece beside a phase keeps 112 / 132 of the GPU,
# so a phase shorter than its piece still costs it 20 / 132 of the phase.
HELD = 20 / 132


def test_the_warmup_passes_are_the_schedules():
    # no pipelining: the first micro-batch's forward and the last's backward run alone (m - 1 pairs)
    assert combined_passes(1, 1, 4, True) == 3
    # interleaved, p = 8, v = 4, m = 128 (Qwen3-235B-A22B's Model Zoo row): 2 x 7 + 3 x 8 + 1 = 39 warmup passes
    assert combined_passes(8, 4, 128, True) == 512 - 39
    # 1F1B, p = 4: 2 x 3 + 0 + 1 = 7 warmup passes of 16
    assert combined_passes(4, 1, 16, True) == 9
    # fewer micro-batches than the warmup: nothing paired; GPipe pipelined: nothing (no steady state)
    assert combined_passes(8, 1, 4, True) == 0
    assert combined_passes(4, 1, 16, False) == 0
    assert combined_passes(1, 1, 4, False) == 3  # without pipelining the schedule is the no-pipelining one
    arrays = combined_passes(np.array([1, 8, 4]), np.array([1, 4, 1]), np.array([4, 128, 16]), np.array([True] * 3))
    assert arrays.tolist() == [3, 473, 9]


def test_each_phase_hides_behind_its_piece_alone():
    # 8 s over 8 phases (1 s each) over 2 layer passes, one of them paired, behind pieces of 0.5, 2, 2, 0.25 s:
    # the paired pass hides 0.5 + 1 + 1 + 0.25 = 2.75 s
    pairs = CombinedPairs(layer_passes=2, paired=1, pieces_s=(0.5, 2.0, 2.0, 0.25))
    assert combined_exposed_seconds(8.0, 8, pairs) == pytest.approx(8.0 - 2.75, rel=1e-15)
    # 4 s: 0.5 s phases, the last longer than its 0.25 s piece: 0.5 + 0.5 + 0.5 + 0.25 s hidden
    arrays = combined_exposed_seconds(np.array([8.0, 4.0]), np.array([8, 8]), pairs)
    assert arrays.tolist() == pytest.approx([5.25, 4.0 - 1.75], rel=1e-15)


def test_a_piece_beside_deepep_runs_on_the_sms_it_leaves():
    """With half the SMs kept while a 1 s phase runs, a pair takes max(1, piece + 0.5): behind a 2 s piece the phase
    hides 0.5 s, behind a 0.25 s piece 0.25 s; 8 phases of 1 s, one pass of four paired: 0.25 + 0.5 + 0.5 + 0.25."""
    pairs = CombinedPairs(layer_passes=2, paired=1, pieces_s=(0.25, 2.0, 2.0, 0.25), compute_share=0.5)
    assert pairs.prices_the_sms
    assert combined_exposed_seconds(8.0, 8, pairs) == pytest.approx(8.0 - 1.5, rel=1e-15)


QWEN_30B = {
    "model": {"preset": "qwen3-30b-a3b"},
    "cluster": {"world_size": 8, "gpu": "h100-80gb", "gpus_per_node": 8},
    "arrangement": "zero1",
    "training": {"global_batch_size": 32, "sequence_length": 4096, "micro_batch_size": 1},
    "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True},
}


def _plan(parallelism: dict, overlap: bool):
    body = QWEN_30B | {"parallelism": parallelism}
    body["levers"] = QWEN_30B["levers"] | {"overlap_moe_expert_parallel_comm": overlap}
    return plan(PlanRequest.model_validate(body))


@pytest.mark.parametrize(
    ("parallelism", "unpaired"),
    [
        # p = 1, d = 8, m = 32 / 8 = 4: the first forward and the last backward alone, 1 of 4 passes
        ({"expert": 8}, 1 / 4),
        # p = 2 interleaved over v = 2, d = 4, m = 8: warmup 2 x 1 + 1 x 2 + 1 = 5 of m v = 16 chunk passes
        ({"pipeline": 2, "expert": 4, "pipeline_schedule": "interleaved", "virtual_stages": 2}, 5 / 16),
    ],
    ids=["no-pipelining", "interleaved"],
)
def test_inside_a_node_the_unpaired_passes_alone_stay_exposed(parallelism, unpaired):
    """Over NVLink each phase is shorter than every piece it is paired with, so a paired pass hides its four phases
    but for the 20 of 132 SMs DeepEP holds, and the warmup's and cooldown's passes stay exposed: that fraction of the
    whole all-to-all, and 20 / 132 of the rest. The fitted overlap slowdown does not charge these pieces again."""
    off, on = _plan(parallelism, False), _plan(parallelism, True)
    whole_s = off.time.expert_parallel_s  # without the lever every dispatch and combine is exposed
    assert whole_s > 0
    # the precondition, from the efficiency model's pieces of one MoE layer pass (b = 1, s = 4,096, t = c = 1)
    training = {"sequence_length": 4096, "micro_batch_size": 1, "gradient_accumulation_steps": 1}
    request = PlanRequest.model_validate(QWEN_30B | {"training": training})
    scene = resolve.scenario(
        request.model, request.precision, request.training, request.activations, request.levers, request.cluster
    )
    eff = resolve.setup_for(scene, resolve.sharding(request.arrangement)).efficiency
    assert eff is not None
    layers = 48 // parallelism.get("pipeline", 1)
    m = 32 // (8 // parallelism.get("pipeline", 1))
    phase_s = whole_s / (4 * layers * m)
    assert phase_s < min(moe_layer_pieces(eff, 1, 4096, 1, 1, parallelism["expert"], 1))
    assert on.time.expert_parallel_s == pytest.approx((unpaired + (1 - unpaired) * HELD) * whole_s, rel=1e-9)
    assert on.time.overlap_slowdown_s == off.time.overlap_slowdown_s


BODY = {
    "model": {"preset": "qwen3-30b-a3b"},
    "cluster": {"world_size": [16], "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"global_batch_size": 64, "sequence_length": 4096},
    "levers": {"moe_token_dispatcher": "deepep", "moe_permute_fusion": True, "overlap_moe_expert_parallel_comm": True},
    "restrict": {
        "tensor": [1],
        "pipeline": [1, 2],
        "context": [1],
        "expert": [8, 16],
        "micro_batch_size": [1],
        "virtual_stages": [2],
        "pipeline_schedule": ["1f1b", "interleaved", "gpipe", "zb_v"],
        "arrangement": ["zero1"],
        "recompute": ["selective", "full"],
    },
}


# with tp_comm_overlap too: the hidden seconds the overlap slowdown charges add the tensor group's and the expert's
BOTH = BODY | {
    "levers": BODY["levers"] | {"tp_comm_overlap": True},
    "restrict": BODY["restrict"] | {"tensor": [2], "expert": [4, 8], "pipeline_schedule": ["interleaved", "zb_v"]},
}


# the pipelined rows run their schedule twice a step, each run with its own warmup (parallelism.pipeline_runs)
RUNS = BODY | {"parallelism": {"pipeline_runs": 2}}


@pytest.mark.parametrize("body", [BODY, BOTH, RUNS], ids=["expert-overlap", "with-tp-comm-overlap", "two-runs"])
def test_a_search_row_under_the_expert_overlap_is_its_plan(body):
    """The grid pairs the phases per row (pipeline degree, virtual stages, schedule) as /v1/plan does, bit for bit."""
    checked, schedules = 0, set()
    for cell in grid_cells(body):
        assert cell.request["levers"]["overlap_moe_expert_parallel_comm"] is True
        answer = cell.answer
        assert float(cell.grid.step_s[cell.row, cell.arrangement, cell.recompute, 0]) == answer.time.step_s
        assert float(cell.grid.expert_parallel_s[cell.row, cell.recompute]) == answer.time.expert_parallel_s
        schedules.add((cell.request["parallelism"].get("pipeline", 1), answer.parallelism.pipeline_schedule))
        checked += 1
    assert checked >= 4
    assert len(schedules) >= 3


def test_the_model_zoo_qwen3_row_leaves_its_warmup_exposed():
    """Megatron-MoE-ModelZoo's Qwen3-235B-A22B t2 p8 v4 e32 DeepEP row on 256 H100 (bench.calibration.layout_groups),
    with and without '+1f1b overlap': d = 256 / (2 x 8) = 16, m = 2,048 / 16 = 128, so the first rank runs
    2 x 7 + 3 x 8 + 1 = 39 of its 128 x 4 chunk passes unpaired; every phase (about 1.0 ms) is shorter than the
    pieces it is paired with (1.1 ms and more), so 39 / 512 of the all-to-all stays exposed, and of the other
    473 / 512 the 20 of 132 SMs DeepEP holds from the pieces beside it."""
    from bench.calibration.layout_groups import QWEN3_235B_LAYOUTS
    from bench.calibration.model import plan_request

    off, on = (plan(plan_request(run)) for run in QWEN3_235B_LAYOUTS[:2])
    assert on.parallelism.virtual_stages == 4 and on.parallelism.pipeline == 8
    exposed = 39 / 512 + 473 / 512 * HELD
    assert on.time.expert_parallel_s == pytest.approx(off.time.expert_parallel_s * exposed, rel=1e-9)
