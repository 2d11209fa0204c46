from enum import StrEnum


class Fp8Recipe(StrEnum):
    NONE = "none"
    TORCHAO = "torchao"
    TRANSFORMER_ENGINE = "transformer_engine"

    def __str__(self) -> str:
        return str(self.value)
