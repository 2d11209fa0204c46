from enum import StrEnum


class ActivationModel(StrEnum):
    FUDGE = "fudge"
    NONE = "none"
    TRANSFORMER = "transformer"

    def __str__(self) -> str:
        return str(self.value)
