from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.checkpoint_save import CheckpointSave
from ..models.storage_preset_name import StoragePresetName
from ..types import UNSET, Unset

T = TypeVar("T", bound="Checkpoint")


@_attrs_define
class Checkpoint:
    """How often the run saves, where and how; the bytes come from the model states the plan counts.

    Attributes:
        interval_steps (int | Literal['auto'] | Unset): Optimizer steps between checkpoints, 1 to 1e9, or auto: the
            optimum of Daly 2006 (a higher-order Young 1974) for the stall per checkpoint and the job's mean time between
            failures, rounded to whole steps. Default: 'auto'.
        save (CheckpointSave | Unset):
        storage (None | StoragePresetName | Unset): Where checkpoints go, a preset: llama3-tectonic (the default, 976.6
            MB/s per node) or nvme-local (6.8 GB/s per node). Or give storage_bytes_per_s_per_node.
        storage_bytes_per_s_per_node (float | None | Unset): Bytes per second one node writes and reads checkpoints at,
            1e6 to 1e13, instead of a storage preset.
    """

    interval_steps: int | Literal["auto"] | Unset = "auto"
    save: CheckpointSave | Unset = UNSET
    storage: None | StoragePresetName | Unset = UNSET
    storage_bytes_per_s_per_node: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        interval_steps: int | Literal["auto"] | Unset
        if isinstance(self.interval_steps, Unset):
            interval_steps = UNSET
        else:
            interval_steps = self.interval_steps

        save: str | Unset = UNSET
        if not isinstance(self.save, Unset):
            save = self.save.value

        storage: None | str | Unset
        if isinstance(self.storage, Unset):
            storage = UNSET
        elif isinstance(self.storage, StoragePresetName):
            storage = self.storage.value
        else:
            storage = self.storage

        storage_bytes_per_s_per_node: float | None | Unset
        if isinstance(self.storage_bytes_per_s_per_node, Unset):
            storage_bytes_per_s_per_node = UNSET
        else:
            storage_bytes_per_s_per_node = self.storage_bytes_per_s_per_node

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if interval_steps is not UNSET:
            field_dict["interval_steps"] = interval_steps
        if save is not UNSET:
            field_dict["save"] = save
        if storage is not UNSET:
            field_dict["storage"] = storage
        if storage_bytes_per_s_per_node is not UNSET:
            field_dict["storage_bytes_per_s_per_node"] = storage_bytes_per_s_per_node

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_interval_steps(data: object) -> int | Literal["auto"] | Unset:
            if isinstance(data, Unset):
                return data
            interval_steps_type_1 = cast(Literal["auto"], data)
            if interval_steps_type_1 != "auto":
                raise ValueError(f"interval_steps_type_1 must match const 'auto', got '{interval_steps_type_1}'")
            return interval_steps_type_1
            return cast(int | Literal["auto"] | Unset, data)

        interval_steps = _parse_interval_steps(d.pop("interval_steps", UNSET))

        _save = d.pop("save", UNSET)
        save: CheckpointSave | Unset
        if isinstance(_save, Unset):
            save = UNSET
        else:
            save = CheckpointSave(_save)

        def _parse_storage(data: object) -> None | StoragePresetName | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                storage_type_0 = StoragePresetName(data)

                return storage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StoragePresetName | Unset, data)

        storage = _parse_storage(d.pop("storage", UNSET))

        def _parse_storage_bytes_per_s_per_node(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        storage_bytes_per_s_per_node = _parse_storage_bytes_per_s_per_node(d.pop("storage_bytes_per_s_per_node", UNSET))

        checkpoint = cls(
            interval_steps=interval_steps,
            save=save,
            storage=storage,
            storage_bytes_per_s_per_node=storage_bytes_per_s_per_node,
        )

        return checkpoint
