from enum import StrEnum


class PipelineSchedule(StrEnum):
    GPIPE = "gpipe"
    INTERLEAVED = "interleaved"
    VALUE_0 = "1f1b"
    ZB_H1 = "zb_h1"
    ZB_V = "zb_v"
    ZERO_BUBBLE = "zero_bubble"

    def __str__(self) -> str:
        return str(self.value)
