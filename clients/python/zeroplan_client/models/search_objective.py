from enum import StrEnum


class SearchObjective(StrEnum):
    GPUS = "gpus"
    STEP_S = "step_s"
    TOKENS_PER_S_PER_GPU = "tokens_per_s_per_gpu"

    def __str__(self) -> str:
        return str(self.value)
