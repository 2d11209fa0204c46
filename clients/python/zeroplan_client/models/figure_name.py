from enum import StrEnum


class FigureName(StrEnum):
    BYTES_PER_WEIGHT = "bytes-per-weight"
    LAYOUT_MEMORY = "layout-memory"
    LAYOUT_TRAFFIC = "layout-traffic"
    MEMORY_VS_GPUS = "memory-vs-gpus"
    STEP_TIME = "step-time"
    TRAFFIC = "traffic"

    def __str__(self) -> str:
        return str(self.value)
