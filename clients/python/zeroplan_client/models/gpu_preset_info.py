from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gpu_generation import GpuGeneration
from ..models.gpu_preset_name import GpuPresetName
from ..models.scale_up_link import ScaleUpLink
from ..types import UNSET, Unset

T = TypeVar("T", bound="GpuPresetInfo")


@_attrs_define
class GpuPresetInfo:
    """
    Attributes:
        blackwell_class (bool): Has native MXFP8 tensor-core support.
        description (str):
        memory_bytes (int): Device memory in bytes, as the device reports it.
        memory_gib (float): memory_bytes / 2**30 (presentation).
        name (GpuPresetName):
        peak_bf16_flops (float | None): Dense (no sparsity) bf16 tensor-core peak, FLOP/s; null without bf16 tensor
            cores (V100).
        reserve_source (str): Where the reserve and fragmentation figures come from.
        source (str):
        usable_bytes (int): memory_bytes - reserve_bytes - fragmentation x memory_bytes (rounded up).
        fragmentation (float | None | Unset): Fraction of the card the allocator cannot use; null: the default 0.1.
        generation (GpuGeneration | None | Unset): Architecture generation.
        hbm_bytes_per_s (float | None | Unset): Device memory bandwidth, bytes/s.
        host_bytes_per_s (float | None | Unset): Link to host memory per GPU, per direction, bytes/s: PCIe x16 of the
            card's generation (GH200: NVLink-C2C to Grace).
        nic_bytes_per_s (float | None | Unset): Typical scale-out NIC bandwidth per GPU, per direction, bytes/s.
        peak_fp16_flops (float | None | Unset): Dense fp16 tensor-core peak, FLOP/s.
        peak_fp8_flops (float | None | Unset): Dense fp8 tensor-core peak, FLOP/s; null without fp8 tensor cores.
        reserve_bytes (int | None | Unset): CUDA context + NCCL buffers, bytes; null: the default 1,479,540,736 B (723
            MiB context + 688 MiB NCCL).
        scale_up (None | ScaleUpLink | Unset): GPU-to-GPU link inside a node.
        scale_up_bytes_per_s (float | None | Unset): That link's bandwidth per GPU, per direction (all links together),
            bytes/s.
        vendor (None | str | Unset): nvidia or amd.
    """

    blackwell_class: bool
    description: str
    memory_bytes: int
    memory_gib: float
    name: GpuPresetName
    peak_bf16_flops: float | None
    reserve_source: str
    source: str
    usable_bytes: int
    fragmentation: float | None | Unset = UNSET
    generation: GpuGeneration | None | Unset = UNSET
    hbm_bytes_per_s: float | None | Unset = UNSET
    host_bytes_per_s: float | None | Unset = UNSET
    nic_bytes_per_s: float | None | Unset = UNSET
    peak_fp16_flops: float | None | Unset = UNSET
    peak_fp8_flops: float | None | Unset = UNSET
    reserve_bytes: int | None | Unset = UNSET
    scale_up: None | ScaleUpLink | Unset = UNSET
    scale_up_bytes_per_s: float | None | Unset = UNSET
    vendor: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blackwell_class = self.blackwell_class

        description = self.description

        memory_bytes = self.memory_bytes

        memory_gib = self.memory_gib

        name = self.name.value

        peak_bf16_flops: float | None
        peak_bf16_flops = self.peak_bf16_flops

        reserve_source = self.reserve_source

        source = self.source

        usable_bytes = self.usable_bytes

        fragmentation: float | None | Unset
        if isinstance(self.fragmentation, Unset):
            fragmentation = UNSET
        else:
            fragmentation = self.fragmentation

        generation: None | str | Unset
        if isinstance(self.generation, Unset):
            generation = UNSET
        elif isinstance(self.generation, GpuGeneration):
            generation = self.generation.value
        else:
            generation = self.generation

        hbm_bytes_per_s: float | None | Unset
        if isinstance(self.hbm_bytes_per_s, Unset):
            hbm_bytes_per_s = UNSET
        else:
            hbm_bytes_per_s = self.hbm_bytes_per_s

        host_bytes_per_s: float | None | Unset
        if isinstance(self.host_bytes_per_s, Unset):
            host_bytes_per_s = UNSET
        else:
            host_bytes_per_s = self.host_bytes_per_s

        nic_bytes_per_s: float | None | Unset
        if isinstance(self.nic_bytes_per_s, Unset):
            nic_bytes_per_s = UNSET
        else:
            nic_bytes_per_s = self.nic_bytes_per_s

        peak_fp16_flops: float | None | Unset
        if isinstance(self.peak_fp16_flops, Unset):
            peak_fp16_flops = UNSET
        else:
            peak_fp16_flops = self.peak_fp16_flops

        peak_fp8_flops: float | None | Unset
        if isinstance(self.peak_fp8_flops, Unset):
            peak_fp8_flops = UNSET
        else:
            peak_fp8_flops = self.peak_fp8_flops

        reserve_bytes: int | None | Unset
        if isinstance(self.reserve_bytes, Unset):
            reserve_bytes = UNSET
        else:
            reserve_bytes = self.reserve_bytes

        scale_up: None | str | Unset
        if isinstance(self.scale_up, Unset):
            scale_up = UNSET
        elif isinstance(self.scale_up, ScaleUpLink):
            scale_up = self.scale_up.value
        else:
            scale_up = self.scale_up

        scale_up_bytes_per_s: float | None | Unset
        if isinstance(self.scale_up_bytes_per_s, Unset):
            scale_up_bytes_per_s = UNSET
        else:
            scale_up_bytes_per_s = self.scale_up_bytes_per_s

        vendor: None | str | Unset
        if isinstance(self.vendor, Unset):
            vendor = UNSET
        else:
            vendor = self.vendor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blackwell_class": blackwell_class,
                "description": description,
                "memory_bytes": memory_bytes,
                "memory_gib": memory_gib,
                "name": name,
                "peak_bf16_flops": peak_bf16_flops,
                "reserve_source": reserve_source,
                "source": source,
                "usable_bytes": usable_bytes,
            }
        )
        if fragmentation is not UNSET:
            field_dict["fragmentation"] = fragmentation
        if generation is not UNSET:
            field_dict["generation"] = generation
        if hbm_bytes_per_s is not UNSET:
            field_dict["hbm_bytes_per_s"] = hbm_bytes_per_s
        if host_bytes_per_s is not UNSET:
            field_dict["host_bytes_per_s"] = host_bytes_per_s
        if nic_bytes_per_s is not UNSET:
            field_dict["nic_bytes_per_s"] = nic_bytes_per_s
        if peak_fp16_flops is not UNSET:
            field_dict["peak_fp16_flops"] = peak_fp16_flops
        if peak_fp8_flops is not UNSET:
            field_dict["peak_fp8_flops"] = peak_fp8_flops
        if reserve_bytes is not UNSET:
            field_dict["reserve_bytes"] = reserve_bytes
        if scale_up is not UNSET:
            field_dict["scale_up"] = scale_up
        if scale_up_bytes_per_s is not UNSET:
            field_dict["scale_up_bytes_per_s"] = scale_up_bytes_per_s
        if vendor is not UNSET:
            field_dict["vendor"] = vendor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        blackwell_class = d.pop("blackwell_class")

        description = d.pop("description")

        memory_bytes = d.pop("memory_bytes")

        memory_gib = d.pop("memory_gib")

        name = GpuPresetName(d.pop("name"))

        def _parse_peak_bf16_flops(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        peak_bf16_flops = _parse_peak_bf16_flops(d.pop("peak_bf16_flops"))

        reserve_source = d.pop("reserve_source")

        source = d.pop("source")

        usable_bytes = d.pop("usable_bytes")

        def _parse_fragmentation(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        fragmentation = _parse_fragmentation(d.pop("fragmentation", UNSET))

        def _parse_generation(data: object) -> GpuGeneration | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                generation_type_0 = GpuGeneration(data)

                return generation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GpuGeneration | None | Unset, data)

        generation = _parse_generation(d.pop("generation", UNSET))

        def _parse_hbm_bytes_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        hbm_bytes_per_s = _parse_hbm_bytes_per_s(d.pop("hbm_bytes_per_s", UNSET))

        def _parse_host_bytes_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        host_bytes_per_s = _parse_host_bytes_per_s(d.pop("host_bytes_per_s", UNSET))

        def _parse_nic_bytes_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        nic_bytes_per_s = _parse_nic_bytes_per_s(d.pop("nic_bytes_per_s", UNSET))

        def _parse_peak_fp16_flops(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        peak_fp16_flops = _parse_peak_fp16_flops(d.pop("peak_fp16_flops", UNSET))

        def _parse_peak_fp8_flops(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        peak_fp8_flops = _parse_peak_fp8_flops(d.pop("peak_fp8_flops", UNSET))

        def _parse_reserve_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reserve_bytes = _parse_reserve_bytes(d.pop("reserve_bytes", UNSET))

        def _parse_scale_up(data: object) -> None | ScaleUpLink | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scale_up_type_0 = ScaleUpLink(data)

                return scale_up_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScaleUpLink | Unset, data)

        scale_up = _parse_scale_up(d.pop("scale_up", UNSET))

        def _parse_scale_up_bytes_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        scale_up_bytes_per_s = _parse_scale_up_bytes_per_s(d.pop("scale_up_bytes_per_s", UNSET))

        def _parse_vendor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor = _parse_vendor(d.pop("vendor", UNSET))

        gpu_preset_info = cls(
            blackwell_class=blackwell_class,
            description=description,
            memory_bytes=memory_bytes,
            memory_gib=memory_gib,
            name=name,
            peak_bf16_flops=peak_bf16_flops,
            reserve_source=reserve_source,
            source=source,
            usable_bytes=usable_bytes,
            fragmentation=fragmentation,
            generation=generation,
            hbm_bytes_per_s=hbm_bytes_per_s,
            host_bytes_per_s=host_bytes_per_s,
            nic_bytes_per_s=nic_bytes_per_s,
            peak_fp16_flops=peak_fp16_flops,
            peak_fp8_flops=peak_fp8_flops,
            reserve_bytes=reserve_bytes,
            scale_up=scale_up,
            scale_up_bytes_per_s=scale_up_bytes_per_s,
            vendor=vendor,
        )

        gpu_preset_info.additional_properties = d
        return gpu_preset_info

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
