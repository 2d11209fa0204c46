from enum import StrEnum


class OptimizerKind(StrEnum):
    ADAM = "adam"
    ADAMW = "adamw"
    SGD = "sgd"
    SGD_MOMENTUM = "sgd_momentum"

    def __str__(self) -> str:
        return str(self.value)
