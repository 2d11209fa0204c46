"""What a job can use of a card: the card less a reserve and the allocator's fragmentation.

usable = card - reserve - ceil(card x fragmentation), in integers. The reserve holds what every
training process keeps on the device before its first tensor: the CUDA context and NCCL's
communication buffers; fragmentation is the share of the card the caching allocator holds but
cannot hand out (the defaults and their sources are in models/presets.py). The textbook card seed-80gb keeps
a zero reserve, so its textbook table stays exact.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from service.numeric import ceil_div, group_digits


@lru_cache(maxsize=1024)  # a plan asks several times for the same card; Fraction is slow to build
def fragmentation_bytes(card_bytes: int, fragmentation: float) -> int:
    """ceil(card x fragmentation), exact for the decimal the caller wrote (0.1 is 1/10, not a binary float)."""
    share = Fraction(repr(fragmentation))
    return int(ceil_div(card_bytes * share.numerator, share.denominator))


@dataclass(frozen=True)
class CardMemory:
    card_bytes: int
    reserve_bytes: int
    fragmentation: float

    # Computed once per card: a plan reads them several times (cached_property writes the instance's
    # __dict__ directly, so it works on a frozen dataclass).
    @cached_property
    def fragmentation_bytes(self) -> int:
        return fragmentation_bytes(self.card_bytes, self.fragmentation)

    @cached_property
    def usable_bytes(self) -> int:
        return self.card_bytes - self.reserve_bytes - self.fragmentation_bytes

    @cached_property
    def usable_arithmetic(self) -> str:
        return self.arithmetic()

    def arithmetic(self) -> str:
        """'81,559 MiB card - 1,411 MiB reserve - ceil(0.1 x card) = ... B usable'."""
        return (
            f"{group_digits(self.card_bytes)} B card - {group_digits(self.reserve_bytes)} B reserve (CUDA context, "
            f"NCCL buffers) - ceil({self.fragmentation:g} x card) = {group_digits(self.fragmentation_bytes)} B "
            f"fragmentation = {group_digits(self.usable_bytes)} B usable"
        )
