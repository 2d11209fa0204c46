"""Closed-loop HTTP/1.1 keep-alive load over loopback: N connections, each sends its next request
when the previous answer has arrived. Bounded by time and by count.

python -m bench.client PORT PATH BODY_JSON CLIENTS SECONDS MAX_REQUESTS [FIRST_N]  -> one JSON line

A body holding the string "__N__" is sent with a different number there each time (a running
count from FIRST_N + 1, 1 by default), so no two requests are the same and no answer comes from a
cache; runs against one server that must not repeat each other's bodies start from counts far apart.
"""

import asyncio
import json
import sys
import time

WARMUP_REQUESTS = 50
DISTINCT = b'"__N__"'


def request_bytes(path: str, body: bytes) -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    await reader.readexactly(length)
    return status


class Tally:
    def __init__(self, max_requests: int, stop_at: float) -> None:
        self.latencies_s: list[float] = []
        self.errors = 0
        self.max_requests = max_requests
        self.stop_at = stop_at

    def more(self) -> bool:
        return len(self.latencies_s) + self.errors < self.max_requests and time.perf_counter() < self.stop_at


class Payloads:
    """The same request each time, or (with "__N__" in the body) a different one each time."""

    def __init__(self, path: str, body: bytes, first_n: int = 0) -> None:
        self.path, self.body = path, body
        self.distinct = DISTINCT in body
        self.fixed = request_bytes(path, body)
        self.count = first_n

    def next(self) -> bytes:
        if not self.distinct:
            return self.fixed
        self.count += 1
        return request_bytes(self.path, self.body.replace(DISTINCT, str(self.count).encode()))


async def connection(port: int, payloads: Payloads, tally: Tally) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        tally.errors += 1
        return
    try:
        while tally.more():
            payload = payloads.next()
            started = time.perf_counter()
            writer.write(payload)
            status = await read_response(reader)
            if status == 200:
                tally.latencies_s.append(time.perf_counter() - started)
            else:
                tally.errors += 1
    except (OSError, asyncio.IncompleteReadError, ValueError):
        tally.errors += 1
    finally:
        writer.close()


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def drive(port: int, payloads: Payloads, clients: int, seconds: float, max_requests: int) -> dict[str, float]:
    await connection(port, payloads, Tally(WARMUP_REQUESTS, time.perf_counter() + 5))
    started = time.perf_counter()
    tally = Tally(max_requests, started + seconds)
    await asyncio.gather(*(connection(port, payloads, tally) for _ in range(clients)))
    elapsed_s = time.perf_counter() - started
    latencies = sorted(tally.latencies_s)
    return {
        "clients": clients,
        "requests": len(latencies),
        "errors": tally.errors,
        "seconds": round(elapsed_s, 3),
        "req_per_s": round(len(latencies) / elapsed_s, 1),
        "p50_ms": round(percentile(latencies, 0.50) * 1e3, 3),
        "p99_ms": round(percentile(latencies, 0.99) * 1e3, 3),
    }


def main() -> None:
    port, path, body = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
    clients, seconds, max_requests = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    first_n = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    work = drive(port, Payloads(path, body, first_n), clients, seconds, max_requests)
    try:
        import uvloop

        result = uvloop.run(work)
    except ImportError:
        result = asyncio.run(work)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
