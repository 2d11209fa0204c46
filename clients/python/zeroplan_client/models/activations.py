from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.activation_model import ActivationModel
from ..models.cross_entropy import CrossEntropy
from ..types import UNSET, Unset

T = TypeVar("T", bound="Activations")


@_attrs_define
class Activations:
    """Activation memory: replicated on every GPU; sharding never touches it.

    Attributes:
        bytes_per_value (int | Unset): Bytes of one stored activation value. Default: 2.
        cross_entropy (CrossEntropy | Unset): How the loss runs over the logits, which decides the loss's activation
            peak and its HBM traffic.
        flash_attention (bool | Unset): Flash attention keeps no s x s attention scores. Default: True.
        fudge (float | Unset): A fudge factor, labelled as one (0.001 to 10,000): activation bytes = b x s x h x layers
            x bytes x fudge. 17 with 2-byte values gives 34sbh per layer, Korthikanti's count without attention scores.
            Default: 17.0.
        model (ActivationModel | None | Unset): none (model states only), fudge (the textbook line, a fudge factor) or
            transformer (Korthikanti et al. 2022). Default: transformer when the architecture is known, else none; an
            omitted training block is the default shape (1 x 2048 tokens), the shape the step time is computed at.
    """

    bytes_per_value: int | Unset = 2
    cross_entropy: CrossEntropy | Unset = UNSET
    flash_attention: bool | Unset = True
    fudge: float | Unset = 17.0
    model: ActivationModel | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        bytes_per_value = self.bytes_per_value

        cross_entropy: str | Unset = UNSET
        if not isinstance(self.cross_entropy, Unset):
            cross_entropy = self.cross_entropy.value

        flash_attention = self.flash_attention

        fudge = self.fudge

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        elif isinstance(self.model, ActivationModel):
            model = self.model.value
        else:
            model = self.model

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if bytes_per_value is not UNSET:
            field_dict["bytes_per_value"] = bytes_per_value
        if cross_entropy is not UNSET:
            field_dict["cross_entropy"] = cross_entropy
        if flash_attention is not UNSET:
            field_dict["flash_attention"] = flash_attention
        if fudge is not UNSET:
            field_dict["fudge"] = fudge
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bytes_per_value = d.pop("bytes_per_value", UNSET)

        _cross_entropy = d.pop("cross_entropy", UNSET)
        cross_entropy: CrossEntropy | Unset
        if isinstance(_cross_entropy, Unset):
            cross_entropy = UNSET
        else:
            cross_entropy = CrossEntropy(_cross_entropy)

        flash_attention = d.pop("flash_attention", UNSET)

        fudge = d.pop("fudge", UNSET)

        def _parse_model(data: object) -> ActivationModel | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                model_type_0 = ActivationModel(data)

                return model_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActivationModel | None | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        activations = cls(
            bytes_per_value=bytes_per_value,
            cross_entropy=cross_entropy,
            flash_attention=flash_attention,
            fudge=fudge,
            model=model,
        )

        return activations
