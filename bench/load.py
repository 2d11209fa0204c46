"""Load benchmark: zeroplan's /v1/plan and /v1/fit against a trivial FastAPI endpoint, side by side.

Each app runs under uvicorn (one worker, 127.0.0.1) in its own process; the load comes from a
second process (bench.client), 1, 8 and 32 concurrent keep-alive clients, bounded in time and
count. Reports req/s, p50/p99 latency, errors, the server's CPU time per request (user + system, a
figure other load on the machine disturbs less than the rate) and its resident memory before and
after.

The computed plans' share of the trivial endpoint is then measured again in alternated rounds at the
top concurrency (``--rounds``, both servers up, trivial and distinct plans back to back, their order
swapped every round): a machine whose speed drifts over minutes moves the two figures of one round
alike, where the table's runs are minutes apart. The verdict reads the median of the rounds' ratios;
every round's figures are printed.

    python -m bench.load                # 30 s per run
    python -m bench.load --seconds 10   # shorter
    python -m bench.load --log-reader-pause-s 0.2   # the server's stderr read every 0.2 s, not discarded

The server's stderr (its access lines) goes to /dev/null unless ``--log-reader-pause-s`` is given: then it is
a pipe that this process drains every that many seconds, as a terminal, a container runtime or a busy log
collector reads it (issue 28's finding 8: cached answers' p99 190-230 ms).
"""

import argparse
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from api.settings import Settings
from bench.client import WARMUP_REQUESTS

ROOT = Path(__file__).resolve().parent.parent
PLAN_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb"},
    "arrangement": "zero3",
}
FIT_BODY = {
    "model": {"parameter_count": 30_000_000_000},
    "cluster": {"gpus_per_node": 8, "gpu": "seed-80gb"},
    "gpu_count_grid": "powers_of_two",
    "max_gpus": 64,
}
# A different parameter count each request ("__N__": bench.client's running count): every plan computed.
DISTINCT_PLAN_BODY = PLAN_BODY | {"model": {"parameter_count": "__N__"}}
TRIVIAL_BODY = {"name": "zero3", "count": 8}
TARGETS = {"plan_req_per_s_at_32": 2000, "share_of_trivial": 0.5, "p99_ms": 30.0, "rss_growth": 0.10}


@dataclass(frozen=True)
class Endpoint:
    app: str
    path: str
    body: dict
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.path


TRIVIAL = Endpoint("trivial", "/trivial", TRIVIAL_BODY)
DISTINCT = Endpoint("zeroplan", "/v1/plan", DISTINCT_PLAN_BODY, "/v1/plan distinct")
ENDPOINTS = [
    TRIVIAL,
    Endpoint("zeroplan", "/v1/plan", PLAN_BODY),
    DISTINCT,
    Endpoint("zeroplan", "/v1/fit", FIT_BODY),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used (proc(5): fields 14 and 15 of /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(app: str, port: int, deadline_s: float, log_reader_pause_s: float = 0.0) -> subprocess.Popen:
    command = [sys.executable, "-m", "bench.server", app, str(port), str(deadline_s)]
    stderr = subprocess.PIPE if log_reader_pause_s > 0 else subprocess.DEVNULL
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    if server.stderr is not None:
        threading.Thread(target=read_in_bursts, args=(server.stderr, log_reader_pause_s), daemon=True).start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/docs", timeout=1.0)
            return server
        except httpx.TransportError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"{app} did not start")


def read_in_bursts(stream: IO[bytes], pause_s: float) -> None:
    """Every ``pause_s``, read what the pipe holds, then pause again; ends when the server closes it."""
    fd = stream.fileno()
    os.set_blocking(fd, False)
    while True:
        time.sleep(pause_s)
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                return


# Each run of distinct bodies starts its running count here (bench.client's FIRST_N): no run repeats another's
# bodies, so none is answered from the cache that an earlier run filled.
RUN_OFFSETS = itertools.count(0, 10_000_000)


def drive(port: int, endpoint: Endpoint, clients: int, seconds: float, max_requests: int) -> dict:
    argv = [str(port), endpoint.path, json.dumps(endpoint.body), str(clients), str(seconds), str(max_requests)]
    command = [sys.executable, "-m", "bench.client", *argv, str(next(RUN_OFFSETS))]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=seconds + 60, check=True)
    return json.loads(done.stdout)


def measured_run(
    server: subprocess.Popen, port: int, endpoint: Endpoint, clients: int, seconds: float, max_requests: int
) -> dict:
    """One run's figures, with the server's CPU time per request answered (the client's warm-up included)."""
    cpu_before_s = cpu_seconds(server.pid)
    row = {"endpoint": endpoint.name} | drive(port, endpoint, clients, seconds, max_requests)
    answered = row["requests"] + row["errors"] + WARMUP_REQUESTS
    row["server_cpu_us"] = round((cpu_seconds(server.pid) - cpu_before_s) / answered * 1e6)
    return row


def bench_app(
    app: str, concurrency: list[int], seconds: float, max_requests: int, log_reader_pause_s: float = 0.0
) -> list[dict]:
    endpoints = [e for e in ENDPOINTS if e.app == app]
    port = free_port()
    budget_s = len(endpoints) * len(concurrency) * (seconds + 15) + 60
    server = start_server(app, port, budget_s, log_reader_pause_s)
    try:
        drive(port, endpoints[0], 4, 1.0, 2000)  # warm up imports and caches
        rss_before = rss_bytes(server.pid)
        rows = []
        for endpoint in endpoints:
            for clients in concurrency:
                row = measured_run(server, port, endpoint, clients, seconds, max_requests)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
        rss_after = rss_bytes(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
    for row in rows:
        row |= {"rss_before_mib": round(rss_before / 2**20, 1), "rss_after_mib": round(rss_after / 2**20, 1)}
    return rows


def alternated_rounds(
    clients: int, seconds: float, max_requests: int, rounds: int, log_reader_pause_s: float = 0.0
) -> list[dict]:
    """Trivial requests and distinct plans back to back, ``rounds`` times, both servers up throughout (the idle
    one waits in epoll); the order swaps every round (trivial first in even rounds), so a steady drift of the
    machine's speed favours neither. Each round: both runs' rows and the ratio of their rates."""
    budget_s = rounds * 2 * (seconds + 15) + 60
    ports = {app: free_port() for app in ("trivial", "zeroplan")}
    servers = {app: start_server(app, port, budget_s, log_reader_pause_s) for app, port in ports.items()}
    try:
        for endpoint in (TRIVIAL, DISTINCT):
            drive(ports[endpoint.app], endpoint, 4, 1.0, 2000)  # warm up imports and caches
        found = []
        for index in range(rounds):
            order = (TRIVIAL, DISTINCT) if index % 2 == 0 else (DISTINCT, TRIVIAL)
            runs = {e.app: measured_run(servers[e.app], ports[e.app], e, clients, seconds, max_requests) for e in order}
            ratio = runs["zeroplan"]["req_per_s"] / runs["trivial"]["req_per_s"]
            found.append({"trivial": runs["trivial"], "distinct": runs["zeroplan"], "ratio": round(ratio, 3)})
            print(json.dumps(found[-1]), file=sys.stderr)
    finally:
        for server in servers.values():
            server.terminate()
        for server in servers.values():
            server.wait(timeout=20)
    return found


def verdicts(rows: list[dict], rounds: list[dict]) -> dict[str, bool]:
    by = {(r["endpoint"], r["clients"]): r for r in rows}
    top = max(r["clients"] for r in rows)
    plan, trivial = by[("/v1/plan", top)], by[("/trivial", top)]
    distinct = by[("/v1/plan distinct", top)]
    zeroplan_rows = [r for r in rows if r["endpoint"] != "/trivial"]
    cache_mib = Settings().answer_cache_bytes / 2**20  # distinct answers fill the cache, up to its bound
    return {
        f"/v1/plan at {top} clients >= {TARGETS['plan_req_per_s_at_32']} req/s": plan["req_per_s"]
        >= TARGETS["plan_req_per_s_at_32"],
        "/v1/plan >= half the trivial endpoint": plan["req_per_s"]
        >= TARGETS["share_of_trivial"] * trivial["req_per_s"],
        f"/v1/plan p99 < {TARGETS['p99_ms']} ms at every concurrency": all(
            r["p99_ms"] < TARGETS["p99_ms"] for r in rows if r["endpoint"] == "/v1/plan"
        ),
        f"/v1/plan distinct (no cache hits) at {top} clients >= half the trivial endpoint"
        + (f" (median of {len(rounds)} alternated rounds)" if rounds else ""): distinct_share(rows, rounds)
        >= TARGETS["share_of_trivial"],
        f"/v1/plan distinct p99 < {TARGETS['p99_ms']} ms at {top} clients": distinct["p99_ms"] < TARGETS["p99_ms"],
        "zero errors": all(r["errors"] == 0 for r in rows),
        "zeroplan memory flat (within 10%, plus the answer cache's bound)": all(
            r["rss_after_mib"] <= (1 + TARGETS["rss_growth"]) * r["rss_before_mib"] + cache_mib for r in zeroplan_rows
        ),
    }


def distinct_share(rows: list[dict], rounds: list[dict]) -> float:
    """Distinct plans' rate over the trivial endpoint's at the top concurrency: the median of the alternated
    rounds when there are any, else the table's two runs."""
    if rounds:
        return float(statistics.median(r["ratio"] for r in rounds))
    top = max(r["clients"] for r in rows)
    by = {(r["endpoint"], r["clients"]): r for r in rows}
    return float(by[("/v1/plan distinct", top)]["req_per_s"] / by[("/trivial", top)]["req_per_s"])


def rounds_report(rounds: list[dict]) -> list[str]:
    lines = [f"alternated rounds at {rounds[0]['trivial']['clients']} clients (req/s, server CPU per request):"]
    for index, r in enumerate(rounds):
        trivial, distinct = r["trivial"], r["distinct"]
        lines.append(
            f"  round {index + 1}: /trivial {trivial['req_per_s']} req/s {trivial['server_cpu_us']} us, "
            f"/v1/plan distinct {distinct['req_per_s']} req/s {distinct['server_cpu_us']} us "
            f"(p99 {distinct['p99_ms']} ms): {r['ratio']:.2f} x"
        )
    lines.append(f"  median ratio {statistics.median(r['ratio'] for r in rounds):.2f} x")
    return lines


def cpu_ratio(rows: list[dict]) -> str:
    """Server CPU per computed plan against the trivial endpoint's, at the top concurrency: the rate ratio's
    cause, which the machine's other load disturbs less."""
    top = max(r["clients"] for r in rows)
    by = {(r["endpoint"], r["clients"]): r for r in rows}
    plan, trivial = by[("/v1/plan distinct", top)]["server_cpu_us"], by[("/trivial", top)]["server_cpu_us"]
    ratio = plan / trivial
    return (
        f"server CPU per request at {top} clients: /v1/plan distinct {plan} us, /trivial {trivial} us ({ratio:.2f} x)"
    )


def report(rows: list[dict], rounds: list[dict]) -> str:
    headers = [
        "endpoint",
        "clients",
        "requests",
        "req_per_s",
        "p50_ms",
        "p99_ms",
        "errors",
        "server_cpu_us",
        "rss_before_mib",
        "rss_after_mib",
    ]
    lines = [" | ".join(headers), " | ".join("---" for _ in headers)]
    lines += [" | ".join(str(row[h]) for h in headers) for row in rows]
    lines += ["", cpu_ratio(rows)]
    if rounds:
        lines += ["", *rounds_report(rounds)]
    lines += ["", *(f"{'PASS' if ok else 'MISS'}  {name}" for name, ok in verdicts(rows, rounds).items())]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of each run")
    parser.add_argument("--clients", default="1,8,32", help="concurrency levels, comma separated")
    parser.add_argument("--max-requests", type=int, default=500_000, help="cap on requests per run")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--log-reader-pause-s",
        type=float,
        default=0.0,
        help="read the servers' stderr every this many seconds instead of discarding it (0: /dev/null)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="alternated rounds of trivial requests and distinct plans at the top concurrency (0: none)",
    )
    args = parser.parse_args()
    concurrency = [int(c) for c in args.clients.split(",")]
    pause_s = args.log_reader_pause_s
    rows = bench_app("trivial", concurrency, args.seconds, args.max_requests, pause_s)
    rows += bench_app("zeroplan", concurrency, args.seconds, args.max_requests, pause_s)
    top = max(concurrency)
    rounds = alternated_rounds(top, args.seconds, args.max_requests, args.rounds, pause_s) if args.rounds else []
    print(json.dumps({"rows": rows, "rounds": rounds}, indent=2) if args.json else report(rows, rounds))


if __name__ == "__main__":
    main()
