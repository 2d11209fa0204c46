from enum import StrEnum


class ParallelGroup(StrEnum):
    CONTEXT = "context"
    DATA = "data"
    EXPERT = "expert"
    PIPELINE = "pipeline"
    TENSOR = "tensor"

    def __str__(self) -> str:
        return str(self.value)
