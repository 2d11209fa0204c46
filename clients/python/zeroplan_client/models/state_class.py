from enum import StrEnum


class StateClass(StrEnum):
    GRADIENTS = "gradients"
    MASTER_WEIGHTS = "master_weights"
    MOMENTUM = "momentum"
    OPTIMIZER_GRADIENTS = "optimizer_gradients"
    PARAMETERS = "parameters"
    VARIANCE = "variance"

    def __str__(self) -> str:
        return str(self.value)
