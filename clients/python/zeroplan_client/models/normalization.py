from enum import StrEnum


class Normalization(StrEnum):
    LAYERNORM = "layernorm"
    RMSNORM = "rmsnorm"

    def __str__(self) -> str:
        return str(self.value)
