from enum import StrEnum


class Dtype(StrEnum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"
    FP64 = "fp64"
    FP8 = "fp8"
    MXFP8 = "mxfp8"

    def __str__(self) -> str:
        return str(self.value)
