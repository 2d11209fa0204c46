from enum import StrEnum


class CrossEntropy(StrEnum):
    FUSED = "fused"
    UNFUSED = "unfused"

    def __str__(self) -> str:
        return str(self.value)
