from enum import StrEnum


class CheckpointSave(StrEnum):
    ASYNCHRONOUS = "asynchronous"
    SYNCHRONOUS = "synchronous"

    def __str__(self) -> str:
        return str(self.value)
