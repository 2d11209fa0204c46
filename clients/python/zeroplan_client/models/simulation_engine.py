from enum import StrEnum


class SimulationEngine(StrEnum):
    RINGS = "rings"
    TORCH = "torch"

    def __str__(self) -> str:
        return str(self.value)
