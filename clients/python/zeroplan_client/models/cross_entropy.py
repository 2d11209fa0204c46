from enum import StrEnum


class CrossEntropy(StrEnum):
    FUSED = "fused"
    UNFUSED = "unfused"
    VOCAB_PARALLEL = "vocab_parallel"

    def __str__(self) -> str:
        return str(self.value)
