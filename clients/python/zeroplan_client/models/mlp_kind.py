from enum import StrEnum


class MlpKind(StrEnum):
    GEGLU = "geglu"
    GELU = "gelu"
    SWIGLU = "swiglu"

    def __str__(self) -> str:
        return str(self.value)
