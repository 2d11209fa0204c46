from enum import StrEnum


class Dtype(StrEnum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"
    FP64 = "fp64"
    FP8 = "fp8"
    INT4_BLOCKWISE = "int4_blockwise"
    INT8_BLOCKWISE = "int8_blockwise"
    MXFP4_E2M1 = "mxfp4_e2m1"
    MXFP6_E2M3 = "mxfp6_e2m3"
    MXFP6_E3M2 = "mxfp6_e3m2"
    MXFP8 = "mxfp8"
    MXINT8 = "mxint8"

    def __str__(self) -> str:
        return str(self.value)
