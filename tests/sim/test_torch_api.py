"""Issue 13 over HTTP: POST /v1/simulations with engine torch runs PyTorch's engines out of process
and the job's report carries the per-class comparison; requests the engine cannot run are 422s
with pointers; the rings engine stays the default."""

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(90)]


def client(db: Path) -> TestClient:
    return TestClient(create_app(Settings(sim_db_path=str(db))))


def test_torch_job_reports_measured_against_predicted(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    body = {
        "engine": "torch",
        "world_size": 2,
        "arrangements": ["full_shard"],
        "model": {"layers": 1, "hidden_size": 32, "attention_heads": 4, "ffn_hidden_size": 64, "vocab_size": 64},
    }
    with client(tmp_path / "jobs.sqlite3") as http:
        started = http.post("/v1/simulations", json=body)
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 80
        while (job := http.get(started.headers["location"]).json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert job["status"] == "succeeded", job["error"]
    report = job["report"]
    # 1 layer, h = 32, f = 64, V = 64: 4 x (32 x 32 + 32) + (32 x 64 + 64) + (64 x 32 + 32) + 4 x 32
    # = 4,224 + 2,112 + 2,080 + 128 = 8,544; + embedding and output 2 x 64 x 32 + final norm 2 x 32
    # = 12,704 weights
    assert report["engine"] == "torch" and report["parameter_count"] == 12_704
    [zero3] = report["arrangements"]
    assert zero3["arrangement"] == "zero3" and zero3["checks_pass"]
    measured = {m["state"]: m["measured_bytes"] for m in zero3["memory"]}
    assert measured["parameters"] == [4 * 12_704 // 2] * 2


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"arrangements": ["zero2"]}, "/arrangements"),
        (
            {
                "model": {
                    "layers": 2,
                    "hidden_size": 60,
                    "attention_heads": 4,
                    "ffn_hidden_size": 256,
                    "vocab_size": 128,
                }
            },
            "/model/hidden_size",
        ),
        ({"arrangements": ["hybrid"], "world_size": 2}, "/ranks_per_node"),
        # layouts: 4 ranks are not tensor 3 x d
        ({"parallelism": {"tensor": 3}}, "/parallelism"),
        # tensor 2 and one attention head
        (
            {
                "parallelism": {"tensor": 2},
                "model": {
                    "layers": 2,
                    "hidden_size": 64,
                    "attention_heads": 1,
                    "ffn_hidden_size": 256,
                    "vocab_size": 128,
                },
            },
            "/parallelism/tensor",
        ),
        ({"parallelism": {"pipeline": 4}}, "/parallelism/pipeline"),  # 2 layers over 4 stages
        ({"parallelism": {"pipeline": 2}, "micro_batches": 1}, "/micro_batches"),  # 1F1B needs m >= p
        ({"parallelism": {"tensor": 2}, "arrangements": ["ddp"]}, "/arrangements"),
        ({"parallelism": {"tensor": 2, "context": 2}}, "/parallelism/context"),
        ({"parallelism": {"tensor": 2, "sequence_parallel": True}}, "/parallelism/sequence_parallel"),
        ({"parallelism": {"tensor": 2, "expert_tensor": 1}}, "/parallelism/expert_tensor"),
        (
            {
                "model": {
                    "layers": 2,
                    "hidden_size": 64,
                    "attention_heads": 2,
                    "ffn_hidden_size": 256,
                    "vocab_size": 128,
                    "linear_bias": False,
                }
            },
            "/model",
        ),
        ({"parallelism": {"pipeline": 2, "pipeline_schedule": "interleaved"}}, "/parallelism/pipeline_schedule"),
    ],
)
def test_what_the_torch_engine_cannot_run_is_a_422(tmp_path: Path, change: dict[str, Any], pointer: str) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        answer = http.post("/v1/simulations", json={"engine": "torch", "world_size": 4} | change)
    assert answer.status_code == 422, answer.text
    assert pointer in [e["pointer"] for e in answer.json()["errors"]]


def test_parallelism_belongs_to_the_torch_engine(tmp_path: Path) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        answer = http.post("/v1/simulations", json={"world_size": 4, "parallelism": {"tensor": 2}})
    assert answer.status_code == 422
    assert [e["pointer"] for e in answer.json()["errors"]] == ["/parallelism"]


def test_model_belongs_to_the_torch_engine(tmp_path: Path) -> None:
    with client(tmp_path / "jobs.sqlite3") as http:
        answer = http.post("/v1/simulations", json={"world_size": 2, "model": {"parameter_count": 1000}})
    assert answer.status_code == 422
    assert [e["pointer"] for e in answer.json()["errors"]] == ["/model"]


def test_the_cli_renders_a_torch_report() -> None:
    from cli.render import render_simulation

    memory = [
        {"state": s, "measured_bytes": [b], "predicted_bytes": [b], "preset_bytes": b // 2, "matches": True}
        for s, b in (("parameters", 465_920), ("gradients", 465_920), ("optimizer_state", 931_984))
    ]
    run = {
        "arrangement": "ddp",
        "memory": memory,
        "memory_matches": True,
        "wire_within_allowance": True,
        "learning": {"within_tolerance": True},
    }
    text = render_simulation(
        {"status": "succeeded", "report": {"engine": "torch", "backend": "gloo", "arrangements": [run]}}
    )
    assert "torch engine, gloo" in text and "931,984" in text and "465,920" in text
