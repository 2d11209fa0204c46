from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

if TYPE_CHECKING:
    from ..models.step_cost import StepCost
    from ..models.step_levers import StepLevers


T = TypeVar("T", bound="RecommendStep")


@_attrs_define
class RecommendStep:
    """
    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        cost (StepCost):
        fits (bool):
        lever (str):
        levers (StepLevers):
        min_gpus (int | None): Smallest valid GPU count up to max_gpus that fits; null if none.
        per_gpu_bytes (int): Per-GPU bytes at world_size.
        rank (int):
        step_s (float):
        why (str):
        world_size (int): GPU count the figures are for: min_gpus, or the largest valid job up to max_gpus when it never
            fits (max_gpus rounded down to whole nodes).
    """

    arrangement: ArrangementName
    cost: StepCost
    fits: bool
    lever: str
    levers: StepLevers
    min_gpus: int | None
    per_gpu_bytes: int
    rank: int
    step_s: float
    why: str
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        cost = self.cost.to_dict()

        fits = self.fits

        lever = self.lever

        levers = self.levers.to_dict()

        min_gpus: int | None
        min_gpus = self.min_gpus

        per_gpu_bytes = self.per_gpu_bytes

        rank = self.rank

        step_s = self.step_s

        why = self.why

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "cost": cost,
                "fits": fits,
                "lever": lever,
                "levers": levers,
                "min_gpus": min_gpus,
                "per_gpu_bytes": per_gpu_bytes,
                "rank": rank,
                "step_s": step_s,
                "why": why,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.step_cost import StepCost  # noqa: PLC0415
        from ..models.step_levers import StepLevers  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        cost = StepCost.from_dict(d.pop("cost"))

        fits = d.pop("fits")

        lever = d.pop("lever")

        levers = StepLevers.from_dict(d.pop("levers"))

        def _parse_min_gpus(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus = _parse_min_gpus(d.pop("min_gpus"))

        per_gpu_bytes = d.pop("per_gpu_bytes")

        rank = d.pop("rank")

        step_s = d.pop("step_s")

        why = d.pop("why")

        world_size = d.pop("world_size")

        recommend_step = cls(
            arrangement=arrangement,
            cost=cost,
            fits=fits,
            lever=lever,
            levers=levers,
            min_gpus=min_gpus,
            per_gpu_bytes=per_gpu_bytes,
            rank=rank,
            step_s=step_s,
            why=why,
            world_size=world_size,
        )

        recommend_step.additional_properties = d
        return recommend_step

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
