from enum import StrEnum


class LinkPresetName(StrEnum):
    NVLINK3_IB200 = "nvlink3-ib200"
    NVLINK4_IB400 = "nvlink4-ib400"
    NVLINK5_IB800 = "nvlink5-ib800"
    SEED = "seed"

    def __str__(self) -> str:
        return str(self.value)
