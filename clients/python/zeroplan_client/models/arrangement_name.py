from enum import StrEnum


class ArrangementName(StrEnum):
    DDP = "ddp"
    FULL_SHARD = "full_shard"
    HYBRID = "hybrid"
    NO_SHARD = "no_shard"
    SHARD_GRAD_OP = "shard_grad_op"
    ZERO1 = "zero1"
    ZERO2 = "zero2"
    ZERO3 = "zero3"

    def __str__(self) -> str:
        return str(self.value)
