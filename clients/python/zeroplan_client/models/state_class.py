from enum import StrEnum


class StateClass(StrEnum):
    COMPUTE_PARAMETERS = "compute_parameters"
    GATHERED_PARAMETERS = "gathered_parameters"
    GRADIENTS = "gradients"
    GRADIENT_BUCKETS = "gradient_buckets"
    MASTER_WEIGHTS = "master_weights"
    MOMENTUM = "momentum"
    OPTIMIZER_GRADIENTS = "optimizer_gradients"
    PARAMETERS = "parameters"
    SECONDARY_PARAMETERS = "secondary_parameters"
    UNIT_GRADIENTS = "unit_gradients"
    VARIANCE = "variance"

    def __str__(self) -> str:
        return str(self.value)
