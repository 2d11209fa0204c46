from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.gpu_preset_name import GpuPresetName
from ..models.link_preset_name import LinkPresetName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.failures import Failures
    from ..models.link_spec import LinkSpec


T = TypeVar("T", bound="Cluster")


@_attrs_define
class Cluster:
    """A card, GPUs per node and the world size (N, the data-parallel GPU count).

    Attributes:
        world_size (int): Data-parallel GPU count (N): at most gpus_per_node (part of one node) or a multiple of it
            (whole nodes).
        currency (str | Unset): ISO 4217 code of the currency of gpu_hour_price and of the answer's cost. Default:
            'USD'.
        failures (Failures | None | Unset): Interruptions of the job and the cost of a restart. Default: Llama 3 405B's
            published rate (Dubey et al. 2024, section 3.3.4) and a 600 s re-launch.
        fragmentation (float | None | Unset): Fraction of the card the allocator cannot use (fragmentation). Default:
            the GPU preset's, 0 with gpu_memory_bytes.
        gpu (GpuPresetName | None | Unset): A GPU preset; see GET /v1/presets.
        gpu_hour_price (float | None | Unset): Price of one GPU-hour, in cluster.currency; with training.total_tokens
            the answer's time holds the run's cost, failures and checkpoints included.
        gpu_memory_bytes (int | None | Unset): Memory of one GPU, bytes; with no reserve unless cluster.reserve_bytes or
            cluster.fragmentation says otherwise.
        gpus_per_node (int | Unset): GPUs per node (G). Default: 8.
        host_memory_bytes (int | None | Unset): Host (CPU) memory of one node, bytes. When given, a plan whose offloaded
            state needs more per node does not fit; null: not checked.
        host_memory_bytes_per_s (float | Unset): Host memory bandwidth of one node, bytes/s: the CPU optimizer step
            under offload streams its state through it. Default 300e9, an assumption: about half the 614.4 GB/s peak of two
            8-channel DDR5-4800 sockets. Default: 300000000000.0.
        link_spec (LinkSpec | None | Unset): Explicit link bandwidths and latencies, instead of a `links` preset name.
        links (LinkPresetName | None | Unset): Link bandwidths and latencies: a preset name (see GET /v1/presets); or
            give `link_spec`. Default: the links of the GPU preset's generation (A100: nvlink3-ib200, H100/H200:
            nvlink4-ib400, B200/B300: nvlink5-ib800, others from the preset's own link figures); `seed` for seed-80gb or a
            card given by its memory.
        peak_flops_per_s (float | None | Unset): Dense peak FLOP/s of one GPU, 1e9 to 1e18 (bounds that keep every time
            finite); default the GPU preset's.
        reserve_bytes (int | None | Unset): Bytes of each card a job cannot use: CUDA context and NCCL buffers. Default:
            the GPU preset's (see GET /v1/presets), 0 with gpu_memory_bytes.
    """

    world_size: int
    currency: str | Unset = "USD"
    failures: Failures | None | Unset = UNSET
    fragmentation: float | None | Unset = UNSET
    gpu: GpuPresetName | None | Unset = UNSET
    gpu_hour_price: float | None | Unset = UNSET
    gpu_memory_bytes: int | None | Unset = UNSET
    gpus_per_node: int | Unset = 8
    host_memory_bytes: int | None | Unset = UNSET
    host_memory_bytes_per_s: float | Unset = 300000000000.0
    link_spec: LinkSpec | None | Unset = UNSET
    links: LinkPresetName | None | Unset = UNSET
    peak_flops_per_s: float | None | Unset = UNSET
    reserve_bytes: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.failures import Failures  # noqa: PLC0415
        from ..models.link_spec import LinkSpec  # noqa: PLC0415

        world_size = self.world_size

        currency = self.currency

        failures: dict[str, Any] | None | Unset
        if isinstance(self.failures, Unset):
            failures = UNSET
        elif isinstance(self.failures, Failures):
            failures = self.failures.to_dict()
        else:
            failures = self.failures

        fragmentation: float | None | Unset
        if isinstance(self.fragmentation, Unset):
            fragmentation = UNSET
        else:
            fragmentation = self.fragmentation

        gpu: None | str | Unset
        if isinstance(self.gpu, Unset):
            gpu = UNSET
        elif isinstance(self.gpu, GpuPresetName):
            gpu = self.gpu.value
        else:
            gpu = self.gpu

        gpu_hour_price: float | None | Unset
        if isinstance(self.gpu_hour_price, Unset):
            gpu_hour_price = UNSET
        else:
            gpu_hour_price = self.gpu_hour_price

        gpu_memory_bytes: int | None | Unset
        if isinstance(self.gpu_memory_bytes, Unset):
            gpu_memory_bytes = UNSET
        else:
            gpu_memory_bytes = self.gpu_memory_bytes

        gpus_per_node = self.gpus_per_node

        host_memory_bytes: int | None | Unset
        if isinstance(self.host_memory_bytes, Unset):
            host_memory_bytes = UNSET
        else:
            host_memory_bytes = self.host_memory_bytes

        host_memory_bytes_per_s = self.host_memory_bytes_per_s

        link_spec: dict[str, Any] | None | Unset
        if isinstance(self.link_spec, Unset):
            link_spec = UNSET
        elif isinstance(self.link_spec, LinkSpec):
            link_spec = self.link_spec.to_dict()
        else:
            link_spec = self.link_spec

        links: None | str | Unset
        if isinstance(self.links, Unset):
            links = UNSET
        elif isinstance(self.links, LinkPresetName):
            links = self.links.value
        else:
            links = self.links

        peak_flops_per_s: float | None | Unset
        if isinstance(self.peak_flops_per_s, Unset):
            peak_flops_per_s = UNSET
        else:
            peak_flops_per_s = self.peak_flops_per_s

        reserve_bytes: int | None | Unset
        if isinstance(self.reserve_bytes, Unset):
            reserve_bytes = UNSET
        else:
            reserve_bytes = self.reserve_bytes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "world_size": world_size,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency
        if failures is not UNSET:
            field_dict["failures"] = failures
        if fragmentation is not UNSET:
            field_dict["fragmentation"] = fragmentation
        if gpu is not UNSET:
            field_dict["gpu"] = gpu
        if gpu_hour_price is not UNSET:
            field_dict["gpu_hour_price"] = gpu_hour_price
        if gpu_memory_bytes is not UNSET:
            field_dict["gpu_memory_bytes"] = gpu_memory_bytes
        if gpus_per_node is not UNSET:
            field_dict["gpus_per_node"] = gpus_per_node
        if host_memory_bytes is not UNSET:
            field_dict["host_memory_bytes"] = host_memory_bytes
        if host_memory_bytes_per_s is not UNSET:
            field_dict["host_memory_bytes_per_s"] = host_memory_bytes_per_s
        if link_spec is not UNSET:
            field_dict["link_spec"] = link_spec
        if links is not UNSET:
            field_dict["links"] = links
        if peak_flops_per_s is not UNSET:
            field_dict["peak_flops_per_s"] = peak_flops_per_s
        if reserve_bytes is not UNSET:
            field_dict["reserve_bytes"] = reserve_bytes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.failures import Failures  # noqa: PLC0415
        from ..models.link_spec import LinkSpec  # noqa: PLC0415

        d = dict(src_dict)
        world_size = d.pop("world_size")

        currency = d.pop("currency", UNSET)

        def _parse_failures(data: object) -> Failures | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failures_type_0 = Failures.from_dict(data)

                return failures_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Failures | None | Unset, data)

        failures = _parse_failures(d.pop("failures", UNSET))

        def _parse_fragmentation(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        fragmentation = _parse_fragmentation(d.pop("fragmentation", UNSET))

        def _parse_gpu(data: object) -> GpuPresetName | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                gpu_type_0 = GpuPresetName(data)

                return gpu_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GpuPresetName | None | Unset, data)

        gpu = _parse_gpu(d.pop("gpu", UNSET))

        def _parse_gpu_hour_price(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        gpu_hour_price = _parse_gpu_hour_price(d.pop("gpu_hour_price", UNSET))

        def _parse_gpu_memory_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        gpu_memory_bytes = _parse_gpu_memory_bytes(d.pop("gpu_memory_bytes", UNSET))

        gpus_per_node = d.pop("gpus_per_node", UNSET)

        def _parse_host_memory_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        host_memory_bytes = _parse_host_memory_bytes(d.pop("host_memory_bytes", UNSET))

        host_memory_bytes_per_s = d.pop("host_memory_bytes_per_s", UNSET)

        def _parse_link_spec(data: object) -> LinkSpec | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                link_spec_type_0 = LinkSpec.from_dict(data)

                return link_spec_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LinkSpec | None | Unset, data)

        link_spec = _parse_link_spec(d.pop("link_spec", UNSET))

        def _parse_links(data: object) -> LinkPresetName | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                links_type_0 = LinkPresetName(data)

                return links_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LinkPresetName | None | Unset, data)

        links = _parse_links(d.pop("links", UNSET))

        def _parse_peak_flops_per_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        peak_flops_per_s = _parse_peak_flops_per_s(d.pop("peak_flops_per_s", UNSET))

        def _parse_reserve_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reserve_bytes = _parse_reserve_bytes(d.pop("reserve_bytes", UNSET))

        cluster = cls(
            world_size=world_size,
            currency=currency,
            failures=failures,
            fragmentation=fragmentation,
            gpu=gpu,
            gpu_hour_price=gpu_hour_price,
            gpu_memory_bytes=gpu_memory_bytes,
            gpus_per_node=gpus_per_node,
            host_memory_bytes=host_memory_bytes,
            host_memory_bytes_per_s=host_memory_bytes_per_s,
            link_spec=link_spec,
            links=links,
            peak_flops_per_s=peak_flops_per_s,
            reserve_bytes=reserve_bytes,
        )

        return cluster
