"""Which arrangements fit a card, and from how many GPUs (DESIGN.md, golden table).

Per-GPU bytes never rise with N (ceil(P / N) never rises; activations do not depend on N), so
the smallest N that fits is found by bisection over exact integer byte counts: the boundary is
decided in integers, and 30e9 x 16 / 6 = 80e9 fits an 80e9-byte card to the byte. Beyond N = P
every shard is one element, so if N = P does not fit, nothing does: that is the replicated floor.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

from models.enums import GpuCountGrid
from service.errors import EmptyGrid, GridTooLarge
from service.numeric import FloatLike, IntLike, ceil_div, gpus, group_digits


def fits(per_gpu_bytes: int, card_bytes: int) -> bool:
    return per_gpu_bytes <= card_bytes


def min_gpus_exact(
    per_gpu_bytes_at: Callable[[int], int], card_bytes: int, upper: int, guesses: tuple[int, ...] = ()
) -> int | None:
    """Smallest N in [1, upper] whose per-GPU bytes fit the card; None when none does.

    per_gpu_bytes_at must never rise with N; upper = P is where every shard is one element.
    A guess is only a shortcut: it is returned when the integers confirm it is the boundary
    (it fits and one GPU fewer does not), and the bisection decides otherwise.
    """

    def fits_at(world_size: int) -> bool:
        return fits(per_gpu_bytes_at(world_size), card_bytes)

    for guess in guesses:
        if 1 <= guess <= upper and fits_at(guess) and (guess == 1 or not fits_at(guess - 1)):
            return guess

    if not fits_at(upper):
        return None
    return first_true(fits_at, 1, upper)


def first_true(holds: Callable[[int], bool], low: int, high: int) -> int:
    """The smallest x in [low, high] at which ``holds``, by bisection: it holds at ``high`` and, once it holds,
    at every larger x."""
    while low < high:  # invariant: holds(high)
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def estimate_min_gpus(
    parameter_count: int, sharded_bytes_per_weight: float, floor_bytes: int, card_bytes: int
) -> tuple[int, ...]:
    """Where r x P + s x P / N meets the card, in floating point: N ~ s x P / (card - floor)."""
    room = card_bytes - floor_bytes
    if room <= 0 or sharded_bytes_per_weight <= 0:
        return ()
    estimate = max(1, math.ceil(sharded_bytes_per_weight * parameter_count / room))
    return (estimate, estimate + 1)


def min_gpus_whole_nodes(min_exact: int | None, gpus_per_node: int) -> int | None:
    """Smallest multiple of G at or above the exact minimum."""
    if min_exact is None:
        return None
    return int(ceil_div(min_exact, gpus_per_node)) * gpus_per_node


def valid_job(world_size: IntLike, gpus_per_node: IntLike) -> FloatLike:
    """Part of one node, or a whole number of nodes (a bool, or a mask for arrays)."""
    return (world_size <= gpus_per_node) | (world_size % gpus_per_node == 0)


def min_valid_job(min_exact: int | None, gpus_per_node: int) -> int | None:
    """Smallest valid world size at or above the exact minimum."""
    if min_exact is None or min_exact <= gpus_per_node:
        return min_exact
    return min_gpus_whole_nodes(min_exact, gpus_per_node)


def gpu_count_grid(grid: GpuCountGrid | list[int], gpus_per_node: int, max_gpus: int, max_points: int) -> list[int]:
    """The GPU counts to tabulate, each a valid job (part of one node or whole nodes)."""
    if isinstance(grid, list):
        counts = sorted(n for n in grid if n <= max_gpus)
    elif grid is GpuCountGrid.whole_nodes:
        counts = list(range(gpus_per_node, max_gpus + 1, gpus_per_node))
    else:
        counts = [1 << k for k in range(max_gpus.bit_length()) if valid_job(1 << k, gpus_per_node)]
    if len(counts) > max_points:
        raise GridTooLarge(
            f"the GPU count grid has {len(counts)} counts up to max_gpus {max_gpus}, more than the "
            f"limit of {max_points}; lower max_gpus or use a coarser grid",
            pointer="/max_gpus",
        )
    if not counts:
        raise EmptyGrid(
            f"the GPU count grid has no count up to max_gpus {max_gpus} (gpus_per_node {gpus_per_node})",
            pointer="/max_gpus",
        )
    return counts


@dataclass(frozen=True)
class GridCell:
    gpus: int
    per_gpu_bytes: int
    fits: bool


def fit_table(per_gpu_bytes_at: Callable[[int], int], card_bytes: int, grid: list[int]) -> list[GridCell]:
    cells = []
    for count in grid:
        per_gpu = per_gpu_bytes_at(count)
        cells.append(GridCell(count, per_gpu, fits(per_gpu, card_bytes)))
    return cells


def first_fitting(cells: list[GridCell]) -> int | None:
    return next((cell.gpus for cell in cells if cell.fits), None)


def largest_fitting(bytes_at: Callable[[int], int], usable_bytes: int, low: int, high: int) -> int | None:
    """Largest x in [low, high] whose bytes fit, for bytes that never fall as x grows; None when low does not.

    The inverse of min_gpus_exact: bisection over exact integers, so the boundary is the byte.
    """
    if not fits(bytes_at(low), usable_bytes):
        return None
    if fits(bytes_at(high), usable_bytes):
        return high
    lo, hi = low, high  # invariant: fits at lo, not at hi
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if fits(bytes_at(middle), usable_bytes):
            lo = middle
        else:
            hi = middle
    return lo


def first_with_host(
    size: int, start: int | None, within_node: Callable[[int], bool], host_fits: Callable[[int], bool]
) -> int | None:
    """The first index at or after ``start`` (the first at which the GPU's bytes fit; indices in increasing GPU
    count, ``size`` of them) at which the node's host memory also holds its GPUs' offloaded states; None if none.

    A node holds min(N, G) GPUs, each offloading r + s / N bytes (r replicated, s sharded over N:
    service.memory.offload.host_bytes_per_node), so the node's host bytes, r N + s within one node, never fall as
    N grows to a node, and G (r + s / N) never rise past it. Within a node the host may stop holding the states as
    the count grows (each GPU offloading a replicated optimizer): those counts are tried one by one (at most G - 1);
    from one node on, bisection."""
    if start is None:
        return None
    i = start
    while i < size and within_node(i):
        if host_fits(i):
            return i
        i += 1
    if i >= size or not host_fits(size - 1):
        return None
    return first_true(host_fits, i, size - 1)


@dataclass(frozen=True)
class HostBounds:
    """Where the node's host memory, beside the GPU's, sets a fit's counts (GPU counts, None: none)."""

    host_memory_bytes: int
    gpu_min: int | None  # the first count at which the GPU's bytes fit
    host_min: int | None  # the first count from there at which the host holds the offloaded states too
    last_in_node: int | None  # where the host stops holding them within a node: the last count that does
    whole_nodes: int | None  # the first count of whole nodes at which both hold their share


def host_words(bounds: HostBounds, smallest: int | None, upper: int, gpu_words: Callable[[], str]) -> str:
    """The reason: where the host, not the GPU, sets the count, these words, else ``gpu_words``'; and where the host
    stops holding the offloaded states as a node fills, that too."""
    host = f"the host memory of a node ({group_digits(bounds.host_memory_bytes)} B)"
    if bounds.gpu_min is not None and bounds.host_min is None:
        return (
            f"never: {host} does not hold its GPUs' offloaded states at any GPU count from {gpus(bounds.gpu_min)}, "
            f"where the GPU's bytes fit, up to {upper:,}"
        )
    if bounds.gpu_min is not None and bounds.host_min is not None and bounds.host_min > bounds.gpu_min and smallest:
        words = (
            f"the smallest job that fits is {gpus(smallest)}: {host} holds its GPUs' offloaded states from "
            f"{gpus(bounds.host_min)}; the GPU's bytes fit from {gpus(bounds.gpu_min)}"
        )
    else:
        words = gpu_words()
    if bounds.last_in_node is not None:
        whole = f"from {gpus(bounds.whole_nodes)}" if bounds.whole_nodes is not None else "at no count"
        words += (
            f"; {host} holds its GPUs' offloaded states on part of a node up to {gpus(bounds.last_in_node)} (each "
            f"GPU offloads a replicated share, so a node needs more the more GPUs it holds), and on whole nodes {whole}"
        )
    return words


def last_in_node(
    first: int, size: int, within_node: Callable[[int], bool], host_fits: Callable[[int], bool]
) -> int | None:
    """Where, from the index ``first`` (a count within a node that fits), the host stops holding the offloaded
    states before the first count of whole nodes: the index of the last count that holds them (None: the host holds
    them up to and at the first count of whole nodes). Indices in increasing GPU count, ``size`` of them."""
    i = first
    while i + 1 < size and host_fits(i + 1):
        if not within_node(i + 1):
            return None
        i += 1
    return i if i + 1 < size else None
