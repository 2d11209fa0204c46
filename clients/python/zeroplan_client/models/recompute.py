from enum import StrEnum


class Recompute(StrEnum):
    FULL = "full"
    NONE = "none"
    SELECTIVE = "selective"

    def __str__(self) -> str:
        return str(self.value)
