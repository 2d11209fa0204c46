from enum import StrEnum


class ReadinessJobStore(StrEnum):
    NOT_USED = "not_used"
    OK = "ok"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)
