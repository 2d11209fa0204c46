from enum import StrEnum


class PipelineSchedule(StrEnum):
    GPIPE = "gpipe"
    INTERLEAVED = "interleaved"
    VALUE_0 = "1f1b"
    ZERO_BUBBLE = "zero_bubble"

    def __str__(self) -> str:
        return str(self.value)
