from enum import StrEnum


class SearchObjective(StrEnum):
    COST = "cost"
    GPUS = "gpus"
    GPU_HOURS = "gpu_hours"
    STEP_S = "step_s"
    TOKENS_PER_S_PER_GPU = "tokens_per_s_per_gpu"
    TRAINING_DAYS = "training_days"

    def __str__(self) -> str:
        return str(self.value)
