from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName

if TYPE_CHECKING:
    from ..models.plan_request import PlanRequest
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
        asked (bool): The request's own arrangement and levers (a /v1/plan body's job).
        cost (StepCost):
        fits (bool):
        lever (str):
        levers (StepLevers):
        min_gpus (int | None): Smallest valid GPU count up to max_gpus that fits; null if none.
        needs_gpus (int | None): Smallest GPU count /v1/plan accepts at which the step fits, past max_gpus too (what a
            step that does not fit would need); null when it fits at no count.
        per_gpu_bytes (int): Per-GPU bytes at world_size.
        rank (int): Steps that fit come first (cheapest first), then those that do not.
        request (PlanRequest):
        step_s (float): The step's /v1/plan step time at world_size. With training.utilisation, the utilisation is read
            as measured with the request's own recomputation (training.utilisation_recompute, unless the request gives it):
            the /v1/plan body of a step that changes levers.recompute carries that field.
        why (str):
        world_size (int): GPU count the figures are for, each the /v1/plan of this step at that count:
            cluster.world_size when given; else min_gpus, or the largest valid job up to max_gpus when it does not fit
            there.
    """

    arrangement: ArrangementName
    asked: bool
    cost: StepCost
    fits: bool
    lever: str
    levers: StepLevers
    min_gpus: int | None
    needs_gpus: int | None
    per_gpu_bytes: int
    rank: int
    request: PlanRequest
    step_s: float
    why: str
    world_size: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        asked = self.asked

        cost = self.cost.to_dict()

        fits = self.fits

        lever = self.lever

        levers = self.levers.to_dict()

        min_gpus: int | None
        min_gpus = self.min_gpus

        needs_gpus: int | None
        needs_gpus = self.needs_gpus

        per_gpu_bytes = self.per_gpu_bytes

        rank = self.rank

        request = self.request.to_dict()

        step_s = self.step_s

        why = self.why

        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "asked": asked,
                "cost": cost,
                "fits": fits,
                "lever": lever,
                "levers": levers,
                "min_gpus": min_gpus,
                "needs_gpus": needs_gpus,
                "per_gpu_bytes": per_gpu_bytes,
                "rank": rank,
                "request": request,
                "step_s": step_s,
                "why": why,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_request import PlanRequest  # noqa: PLC0415
        from ..models.step_cost import StepCost  # noqa: PLC0415
        from ..models.step_levers import StepLevers  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        asked = d.pop("asked")

        cost = StepCost.from_dict(d.pop("cost"))

        fits = d.pop("fits")

        lever = d.pop("lever")

        levers = StepLevers.from_dict(d.pop("levers"))

        def _parse_min_gpus(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus = _parse_min_gpus(d.pop("min_gpus"))

        def _parse_needs_gpus(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        needs_gpus = _parse_needs_gpus(d.pop("needs_gpus"))

        per_gpu_bytes = d.pop("per_gpu_bytes")

        rank = d.pop("rank")

        request = PlanRequest.from_dict(d.pop("request"))

        step_s = d.pop("step_s")

        why = d.pop("why")

        world_size = d.pop("world_size")

        recommend_step = cls(
            arrangement=arrangement,
            asked=asked,
            cost=cost,
            fits=fits,
            lever=lever,
            levers=levers,
            min_gpus=min_gpus,
            needs_gpus=needs_gpus,
            per_gpu_bytes=per_gpu_bytes,
            rank=rank,
            request=request,
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
