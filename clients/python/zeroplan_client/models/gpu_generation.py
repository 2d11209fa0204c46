from enum import StrEnum


class GpuGeneration(StrEnum):
    ADA = "ada"
    AMPERE = "ampere"
    BLACKWELL = "blackwell"
    BLACKWELL_ULTRA = "blackwell_ultra"
    CDNA2 = "cdna2"
    CDNA3 = "cdna3"
    CDNA4 = "cdna4"
    HOPPER = "hopper"
    VOLTA = "volta"

    def __str__(self) -> str:
        return str(self.value)
