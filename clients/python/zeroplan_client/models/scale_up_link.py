from enum import StrEnum


class ScaleUpLink(StrEnum):
    INFINITY_FABRIC = "infinity_fabric"
    NVLINK = "nvlink"
    PCIE = "pcie"

    def __str__(self) -> str:
        return str(self.value)
