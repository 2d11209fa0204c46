"""Sweep benchmark: cells per second of the vectorised core, against the scalar plan in a loop.

    python -m bench.sweep            # prints the figures
    python -m bench.sweep --quick    # smaller grids

1. memory, traffic and fit over N x arrangement x micro-batch cells, vectorised (numpy arrays
   through service.memory.model_states / service.time.traffic): target >= 1,000,000 cells/s;
2. the same with the time model (service.engine.data_parallel.evaluate): target >= 200,000 cells/s;
3. the scalar /v1/plan core (service.answers.plan.plan) in a Python loop over cells: the ratio of (2)
   to it, target >= 100x;
4. the whole sweep core (service.answers.sweep.sweep: grid, validity, overflow checks, time model,
   columns) over a million cells with categorical axes (accumulation steps x micro-batch x
   arrangement x MXFP8 x offload): target >= 1,000,000 cells/s;
5. POST /v1/sweep of 100,000 cells over HTTP to uvicorn on 127.0.0.1, serialisation included:
   target < 2 s;
6. a layout sweep (Llama 3 70B: tensor x pipeline x context x world size x micro-batch x
   micro-batches x arrangement, 131,072 cells) through the whole sweep core, its layout cells
   evaluated at once by service.engine.layout_grid, against the same cells planned one by one
   (service.answers.plan.plan on each cell's request, as layout cells were swept before);
7. the same layout sweep with a given training.utilisation (0.45), evaluated at once too (it was
   planned one by one, at most 4,096 cells a sweep), against its cells planned one by one.
All figures come from one run on this machine.

    python -m bench.sweep --layouts  # only the layout sweeps (6 and 7)
"""

import argparse
import socket
import subprocess
import sys
import time

import httpx
import numpy as np

from models.plan import PlanRequest
from models.presets import PrecisionSpec
from models.sweep import SweepRequest
from service.answers import plan as planner
from service.answers.bisection import fits
from service.answers.sweep import sweep
from service.answers.sweep_layouts import cell_body
from service.engine.data_parallel import evaluate
from service.engine.setup import Inputs, Setup
from service.inputs.arrangements import CANONICAL
from service.memory.model_states import model_state_bytes
from service.time.traffic import step_bytes_sent

P = 30_000_000_000
CARD = 80_000_000_000


def grid(cells_per_arrangement: int) -> tuple[np.ndarray, np.ndarray]:
    """World sizes (whole 8-GPU nodes) x micro-batch sizes, about cells_per_arrangement of them."""
    batches = np.arange(1, 17, dtype=np.int64)
    nodes = np.arange(1, cells_per_arrangement // len(batches) + 1, dtype=np.int64) * 8
    n, b = np.meshgrid(nodes, batches, indexing="ij")
    return n.ravel(), b.ravel()


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def memory_traffic_fit(n: np.ndarray) -> None:
    precision = PrecisionSpec()
    for sharding in CANONICAL.values():
        per_gpu = model_state_bytes(P, n, precision, sharding)
        step_bytes_sent(P, n, precision, sharding)
        fits(per_gpu, CARD)


def with_time_model(n: np.ndarray, b: np.ndarray) -> None:
    precision = PrecisionSpec()
    for sharding in CANONICAL.values():
        evaluate(Inputs(P, n, 8, b, 4096), Setup(precision, sharding, CARD))


def scalar_loop(n: np.ndarray, b: np.ndarray) -> None:
    for sharding_name in CANONICAL:
        for world_size, micro_batch in zip(n.tolist(), b.tolist(), strict=True):
            planner.plan(
                PlanRequest.model_validate(
                    {
                        "model": {"parameter_count": P},
                        "cluster": {"world_size": world_size, "gpus_per_node": 8, "gpu_memory_bytes": CARD},
                        "training": {"micro_batch_size": micro_batch, "sequence_length": 4096},
                        "arrangement": sharding_name,
                    }
                )
            )


CATEGORICAL_MILLION = {
    "base": {
        "model": {"parameter_count": P},
        "arrangement": "zero3",
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu_memory_bytes": CARD},
    },
    "axes": {
        "gradient_accumulation_steps": list(range(1, 31_251)),
        "micro_batch_size": [1, 2],
        "arrangement": ["ddp", "zero1", "zero2", "zero3"],
        "mxfp8": [False, True],
        "offload_optimizer": [False, True],
    },
}


def categorical_sweep_rate() -> tuple[int, float]:
    request = SweepRequest.model_validate(CATEGORICAL_MILLION)
    table = sweep(request, max_cells=1_000_000)
    return table.cells, table.cells / timed(lambda: sweep(request, max_cells=1_000_000))


LAYOUT_SWEEP = {
    "base": {
        "model": {"preset": "llama-3-70b"},
        "arrangement": "zero1",
        "precision": "megatron",
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"sequence_length": 4096},
        "parallelism": {"sequence_parallel": True},
    },
    "axes": {
        "tensor": [1, 2, 4, 8],
        "pipeline": [1, 2, 4, 8],
        "context": [1, 2],
        "world_size": [8 * k for k in range(1, 257)],
        "micro_batch_size": [1, 2],
        "gradient_accumulation_steps": [8, 16, 32, 64],
        "arrangement": ["zero1", "zero3"],
    },
}


def layout_sweep_rates(sample: int, utilisation: float | None = None) -> tuple[int, int, float, float]:
    """(cells, rows, cells/s of the sweep core, cells/s planned one by one on a sample of its layout cells)."""
    body = LAYOUT_SWEEP
    if utilisation is not None:
        base = LAYOUT_SWEEP["base"]
        body = {**LAYOUT_SWEEP, "base": {**base, "training": {**base["training"], "utilisation": utilisation}}}
    request = SweepRequest.model_validate(body)
    table = sweep(request, max_cells=1_000_000, max_evaluations=100_000)
    rate = table.cells / timed(lambda: sweep(request, max_cells=1_000_000, max_evaluations=100_000))
    columns = table.columns
    layout = ("tensor", "pipeline", "context", "expert", "virtual_stages")
    picked = [i for i in range(table.rows) if any(int(columns[a][i]) > 1 for a in layout)][:sample]
    bodies = []
    for i in picked:
        cell = {a: int(columns[a][i]) for a in ("world_size", "gpus_per_node", "micro_batch_size", "sequence_length")}
        cell["gradient_accumulation_steps"] = int(columns["gradient_accumulation_steps"][i])
        group = {
            "arrangement": request.axes.arrangement[["zero1", "zero3"].index(str(columns["arrangement"][i]))],
            "recompute": request.base.levers.recompute,
            "offload_optimizer": False,
            "mxfp8": False,
        }
        degrees = {a: int(columns[a][i]) for a in layout}
        bodies.append(cell_body(request.base, request.base.model, group, degrees, cell))

    def one_by_one() -> None:
        for body in bodies:
            planner.plan(PlanRequest.model_validate(body))

    return table.cells, table.rows, rate, len(bodies) / timed(one_by_one, repeat=1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_sweep_seconds(cells: int) -> tuple[float, int]:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "bench.server", "zeroplan", str(port), "120"])
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        nodes = cells // (4 * 25)
        body = {
            "base": {
                "model": {"parameter_count": P},
                "arrangement": "zero3",
                "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu_memory_bytes": CARD},
            },
            "axes": {
                "world_size": [8 * k for k in range(1, nodes + 1)],
                "micro_batch_size": list(range(1, 26)),
                "arrangement": ["ddp", "zero1", "zero2", "zero3"],
            },
        }
        best, rows = float("inf"), 0
        for _ in range(3):
            start = time.perf_counter()
            response = httpx.post(url + "/v1/sweep", json=body, timeout=60)
            best = min(best, time.perf_counter() - start)
            response.raise_for_status()
            rows = response.json()["rows"]
        return best, rows
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--layouts", action="store_true", help="only the layout sweeps")
    args = parser.parse_args()
    if args.layouts:
        layout_figures(args.quick)
        return
    n, b = grid(25_000 if args.quick else 250_000)
    cells = 4 * len(n)
    vector_s = timed(lambda: memory_traffic_fit(n))
    time_s = timed(lambda: with_time_model(n, b))
    sample = 200 if args.quick else 1000
    scalar_s = timed(lambda: scalar_loop(n[:sample], b[:sample]), repeat=1)
    scalar_rate = 4 * sample / scalar_s
    print(f"cells per run: {cells:,} (4 arrangements x {len(n):,} (N, micro-batch) pairs)")
    print(f"memory + traffic + fit, vectorised: {cells / vector_s:,.0f} cells/s (target >= 1,000,000)")
    print(f"with the time model, vectorised:    {cells / time_s:,.0f} cells/s (target >= 200,000)")
    print(f"scalar /v1/plan core in a loop:     {scalar_rate:,.0f} cells/s")
    print(f"speed-up of the vectorised time model over the loop: {cells / time_s / scalar_rate:,.0f}x (target >= 100x)")
    cells_categorical, rate = categorical_sweep_rate()
    print(
        f"whole sweep core, {cells_categorical:,} cells, categorical axes included: {rate:,.0f} cells/s "
        "(target >= 1,000,000)"
    )
    http_s, rows = http_sweep_seconds(10_000 if args.quick else 100_000)
    print(f"POST /v1/sweep, {rows:,} cells over HTTP: {http_s:.2f} s (target < 2 s)")
    layout_figures(args.quick)


def layout_figures(quick: bool) -> None:
    for utilisation in (None, 0.45):
        cells, rows, rate, planned_rate = layout_sweep_rates(100 if quick else 500, utilisation)
        given = "" if utilisation is None else f" with training.utilisation {utilisation:g}"
        print(
            f"layout sweep core{given}, {cells:,} cells (31 of 32 with a layout; {rows:,} valid): "
            f"{rate:,.0f} cells/s; its layout cells planned one by one: "
            f"{planned_rate:,.0f} cells/s ({rate / planned_rate:,.0f}x)"
        )


if __name__ == "__main__":
    main()
