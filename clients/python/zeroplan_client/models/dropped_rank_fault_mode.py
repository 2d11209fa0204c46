from enum import StrEnum


class DroppedRankFaultMode(StrEnum):
    EXIT = "exit"
    HANG = "hang"

    def __str__(self) -> str:
        return str(self.value)
