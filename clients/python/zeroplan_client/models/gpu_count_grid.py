from enum import StrEnum


class GpuCountGrid(StrEnum):
    POWERS_OF_TWO = "powers_of_two"
    WHOLE_NODES = "whole_nodes"

    def __str__(self) -> str:
        return str(self.value)
