"""Collectives at ring cost (Patarasuk and Yuan 2009; Thakur, Rabenseifner and Gropp 2005).

For a buffer of M elements on N ranks, the ring cuts it into N chunks of ceil(M / N) elements
(padded, as the simulation pads) and each rank sends:
- reduce-scatter: N - 1 chunks, in N - 1 hops;
- all-gather:     N - 1 chunks, in N - 1 hops;
- all-reduce:     2(N - 1) chunks, in 2(N - 1) hops: a reduce-scatter then an all-gather.
That identity, all-reduce = reduce-scatter + all-gather, is what every ZeRO saving depends on.
"""

from models.enums import CollectiveName, Dtype
from service.dtypes import tensor_bytes
from service.memory import shard_elements
from service.numeric import IntLike

RING_PHASES: dict[CollectiveName, int] = {
    CollectiveName.reduce_scatter: 1,
    CollectiveName.all_gather: 1,
    CollectiveName.all_reduce: 2,
}


def ring_hops(collective: CollectiveName, world_size: IntLike) -> IntLike:
    """Sequential ring steps of one call: (N - 1) per phase."""
    return RING_PHASES[collective] * (world_size - 1)


def ring_bytes_sent(collective: CollectiveName, buffer_elements: IntLike, world_size: IntLike, dtype: Dtype) -> IntLike:
    """Bytes each rank sends for one call: one chunk of ceil(M / N) elements per hop."""
    chunk_bytes = tensor_bytes(shard_elements(buffer_elements, world_size), dtype)
    return ring_hops(collective, world_size) * chunk_bytes
