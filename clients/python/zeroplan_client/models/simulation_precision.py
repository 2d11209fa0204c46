from enum import StrEnum


class SimulationPrecision(StrEnum):
    FP32_ADAM = "fp32_adam"
    FP64_ADAM = "fp64_adam"
    MIXED_BF16_ADAM = "mixed_bf16_adam"

    def __str__(self) -> str:
        return str(self.value)
