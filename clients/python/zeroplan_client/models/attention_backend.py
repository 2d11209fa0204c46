from enum import StrEnum


class AttentionBackend(StrEnum):
    CUDNN = "cudnn"
    FLASH_ATTENTION_2 = "flash_attention_2"
    FLASH_ATTENTION_3 = "flash_attention_3"

    def __str__(self) -> str:
        return str(self.value)
