"""The state classes one weight carries under a precision, and which flag shards each.

Mixed-precision Adam (Rajbhandari et al. 2020, section 3.1; Micikevicius et al. 2018):
2 B bf16/fp16 parameters + 2 B gradients + K = 12 B of optimizer state (fp32 master weights,
fp32 first and second moments) = 16 B per weight. The optimizer state exists only for the update,
so the optimizer flag shards it; the extra fp32 gradient copy some optimizers keep
(DeepSpeed's fp32 gradient partition) belongs to it too.
"""

from dataclasses import dataclass

from models.enums import Dtype, OptimizerKind, ShardGroup, StateClass
from models.presets import PrecisionSpec

MOMENT_STATES: dict[OptimizerKind, tuple[StateClass, ...]] = {
    OptimizerKind.adam: (StateClass.momentum, StateClass.variance),
    OptimizerKind.adamw: (StateClass.momentum, StateClass.variance),
    OptimizerKind.sgd_momentum: (StateClass.momentum,),
    OptimizerKind.sgd: (),
}


@dataclass(frozen=True)
class StateSpec:
    state: StateClass
    dtype: Dtype
    group: ShardGroup
    copies: int = 1


def state_specs(precision: PrecisionSpec) -> list[StateSpec]:
    """Every state class a weight carries, in breakdown order."""
    specs = [
        StateSpec(StateClass.parameters, precision.parameter_dtype, ShardGroup.parameters),
        StateSpec(StateClass.gradients, precision.gradient_dtype, ShardGroup.gradients),
    ]
    if precision.optimizer_gradient_dtype is not None:
        specs.append(
            StateSpec(StateClass.optimizer_gradients, precision.optimizer_gradient_dtype, ShardGroup.optimizer)
        )
    if precision.master_dtype is not None:
        specs.append(StateSpec(StateClass.master_weights, precision.master_dtype, ShardGroup.optimizer))
    specs.extend(
        StateSpec(state, precision.optimizer_state_dtype, ShardGroup.optimizer)
        for state in MOMENT_STATES[precision.optimizer]
    )
    return specs
