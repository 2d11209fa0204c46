from enum import StrEnum


class FamilyRule(StrEnum):
    LAYERS = "layers"

    def __str__(self) -> str:
        return str(self.value)
