"""Prometheus metrics of the service: one definition each, imported where they are counted.

The HTTP middleware counts requests and latency; the sweep and simulation routes import
``SWEEP_CELLS``; ``SIMULATION_JOBS`` is refreshed from the job store at each scrape.
With several uvicorn workers each process keeps its own counters unless
``PROMETHEUS_MULTIPROC_DIR`` names a shared directory (prometheus-client's multiprocess mode).
"""

import os
import platform
from bisect import bisect_left
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

UNMATCHED_ROUTE = "<unmatched>"
# Methods outside this set share one label, so clients cannot grow the label set.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

HTTP_REQUESTS = Counter(
    "zeroplan_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
HTTP_REQUEST_DURATION = Histogram(
    "zeroplan_http_request_duration_seconds",
    "Time from the request's arrival to the end of its response, by method and route template.",
    ["method", "route"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
BUILD_INFO = Gauge(
    "zeroplan_build_info",
    "Always 1; the labels name the running build.",
    ["version", "python"],
    multiprocess_mode="max",
)
ANSWER_CACHE = Counter(
    "zeroplan_answer_cache_requests",
    "Answer-cache look-ups of plan, fit and recommend, by operation and result (hit or miss).",
    ["operation", "result"],
)
SWEEP_CELLS = Counter("zeroplan_sweep_cells", "Sweep cells computed.")
ACCESS_LINES_DROPPED = Counter(
    "zeroplan_access_log_dropped_lines",
    "Access-log lines dropped because the reader of stderr fell behind by the buffer's bound (api.logs).",
)
SIMULATION_JOBS = Gauge(
    "zeroplan_simulation_jobs",
    "Simulation jobs in each state (queued, running, succeeded, failed, cancelled), from the job store.",
    ["state"],
    multiprocess_mode="livesum",
)
JOB_STORE_UP = Gauge(
    "zeroplan_job_store_up",
    "1 when the simulation job store answered the last scrape within its timeout, 0 when it did not.",
    multiprocess_mode="livemin",
)


def record_build(version: str) -> None:
    BUILD_INFO.labels(version, platform.python_version()).set(1)


# What one request updates, by (method, route, status), bound once: labels() takes a lock and builds a key on
# every call, and a child's inc/observe check their arguments and walk the buckets in Python each time.
_recorders: dict[tuple[str, str, int], "RequestRecorder"] = {}


class RequestRecorder:
    """The request counter and the duration histogram of one (method, route, status), updated as the children's
    ``inc()`` and ``observe(duration_s)`` update them: the same values, under the same locks (the values' own,
    of either the in-process or the multiprocess kind), without the checks those methods make of arguments that
    are known good here (a count of one, a child with its labels, no exemplar)."""

    def __init__(self, counter: Counter, histogram: Histogram) -> None:
        self.count = counter._value.inc
        self.add_to_sum = histogram._sum.inc
        self.upper_bounds = list(histogram._upper_bounds)
        self.bucket_counts = [bucket.inc for bucket in histogram._buckets]

    def record(self, duration_s: float) -> None:
        self.count(1)
        self.add_to_sum(duration_s)
        # The first bucket whose bound is at least the duration, as Histogram.observe finds it (the last is +Inf).
        self.bucket_counts[bisect_left(self.upper_bounds, duration_s)](1)


def observe_request(method: str, route: str, status: int, duration_s: float) -> None:
    if method not in KNOWN_METHODS:
        method = "OTHER"
    key = (method, route, status)
    recorder = _recorders.get(key)
    if recorder is None:
        recorder = _recorders[key] = RequestRecorder(
            HTTP_REQUESTS.labels(method, route, str(status)), HTTP_REQUEST_DURATION.labels(method, route)
        )
    recorder.record(duration_s)


def counting_by_one(counter: Counter) -> Callable[[float], None]:
    """A labelled counter's ``inc`` by a count known good: call it with 1 (what ``counter.inc()`` does, without
    its checks of the amount, the labels and an exemplar)."""
    increment: Callable[[float], None] = counter._value.inc
    return increment


def exposition() -> tuple[bytes, str]:
    """The text exposition format and its content type; aggregated across workers in multiprocess mode."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
