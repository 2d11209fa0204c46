"""The work of one computed plan, counted rather than timed: Python bytecode instructions and calls per request.

    python -m bench.plan_opcodes               # bench.load's distinct plans, through the whole app
    python -m bench.plan_opcodes --top 40      # and the 40 functions that run the most instructions

Timings on a shared machine differ by tens of percent from run to run; the count of bytecode instructions a request
runs does not (it moves only with the process's hash seed, by about 1%), so two trees can be compared on one
figure. Requests go through the whole application in process (middleware, the direct path, validation, the plan,
the JSON, the answer cache; no socket), each a different parameter count as bench.load's distinct plans send them
(bench.client's "__N__"), after a warm-up that fills the memoised parts any later request may reuse. The count comes
from the interpreter's own tracing (``sys.settrace`` with ``f_trace_opcodes``): what C code runs inside a call
(pydantic's validation, orjson, numpy) counts as the one instruction that calls it, so the figure measures the
Python work, the share of a plan that grows with the code's calls and records. Each function's instructions are
counted by itself ("self") and with everything it calls ("inclusive").
"""

import argparse
import asyncio
import logging
import os
import sys
from collections import Counter
from types import FrameType
from typing import Any

import orjson

from api.app import create_app
from api.logs import ROOT_LOGGER
from api.settings import Settings
from bench.plan_core import LOAD_BODY

WARMUP_REQUESTS = 300


def asgi_scope(path: str, body: bytes) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


class DistinctPlans:
    """bench.load's distinct plans sent to the app in process, one parameter count after another."""

    def __init__(self) -> None:
        self.app = create_app(Settings(access_log=True))
        for handler in logging.getLogger(ROOT_LOGGER).handlers:  # access lines built and written, to nowhere
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(open(os.devnull, "w"))  # noqa: SIM115 (open as long as the process)
        self.count = 0
        self.statuses: Counter[int] = Counter()

    async def send_requests(self, requests: int) -> None:
        for _ in range(requests):
            self.count += 1
            body = orjson.dumps(LOAD_BODY | {"model": {"parameter_count": self.count}})
            await self.app(asgi_scope("/v1/plan", body), self._receiver(body), self._send)

    @staticmethod
    def _receiver(body: bytes) -> Any:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        return receive

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.statuses[message["status"]] += 1


class Counts:
    """Bytecode instructions per function, by itself and with its callees, and calls per function."""

    def __init__(self) -> None:
        self.own: Counter[str] = Counter()
        self.inclusive: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._stack: list[str] = []

    def trace(self, frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            name = function_name(frame)
            self.calls[name] += 1
            self._stack.append(name)
        elif event == "opcode":
            self.own[function_name(frame)] += 1
            for name in set(self._stack):  # a recursive function counts an instruction once
                self.inclusive[name] += 1
        elif event == "return" and self._stack:
            self._stack.pop()
        return self.trace


def function_name(frame: FrameType) -> str:
    """``answers/plan.py:plan_fields``: the file's folder and name, and the function."""
    code = frame.f_code
    return f"{'/'.join(code.co_filename.rsplit('/', 2)[-2:])}:{code.co_name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=50, help="requests counted (default 50)")
    parser.add_argument("--top", type=int, default=0, help="also list this many functions, most instructions first")
    args = parser.parse_args()
    plans = DistinctPlans()
    asyncio.run(plans.send_requests(WARMUP_REQUESTS))
    counts = Counts()
    sys.settrace(counts.trace)
    try:
        asyncio.run(plans.send_requests(args.requests))
    finally:
        sys.settrace(None)
    if set(plans.statuses) != {200}:
        raise SystemExit(f"not every request was answered 200: {dict(plans.statuses)}")
    per_request = args.requests
    total = sum(counts.own.values())
    print(
        f"bench.load's distinct plans through the app: {total / per_request:,.0f} bytecode instructions and "
        f"{sum(counts.calls.values()) / per_request:,.0f} Python calls a request ({per_request} requests)"
    )
    if args.top:
        print(f"\n{'inclusive':>10} {'self':>8} {'calls':>6}  function (a request)")
        for name, inclusive in counts.inclusive.most_common(args.top):
            own, calls = counts.own[name] / per_request, counts.calls[name] / per_request
            print(f"{inclusive / per_request:10,.0f} {own:8,.0f} {calls:6.1f}  {name}")


if __name__ == "__main__":
    main()
