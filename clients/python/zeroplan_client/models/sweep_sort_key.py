from enum import StrEnum


class SweepSortKey(StrEnum):
    BYTES_SENT_PER_GPU = "bytes_sent_per_gpu"
    COST = "cost"
    EXPOSED_COMMUNICATION_S = "exposed_communication_s"
    GPU_HOURS = "gpu_hours"
    HEADROOM_BYTES = "headroom_bytes"
    PARAMETER_COUNT = "parameter_count"
    PER_GPU_BYTES = "per_gpu_bytes"
    STEP_S = "step_s"
    TOKENS_PER_S = "tokens_per_s"
    TOKENS_PER_S_PER_GPU = "tokens_per_s_per_gpu"
    TRAINING_DAYS = "training_days"
    WORLD_SIZE = "world_size"

    def __str__(self) -> str:
        return str(self.value)
