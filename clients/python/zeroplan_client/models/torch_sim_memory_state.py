from enum import StrEnum


class TorchSimMemoryState(StrEnum):
    GRADIENTS = "gradients"
    OPTIMIZER_STATE = "optimizer_state"
    PARAMETERS = "parameters"

    def __str__(self) -> str:
        return str(self.value)
