from enum import StrEnum


class StateLocation(StrEnum):
    GPU = "gpu"
    HOST = "host"

    def __str__(self) -> str:
        return str(self.value)
