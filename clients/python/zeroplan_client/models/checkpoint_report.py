from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CheckpointReport")


@_attrs_define
class CheckpointReport:
    """Checkpoints and failures as the plan prices them (service.time.goodput).

    Attributes:
        bytes_ (int): Bytes of one checkpoint: parameters, master weights and moments, once.
        bytes_per_node (int): ceil(bytes / nodes): what each node writes and reads.
        interruptions_per_gpu_hour (float):
        interval_s (float | None): interval_steps x step_s; null: none.
        interval_steps (int | None): Steps between checkpoints; null: none (no failures).
        job_mtbf_hours (float | None): 1 / (interruptions_per_gpu_hour x world_size); null: none.
        optimal_interval_s (float | None): Daly 2006's higher-order optimum: sqrt(2 delta M)(1 + sqrt(delta/2M)/3 +
            delta/18M) - delta, delta the stall, M the job's MTBF; null without failures.
        restart_s (float): cluster.failures.restart_s + write_s (reading the checkpoint back).
        save (str): synchronous or asynchronous.
        sources (list[str]): Where the storage and failure figures come from.
        staged_bytes_per_gpu (int): The checkpointed states one GPU holds: what an asynchronous save copies to the host.
        stall_s (float): Training stopped per checkpoint: write_s (synchronous), or staged_bytes_per_gpu over the host
            link plus any wait for a write longer than the interval (asynchronous).
        storage_bytes_per_s_per_node (float):
        write_s (float): bytes_per_node / storage_bytes_per_s_per_node.
        young_interval_s (float | None): Young 1974: sqrt(2 delta M); null without failures.
    """

    bytes_: int
    bytes_per_node: int
    interruptions_per_gpu_hour: float
    interval_s: float | None
    interval_steps: int | None
    job_mtbf_hours: float | None
    optimal_interval_s: float | None
    restart_s: float
    save: str
    sources: list[str]
    staged_bytes_per_gpu: int
    stall_s: float
    storage_bytes_per_s_per_node: float
    write_s: float
    young_interval_s: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_ = self.bytes_

        bytes_per_node = self.bytes_per_node

        interruptions_per_gpu_hour = self.interruptions_per_gpu_hour

        interval_s: float | None
        interval_s = self.interval_s

        interval_steps: int | None
        interval_steps = self.interval_steps

        job_mtbf_hours: float | None
        job_mtbf_hours = self.job_mtbf_hours

        optimal_interval_s: float | None
        optimal_interval_s = self.optimal_interval_s

        restart_s = self.restart_s

        save = self.save

        sources = self.sources

        staged_bytes_per_gpu = self.staged_bytes_per_gpu

        stall_s = self.stall_s

        storage_bytes_per_s_per_node = self.storage_bytes_per_s_per_node

        write_s = self.write_s

        young_interval_s: float | None
        young_interval_s = self.young_interval_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes": bytes_,
                "bytes_per_node": bytes_per_node,
                "interruptions_per_gpu_hour": interruptions_per_gpu_hour,
                "interval_s": interval_s,
                "interval_steps": interval_steps,
                "job_mtbf_hours": job_mtbf_hours,
                "optimal_interval_s": optimal_interval_s,
                "restart_s": restart_s,
                "save": save,
                "sources": sources,
                "staged_bytes_per_gpu": staged_bytes_per_gpu,
                "stall_s": stall_s,
                "storage_bytes_per_s_per_node": storage_bytes_per_s_per_node,
                "write_s": write_s,
                "young_interval_s": young_interval_s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bytes_ = d.pop("bytes")

        bytes_per_node = d.pop("bytes_per_node")

        interruptions_per_gpu_hour = d.pop("interruptions_per_gpu_hour")

        def _parse_interval_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        interval_s = _parse_interval_s(d.pop("interval_s"))

        def _parse_interval_steps(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        interval_steps = _parse_interval_steps(d.pop("interval_steps"))

        def _parse_job_mtbf_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        job_mtbf_hours = _parse_job_mtbf_hours(d.pop("job_mtbf_hours"))

        def _parse_optimal_interval_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        optimal_interval_s = _parse_optimal_interval_s(d.pop("optimal_interval_s"))

        restart_s = d.pop("restart_s")

        save = d.pop("save")

        sources = cast(list[str], d.pop("sources"))

        staged_bytes_per_gpu = d.pop("staged_bytes_per_gpu")

        stall_s = d.pop("stall_s")

        storage_bytes_per_s_per_node = d.pop("storage_bytes_per_s_per_node")

        write_s = d.pop("write_s")

        def _parse_young_interval_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        young_interval_s = _parse_young_interval_s(d.pop("young_interval_s"))

        checkpoint_report = cls(
            bytes_=bytes_,
            bytes_per_node=bytes_per_node,
            interruptions_per_gpu_hour=interruptions_per_gpu_hour,
            interval_s=interval_s,
            interval_steps=interval_steps,
            job_mtbf_hours=job_mtbf_hours,
            optimal_interval_s=optimal_interval_s,
            restart_s=restart_s,
            save=save,
            sources=sources,
            staged_bytes_per_gpu=staged_bytes_per_gpu,
            stall_s=stall_s,
            storage_bytes_per_s_per_node=storage_bytes_per_s_per_node,
            write_s=write_s,
            young_interval_s=young_interval_s,
        )

        checkpoint_report.additional_properties = d
        return checkpoint_report

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
