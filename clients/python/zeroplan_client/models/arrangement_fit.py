from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fit_cell import FitCell
    from ..models.parallelism_echo import ParallelismEcho


T = TypeVar("T", bound="ArrangementFit")


@_attrs_define
class ArrangementFit:
    """
    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        min_gpus (int | None): The answer: the smallest GPU count /v1/plan accepts (part of one node, or whole nodes;
            with a layout, one it can run; with training.global_batch_size, one it splits over in whole micro-batches) at
            which this arrangement fits; every smaller such count does not. Null when none does.
        min_gpus_exact (int | None): Where the per-GPU bytes meet the usable bytes, any integer GPU count (the ZeRO
            arithmetic's boundary; past one node it may not be a whole number of nodes: min_gpus is the job to ask for).
            Null when none fits.
        min_gpus_on_grid (int | None): Smallest grid GPU count up to max_gpus that fits.
        min_gpus_whole_nodes (int | None): Smallest whole-node GPU count (multiple of G) whose bytes fit: the bytes
            alone, as min_gpus_exact (a global batch may not split over it; min_gpus is the job to ask for).
        never_fits (bool): No GPU count holds the bytes: the replicated floor alone does not fit. With
            training.global_batch_size, min_gpus may be null while this is false: the bytes fit from min_gpus_exact, but no
            count from there splits the batch (the reason says so).
        reason (str): Why it fits from where it does, or the floor that stops it.
        replicated_bytes_per_weight (float):
        replicated_floor_bytes (int):
        sharded_bytes_per_weight (float):
        table (list[FitCell]): Per-GPU bytes over the grid (the busiest GPU with a layout; grid counts the layout cannot
            run on, or a global batch does not split over, are left out).
        at_world_size (FitCell | None | Unset): With cluster.world_size: the per-GPU bytes there and whether they fit;
            else null.
        parallelism (None | ParallelismEcho | Unset): With a layout: the layout at min_gpus (its data-parallel degree
            and micro-batches); null without one, or when nothing fits.
    """

    arrangement: ArrangementName
    min_gpus: int | None
    min_gpus_exact: int | None
    min_gpus_on_grid: int | None
    min_gpus_whole_nodes: int | None
    never_fits: bool
    reason: str
    replicated_bytes_per_weight: float
    replicated_floor_bytes: int
    sharded_bytes_per_weight: float
    table: list[FitCell]
    at_world_size: FitCell | None | Unset = UNSET
    parallelism: None | ParallelismEcho | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.fit_cell import FitCell  # noqa: PLC0415
        from ..models.parallelism_echo import ParallelismEcho  # noqa: PLC0415

        arrangement = self.arrangement.value

        min_gpus: int | None
        min_gpus = self.min_gpus

        min_gpus_exact: int | None
        min_gpus_exact = self.min_gpus_exact

        min_gpus_on_grid: int | None
        min_gpus_on_grid = self.min_gpus_on_grid

        min_gpus_whole_nodes: int | None
        min_gpus_whole_nodes = self.min_gpus_whole_nodes

        never_fits = self.never_fits

        reason = self.reason

        replicated_bytes_per_weight = self.replicated_bytes_per_weight

        replicated_floor_bytes = self.replicated_floor_bytes

        sharded_bytes_per_weight = self.sharded_bytes_per_weight

        table = []
        for table_item_data in self.table:
            table_item = table_item_data.to_dict()
            table.append(table_item)

        at_world_size: dict[str, Any] | None | Unset
        if isinstance(self.at_world_size, Unset):
            at_world_size = UNSET
        elif isinstance(self.at_world_size, FitCell):
            at_world_size = self.at_world_size.to_dict()
        else:
            at_world_size = self.at_world_size

        parallelism: dict[str, Any] | None | Unset
        if isinstance(self.parallelism, Unset):
            parallelism = UNSET
        elif isinstance(self.parallelism, ParallelismEcho):
            parallelism = self.parallelism.to_dict()
        else:
            parallelism = self.parallelism

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "min_gpus": min_gpus,
                "min_gpus_exact": min_gpus_exact,
                "min_gpus_on_grid": min_gpus_on_grid,
                "min_gpus_whole_nodes": min_gpus_whole_nodes,
                "never_fits": never_fits,
                "reason": reason,
                "replicated_bytes_per_weight": replicated_bytes_per_weight,
                "replicated_floor_bytes": replicated_floor_bytes,
                "sharded_bytes_per_weight": sharded_bytes_per_weight,
                "table": table,
            }
        )
        if at_world_size is not UNSET:
            field_dict["at_world_size"] = at_world_size
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fit_cell import FitCell  # noqa: PLC0415
        from ..models.parallelism_echo import ParallelismEcho  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        def _parse_min_gpus(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus = _parse_min_gpus(d.pop("min_gpus"))

        def _parse_min_gpus_exact(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus_exact = _parse_min_gpus_exact(d.pop("min_gpus_exact"))

        def _parse_min_gpus_on_grid(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus_on_grid = _parse_min_gpus_on_grid(d.pop("min_gpus_on_grid"))

        def _parse_min_gpus_whole_nodes(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        min_gpus_whole_nodes = _parse_min_gpus_whole_nodes(d.pop("min_gpus_whole_nodes"))

        never_fits = d.pop("never_fits")

        reason = d.pop("reason")

        replicated_bytes_per_weight = d.pop("replicated_bytes_per_weight")

        replicated_floor_bytes = d.pop("replicated_floor_bytes")

        sharded_bytes_per_weight = d.pop("sharded_bytes_per_weight")

        table = []
        _table = d.pop("table")
        for table_item_data in _table:
            table_item = FitCell.from_dict(table_item_data)

            table.append(table_item)

        def _parse_at_world_size(data: object) -> FitCell | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                at_world_size_type_0 = FitCell.from_dict(data)

                return at_world_size_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FitCell | None | Unset, data)

        at_world_size = _parse_at_world_size(d.pop("at_world_size", UNSET))

        def _parse_parallelism(data: object) -> None | ParallelismEcho | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parallelism_type_0 = ParallelismEcho.from_dict(data)

                return parallelism_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ParallelismEcho | Unset, data)

        parallelism = _parse_parallelism(d.pop("parallelism", UNSET))

        arrangement_fit = cls(
            arrangement=arrangement,
            min_gpus=min_gpus,
            min_gpus_exact=min_gpus_exact,
            min_gpus_on_grid=min_gpus_on_grid,
            min_gpus_whole_nodes=min_gpus_whole_nodes,
            never_fits=never_fits,
            reason=reason,
            replicated_bytes_per_weight=replicated_bytes_per_weight,
            replicated_floor_bytes=replicated_floor_bytes,
            sharded_bytes_per_weight=sharded_bytes_per_weight,
            table=table,
            at_world_size=at_world_size,
            parallelism=parallelism,
        )

        arrangement_fit.additional_properties = d
        return arrangement_fit

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
