from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.arrangement_fit import ArrangementFit


T = TypeVar("T", bound="FitResponse")


@_attrs_define
class FitResponse:
    """
    Attributes:
        activations_bytes (int): Activation bytes on every GPU, included in per_gpu_bytes, with the whole model on each
            GPU; with a layout each stage holds its own share (the tables hold the busiest GPU's bytes).
        activations_counted (bool): Whether per_gpu_bytes includes activations (see warnings).
        active_parameter_count (int): Parameters one token uses (top_k of the routed experts in a mixture of experts;
            all of them in a dense model). Compute counts these; memory holds parameter_count.
        arrangements (list[ArrangementFit]):
        card_bytes (int):
        card_gib (float):
        fragmentation_bytes (int): ceil(fragmentation x card_bytes): held by the allocator, unusable.
        gpus_per_node (int):
        grid (list[int]):
        parameter_count (int):
        reserve_bytes (int): CUDA context and NCCL buffers: bytes of each card a job cannot use.
        usable_bytes (int): card_bytes - reserve_bytes - fragmentation_bytes: what fit compares to.
        warnings (list[str]):
        world_size (int | None): The GPU count asked about (cluster.world_size); null when not given.
    """

    activations_bytes: int
    activations_counted: bool
    active_parameter_count: int
    arrangements: list[ArrangementFit]
    card_bytes: int
    card_gib: float
    fragmentation_bytes: int
    gpus_per_node: int
    grid: list[int]
    parameter_count: int
    reserve_bytes: int
    usable_bytes: int
    warnings: list[str]
    world_size: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        activations_bytes = self.activations_bytes

        activations_counted = self.activations_counted

        active_parameter_count = self.active_parameter_count

        arrangements = []
        for arrangements_item_data in self.arrangements:
            arrangements_item = arrangements_item_data.to_dict()
            arrangements.append(arrangements_item)

        card_bytes = self.card_bytes

        card_gib = self.card_gib

        fragmentation_bytes = self.fragmentation_bytes

        gpus_per_node = self.gpus_per_node

        grid = self.grid

        parameter_count = self.parameter_count

        reserve_bytes = self.reserve_bytes

        usable_bytes = self.usable_bytes

        warnings = self.warnings

        world_size: int | None
        world_size = self.world_size

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activations_bytes": activations_bytes,
                "activations_counted": activations_counted,
                "active_parameter_count": active_parameter_count,
                "arrangements": arrangements,
                "card_bytes": card_bytes,
                "card_gib": card_gib,
                "fragmentation_bytes": fragmentation_bytes,
                "gpus_per_node": gpus_per_node,
                "grid": grid,
                "parameter_count": parameter_count,
                "reserve_bytes": reserve_bytes,
                "usable_bytes": usable_bytes,
                "warnings": warnings,
                "world_size": world_size,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.arrangement_fit import ArrangementFit  # noqa: PLC0415

        d = dict(src_dict)
        activations_bytes = d.pop("activations_bytes")

        activations_counted = d.pop("activations_counted")

        active_parameter_count = d.pop("active_parameter_count")

        arrangements = []
        _arrangements = d.pop("arrangements")
        for arrangements_item_data in _arrangements:
            arrangements_item = ArrangementFit.from_dict(arrangements_item_data)

            arrangements.append(arrangements_item)

        card_bytes = d.pop("card_bytes")

        card_gib = d.pop("card_gib")

        fragmentation_bytes = d.pop("fragmentation_bytes")

        gpus_per_node = d.pop("gpus_per_node")

        grid = cast(list[int], d.pop("grid"))

        parameter_count = d.pop("parameter_count")

        reserve_bytes = d.pop("reserve_bytes")

        usable_bytes = d.pop("usable_bytes")

        warnings = cast(list[str], d.pop("warnings"))

        def _parse_world_size(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        world_size = _parse_world_size(d.pop("world_size"))

        fit_response = cls(
            activations_bytes=activations_bytes,
            activations_counted=activations_counted,
            active_parameter_count=active_parameter_count,
            arrangements=arrangements,
            card_bytes=card_bytes,
            card_gib=card_gib,
            fragmentation_bytes=fragmentation_bytes,
            gpus_per_node=gpus_per_node,
            grid=grid,
            parameter_count=parameter_count,
            reserve_bytes=reserve_bytes,
            usable_bytes=usable_bytes,
            warnings=warnings,
            world_size=world_size,
        )

        fit_response.additional_properties = d
        return fit_response

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
