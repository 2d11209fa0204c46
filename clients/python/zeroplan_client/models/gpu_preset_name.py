from enum import StrEnum


class GpuPresetName(StrEnum):
    A100_40GB = "a100-40gb"
    A100_80GB = "a100-80gb"
    A10G = "a10g"
    B200 = "b200"
    B300 = "b300"
    GH200 = "gh200"
    H100_80GB = "h100-80gb"
    H100_NVL = "h100-nvl"
    H100_PCIE = "h100-pcie"
    H20 = "h20"
    H200 = "h200"
    L40S = "l40s"
    MI250X = "mi250x"
    MI300X = "mi300x"
    MI325X = "mi325x"
    MI355X = "mi355x"
    SEED_80GB = "seed-80gb"
    V100_32GB = "v100-32gb"

    def __str__(self) -> str:
        return str(self.value)
