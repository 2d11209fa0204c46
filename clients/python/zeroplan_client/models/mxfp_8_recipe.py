from enum import StrEnum


class Mxfp8Recipe(StrEnum):
    FP8_WEIGHTS = "fp8_weights"
    SEED = "seed"
    TORCHAO = "torchao"

    def __str__(self) -> str:
        return str(self.value)
