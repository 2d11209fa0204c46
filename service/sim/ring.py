"""Ring collectives of point-to-point sends, every send's bytes counted as it is sent.

Patarasuk and Yuan 2009; the same schedule as service/time/collectives.py. A buffer of N * s
elements (padded by the caller) is cut into N chunks of s; in hop k rank r sends to r + 1 and
receives from r - 1:
- reduce-scatter: sends chunk (r - k - 1) mod N, adds the received chunk (r - k - 2) mod N into
  its own; after N - 1 hops rank r holds the full sum of chunk r, accumulated in the order
  g[r+1], g[r+2], ..., g[r] (``ring_order`` gives it, for a single-process reference);
- all-gather: sends chunk (r - k) mod N, receives chunk (r - k - 1) mod N;
- all-reduce: reduce-scatter then all-gather.
Around each call the process's written bytes (/proc/self/io wchar) are read too: the wire.
gloo's built-in reduce_scatter is measured the same way for comparison (it sends an all-reduce's
worth of bytes, twice the ring formula).
"""

import warnings
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from service.sim.wire import written_bytes


@dataclass
class Tally:
    """Bytes one rank sent for one kind of collective, summed over calls."""

    calls: int = 0
    sends: int = 0
    payload_bytes: int = 0
    wire_bytes: int = 0
    wait_s: float = 0.0


def ring_order(chunk: int, world_size: int) -> list[int]:
    """Ranks whose contributions a reduce-scatter adds into ``chunk``, in order."""
    return [(chunk + k) % world_size for k in range(1, world_size + 1)]


class Ring:
    def __init__(self, rank: int, world_size: int, group: Any = None) -> None:
        self.rank, self.world_size, self.group = rank, world_size, group
        self.tallies: dict[str, Tally] = {}

    def _hop(self, send: torch.Tensor, recv: torch.Tensor, tally: Tally) -> None:
        n, r = self.world_size, self.rank
        requests = [dist.isend(send, (r + 1) % n, group=self.group), dist.irecv(recv, (r - 1) % n, group=self.group)]
        tally.sends += 1
        tally.payload_bytes += send.numel() * send.element_size()
        for request in requests:
            assert request is not None  # None only for ranks outside the group
            request.wait()

    def _measured(self, key: str) -> "_Window":
        return _Window(self.tallies.setdefault(key, Tally()))

    def reduce_scatter(self, buffer: torch.Tensor, key: str) -> torch.Tensor:
        """Sum ``buffer`` over ranks in place; returns this rank's chunk (the full sum of it)."""
        n, r = self.world_size, self.rank
        chunks = buffer.view(n, -1)
        if n == 1:
            return chunks[0]
        incoming = torch.empty_like(chunks[0])
        with self._measured(key) as tally:
            for k in range(n - 1):
                self._hop(chunks[(r - k - 1) % n], incoming, tally)
                target = chunks[(r - k - 2) % n]
                torch.add(incoming, target, out=target)
        return chunks[r]

    def all_gather(self, buffer: torch.Tensor, key: str) -> torch.Tensor:
        """Fill every chunk of ``buffer`` from its owner; chunk r must hold this rank's part."""
        n, r = self.world_size, self.rank
        chunks = buffer.view(n, -1)
        if n == 1:
            return buffer
        with self._measured(key) as tally:
            for k in range(n - 1):
                self._hop(chunks[(r - k) % n], chunks[(r - k - 1) % n], tally)
        return buffer

    def all_reduce(self, buffer: torch.Tensor, key: str) -> torch.Tensor:
        self.reduce_scatter(buffer, key)
        return self.all_gather(buffer, key)


class _Window:
    """Counts the written bytes and the wall time of one collective call into a tally."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    def __enter__(self) -> Tally:
        import time

        self._clock = time.perf_counter
        self._t0, self._w0 = self._clock(), written_bytes()
        return self.tally

    def __exit__(self, *exc: object) -> None:
        self.tally.wire_bytes += written_bytes() - self._w0
        self.tally.wait_s += self._clock() - self._t0
        self.tally.calls += 1


def builtin_reduce_scatter_wire_bytes(elements: int, world_size: int, dtype: torch.dtype) -> int:
    """Bytes written by one call of gloo's own reduce_scatter on a buffer of ``elements``."""
    buffer = torch.ones(elements, dtype=dtype)
    out = torch.empty(elements // world_size, dtype=dtype)
    dist.barrier()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = written_bytes()
        dist.reduce_scatter_single(out, buffer)
        after = written_bytes()
    dist.barrier()
    return after - before
