from enum import StrEnum


class StoragePresetName(StrEnum):
    LLAMA3_TECTONIC = "llama3-tectonic"
    NVME_LOCAL = "nvme-local"

    def __str__(self) -> str:
        return str(self.value)
