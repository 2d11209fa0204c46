from enum import StrEnum


class CollectiveName(StrEnum):
    ALL_GATHER = "all_gather"
    ALL_REDUCE = "all_reduce"
    ALL_TO_ALL = "all_to_all"
    REDUCE_SCATTER = "reduce_scatter"
    SEND_RECV = "send_recv"

    def __str__(self) -> str:
        return str(self.value)
