from enum import StrEnum


class PipelineSplit(StrEnum):
    EMBEDDING_LOSS = "embedding_loss"
    EVEN = "even"
    LIGHTER_ENDS_1 = "lighter_ends_1"
    LIGHTER_ENDS_2 = "lighter_ends_2"

    def __str__(self) -> str:
        return str(self.value)
