from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.torch_sim_arrangement_tracker_category_peak_bytes_item import (
        TorchSimArrangementTrackerCategoryPeakBytesItem,
    )
    from ..models.torch_sim_arrangement_tracker_peak_bytes_item import TorchSimArrangementTrackerPeakBytesItem
    from ..models.torch_sim_collective import TorchSimCollective
    from ..models.torch_sim_convention import TorchSimConvention
    from ..models.torch_sim_cuda import TorchSimCuda
    from ..models.torch_sim_learning import TorchSimLearning
    from ..models.torch_sim_memory import TorchSimMemory
    from ..models.torch_sim_plan_comparison import TorchSimPlanComparison
    from ..models.torch_sim_plan_stage import TorchSimPlanStage
    from ..models.torch_sim_traffic import TorchSimTraffic
    from ..models.torch_sim_wire import TorchSimWire


T = TypeVar("T", bound="TorchSimArrangement")


@_attrs_define
class TorchSimArrangement:
    """
    Attributes:
        arrangement (str):
        checks_pass (bool):
        collectives (list[TorchSimCollective]):
        conventions (list[list[TorchSimConvention]]): Per rank.
        implementation (str):
        learning (TorchSimLearning):
        memory (list[TorchSimMemory]):
        memory_matches (bool):
        shard_degree (int):
        step_s_mean (list[float]):
        tracker_peak_bytes (list[TorchSimArrangementTrackerPeakBytesItem]): Per rank: the tracker's peak snapshot by its
            own categories (working set included).
        traffic (TorchSimTraffic):
        wire (None | TorchSimWire): gloo only: NCCL's bytes do not pass through write(2).
        wire_within_allowance (bool | None):
        cuda (None | TorchSimCuda | Unset):
        plan_comparison (list[TorchSimPlanComparison] | Unset): Rank 0: /v1/plan's activations and working set for this
            model, arrangement and layout beside the tracker's peaks, with the convention that separates them and the
            tolerance.
        plan_stages (list[TorchSimPlanStage] | None | Unset): Layouts: /v1/plan's memory.stages[] for this layout and
            the requested preset.
        tracker_category_peak_bytes (list[TorchSimArrangementTrackerCategoryPeakBytesItem] | Unset): Per rank: each
            tracker category at its own largest over the last measured step's module snapshots (activations before the
            backward, all-gather buffers); empty where no tracker ran.
    """

    arrangement: str
    checks_pass: bool
    collectives: list[TorchSimCollective]
    conventions: list[list[TorchSimConvention]]
    implementation: str
    learning: TorchSimLearning
    memory: list[TorchSimMemory]
    memory_matches: bool
    shard_degree: int
    step_s_mean: list[float]
    tracker_peak_bytes: list[TorchSimArrangementTrackerPeakBytesItem]
    traffic: TorchSimTraffic
    wire: None | TorchSimWire
    wire_within_allowance: bool | None
    cuda: None | TorchSimCuda | Unset = UNSET
    plan_comparison: list[TorchSimPlanComparison] | Unset = UNSET
    plan_stages: list[TorchSimPlanStage] | None | Unset = UNSET
    tracker_category_peak_bytes: list[TorchSimArrangementTrackerCategoryPeakBytesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.torch_sim_cuda import TorchSimCuda  # noqa: PLC0415
        from ..models.torch_sim_wire import TorchSimWire  # noqa: PLC0415

        arrangement = self.arrangement

        checks_pass = self.checks_pass

        collectives = []
        for collectives_item_data in self.collectives:
            collectives_item = collectives_item_data.to_dict()
            collectives.append(collectives_item)

        conventions = []
        for conventions_item_data in self.conventions:
            conventions_item = []
            for conventions_item_item_data in conventions_item_data:
                conventions_item_item = conventions_item_item_data.to_dict()
                conventions_item.append(conventions_item_item)

            conventions.append(conventions_item)

        implementation = self.implementation

        learning = self.learning.to_dict()

        memory = []
        for memory_item_data in self.memory:
            memory_item = memory_item_data.to_dict()
            memory.append(memory_item)

        memory_matches = self.memory_matches

        shard_degree = self.shard_degree

        step_s_mean = self.step_s_mean

        tracker_peak_bytes = []
        for tracker_peak_bytes_item_data in self.tracker_peak_bytes:
            tracker_peak_bytes_item = tracker_peak_bytes_item_data.to_dict()
            tracker_peak_bytes.append(tracker_peak_bytes_item)

        traffic = self.traffic.to_dict()

        wire: dict[str, Any] | None
        if isinstance(self.wire, TorchSimWire):
            wire = self.wire.to_dict()
        else:
            wire = self.wire

        wire_within_allowance: bool | None
        wire_within_allowance = self.wire_within_allowance

        cuda: dict[str, Any] | None | Unset
        if isinstance(self.cuda, Unset):
            cuda = UNSET
        elif isinstance(self.cuda, TorchSimCuda):
            cuda = self.cuda.to_dict()
        else:
            cuda = self.cuda

        plan_comparison: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.plan_comparison, Unset):
            plan_comparison = []
            for plan_comparison_item_data in self.plan_comparison:
                plan_comparison_item = plan_comparison_item_data.to_dict()
                plan_comparison.append(plan_comparison_item)

        plan_stages: list[dict[str, Any]] | None | Unset
        if isinstance(self.plan_stages, Unset):
            plan_stages = UNSET
        elif isinstance(self.plan_stages, list):
            plan_stages = []
            for plan_stages_type_0_item_data in self.plan_stages:
                plan_stages_type_0_item = plan_stages_type_0_item_data.to_dict()
                plan_stages.append(plan_stages_type_0_item)

        else:
            plan_stages = self.plan_stages

        tracker_category_peak_bytes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tracker_category_peak_bytes, Unset):
            tracker_category_peak_bytes = []
            for tracker_category_peak_bytes_item_data in self.tracker_category_peak_bytes:
                tracker_category_peak_bytes_item = tracker_category_peak_bytes_item_data.to_dict()
                tracker_category_peak_bytes.append(tracker_category_peak_bytes_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "checks_pass": checks_pass,
                "collectives": collectives,
                "conventions": conventions,
                "implementation": implementation,
                "learning": learning,
                "memory": memory,
                "memory_matches": memory_matches,
                "shard_degree": shard_degree,
                "step_s_mean": step_s_mean,
                "tracker_peak_bytes": tracker_peak_bytes,
                "traffic": traffic,
                "wire": wire,
                "wire_within_allowance": wire_within_allowance,
            }
        )
        if cuda is not UNSET:
            field_dict["cuda"] = cuda
        if plan_comparison is not UNSET:
            field_dict["plan_comparison"] = plan_comparison
        if plan_stages is not UNSET:
            field_dict["plan_stages"] = plan_stages
        if tracker_category_peak_bytes is not UNSET:
            field_dict["tracker_category_peak_bytes"] = tracker_category_peak_bytes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.torch_sim_arrangement_tracker_category_peak_bytes_item import (
            TorchSimArrangementTrackerCategoryPeakBytesItem,  # noqa: PLC0415
        )
        from ..models.torch_sim_arrangement_tracker_peak_bytes_item import TorchSimArrangementTrackerPeakBytesItem  # noqa: PLC0415
        from ..models.torch_sim_collective import TorchSimCollective  # noqa: PLC0415
        from ..models.torch_sim_convention import TorchSimConvention  # noqa: PLC0415
        from ..models.torch_sim_cuda import TorchSimCuda  # noqa: PLC0415
        from ..models.torch_sim_learning import TorchSimLearning  # noqa: PLC0415
        from ..models.torch_sim_memory import TorchSimMemory  # noqa: PLC0415
        from ..models.torch_sim_plan_comparison import TorchSimPlanComparison  # noqa: PLC0415
        from ..models.torch_sim_plan_stage import TorchSimPlanStage  # noqa: PLC0415
        from ..models.torch_sim_traffic import TorchSimTraffic  # noqa: PLC0415
        from ..models.torch_sim_wire import TorchSimWire  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = d.pop("arrangement")

        checks_pass = d.pop("checks_pass")

        collectives = []
        _collectives = d.pop("collectives")
        for collectives_item_data in _collectives:
            collectives_item = TorchSimCollective.from_dict(collectives_item_data)

            collectives.append(collectives_item)

        conventions = []
        _conventions = d.pop("conventions")
        for conventions_item_data in _conventions:
            conventions_item = []
            _conventions_item = conventions_item_data
            for conventions_item_item_data in _conventions_item:
                conventions_item_item = TorchSimConvention.from_dict(conventions_item_item_data)

                conventions_item.append(conventions_item_item)

            conventions.append(conventions_item)

        implementation = d.pop("implementation")

        learning = TorchSimLearning.from_dict(d.pop("learning"))

        memory = []
        _memory = d.pop("memory")
        for memory_item_data in _memory:
            memory_item = TorchSimMemory.from_dict(memory_item_data)

            memory.append(memory_item)

        memory_matches = d.pop("memory_matches")

        shard_degree = d.pop("shard_degree")

        step_s_mean = cast(list[float], d.pop("step_s_mean"))

        tracker_peak_bytes = []
        _tracker_peak_bytes = d.pop("tracker_peak_bytes")
        for tracker_peak_bytes_item_data in _tracker_peak_bytes:
            tracker_peak_bytes_item = TorchSimArrangementTrackerPeakBytesItem.from_dict(tracker_peak_bytes_item_data)

            tracker_peak_bytes.append(tracker_peak_bytes_item)

        traffic = TorchSimTraffic.from_dict(d.pop("traffic"))

        def _parse_wire(data: object) -> None | TorchSimWire:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                wire_type_0 = TorchSimWire.from_dict(data)

                return wire_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TorchSimWire, data)

        wire = _parse_wire(d.pop("wire"))

        def _parse_wire_within_allowance(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        wire_within_allowance = _parse_wire_within_allowance(d.pop("wire_within_allowance"))

        def _parse_cuda(data: object) -> None | TorchSimCuda | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cuda_type_0 = TorchSimCuda.from_dict(data)

                return cuda_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TorchSimCuda | Unset, data)

        cuda = _parse_cuda(d.pop("cuda", UNSET))

        _plan_comparison = d.pop("plan_comparison", UNSET)
        plan_comparison: list[TorchSimPlanComparison] | Unset = UNSET
        if _plan_comparison is not UNSET:
            plan_comparison = []
            for plan_comparison_item_data in _plan_comparison:
                plan_comparison_item = TorchSimPlanComparison.from_dict(plan_comparison_item_data)

                plan_comparison.append(plan_comparison_item)

        def _parse_plan_stages(data: object) -> list[TorchSimPlanStage] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                plan_stages_type_0 = []
                _plan_stages_type_0 = data
                for plan_stages_type_0_item_data in _plan_stages_type_0:
                    plan_stages_type_0_item = TorchSimPlanStage.from_dict(plan_stages_type_0_item_data)

                    plan_stages_type_0.append(plan_stages_type_0_item)

                return plan_stages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TorchSimPlanStage] | None | Unset, data)

        plan_stages = _parse_plan_stages(d.pop("plan_stages", UNSET))

        _tracker_category_peak_bytes = d.pop("tracker_category_peak_bytes", UNSET)
        tracker_category_peak_bytes: list[TorchSimArrangementTrackerCategoryPeakBytesItem] | Unset = UNSET
        if _tracker_category_peak_bytes is not UNSET:
            tracker_category_peak_bytes = []
            for tracker_category_peak_bytes_item_data in _tracker_category_peak_bytes:
                tracker_category_peak_bytes_item = TorchSimArrangementTrackerCategoryPeakBytesItem.from_dict(
                    tracker_category_peak_bytes_item_data
                )

                tracker_category_peak_bytes.append(tracker_category_peak_bytes_item)

        torch_sim_arrangement = cls(
            arrangement=arrangement,
            checks_pass=checks_pass,
            collectives=collectives,
            conventions=conventions,
            implementation=implementation,
            learning=learning,
            memory=memory,
            memory_matches=memory_matches,
            shard_degree=shard_degree,
            step_s_mean=step_s_mean,
            tracker_peak_bytes=tracker_peak_bytes,
            traffic=traffic,
            wire=wire,
            wire_within_allowance=wire_within_allowance,
            cuda=cuda,
            plan_comparison=plan_comparison,
            plan_stages=plan_stages,
            tracker_category_peak_bytes=tracker_category_peak_bytes,
        )

        torch_sim_arrangement.additional_properties = d
        return torch_sim_arrangement

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
