"""bench.load's reader of the server's stderr: it drains the pipe in bursts and ends with the server."""

import os
import threading

from bench.client import Payloads
from bench.load import distinct_share, read_in_bursts, verdicts


def test_the_reader_drains_the_pipe_in_bursts_and_ends_when_it_closes():
    read_end, write_end = os.pipe()
    reader = threading.Thread(target=read_in_bursts, args=(os.fdopen(read_end, "rb"), 0.01), daemon=True)
    reader.start()
    line = b'{"message": "request"}\n'
    for _ in range(20_000):  # 460 KB: past a pipe's 64 KiB, so the writer waits on the reader's bursts
        os.write(write_end, line)
    os.close(write_end)
    reader.join(20.0)
    assert not reader.is_alive()


def _row(endpoint: str, clients: int, req_per_s: float) -> dict:
    return {"endpoint": endpoint, "clients": clients, "req_per_s": req_per_s}


def test_the_share_is_the_median_of_the_alternated_rounds_when_there_are_any():
    rows = [_row("/trivial", 32, 6000.0), _row("/v1/plan distinct", 32, 2400.0)]  # 0.40 in the table's runs
    rounds = [{"ratio": 0.58}, {"ratio": 0.45}, {"ratio": 0.55}]
    assert distinct_share(rows, rounds) == 0.55
    assert distinct_share(rows, []) == 2400.0 / 6000.0


def test_the_verdict_reads_the_rounds():
    rows = [
        _row("/trivial", 32, 6000.0) | {"p99_ms": 5.0, "errors": 0},
        _row("/v1/plan", 32, 12000.0) | {"p99_ms": 3.0, "errors": 0, "rss_before_mib": 100.0, "rss_after_mib": 100.0},
        _row("/v1/plan distinct", 32, 2400.0)
        | {"p99_ms": 12.0, "errors": 0, "rss_before_mib": 100.0, "rss_after_mib": 100.0},
    ]
    distinct = [name for name in verdicts(rows, [{"ratio": 0.52}]) if "distinct (no cache hits)" in name][0]
    assert verdicts(rows, [{"ratio": 0.52}])[distinct]
    assert not verdicts(rows, [{"ratio": 0.49}])[distinct]


def test_distinct_bodies_count_on_from_the_first_number_given():
    payloads = Payloads("/v1/plan", b'{"model": {"parameter_count": "__N__"}}', first_n=10_000_000)
    first, second = payloads.next(), payloads.next()
    assert first.endswith(b'{"model": {"parameter_count": 10000001}}')
    assert second.endswith(b'{"model": {"parameter_count": 10000002}}')
    assert Payloads("/trivial", b'{"count": 8}', first_n=5).next() == Payloads("/trivial", b'{"count": 8}').next()
