"""Turn the contract's names and presets into the plain numbers the formulas take."""

from models.common import Card, ModelSpec, ShardingFlags
from models.enums import ArrangementName
from models.presets import (
    GPU_PRESETS,
    MODEL_PRESETS,
    PRECISION_PRESETS,
    PrecisionPresetName,
    PrecisionSpec,
)
from service.arrangements import Sharding, sharding_for


def parameter_count(model: ModelSpec) -> int:
    """An explicit count wins; otherwise the preset's published count."""
    if model.parameter_count is not None:
        return model.parameter_count
    assert model.preset is not None  # the model validator guarantees one of the two
    return MODEL_PRESETS[model.preset].parameter_count


def precision_spec(precision: PrecisionPresetName | PrecisionSpec) -> PrecisionSpec:
    if isinstance(precision, PrecisionSpec):
        return precision
    return PRECISION_PRESETS[precision].spec


def card_bytes(card: Card) -> int:
    if card.gpu_memory_bytes is not None:
        return card.gpu_memory_bytes
    assert card.gpu is not None  # the model validator guarantees one of the two
    return GPU_PRESETS[card.gpu].memory_bytes


def sharding(arrangement: ArrangementName | ShardingFlags) -> Sharding:
    if isinstance(arrangement, ShardingFlags):
        return Sharding(arrangement.shard_optimizer, arrangement.shard_gradients, arrangement.shard_parameters)
    return sharding_for(arrangement)
