from enum import StrEnum


class MoeTokenDispatcher(StrEnum):
    ALLTOALL = "alltoall"
    DEEPEP = "deepep"

    def __str__(self) -> str:
        return str(self.value)
