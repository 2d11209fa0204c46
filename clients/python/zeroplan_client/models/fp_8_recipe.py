from enum import StrEnum


class Fp8Recipe(StrEnum):
    NONE = "none"
    TORCHAO = "torchao"
    TRANSFORMER_ENGINE = "transformer_engine"
    TRANSFORMER_ENGINE_CURRENT_SCALING = "transformer_engine_current_scaling"

    def __str__(self) -> str:
        return str(self.value)
