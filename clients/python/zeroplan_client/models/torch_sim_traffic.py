from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.torch_sim_traffic_engine_bytes_per_step_by_group_type_0_item import (
        TorchSimTrafficEngineBytesPerStepByGroupType0Item,
    )
    from ..models.torch_sim_traffic_engine_layout_plan_bytes_per_step import TorchSimTrafficEngineLayoutPlanBytesPerStep
    from ..models.torch_sim_traffic_model_parallel_predicted_bytes_per_step_type_0_item import (
        TorchSimTrafficModelParallelPredictedBytesPerStepType0Item,
    )
    from ..models.torch_sim_traffic_plan_bytes_per_step import TorchSimTrafficPlanBytesPerStep
    from ..models.torch_sim_traffic_plan_bytes_per_step_by_rank_type_0_item import (
        TorchSimTrafficPlanBytesPerStepByRankType0Item,
    )


T = TypeVar("T", bound="TorchSimTraffic")


@_attrs_define
class TorchSimTraffic:
    """
    Attributes:
        engine_bytes_per_step (list[int]): Per rank: the observed calls priced by gloo's algorithm.
        engine_layout_plan_bytes_per_step (TorchSimTrafficEngineLayoutPlanBytesPerStep): /v1/plan's bytes for the layout
            the engine keeps (fsdp2 for FSDP2 under bf16 compute).
        plan_bytes_per_step (TorchSimTrafficPlanBytesPerStep): /v1/plan's bytes per rank per step by collective.
        plan_total_bytes_per_step (int):
        reasons (list[str]): Why the engine's collectives differ from the plan's, by design.
        engine_bytes_per_step_by_group (list[TorchSimTrafficEngineBytesPerStepByGroupType0Item] | None | Unset):
            Layouts: per rank, the observed calls' bytes per step by mesh dimension.
        model_parallel_matches (bool | None | Unset): Layouts: the observed tensor and pipeline bytes equal that
            prediction exactly.
        model_parallel_predicted_bytes_per_step (list[TorchSimTrafficModelParallelPredictedBytesPerStepType0Item] | None
            | Unset): Layouts: per rank, the tensor and pipeline groups' bytes per step as PyTorch issues the planner's
            calls (each column-parallel module's input gradient all-reduced, the embedding's rows reduced, the logits
            gathered; a pipeline end sends one way), priced by gloo.
        plan_bytes_per_step_by_rank (list[TorchSimTrafficPlanBytesPerStepByRankType0Item] | None | Unset): Layouts: per
            rank, /v1/plan's bytes per step by 'group:collective'.
    """

    engine_bytes_per_step: list[int]
    engine_layout_plan_bytes_per_step: TorchSimTrafficEngineLayoutPlanBytesPerStep
    plan_bytes_per_step: TorchSimTrafficPlanBytesPerStep
    plan_total_bytes_per_step: int
    reasons: list[str]
    engine_bytes_per_step_by_group: list[TorchSimTrafficEngineBytesPerStepByGroupType0Item] | None | Unset = UNSET
    model_parallel_matches: bool | None | Unset = UNSET
    model_parallel_predicted_bytes_per_step: (
        list[TorchSimTrafficModelParallelPredictedBytesPerStepType0Item] | None | Unset
    ) = UNSET
    plan_bytes_per_step_by_rank: list[TorchSimTrafficPlanBytesPerStepByRankType0Item] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        engine_bytes_per_step = self.engine_bytes_per_step

        engine_layout_plan_bytes_per_step = self.engine_layout_plan_bytes_per_step.to_dict()

        plan_bytes_per_step = self.plan_bytes_per_step.to_dict()

        plan_total_bytes_per_step = self.plan_total_bytes_per_step

        reasons = self.reasons

        engine_bytes_per_step_by_group: list[dict[str, Any]] | None | Unset
        if isinstance(self.engine_bytes_per_step_by_group, Unset):
            engine_bytes_per_step_by_group = UNSET
        elif isinstance(self.engine_bytes_per_step_by_group, list):
            engine_bytes_per_step_by_group = []
            for engine_bytes_per_step_by_group_type_0_item_data in self.engine_bytes_per_step_by_group:
                engine_bytes_per_step_by_group_type_0_item = engine_bytes_per_step_by_group_type_0_item_data.to_dict()
                engine_bytes_per_step_by_group.append(engine_bytes_per_step_by_group_type_0_item)

        else:
            engine_bytes_per_step_by_group = self.engine_bytes_per_step_by_group

        model_parallel_matches: bool | None | Unset
        if isinstance(self.model_parallel_matches, Unset):
            model_parallel_matches = UNSET
        else:
            model_parallel_matches = self.model_parallel_matches

        model_parallel_predicted_bytes_per_step: list[dict[str, Any]] | None | Unset
        if isinstance(self.model_parallel_predicted_bytes_per_step, Unset):
            model_parallel_predicted_bytes_per_step = UNSET
        elif isinstance(self.model_parallel_predicted_bytes_per_step, list):
            model_parallel_predicted_bytes_per_step = []
            for (
                model_parallel_predicted_bytes_per_step_type_0_item_data
            ) in self.model_parallel_predicted_bytes_per_step:
                model_parallel_predicted_bytes_per_step_type_0_item = (
                    model_parallel_predicted_bytes_per_step_type_0_item_data.to_dict()
                )
                model_parallel_predicted_bytes_per_step.append(model_parallel_predicted_bytes_per_step_type_0_item)

        else:
            model_parallel_predicted_bytes_per_step = self.model_parallel_predicted_bytes_per_step

        plan_bytes_per_step_by_rank: list[dict[str, Any]] | None | Unset
        if isinstance(self.plan_bytes_per_step_by_rank, Unset):
            plan_bytes_per_step_by_rank = UNSET
        elif isinstance(self.plan_bytes_per_step_by_rank, list):
            plan_bytes_per_step_by_rank = []
            for plan_bytes_per_step_by_rank_type_0_item_data in self.plan_bytes_per_step_by_rank:
                plan_bytes_per_step_by_rank_type_0_item = plan_bytes_per_step_by_rank_type_0_item_data.to_dict()
                plan_bytes_per_step_by_rank.append(plan_bytes_per_step_by_rank_type_0_item)

        else:
            plan_bytes_per_step_by_rank = self.plan_bytes_per_step_by_rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "engine_bytes_per_step": engine_bytes_per_step,
                "engine_layout_plan_bytes_per_step": engine_layout_plan_bytes_per_step,
                "plan_bytes_per_step": plan_bytes_per_step,
                "plan_total_bytes_per_step": plan_total_bytes_per_step,
                "reasons": reasons,
            }
        )
        if engine_bytes_per_step_by_group is not UNSET:
            field_dict["engine_bytes_per_step_by_group"] = engine_bytes_per_step_by_group
        if model_parallel_matches is not UNSET:
            field_dict["model_parallel_matches"] = model_parallel_matches
        if model_parallel_predicted_bytes_per_step is not UNSET:
            field_dict["model_parallel_predicted_bytes_per_step"] = model_parallel_predicted_bytes_per_step
        if plan_bytes_per_step_by_rank is not UNSET:
            field_dict["plan_bytes_per_step_by_rank"] = plan_bytes_per_step_by_rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.torch_sim_traffic_engine_bytes_per_step_by_group_type_0_item import (
            TorchSimTrafficEngineBytesPerStepByGroupType0Item,  # noqa: PLC0415
        )
        from ..models.torch_sim_traffic_engine_layout_plan_bytes_per_step import (
            TorchSimTrafficEngineLayoutPlanBytesPerStep,  # noqa: PLC0415
        )
        from ..models.torch_sim_traffic_model_parallel_predicted_bytes_per_step_type_0_item import (
            TorchSimTrafficModelParallelPredictedBytesPerStepType0Item,  # noqa: PLC0415
        )
        from ..models.torch_sim_traffic_plan_bytes_per_step import TorchSimTrafficPlanBytesPerStep  # noqa: PLC0415
        from ..models.torch_sim_traffic_plan_bytes_per_step_by_rank_type_0_item import (
            TorchSimTrafficPlanBytesPerStepByRankType0Item,  # noqa: PLC0415
        )

        d = dict(src_dict)
        engine_bytes_per_step = cast(list[int], d.pop("engine_bytes_per_step"))

        engine_layout_plan_bytes_per_step = TorchSimTrafficEngineLayoutPlanBytesPerStep.from_dict(
            d.pop("engine_layout_plan_bytes_per_step")
        )

        plan_bytes_per_step = TorchSimTrafficPlanBytesPerStep.from_dict(d.pop("plan_bytes_per_step"))

        plan_total_bytes_per_step = d.pop("plan_total_bytes_per_step")

        reasons = cast(list[str], d.pop("reasons"))

        def _parse_engine_bytes_per_step_by_group(
            data: object,
        ) -> list[TorchSimTrafficEngineBytesPerStepByGroupType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                engine_bytes_per_step_by_group_type_0 = []
                _engine_bytes_per_step_by_group_type_0 = data
                for engine_bytes_per_step_by_group_type_0_item_data in _engine_bytes_per_step_by_group_type_0:
                    engine_bytes_per_step_by_group_type_0_item = (
                        TorchSimTrafficEngineBytesPerStepByGroupType0Item.from_dict(
                            engine_bytes_per_step_by_group_type_0_item_data
                        )
                    )

                    engine_bytes_per_step_by_group_type_0.append(engine_bytes_per_step_by_group_type_0_item)

                return engine_bytes_per_step_by_group_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TorchSimTrafficEngineBytesPerStepByGroupType0Item] | None | Unset, data)

        engine_bytes_per_step_by_group = _parse_engine_bytes_per_step_by_group(
            d.pop("engine_bytes_per_step_by_group", UNSET)
        )

        def _parse_model_parallel_matches(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        model_parallel_matches = _parse_model_parallel_matches(d.pop("model_parallel_matches", UNSET))

        def _parse_model_parallel_predicted_bytes_per_step(
            data: object,
        ) -> list[TorchSimTrafficModelParallelPredictedBytesPerStepType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                model_parallel_predicted_bytes_per_step_type_0 = []
                _model_parallel_predicted_bytes_per_step_type_0 = data
                for (
                    model_parallel_predicted_bytes_per_step_type_0_item_data
                ) in _model_parallel_predicted_bytes_per_step_type_0:
                    model_parallel_predicted_bytes_per_step_type_0_item = (
                        TorchSimTrafficModelParallelPredictedBytesPerStepType0Item.from_dict(
                            model_parallel_predicted_bytes_per_step_type_0_item_data
                        )
                    )

                    model_parallel_predicted_bytes_per_step_type_0.append(
                        model_parallel_predicted_bytes_per_step_type_0_item
                    )

                return model_parallel_predicted_bytes_per_step_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TorchSimTrafficModelParallelPredictedBytesPerStepType0Item] | None | Unset, data)

        model_parallel_predicted_bytes_per_step = _parse_model_parallel_predicted_bytes_per_step(
            d.pop("model_parallel_predicted_bytes_per_step", UNSET)
        )

        def _parse_plan_bytes_per_step_by_rank(
            data: object,
        ) -> list[TorchSimTrafficPlanBytesPerStepByRankType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                plan_bytes_per_step_by_rank_type_0 = []
                _plan_bytes_per_step_by_rank_type_0 = data
                for plan_bytes_per_step_by_rank_type_0_item_data in _plan_bytes_per_step_by_rank_type_0:
                    plan_bytes_per_step_by_rank_type_0_item = TorchSimTrafficPlanBytesPerStepByRankType0Item.from_dict(
                        plan_bytes_per_step_by_rank_type_0_item_data
                    )

                    plan_bytes_per_step_by_rank_type_0.append(plan_bytes_per_step_by_rank_type_0_item)

                return plan_bytes_per_step_by_rank_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TorchSimTrafficPlanBytesPerStepByRankType0Item] | None | Unset, data)

        plan_bytes_per_step_by_rank = _parse_plan_bytes_per_step_by_rank(d.pop("plan_bytes_per_step_by_rank", UNSET))

        torch_sim_traffic = cls(
            engine_bytes_per_step=engine_bytes_per_step,
            engine_layout_plan_bytes_per_step=engine_layout_plan_bytes_per_step,
            plan_bytes_per_step=plan_bytes_per_step,
            plan_total_bytes_per_step=plan_total_bytes_per_step,
            reasons=reasons,
            engine_bytes_per_step_by_group=engine_bytes_per_step_by_group,
            model_parallel_matches=model_parallel_matches,
            model_parallel_predicted_bytes_per_step=model_parallel_predicted_bytes_per_step,
            plan_bytes_per_step_by_rank=plan_bytes_per_step_by_rank,
        )

        torch_sim_traffic.additional_properties = d
        return torch_sim_traffic

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
