from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

if TYPE_CHECKING:
    from ..models.step_levers import StepLevers


T = TypeVar("T", bound="OmittedStep")


@_attrs_define
class OmittedStep:
    """
    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        lever (str):
        levers (StepLevers):
        same_as (str): The step without the lever, whose memory and time this one matches.
        why (str):
    """

    arrangement: ArrangementName
    lever: str
    levers: StepLevers
    same_as: str
    why: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        lever = self.lever

        levers = self.levers.to_dict()

        same_as = self.same_as

        why = self.why

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "lever": lever,
                "levers": levers,
                "same_as": same_as,
                "why": why,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_levers import StepLevers  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        lever = d.pop("lever")

        levers = StepLevers.from_dict(d.pop("levers"))

        same_as = d.pop("same_as")

        why = d.pop("why")

        omitted_step = cls(
            arrangement=arrangement,
            lever=lever,
            levers=levers,
            same_as=same_as,
            why=why,
        )

        omitted_step.additional_properties = d
        return omitted_step

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
