from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.activation_memory import ActivationMemory
    from ..models.framework_estimate import FrameworkEstimate
    from ..models.stage_memory import StageMemory
    from ..models.state_bytes import StateBytes


T = TypeVar("T", bound="Memory")


@_attrs_define
class Memory:
    """
    Attributes:
        activations (ActivationMemory):
        activations_bytes (int): Activation bytes on each GPU.
        activations_counted (bool): Whether per_gpu_bytes includes activations; false without a training shape and
            architecture.
        breakdown (list[StateBytes]):
        bytes_per_weight (float): model_state_bytes / parameter_count (activations excluded).
        card_bytes (int): Memory of the card, as the device reports it.
        card_gib (float):
        fits (bool): per_gpu_bytes <= usable_bytes, decided in integer bytes.
        fragmentation_bytes (int): ceil(fragmentation x card_bytes): held by the allocator, unusable.
        headroom_bytes (int): usable_bytes - per_gpu_bytes; negative when it does not fit.
        host_bytes (int): Host memory per node (not per GPU) for offloaded state; 0 without offload.
        host_fits (bool): host_bytes <= host_memory_bytes (true when that is not given).
        host_memory_bytes (int | None): cluster.host_memory_bytes: the node's host memory, or null.
        model_state_bytes (int): Model-state bytes on each GPU.
        per_gpu_bytes (int): Bytes each GPU holds: model states on the GPU, the working set and activations.
        per_gpu_gb (float): per_gpu_bytes / 1e9 (presentation).
        per_gpu_gib (float): per_gpu_bytes / 2**30 (presentation).
        replicated_bytes_per_weight (float): Bytes per weight that every GPU holds in full (r).
        replicated_floor_bytes (int): Replicated model states, the working set and activations: the floor no GPU count
            lowers.
        reserve_bytes (int): CUDA context and NCCL buffers: bytes of the card a job cannot use.
        sharded_bytes_per_weight (float): Bytes per weight divided among the GPUs (s, before / N).
        stages (list[StageMemory]): Each pipeline stage's GPUs (one stage without pipeline parallelism); per_gpu_bytes
            is the busiest's, and breakdown, working set and activations above are that stage's.
        usable_arithmetic (str):
        usable_bytes (int): card_bytes - reserve_bytes - fragmentation_bytes: what fits compares to.
        working_set_bytes (int): Held unsharded for a moment on every GPU: ZeRO-3's gathered units and unit gradients,
            or DDP/ZeRO-1/2's gradient buckets (0 when the model's units are unknown; see warnings).
        framework_estimate (FrameworkEstimate | None | Unset): DeepSpeed's estimator, with precision deepspeed under
            zero2 or zero3; else null.
    """

    activations: ActivationMemory
    activations_bytes: int
    activations_counted: bool
    breakdown: list[StateBytes]
    bytes_per_weight: float
    card_bytes: int
    card_gib: float
    fits: bool
    fragmentation_bytes: int
    headroom_bytes: int
    host_bytes: int
    host_fits: bool
    host_memory_bytes: int | None
    model_state_bytes: int
    per_gpu_bytes: int
    per_gpu_gb: float
    per_gpu_gib: float
    replicated_bytes_per_weight: float
    replicated_floor_bytes: int
    reserve_bytes: int
    sharded_bytes_per_weight: float
    stages: list[StageMemory]
    usable_arithmetic: str
    usable_bytes: int
    working_set_bytes: int
    framework_estimate: FrameworkEstimate | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.framework_estimate import FrameworkEstimate  # noqa: PLC0415

        activations = self.activations.to_dict()

        activations_bytes = self.activations_bytes

        activations_counted = self.activations_counted

        breakdown = []
        for breakdown_item_data in self.breakdown:
            breakdown_item = breakdown_item_data.to_dict()
            breakdown.append(breakdown_item)

        bytes_per_weight = self.bytes_per_weight

        card_bytes = self.card_bytes

        card_gib = self.card_gib

        fits = self.fits

        fragmentation_bytes = self.fragmentation_bytes

        headroom_bytes = self.headroom_bytes

        host_bytes = self.host_bytes

        host_fits = self.host_fits

        host_memory_bytes: int | None
        host_memory_bytes = self.host_memory_bytes

        model_state_bytes = self.model_state_bytes

        per_gpu_bytes = self.per_gpu_bytes

        per_gpu_gb = self.per_gpu_gb

        per_gpu_gib = self.per_gpu_gib

        replicated_bytes_per_weight = self.replicated_bytes_per_weight

        replicated_floor_bytes = self.replicated_floor_bytes

        reserve_bytes = self.reserve_bytes

        sharded_bytes_per_weight = self.sharded_bytes_per_weight

        stages = []
        for stages_item_data in self.stages:
            stages_item = stages_item_data.to_dict()
            stages.append(stages_item)

        usable_arithmetic = self.usable_arithmetic

        usable_bytes = self.usable_bytes

        working_set_bytes = self.working_set_bytes

        framework_estimate: dict[str, Any] | None | Unset
        if isinstance(self.framework_estimate, Unset):
            framework_estimate = UNSET
        elif isinstance(self.framework_estimate, FrameworkEstimate):
            framework_estimate = self.framework_estimate.to_dict()
        else:
            framework_estimate = self.framework_estimate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activations": activations,
                "activations_bytes": activations_bytes,
                "activations_counted": activations_counted,
                "breakdown": breakdown,
                "bytes_per_weight": bytes_per_weight,
                "card_bytes": card_bytes,
                "card_gib": card_gib,
                "fits": fits,
                "fragmentation_bytes": fragmentation_bytes,
                "headroom_bytes": headroom_bytes,
                "host_bytes": host_bytes,
                "host_fits": host_fits,
                "host_memory_bytes": host_memory_bytes,
                "model_state_bytes": model_state_bytes,
                "per_gpu_bytes": per_gpu_bytes,
                "per_gpu_gb": per_gpu_gb,
                "per_gpu_gib": per_gpu_gib,
                "replicated_bytes_per_weight": replicated_bytes_per_weight,
                "replicated_floor_bytes": replicated_floor_bytes,
                "reserve_bytes": reserve_bytes,
                "sharded_bytes_per_weight": sharded_bytes_per_weight,
                "stages": stages,
                "usable_arithmetic": usable_arithmetic,
                "usable_bytes": usable_bytes,
                "working_set_bytes": working_set_bytes,
            }
        )
        if framework_estimate is not UNSET:
            field_dict["framework_estimate"] = framework_estimate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.activation_memory import ActivationMemory  # noqa: PLC0415
        from ..models.framework_estimate import FrameworkEstimate  # noqa: PLC0415
        from ..models.stage_memory import StageMemory  # noqa: PLC0415
        from ..models.state_bytes import StateBytes  # noqa: PLC0415

        d = dict(src_dict)
        activations = ActivationMemory.from_dict(d.pop("activations"))

        activations_bytes = d.pop("activations_bytes")

        activations_counted = d.pop("activations_counted")

        breakdown = []
        _breakdown = d.pop("breakdown")
        for breakdown_item_data in _breakdown:
            breakdown_item = StateBytes.from_dict(breakdown_item_data)

            breakdown.append(breakdown_item)

        bytes_per_weight = d.pop("bytes_per_weight")

        card_bytes = d.pop("card_bytes")

        card_gib = d.pop("card_gib")

        fits = d.pop("fits")

        fragmentation_bytes = d.pop("fragmentation_bytes")

        headroom_bytes = d.pop("headroom_bytes")

        host_bytes = d.pop("host_bytes")

        host_fits = d.pop("host_fits")

        def _parse_host_memory_bytes(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        host_memory_bytes = _parse_host_memory_bytes(d.pop("host_memory_bytes"))

        model_state_bytes = d.pop("model_state_bytes")

        per_gpu_bytes = d.pop("per_gpu_bytes")

        per_gpu_gb = d.pop("per_gpu_gb")

        per_gpu_gib = d.pop("per_gpu_gib")

        replicated_bytes_per_weight = d.pop("replicated_bytes_per_weight")

        replicated_floor_bytes = d.pop("replicated_floor_bytes")

        reserve_bytes = d.pop("reserve_bytes")

        sharded_bytes_per_weight = d.pop("sharded_bytes_per_weight")

        stages = []
        _stages = d.pop("stages")
        for stages_item_data in _stages:
            stages_item = StageMemory.from_dict(stages_item_data)

            stages.append(stages_item)

        usable_arithmetic = d.pop("usable_arithmetic")

        usable_bytes = d.pop("usable_bytes")

        working_set_bytes = d.pop("working_set_bytes")

        def _parse_framework_estimate(data: object) -> FrameworkEstimate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                framework_estimate_type_0 = FrameworkEstimate.from_dict(data)

                return framework_estimate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FrameworkEstimate | None | Unset, data)

        framework_estimate = _parse_framework_estimate(d.pop("framework_estimate", UNSET))

        memory = cls(
            activations=activations,
            activations_bytes=activations_bytes,
            activations_counted=activations_counted,
            breakdown=breakdown,
            bytes_per_weight=bytes_per_weight,
            card_bytes=card_bytes,
            card_gib=card_gib,
            fits=fits,
            fragmentation_bytes=fragmentation_bytes,
            headroom_bytes=headroom_bytes,
            host_bytes=host_bytes,
            host_fits=host_fits,
            host_memory_bytes=host_memory_bytes,
            model_state_bytes=model_state_bytes,
            per_gpu_bytes=per_gpu_bytes,
            per_gpu_gb=per_gpu_gb,
            per_gpu_gib=per_gpu_gib,
            replicated_bytes_per_weight=replicated_bytes_per_weight,
            replicated_floor_bytes=replicated_floor_bytes,
            reserve_bytes=reserve_bytes,
            sharded_bytes_per_weight=sharded_bytes_per_weight,
            stages=stages,
            usable_arithmetic=usable_arithmetic,
            usable_bytes=usable_bytes,
            working_set_bytes=working_set_bytes,
            framework_estimate=framework_estimate,
        )

        memory.additional_properties = d
        return memory

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
