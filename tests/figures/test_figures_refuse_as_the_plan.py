"""The arrangement figures draw /v1/plan's jobs alone: when the levers leave no arrangement a plan takes, a 422 (it
was a 500 for two figures and an empty figure for the others); the memory curve leaves out the GPU counts a global
batch does not split over, as /v1/fit's table does (it drew points /v1/plan refuses)."""

from models.figures import FigureName, FigureRequest
from service.answers.figures import curve_counts, resolve_case

ARRANGEMENT_FIGURES = ("memory-vs-gpus", "bytes-per-weight", "traffic", "step-time")


def test_levers_no_arrangement_takes_are_a_422_at_the_levers(client):
    # parameter offload needs sharded parameters (ddp, zero1, zero2, shard_grad_op refuse it), and ZeRO-3 refuses
    # it beside Transformer Engine's FP8 weights: no arrangement the figures draw is a job /v1/plan answers
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpu": "h100-80gb"},
        "levers": {"offload_parameters": True, "fp8": "transformer_engine", "fp8_param_gather": True},
    }
    for arrangement in ("ddp", "zero1", "zero2", "zero3", "shard_grad_op"):
        assert client.post("/v1/plan", json=body | {"arrangement": arrangement}).status_code == 422
    for name in ARRANGEMENT_FIGURES:
        response = client.post(f"/v1/figures/{name}", json=body)
        assert response.status_code == 422, (name, response.text[:300])
        assert [e["pointer"] for e in response.json()["errors"]] == ["/levers"], name


def test_the_memory_curve_keeps_the_counts_the_global_batch_splits_over(client):
    # 24 sequences at micro-batch 2 over N replicas: 24 / (2 N) whole for N = 1, 2, 4 (12, 6, 3 micro-batches);
    # not for 8 (1.5) or 16
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 2, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 2, "global_batch_size": 24},
        "arrangement": "zero3",
        "max_gpus": 16,
    }
    counts, note = curve_counts(FigureRequest.model_validate(body))
    assert counts == (1, 2, 4)
    assert note is not None and note.endswith("left out: 8, 16")
    for n in (8, 16):
        plan = {k: v for k, v in body.items() if k != "max_gpus"} | {"cluster": body["cluster"] | {"world_size": n}}
        assert client.post("/v1/plan", json=plan).status_code == 422
    assert client.post("/v1/figures/memory-vs-gpus", json=body).status_code == 200


def test_a_batch_the_chosen_n_does_not_split_keeps_every_count_of_the_curve():
    """A search row on a layout: tensor 8 over 64 GPUs leaves 8 replicas, which a batch of 8 at micro-batch 1 splits
    over, but data parallelism over 64 does not; the figure draws each replica running the job's own micro-batches
    (its note says so), and the curve must not leave out the chosen N and every count past 8 as if it were fit's."""
    body = {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"micro_batch_size": 1, "global_batch_size": 8},
        "parallelism": {"tensor": 8},
        "arrangement": "zero1",
        "max_gpus": 128,
    }
    case = resolve_case(FigureRequest.model_validate(body), FigureName.memory_vs_gpus)
    assert case.batch_note is not None and "each runs the job's own" in case.batch_note
    assert case.curve_counts == (1, 2, 4, 8, 16, 32, 64, 128)
