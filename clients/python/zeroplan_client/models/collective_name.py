from enum import StrEnum


class CollectiveName(StrEnum):
    ALL_GATHER = "all_gather"
    ALL_REDUCE = "all_reduce"
    REDUCE_SCATTER = "reduce_scatter"

    def __str__(self) -> str:
        return str(self.value)
