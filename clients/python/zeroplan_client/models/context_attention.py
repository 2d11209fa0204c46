from enum import StrEnum


class ContextAttention(StrEnum):
    ALL_GATHER = "all_gather"
    RING = "ring"

    def __str__(self) -> str:
        return str(self.value)
