"""Issue 13 with layouts: tensor 2 x data 2 and pipeline 2 x data 2 on 4 gloo ranks, run by PyTorch's
DTensor tensor parallelism and torch.distributed.pipelining with FSDP2 over the data dimension, each
rank's bytes by class exactly as /v1/plan's stage share predicts, wire bytes within the header
allowance, learning as one process. One job per layout (zero3 and shard_grad_op), 3 steps."""

import pytest

torch = pytest.importorskip("torch")

from models.simulation import TorchSimulationReport  # noqa: E402
from service.sim.engines.torch_config import TorchSimConfig  # noqa: E402
from service.sim.engines.torch_run import simulate  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(120)]

# The default tiny model: h = 64, 4 heads, f = 256, V = 128, 2 layers, gelu, untied.
# One layer: q, k, v, o 4 x (64 x 64 + 64) = 16,640; up 256 x 64 + 256 = 16,640; down 64 x 256 + 64 = 16,448;
# two LayerNorms 2 x 2 x 64 = 256: 49,984. Embedding and output layer 128 x 64 = 8,192 each, final norm 128.
LAYER = 49_984
TABLE = 8_192
FINAL_NORM = 128
# Tensor 2: q, k, v, up (weights and biases), o and down weights, embedding and output rows halve; the norms and
# the o and down biases stay whole: (16,384 + 192 + 16,640 + 16,384) / 2 + 64 + 64 + 256 = 25,184 a layer.
TENSOR_LAYER = 25_184
assert TENSOR_LAYER == (LAYER - 256 - 128) // 2 + 256 + 128


def fp32_state(weights: int, tensors: int) -> dict[str, int]:
    """FSDP2's layout under bf16 compute: fp32 parameters, fp32 gradients, two fp32 Adam moments and a
    4-byte step counter per tensor."""
    return {"parameters": 4 * weights, "gradients": 4 * weights, "optimizer_state": 8 * weights + 4 * tensors}


@pytest.fixture(scope="module")
def tensor_report() -> dict:
    return simulate(TorchSimConfig(world_size=4, tensor=2, arrangements=("zero3", "shard_grad_op")), deadline_s=110)


@pytest.fixture(scope="module")
def pipeline_report() -> dict:
    cfg = TorchSimConfig(world_size=4, pipeline=2, micro_batches=2, arrangements=("zero3", "shard_grad_op"))
    return simulate(cfg, deadline_s=110)


def planned_state(arrangement: str, share: int) -> int:
    """/v1/plan's model state per GPU for mixed_bf16_adam: 2 + 2 + 12 bytes a weight over d = 2; the planner's
    shard_grad_op also keeps the gathered bf16 copy of the share (2 bytes a weight) from forward to backward."""
    return 16 * share // 2 + (2 * share if arrangement == "shard_grad_op" else 0)


def _measured(arrangement: dict) -> dict[str, list[int]]:
    return {m["state"]: m["measured_bytes"] for m in arrangement["memory"]}


@pytest.mark.parametrize("layout", ["tensor_report", "pipeline_report"])
def test_each_layout_runs_and_passes_its_checks(layout: str, request: pytest.FixtureRequest) -> None:
    report = request.getfixturevalue(layout)
    assert report["succeeded"], report.get("faults")
    TorchSimulationReport.model_validate(report)
    assert [a["arrangement"] for a in report["arrangements"]] == ["zero3", "shard_grad_op"]
    for a in report["arrangements"]:
        assert a["memory_matches"] and a["wire_within_allowance"], a["arrangement"]
        assert a["traffic"]["model_parallel_matches"], a["traffic"]
        assert a["learning"]["within_tolerance"], a["learning"]


def test_tensor_ranks_hold_their_matrix_halves_over_the_data_group(tensor_report: dict) -> None:
    assert tensor_report["parallelism"]["data"] == 2
    assert tensor_report["parallelism"]["tensor_rank_of_rank"] == [0, 1, 0, 1]
    share = 2 * TENSOR_LAYER + TABLE // 2 + TABLE // 2 + FINAL_NORM  # 58,688 on each tensor rank
    for a in tensor_report["arrangements"]:
        assert _measured(a) == {k: [v] * 4 for k, v in fp32_state(share // 2, 36).items()}
        # FSDPMemTracker's own categories: the sharded fp32 parameters and the Adam state, as held
        assert [p["Sharded Param"] for p in a["tracker_peak_bytes"]] == [4 * share // 2] * 4
        assert [p["OptState"] for p in a["tracker_peak_bytes"]] == [8 * share // 2 + 4 * 36] * 4
        assert a["plan_stages"] == [
            {
                "stage": 0,
                "layers": 2,
                "parameters_per_gpu": share,
                "model_state_bytes": planned_state(a["arrangement"], share),
            }
        ]


def test_pipeline_stages_hold_their_layers_embedding_and_output(pipeline_report: dict) -> None:
    assert pipeline_report["parallelism"]["stage_of_rank"] == [0, 0, 1, 1]
    first, last = LAYER + TABLE, LAYER + FINAL_NORM + TABLE  # 58,176 and 58,304
    # tensors: embedding + 16 of a layer = 17; 16 + final norm 2 + output 1 = 19
    expected = [fp32_state(first // 2, 17)] * 2 + [fp32_state(last // 2, 19)] * 2
    for a in pipeline_report["arrangements"]:
        measured = _measured(a)
        assert [{k: measured[k][r] for k in measured} for r in range(4)] == expected
        planned = [planned_state(a["arrangement"], first), planned_state(a["arrangement"], last)]
        assert [s["model_state_bytes"] for s in a["plan_stages"]] == planned


@pytest.mark.parametrize("index", [0, 1])
def test_tensor_collectives_beside_the_plan(tensor_report: dict, index: int) -> None:
    arrangement = tensor_report["arrangements"][index]
    rows = {(c["group"], c["name"]): c for c in arrangement["collectives"]}
    # b s h = 2 x 16 x 64 bf16 = 4,096 bytes; a 2-rank ring all-reduce sends 2 (2 - 1) / 2 of it
    buffer = 2 * 16 * 64 * 2
    # forward: the embedding's and 2 per layer; backward: q, k, v and up's input gradients per layer and the
    # output layer's: 1 + 4 + 8 + 1 = 14 (the planner's 4 per layer: 8)
    assert rows[("tensor", "all_reduce")]["calls_per_step"] == 14
    assert rows[("tensor", "all_reduce")]["payload_bytes_per_step"] == 14 * buffer
    assert rows[("tensor", "all_reduce")]["plan_bytes_per_step"] == 8 * buffer
    # the replicated logits: b s V bf16 gathered from two halves, each rank sends one
    logits = 2 * 16 * 128 * 2 // 2
    assert rows[("tensor", "all_gather")]["payload_bytes_per_step"] == logits
    assert arrangement["traffic"]["model_parallel_predicted_bytes_per_step"] == [{"tensor": 14 * buffer + logits}] * 4


def test_pipeline_sends_each_micro_batch_across_the_boundary(pipeline_report: dict) -> None:
    for arrangement in pipeline_report["arrangements"]:
        by_group = arrangement["traffic"]["engine_bytes_per_step_by_group"]
        # 2 micro-batches of b s h = 2 x 16 x 64 bf16: the first stage sends activations, the last their gradients
        assert [g["pipeline"] for g in by_group] == [2 * 2 * 16 * 64 * 2] * 4
        # the planner's middle stage sends both ways
        assert arrangement["traffic"]["plan_bytes_per_step"]["pipeline:send_recv"] == 2 * 2 * 2 * 16 * 64 * 2
