"""Search benchmark: layouts evaluated per second, the 405B search over HTTP, and Calculon beside it.

    python -m bench.search            # prints the figures
    python -m bench.search --quick    # smaller searches, no Calculon
    python -m bench.search --calculon-source PATH   # with Calculon from a clone of its repository

1. In process (service.answers.search): every valid layout of GPT-3 175B on A100 80 GB (8 GPUs a node)
   over 15 world sizes from 512 to 4,096 GPUs, and of Llama 3.1 405B on H100 over 1,024-16,384:
   enumeration, validity and the vectorised evaluation, then the rows planned by /v1/plan.
   Target: >= 1,000,000 layouts evaluated per second.
2. POST /v1/search over HTTP to uvicorn on 127.0.0.1 (a server this benchmark starts), on H100 over
   1,024, 2,048, 4,096, 8,192 and 16,384 GPUs: Llama 3.1 405B at 8K tokens, and the mixtures of experts
   DeepSeek-V3 (4K tokens) and Mixtral 8x22B (8K tokens), batch 4,096, whose spaces (72.6M and 55.1M
   combinations) are answered by branch and bound: target < 2 s each, with what was pruned and why.
3. Calculon's exhaustive search (bench.calculon, its own environment) on the same model and system,
   GPT-3 175B on A100 80 GB: its layouts per second beside ours (target: zeroplan >= 1,000x), and
   the best layouts of each side by side.
All figures come from one run on this machine.
"""

import argparse
import socket
import subprocess
import sys
import time
from typing import Any

import httpx

from models.search import SearchRequest
from service.answers.search import evaluate_space, prepare, search
from service.answers.search_space import space

GPT3_SIZES = [512 + 256 * k for k in range(15)]  # 512 to 4,096 GPUs
LLAMA_405B_SIZES = [1024, 2048, 4096, 8192, 16384]
CALCULON_GPUS = 4096  # one system size for both searches (Calculon's search takes one num_procs)


def gpt3_request(sizes: list[int], top_k: int = 5) -> dict[str, Any]:
    return {
        "model": {"preset": "gpt-3-175b"},
        "cluster": {"world_size": sizes, "gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": {"global_batch_size": 1536, "sequence_length": 2048},
        "objective": "step_s",
        "top_k": top_k,
    }


def moe_request(preset: str, sequence_length: int, top_k: int = 10) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "cluster": {"world_size": LLAMA_405B_SIZES, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 4096, "sequence_length": sequence_length},
        "objective": "step_s",
        "top_k": top_k,
    }


MOE_SEARCHES = (("DeepSeek-V3", "deepseek-v3", 4096), ("Mixtral 8x22B", "mixtral-8x22b", 8192))


def llama_request(top_k: int = 10) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-405b"},
        "cluster": {"world_size": LLAMA_405B_SIZES, "gpus_per_node": 8, "gpu": "h100-80gb"},
        "training": {"global_batch_size": 2048, "sequence_length": 8192},
        "objective": "step_s",
        "top_k": top_k,
    }


def in_process(body: dict[str, Any], repeats: int = 3) -> tuple[int, float, float]:
    """(layouts evaluated, best seconds of the evaluation, best seconds of the whole answer)."""
    request = SearchRequest.model_validate(body)
    best_eval = best_total = float("inf")
    evaluated = 0
    for _ in range(repeats):
        start = time.perf_counter()
        prepared = prepare(request)
        case = prepared.case
        found = space(case.arch, prepared.candidates, case.sequence_length, case.global_batch_size, case.gpus_per_node)
        ranked = evaluate_space(case, found)
        best_eval = min(best_eval, time.perf_counter() - start)
        evaluated = ranked.evaluated
        start = time.perf_counter()
        search(request, 10**12)
        best_total = min(best_total, time.perf_counter() - start)
    return evaluated, best_eval, best_total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_search_seconds(body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    return http_searches([body])[0]


def http_searches(bodies: list[dict[str, Any]]) -> list[tuple[float, dict[str, Any]]]:
    """Each body's best wall time of three POST /v1/search to one server, and its answer."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.server", "zeroplan", str(port), "300"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        out = []
        for body in bodies:
            best, answer = float("inf"), {}
            for _ in range(3):
                start = time.perf_counter()
                response = httpx.post(url + "/v1/search", json=body, timeout=120)
                best = min(best, time.perf_counter() - start)
                response.raise_for_status()
                answer = response.json()
            out.append((best, answer))
        return out
    finally:
        server.terminate()
        server.wait(timeout=10)


def describe(row: dict[str, Any]) -> str:
    par = row["parallelism"]
    return (
        f"N {row['world_size']:>5}  t {par['tensor']} p {par['pipeline']:>2} {par['pipeline_schedule']:<11} "
        f"v {par['virtual_stages']} d {par['data']:>4} c {par['context']} e {par['expert']:>2} "
        f"m {par['micro_batches']:>3} "
        f"b {row['micro_batch_size']:>2} {row['arrangement']:<13} recompute {row['recompute']:<9} "
        f"step {row['step_s']:8.3f} s  {row['per_gpu_bytes'] / 2**30:6.1f} GiB"
    )


def calculon_side(ours_per_s: float, ours: dict[str, Any], quick: bool, source: str | None = None) -> None:
    print("\n3. Calculon's exhaustive search, GPT-3 175B (gpt3-175B) on A100 80 GB (a100_80g)")
    try:
        from bench.calculon import run_calculon_search  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        print(f"   not run: bench.calculon is not available ({error})")
        return
    procs = ours["world_size"]
    result = run_calculon_search(
        model="gpt3-175B",
        system="a100_80g",
        num_procs=procs,
        global_batch_size=1536,
        sequence_length=2048,
        max_seconds=60.0 if quick else 120.0,
        source=source,
    )
    if not result.get("installed") or result.get("reason"):
        print(f"   not run: {result.get('reason')}")
        return
    theirs = float(result["layouts_per_s"])
    processes = result.get("cpus", "?")
    print(
        f"   Calculon: {result['layouts_evaluated']:,} layouts in {result['seconds']:.1f} s on {processes} processes "
        f"= {theirs:,.0f}/s; zeroplan in one process {ours_per_s:,.0f}/s: "
        f"{ours_per_s / theirs if theirs else float('inf'):,.0f}x (target >= 1,000x)"
    )
    if not result.get("complete", True):
        done, total = result.get("items_done", "?"), result.get("items_total", "?")
        print(f"   Calculon's search stopped at its deadline ({done} of {total} items): its best among those evaluated")
    print(f"   best layouts on {procs:,} GPUs, zeroplan | Calculon:")
    rows = ours["layouts"]
    for i in range(max(len(rows), len(result.get("best", [])))):
        left = describe(rows[i]) if i < len(rows) else ""
        right = ""
        if i < len(result.get("best", [])):
            best = result["best"][i]
            right = ", ".join(f"{k} {v}" for k, v in best.items())
        print(f"   {left:<110} | {right}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--calculon-source", default=None, help="a clone of Calculon (else $ZEROPLAN_BENCH_CALCULON_SOURCE)"
    )
    args = parser.parse_args()
    sizes = GPT3_SIZES[:4] if args.quick else GPT3_SIZES
    print("1. in process: every valid layout, evaluated vectorised (target >= 1,000,000 layouts/s)")
    rates = []
    for name, body in (("GPT-3 175B, A100 80 GB", gpt3_request(sizes)), ("Llama 3.1 405B, H100", llama_request())):
        evaluated, seconds, total = in_process(body, 1 if args.quick else 3)
        rates.append(evaluated / seconds)
        print(
            f"   {name}, {len(body['cluster']['world_size'])} world sizes: {evaluated:,} layouts in {seconds:.3f} s = "
            f"{evaluated / seconds:,.0f} layouts/s; the whole answer (top {body['top_k']} and the front planned) "
            f"{total:.3f} s"
        )
    print("\n2. POST /v1/search on H100 over 1,024-16,384 GPUs, over HTTP (target < 2 s each)")
    names = ["Llama 3.1 405B, 8K tokens"] + [f"{name}, {s // 1024}K tokens" for name, _, s in MOE_SEARCHES]
    bodies = [llama_request()] + [moe_request(preset, s) for _, preset, s in MOE_SEARCHES]
    for name, (seconds, answer) in zip(names, http_searches(bodies), strict=True):
        pruned = sum(answer["pruned"].values())
        print(
            f"   {name}: {seconds:.3f} s; {answer['considered']:,} valid layouts, {pruned:,} pruned "
            f"({pruned / max(1, answer['considered']):.1%}), {answer['evaluated']:,} evaluated, "
            f"{answer['fitting']:,} fit; the best:"
        )
        for reason, count in answer["pruned"].items():
            print(f"     pruned {count:>12,}: {reason}")
        for row in answer["layouts"][:3]:
            print("     " + describe(row))
    body = gpt3_request([CALCULON_GPUS], top_k=5)
    single = search(SearchRequest.model_validate(body), 10**12).model_dump(mode="json")
    evaluated, one_seconds, _ = in_process(body, 1 if args.quick else 3)
    calculon_side(evaluated / one_seconds, single | {"world_size": CALCULON_GPUS}, args.quick, args.calculon_source)


if __name__ == "__main__":
    main()
