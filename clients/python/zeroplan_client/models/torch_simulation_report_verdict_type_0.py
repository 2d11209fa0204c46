from enum import StrEnum


class TorchSimulationReportVerdictType0(StrEnum):
    CONFIRMED = "confirmed"
    INCOMPLETE = "incomplete"
    REFUTED = "refuted"

    def __str__(self) -> str:
        return str(self.value)
