from enum import StrEnum


class PrecisionPresetName(StrEnum):
    BF16_ADAM = "bf16_adam"
    DEEPSPEED = "deepspeed"
    FP32_ADAM = "fp32_adam"
    FSDP2 = "fsdp2"
    MEGATRON = "megatron"
    MIXED_BF16_ADAM = "mixed_bf16_adam"
    MIXED_FP16_ADAM = "mixed_fp16_adam"
    SEED_SKETCH = "seed_sketch"

    def __str__(self) -> str:
        return str(self.value)
