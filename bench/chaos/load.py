"""60 s of mixed load (plan, fit, sweep, figures) with 4 worst-case sweeps always in flight.

Prints /healthz latency (p50, p99, max) sampled every 50 ms throughout, the resident memory of
the server and its worker processes together (peak, sampled every 0.5 s) against a stated bound,
and the answers by status: the figures are 0 5xx, /healthz p99 < 100 ms and RSS below
RSS_BOUND_MIB. A 429 (the heavy-request limit) or a 503 deadline would be the service protecting
itself; they are counted, and a 503 is a 5xx, so it misses.

The worst-case sweep is the largest the default limits accept: 995,328 cells and 3,564
evaluations (every arrangement, recomputation, offload and MXFP8 choice x five numeric axes),
sorted by step time; two of the four ask for JSON, two for 100,000 rows of CSV.
"""

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
RSS_BOUND_MIB = 4096
HEALTHZ_P99_MS = 100.0
HEALTHZ_EVERY_S = 0.05
MIXED_CLIENTS = 8
WORST_SWEEPS = 4

BASE = {
    "model": {"preset": "llama-3-70b"},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb", "links": "nvlink4-ib400"},
    "training": {"micro_batch_size": 1, "sequence_length": 4096},
    "arrangement": "zero3",
}
WORST_SWEEP = {
    "base": BASE,
    "axes": {
        "world_size": [8, 16, 32, 64, 128, 256, 512, 1024],
        "gpus_per_node": [4, 8],
        "micro_batch_size": [1, 2, 4, 8],
        "sequence_length": [1024, 2048, 4096, 8192],
        "gradient_accumulation_steps": list(range(1, 19)),
        "arrangement": ["ddp", "zero1", "zero2", "zero3", "no_shard", "shard_grad_op", "full_shard", "hybrid"],
        "recompute": ["none", "selective", "full"],
        "offload_optimizer": [False, True],
        "mxfp8": [False, True],
    },
    "sort_by": "step_s",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--load-seconds", type=float, default=60.0, help="load section: seconds of mixed load")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:  # gone meanwhile
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the sweeps' worker processes), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # the field after the parenthesised command name is the state, then the parent's id
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def tree_rss_mib(pid: int) -> float:
    """The server's resident memory with its worker processes'."""
    return sum(rss_mib(p) for p in [pid, *descendants(pid)])


def mixed_request(rng: random.Random) -> tuple[str, str, dict[str, Any] | None]:
    """A different plan each time (no cache hits), or a fit, a small sweep, a figure."""
    n = rng.choice([8, 16, 32, 64, 128, 256])
    cluster = {"world_size": n, "gpus_per_node": 8, "gpu_memory_bytes": rng.randrange(40, 200) * 10**9}
    model = {"parameter_count": rng.randrange(1, 400) * 10**9}
    kind = rng.choice(["plan", "plan", "plan", "fit", "sweep", "figure"])
    if kind == "plan":
        return "POST", "/v1/plan", {"model": model, "cluster": cluster, "arrangement": rng.choice(["zero2", "zero3"])}
    if kind == "fit":
        return "POST", "/v1/fit", {"model": model, "cluster": {"gpu_memory_bytes": cluster["gpu_memory_bytes"]}}
    if kind == "sweep":
        axes = {"world_size": [8, 16, 32, 64], "arrangement": ["zero1", "zero2", "zero3"]}
        return "POST", "/v1/sweep", {"base": {"model": model, "cluster": cluster, "arrangement": "zero3"}, "axes": axes}
    figure = rng.choice(["memory-vs-gpus", "bytes-per-weight", "traffic", "step-time"])
    return "GET", f"/v1/figures/{figure}", None


async def drive(url: str, pid: int, seconds: float) -> dict[str, Any]:
    stop_at = time.monotonic() + seconds
    statuses: Counter[str] = Counter()
    healthz_ms: list[float] = []
    rss: list[float] = []
    sweep_s: list[float] = []

    async def worst(i: int) -> None:
        headers = {"accept": "text/csv"} if i % 2 else {}
        body = WORST_SWEEP | ({"limit": 100_000} if i % 2 else {"limit": 100})
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            while time.monotonic() < stop_at:
                started = time.monotonic()
                response = await client.post("/v1/sweep", json=body, headers=headers)
                statuses[f"worst sweep {response.status_code}"] += 1
                if response.status_code == 200:
                    sweep_s.append(time.monotonic() - started)
                else:
                    await asyncio.sleep(0.5)

    async def mixed(seed: int) -> None:
        rng = random.Random(seed)
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            while time.monotonic() < stop_at:
                method, path, body = mixed_request(rng)
                params = {"parameter_count": 30_000_000_000, "gpu": "h100-80gb"} if method == "GET" else None
                response = await client.request(method, path, json=body, params=params)
                statuses[f"{path.rsplit('/', 1)[0] if 'figures' in path else path} {response.status_code}"] += 1

    async def probe() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            while time.monotonic() < stop_at:
                started = time.perf_counter()
                response = await client.get("/healthz")
                healthz_ms.append((time.perf_counter() - started) * 1e3)
                statuses[f"/healthz {response.status_code}"] += 1
                await asyncio.sleep(HEALTHZ_EVERY_S)

    async def memory() -> None:
        while time.monotonic() < stop_at:
            rss.append(tree_rss_mib(pid))
            await asyncio.sleep(0.5)

    tasks = [worst(i) for i in range(WORST_SWEEPS)] + [mixed(s) for s in range(MIXED_CLIENTS)] + [probe(), memory()]
    await asyncio.gather(*tasks)
    healthz_ms.sort()
    return {
        "statuses": dict(sorted(statuses.items())),
        "healthz_p50_ms": round(healthz_ms[len(healthz_ms) // 2], 2),
        "healthz_p99_ms": round(healthz_ms[min(len(healthz_ms) - 1, int(0.99 * len(healthz_ms)))], 2),
        "healthz_max_ms": round(healthz_ms[-1], 2),
        "healthz_samples": len(healthz_ms),
        "worst_sweeps_answered": len(sweep_s),
        "worst_sweep_mean_s": round(sum(sweep_s) / len(sweep_s), 2) if sweep_s else None,
        "rss_peak_mib": round(max(rss), 1),
        "rss_bound_mib": RSS_BOUND_MIB,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    env = os.environ | {"ZEROPLAN_ACCESS_LOG": "false", "ZEROPLAN_MAX_CONCURRENT_HEAVY_REQUESTS": "8"}
    seconds = args.load_seconds
    command = [sys.executable, "-m", "bench.server", "zeroplan", str(port), str(seconds + 120)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        figures = asyncio.run(drive(url, server.pid, seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    server_errors = sum(count for key, count in figures["statuses"].items() if key.rsplit(" ", 1)[1].startswith("5"))
    figures["checks"] = {
        f"/healthz p99 < {HEALTHZ_P99_MS:g} ms": figures["healthz_p99_ms"] < HEALTHZ_P99_MS,
        f"RSS below {RSS_BOUND_MIB} MiB": figures["rss_peak_mib"] < RSS_BOUND_MIB,
        "0 5xx": server_errors == 0,
        "worst-case sweeps answered": figures["worst_sweeps_answered"] > 0,
    }
    for key, value in figures.items():
        print(f"{key}: {value}", flush=True)
    return figures
