"""Collectives at ring cost (Patarasuk and Yuan 2009; Thakur, Rabenseifner and Gropp 2005).

For a buffer of M elements on N ranks, the ring cuts it into N chunks of ceil(M / N) elements
(padded, as the simulation pads) and each rank sends:
- reduce-scatter: N - 1 chunks, in N - 1 hops;
- all-gather:     N - 1 chunks, in N - 1 hops;
- all-reduce:     2(N - 1) chunks, in 2(N - 1) hops: a reduce-scatter then an all-gather.
That identity, all-reduce = reduce-scatter + all-gather, is what every ZeRO saving depends on.
- all-to-all:     N - 1 chunks, in N - 1 pairwise steps (each rank keeps its own chunk; NCCL's
                  alltoall as N - 1 send/receive pairs);
- send/receive:   the whole buffer to one peer, one step (a pipeline or ring-attention hop).
"""

from models.enums import CollectiveName, Dtype
from service.memory.dtypes import tensor_bytes
from service.memory.model_states import shard_elements
from service.numeric import IntLike

RING_PHASES: dict[CollectiveName, int] = {
    CollectiveName.reduce_scatter: 1,
    CollectiveName.all_gather: 1,
    CollectiveName.all_reduce: 2,
    CollectiveName.all_to_all: 1,
}


def ring_hops(collective: CollectiveName, world_size: IntLike) -> IntLike:
    """Sequential ring steps of one call: (N - 1) per phase; one for a send/receive."""
    if collective is CollectiveName.send_recv:
        return 1 + 0 * world_size
    return RING_PHASES[collective] * (world_size - 1)


def ring_bytes_sent(collective: CollectiveName, buffer_elements: IntLike, world_size: IntLike, dtype: Dtype) -> IntLike:
    """Bytes each rank sends for one call: one chunk of ceil(M / N) elements per hop (the whole buffer for a
    send/receive)."""
    if collective is CollectiveName.send_recv:
        return tensor_bytes(buffer_elements, dtype) + 0 * world_size
    chunk_bytes = tensor_bytes(shard_elements(buffer_elements, world_size), dtype)
    return ring_hops(collective, world_size) * chunk_bytes
