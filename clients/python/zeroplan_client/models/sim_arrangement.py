from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

if TYPE_CHECKING:
    from ..models.sim_collective import SimCollective
    from ..models.sim_gradient_check import SimGradientCheck
    from ..models.sim_learning import SimLearning
    from ..models.sim_memory import SimMemory
    from ..models.sim_transient import SimTransient


T = TypeVar("T", bound="SimArrangement")


@_attrs_define
class SimArrangement:
    """
    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        collectives (list[SimCollective]):
        gradient_check (SimGradientCheck):
        keep_gather (bool):
        learning (None | SimLearning):
        memory (list[SimMemory]):
        memory_matches (bool):
        payload_matches (bool):
        shard_gradients (bool):
        shard_optimizer (bool):
        shard_parameters (bool):
        step_s_mean (list[float]):
        transient (SimTransient):
        volume_in_p_measured (float):
        wire_within_allowance (bool):
    """

    arrangement: ArrangementName
    collectives: list[SimCollective]
    gradient_check: SimGradientCheck
    keep_gather: bool
    learning: None | SimLearning
    memory: list[SimMemory]
    memory_matches: bool
    payload_matches: bool
    shard_gradients: bool
    shard_optimizer: bool
    shard_parameters: bool
    step_s_mean: list[float]
    transient: SimTransient
    volume_in_p_measured: float
    wire_within_allowance: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sim_learning import SimLearning  # noqa: PLC0415

        arrangement = self.arrangement.value

        collectives = []
        for collectives_item_data in self.collectives:
            collectives_item = collectives_item_data.to_dict()
            collectives.append(collectives_item)

        gradient_check = self.gradient_check.to_dict()

        keep_gather = self.keep_gather

        learning: dict[str, Any] | None
        if isinstance(self.learning, SimLearning):
            learning = self.learning.to_dict()
        else:
            learning = self.learning

        memory = []
        for memory_item_data in self.memory:
            memory_item = memory_item_data.to_dict()
            memory.append(memory_item)

        memory_matches = self.memory_matches

        payload_matches = self.payload_matches

        shard_gradients = self.shard_gradients

        shard_optimizer = self.shard_optimizer

        shard_parameters = self.shard_parameters

        step_s_mean = self.step_s_mean

        transient = self.transient.to_dict()

        volume_in_p_measured = self.volume_in_p_measured

        wire_within_allowance = self.wire_within_allowance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "collectives": collectives,
                "gradient_check": gradient_check,
                "keep_gather": keep_gather,
                "learning": learning,
                "memory": memory,
                "memory_matches": memory_matches,
                "payload_matches": payload_matches,
                "shard_gradients": shard_gradients,
                "shard_optimizer": shard_optimizer,
                "shard_parameters": shard_parameters,
                "step_s_mean": step_s_mean,
                "transient": transient,
                "volume_in_p_measured": volume_in_p_measured,
                "wire_within_allowance": wire_within_allowance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sim_collective import SimCollective  # noqa: PLC0415
        from ..models.sim_gradient_check import SimGradientCheck  # noqa: PLC0415
        from ..models.sim_learning import SimLearning  # noqa: PLC0415
        from ..models.sim_memory import SimMemory  # noqa: PLC0415
        from ..models.sim_transient import SimTransient  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        collectives = []
        _collectives = d.pop("collectives")
        for collectives_item_data in _collectives:
            collectives_item = SimCollective.from_dict(collectives_item_data)

            collectives.append(collectives_item)

        gradient_check = SimGradientCheck.from_dict(d.pop("gradient_check"))

        keep_gather = d.pop("keep_gather")

        def _parse_learning(data: object) -> None | SimLearning:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                learning_type_0 = SimLearning.from_dict(data)

                return learning_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SimLearning, data)

        learning = _parse_learning(d.pop("learning"))

        memory = []
        _memory = d.pop("memory")
        for memory_item_data in _memory:
            memory_item = SimMemory.from_dict(memory_item_data)

            memory.append(memory_item)

        memory_matches = d.pop("memory_matches")

        payload_matches = d.pop("payload_matches")

        shard_gradients = d.pop("shard_gradients")

        shard_optimizer = d.pop("shard_optimizer")

        shard_parameters = d.pop("shard_parameters")

        step_s_mean = cast(list[float], d.pop("step_s_mean"))

        transient = SimTransient.from_dict(d.pop("transient"))

        volume_in_p_measured = d.pop("volume_in_p_measured")

        wire_within_allowance = d.pop("wire_within_allowance")

        sim_arrangement = cls(
            arrangement=arrangement,
            collectives=collectives,
            gradient_check=gradient_check,
            keep_gather=keep_gather,
            learning=learning,
            memory=memory,
            memory_matches=memory_matches,
            payload_matches=payload_matches,
            shard_gradients=shard_gradients,
            shard_optimizer=shard_optimizer,
            shard_parameters=shard_parameters,
            step_s_mean=step_s_mean,
            transient=transient,
            volume_in_p_measured=volume_in_p_measured,
            wire_within_allowance=wire_within_allowance,
        )

        sim_arrangement.additional_properties = d
        return sim_arrangement

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
