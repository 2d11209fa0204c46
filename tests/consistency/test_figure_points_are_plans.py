"""Every point of the four arrangement figures is the /v1/plan of the request's job over data parallelism under
that arrangement, and an arrangement whose job /v1/plan refuses is not drawn: the subtitle says which and why.

Before, the figures drew DP, ZeRO-1, ZeRO-2 and SHARD_GRAD_OP with levers.offload_parameters (or levers.zeropp),
jobs /v1/plan refuses with a 422 at /levers (parameter offload needs sharded parameters; ZeRO++ changes ZeRO-3's
collectives), so those bars and curves were the plan of no job.
"""

import pytest

from models.figures import FigureFormat, FigureName, FigureRequest
from service.answers.figures import draw, resolve_case

BODY = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"micro_batch_size": 1, "sequence_length": 4096},
}


@pytest.mark.parametrize(
    ("levers", "why"),
    [
        ({"offload_parameters": True, "offload_optimizer": True}, "levers.offload_parameters needs"),
        ({"zeropp": {"qwz": True, "qgz": True}}, "levers.zeropp needs"),
    ],
)
def test_each_drawn_arrangement_is_a_plan_and_the_others_are_named(client, levers, why):
    body = BODY | {"levers": levers}
    case = resolve_case(FigureRequest.model_validate(body), FigureName.step_time)
    # ZeRO-3 alone of the drawn arrangements shards parameters and runs ZeRO++ (models.plan.PlanRequest's rules)
    assert [a.value for a in case.results] == ["zero3"]
    for arrangement, result in case.results.items():
        planned = client.post("/v1/plan", json=body | {"arrangement": arrangement.value})
        assert planned.status_code == 200, planned.text
        assert int(result.per_gpu_bytes) == planned.json()["memory"]["per_gpu_bytes"]
        assert float(result.step_s) == planned.json()["time"]["step_s"]
    for refused in ("ddp", "zero1", "zero2", "shard_grad_op"):
        assert client.post("/v1/plan", json=body | {"arrangement": refused}).status_code == 422
    assert case.left_out_note is not None
    assert case.left_out_note.startswith(f"ddp, zero1, zero2, shard_grad_op arrangements left out: {why}")
    svg = draw(FigureName.step_time, FigureRequest.model_validate(body), FigureFormat.svg).decode()
    assert "arrangements left out" in svg


def test_without_such_a_lever_every_arrangement_is_drawn_and_nothing_is_said():
    case = resolve_case(FigureRequest.model_validate(BODY), FigureName.memory_vs_gpus)
    assert [a.value for a in case.results] == ["ddp", "zero1", "zero2", "zero3", "shard_grad_op"]
    assert case.left_out_note is None
