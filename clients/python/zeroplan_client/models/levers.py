from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.fp_8_recipe import Fp8Recipe
from ..models.mxfp_8_recipe import Mxfp8Recipe
from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.zero_plus_plus import ZeroPlusPlus


T = TypeVar("T", bound="Levers")


@_attrs_define
class Levers:
    """The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8.

    Attributes:
        bucket_bytes (int | Unset): Gradient bucket size, bytes. Default: 26214400.
        fp8 (Fp8Recipe | Unset): Per-tensor scaled FP8 training (Hopper and later; E4M3/E5M2, one scale per tensor), by
            the library that
            runs it.
        mxfp8 (bool | Unset): MXFP8, applied as mxfp8_recipe says. Default: False.
        mxfp8_recipe (Mxfp8Recipe | Unset): How the MXFP8 lever is applied: the textbook model, or as Transformer Engine
            and torchao do it.
        offload_optimizer (bool | Unset): ZeRO-Offload: optimizer state in host memory. Default: False.
        offload_parameters (bool | Unset): Parameter shards in host memory (ZeRO-3 only). Default: False.
        overlap (bool | Unset): Overlap communication with compute, bucket by bucket. Default: True.
        recompute (Recompute | Unset): Activation recomputation (Korthikanti et al. 2022).
        zeropp (ZeroPlusPlus | Unset): ZeRO++ (Wang et al. 2023) on ZeRO-3; DeepSpeed's zero_quantized_weights,
            zero_hpz_partition_size and
            zero_quantized_gradients.
    """

    bucket_bytes: int | Unset = 26214400
    fp8: Fp8Recipe | Unset = UNSET
    mxfp8: bool | Unset = False
    mxfp8_recipe: Mxfp8Recipe | Unset = UNSET
    offload_optimizer: bool | Unset = False
    offload_parameters: bool | Unset = False
    overlap: bool | Unset = True
    recompute: Recompute | Unset = UNSET
    zeropp: ZeroPlusPlus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        bucket_bytes = self.bucket_bytes

        fp8: str | Unset = UNSET
        if not isinstance(self.fp8, Unset):
            fp8 = self.fp8.value

        mxfp8 = self.mxfp8

        mxfp8_recipe: str | Unset = UNSET
        if not isinstance(self.mxfp8_recipe, Unset):
            mxfp8_recipe = self.mxfp8_recipe.value

        offload_optimizer = self.offload_optimizer

        offload_parameters = self.offload_parameters

        overlap = self.overlap

        recompute: str | Unset = UNSET
        if not isinstance(self.recompute, Unset):
            recompute = self.recompute.value

        zeropp: dict[str, Any] | Unset = UNSET
        if not isinstance(self.zeropp, Unset):
            zeropp = self.zeropp.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if bucket_bytes is not UNSET:
            field_dict["bucket_bytes"] = bucket_bytes
        if fp8 is not UNSET:
            field_dict["fp8"] = fp8
        if mxfp8 is not UNSET:
            field_dict["mxfp8"] = mxfp8
        if mxfp8_recipe is not UNSET:
            field_dict["mxfp8_recipe"] = mxfp8_recipe
        if offload_optimizer is not UNSET:
            field_dict["offload_optimizer"] = offload_optimizer
        if offload_parameters is not UNSET:
            field_dict["offload_parameters"] = offload_parameters
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if recompute is not UNSET:
            field_dict["recompute"] = recompute
        if zeropp is not UNSET:
            field_dict["zeropp"] = zeropp

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.zero_plus_plus import ZeroPlusPlus  # noqa: PLC0415

        d = dict(src_dict)
        bucket_bytes = d.pop("bucket_bytes", UNSET)

        _fp8 = d.pop("fp8", UNSET)
        fp8: Fp8Recipe | Unset
        if isinstance(_fp8, Unset):
            fp8 = UNSET
        else:
            fp8 = Fp8Recipe(_fp8)

        mxfp8 = d.pop("mxfp8", UNSET)

        _mxfp8_recipe = d.pop("mxfp8_recipe", UNSET)
        mxfp8_recipe: Mxfp8Recipe | Unset
        if isinstance(_mxfp8_recipe, Unset):
            mxfp8_recipe = UNSET
        else:
            mxfp8_recipe = Mxfp8Recipe(_mxfp8_recipe)

        offload_optimizer = d.pop("offload_optimizer", UNSET)

        offload_parameters = d.pop("offload_parameters", UNSET)

        overlap = d.pop("overlap", UNSET)

        _recompute = d.pop("recompute", UNSET)
        recompute: Recompute | Unset
        if isinstance(_recompute, Unset):
            recompute = UNSET
        else:
            recompute = Recompute(_recompute)

        _zeropp = d.pop("zeropp", UNSET)
        zeropp: ZeroPlusPlus | Unset
        if isinstance(_zeropp, Unset):
            zeropp = UNSET
        else:
            zeropp = ZeroPlusPlus.from_dict(_zeropp)

        levers = cls(
            bucket_bytes=bucket_bytes,
            fp8=fp8,
            mxfp8=mxfp8,
            mxfp8_recipe=mxfp8_recipe,
            offload_optimizer=offload_optimizer,
            offload_parameters=offload_parameters,
            overlap=overlap,
            recompute=recompute,
            zeropp=zeropp,
        )

        return levers
