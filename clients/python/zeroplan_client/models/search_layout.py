from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.arrangement_name import ArrangementName
from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory import Memory
    from ..models.parallelism_echo import ParallelismEcho
    from ..models.plan_request import PlanRequest
    from ..models.search_layout_equivalents_item import SearchLayoutEquivalentsItem
    from ..models.time import Time


T = TypeVar("T", bound="SearchLayout")


@_attrs_define
class SearchLayout:
    """One layout: its degrees and levers, the /v1/plan answer's memory and time, and why it ranks here.

    Attributes:
        arrangement (ArrangementName): Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp,
            full_shard is zero3,
            and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
            gathered again before every micro-batch's forward), not DeepSpeed's zero2.
        fits (bool):
        framework (str): The framework conventions that run this layout (schedule and sharding).
        memory (Memory):
        mfu (float): Model FLOPs utilisation of the step (PaLM's count over N x peak).
        micro_batch_size (int):
        offload_optimizer (bool):
        parallelism (ParallelismEcho): The layout as planned: the request's degrees with what follows from them.
        per_gpu_bytes (int):
        rank (int): 1 for the best by the objective (pareto rows: their rank, or 0 when below top_k).
        recompute (Recompute): Activation recomputation (Korthikanti et al. 2022).
        request (PlanRequest):
        step_s (float):
        time (Time):
        tokens_per_s_per_gpu (float):
        why (str): The reason it ranks here, in words: the terms of time and memory (seconds, bytes) that separate it
            from the next row and from the best row, and the framework that runs it.
        world_size (int):
        equivalents (list[SearchLayoutEquivalentsItem] | Unset): Other choices with identical figures (step and bytes),
            each as the fields that differ from this row's (e.g. {'recompute': 'selective'}); the row shows the cheapest.
    """

    arrangement: ArrangementName
    fits: bool
    framework: str
    memory: Memory
    mfu: float
    micro_batch_size: int
    offload_optimizer: bool
    parallelism: ParallelismEcho
    per_gpu_bytes: int
    rank: int
    recompute: Recompute
    request: PlanRequest
    step_s: float
    time: Time
    tokens_per_s_per_gpu: float
    why: str
    world_size: int
    equivalents: list[SearchLayoutEquivalentsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arrangement = self.arrangement.value

        fits = self.fits

        framework = self.framework

        memory = self.memory.to_dict()

        mfu = self.mfu

        micro_batch_size = self.micro_batch_size

        offload_optimizer = self.offload_optimizer

        parallelism = self.parallelism.to_dict()

        per_gpu_bytes = self.per_gpu_bytes

        rank = self.rank

        recompute = self.recompute.value

        request = self.request.to_dict()

        step_s = self.step_s

        time = self.time.to_dict()

        tokens_per_s_per_gpu = self.tokens_per_s_per_gpu

        why = self.why

        world_size = self.world_size

        equivalents: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.equivalents, Unset):
            equivalents = []
            for equivalents_item_data in self.equivalents:
                equivalents_item = equivalents_item_data.to_dict()
                equivalents.append(equivalents_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arrangement": arrangement,
                "fits": fits,
                "framework": framework,
                "memory": memory,
                "mfu": mfu,
                "micro_batch_size": micro_batch_size,
                "offload_optimizer": offload_optimizer,
                "parallelism": parallelism,
                "per_gpu_bytes": per_gpu_bytes,
                "rank": rank,
                "recompute": recompute,
                "request": request,
                "step_s": step_s,
                "time": time,
                "tokens_per_s_per_gpu": tokens_per_s_per_gpu,
                "why": why,
                "world_size": world_size,
            }
        )
        if equivalents is not UNSET:
            field_dict["equivalents"] = equivalents

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory import Memory  # noqa: PLC0415
        from ..models.parallelism_echo import ParallelismEcho  # noqa: PLC0415
        from ..models.plan_request import PlanRequest  # noqa: PLC0415
        from ..models.search_layout_equivalents_item import SearchLayoutEquivalentsItem  # noqa: PLC0415
        from ..models.time import Time  # noqa: PLC0415

        d = dict(src_dict)
        arrangement = ArrangementName(d.pop("arrangement"))

        fits = d.pop("fits")

        framework = d.pop("framework")

        memory = Memory.from_dict(d.pop("memory"))

        mfu = d.pop("mfu")

        micro_batch_size = d.pop("micro_batch_size")

        offload_optimizer = d.pop("offload_optimizer")

        parallelism = ParallelismEcho.from_dict(d.pop("parallelism"))

        per_gpu_bytes = d.pop("per_gpu_bytes")

        rank = d.pop("rank")

        recompute = Recompute(d.pop("recompute"))

        request = PlanRequest.from_dict(d.pop("request"))

        step_s = d.pop("step_s")

        time = Time.from_dict(d.pop("time"))

        tokens_per_s_per_gpu = d.pop("tokens_per_s_per_gpu")

        why = d.pop("why")

        world_size = d.pop("world_size")

        _equivalents = d.pop("equivalents", UNSET)
        equivalents: list[SearchLayoutEquivalentsItem] | Unset = UNSET
        if _equivalents is not UNSET:
            equivalents = []
            for equivalents_item_data in _equivalents:
                equivalents_item = SearchLayoutEquivalentsItem.from_dict(equivalents_item_data)

                equivalents.append(equivalents_item)

        search_layout = cls(
            arrangement=arrangement,
            fits=fits,
            framework=framework,
            memory=memory,
            mfu=mfu,
            micro_batch_size=micro_batch_size,
            offload_optimizer=offload_optimizer,
            parallelism=parallelism,
            per_gpu_bytes=per_gpu_bytes,
            rank=rank,
            recompute=recompute,
            request=request,
            step_s=step_s,
            time=time,
            tokens_per_s_per_gpu=tokens_per_s_per_gpu,
            why=why,
            world_size=world_size,
            equivalents=equivalents,
        )

        search_layout.additional_properties = d
        return search_layout

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
