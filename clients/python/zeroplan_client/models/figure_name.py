from enum import StrEnum


class FigureName(StrEnum):
    BYTES_PER_WEIGHT = "bytes-per-weight"
    MEMORY_VS_GPUS = "memory-vs-gpus"
    STEP_TIME = "step-time"
    TRAFFIC = "traffic"

    def __str__(self) -> str:
        return str(self.value)
