"""Simulations say what they confirmed: one verdict with one meaning for both engines, the checks it is made
of, and the torch engine's activation and all-gather peaks against /v1/plan's activations and working set, on
the dense model and on a tensor-parallel layout.

The plan's figures are written out here. The engine's model (h = 64, a = 4, f = 256, V = 128, 2 layers) at
its 2 sequences of 16 tokens a rank: activations by Korthikanti et al. 2022, table 2, with flash attention and
16-bit tensors, 34 sbh a layer, plus the embedding's sbh, the output layer's 4 sbh and the fp32 logits' 4 sbV:
2 x 34 x 2,048 + 2,048 + 8,192 + 16,384 = 165,888 B. The ZeRO-3 working set: two gathered blocks (the one in
flight and the prefetched one) and one block's unsharded gradients, in bf16: 3 x 2 x 49,984 = 299,904 B; at
tensor 2 a rank's block holds 25,184 weights: 3 x 2 x 25,184 = 151,104 B.
"""

import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from service.sim.engines.torch_config import TorchSimConfig  # noqa: E402
from service.sim.engines.torch_run import simulate  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(150)]

SBH = 16 * 2 * 64
ACTIVATIONS = 2 * 34 * SBH + SBH + 4 * SBH + 4 * 16 * 2 * 128
assert ACTIVATIONS == 165_888
BLOCK, TENSOR_BLOCK = 49_984, 25_184
WORKING_SET = {"dense": 3 * 2 * BLOCK, "tensor 2": 3 * 2 * TENSOR_BLOCK}


@pytest.fixture(scope="module")
def dense() -> dict:
    return simulate(TorchSimConfig(world_size=2, arrangements=("ddp", "zero3")), deadline_s=140)


@pytest.fixture(scope="module")
def tensor() -> dict:
    return simulate(TorchSimConfig(world_size=4, tensor=2, arrangements=("zero3",)), deadline_s=140)


def comparison(report: dict, arrangement: str) -> dict[str, dict]:
    run = next(a for a in report["arrangements"] if a["arrangement"] == arrangement)
    return {row["term"]: row for row in run["plan_comparison"]}


def test_the_dense_model_confirms_the_plans_activations_and_working_set(dense):
    assert dense["verdict"] == "confirmed", [c for c in dense["checks"] if c["passed"] is False]
    for arrangement in ("ddp", "zero3"):
        activations = comparison(dense, arrangement)["activations"]
        assert activations["plan_bytes"] == ACTIVATIONS
        assert abs(activations["engine_bytes"] - ACTIVATIONS) <= 0.10 * ACTIVATIONS
        assert activations["within_tolerance_all_ranks"]
    working = comparison(dense, "zero3")["working set"]
    assert working["plan_bytes"] == working["engine_bytes"] == WORKING_SET["dense"]
    checks = {(c["arrangement"], c["check"]) for c in dense["checks"]}
    assert {("ddp", "activations"), ("zero3", "activations"), ("zero3", "working set")} <= checks


def test_a_tensor_parallel_layout_confirms_them_per_rank(tensor):
    assert tensor["verdict"] == "confirmed", [c for c in tensor["checks"] if c["passed"] is False]
    rows = comparison(tensor, "zero3")
    assert rows["working set"]["plan_bytes"] == rows["working set"]["engine_bytes"] == WORKING_SET["tensor 2"]
    activations = rows["activations"]
    assert activations["plan_bytes"] < ACTIVATIONS  # the layer's matrices' activations split over t
    assert activations["within_tolerance_all_ranks"]


def test_the_verdict_is_refuted_when_a_check_fails(dense):
    from service.sim.verdict import verdict

    failed = [*dense["checks"], {"arrangement": "zero3", "check": "x", "passed": False, "detail": ""}]
    assert verdict(True, failed) == "refuted" and verdict(False, dense["checks"]) == "incomplete"


def test_the_rings_report_has_the_same_verdict_and_the_module_prints_the_cli_table(tmp_path):
    out = tmp_path / "report.json"
    command = [sys.executable, "-m", "service.sim", "--world-size", "2", "--arrangements", "ddp,zero3", "--steps", "2"]
    command += ["--parameter-count", "10000", "--out", str(out)]
    shown = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    report = json.loads(out.read_text())
    assert report["verdict"] == "confirmed"
    assert {c["check"] for c in report["checks"]} == {"traffic", "wire", "memory", "learning", "gradient"}
    from service.sim.table import render_report

    assert render_report(report) in shown.stdout and "verdict: confirmed" in shown.stdout
