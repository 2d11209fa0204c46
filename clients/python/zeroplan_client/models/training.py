from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint import Checkpoint


T = TypeVar("T", bound="Training")


@_attrs_define
class Training:
    """The training shape. Tokens per optimizer step = N x micro_batch_size x sequence_length x steps.

    Attributes:
        checkpoint (Checkpoint | None | Unset): Checkpoints: interval, storage and save mode. Default: interval auto
            (Daly 2006), llama3-tectonic storage, synchronous save. With cluster.failures they give time.goodput.
        global_batch_size (int | None | Unset): Sequences per optimizer step, across the data-parallel group (POST
            /v1/plan only): the micro-batches per step are m = global_batch_size / (micro_batch_size x d), d the data-
            parallel degree, and must be whole. Instead of gradient_accumulation_steps.
        gradient_accumulation_steps (int | Unset): Micro-batches per step (k); or give global_batch_size (POST
            /v1/plan), not both. Default: 1.
        micro_batch_size (int | Unset): Sequences per GPU per micro-batch (b). Default: 1.
        sequence_length (int | Unset): Tokens per sequence (s). Default: 2048.
        total_tokens (int | None | Unset): Tokens of the whole run, a token budget (Llama 3 was trained on 15e12).
            Given, the answer's time holds training_steps, training_days and gpu_hours.
        utilisation (float | None | Unset): Model FLOPs utilisation (MFU) of the compute, 0.001 to 1: model FLOPs (6 x N
            + 12 x L x h x s per token, PaLM appendix B) over compute time x N x peak, as the run measures it with the
            requested recomputation. Give it to override the compute's efficiency, and nothing else: communication, the
            optimizer step and the overlap slowdown are priced as without it. Default null: the efficiency model prices
            every matrix multiplication, attention, memory-bound operation and the optimizer step on the GPU, calibrated on
            published runs (README, 'Calibration').
        utilisation_recompute (None | Recompute | Unset): The recomputation the run that measured training.utilisation
            ran with. Omitted: this request's levers.recompute. Another recomputation here keeps that run's hardware
            efficiency (HFU): full recomputation repeats the forward at the same efficiency, so its MFU is lower than the
            one given. Needs training.utilisation.
    """

    checkpoint: Checkpoint | None | Unset = UNSET
    global_batch_size: int | None | Unset = UNSET
    gradient_accumulation_steps: int | Unset = 1
    micro_batch_size: int | Unset = 1
    sequence_length: int | Unset = 2048
    total_tokens: int | None | Unset = UNSET
    utilisation: float | None | Unset = UNSET
    utilisation_recompute: None | Recompute | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.checkpoint import Checkpoint  # noqa: PLC0415

        checkpoint: dict[str, Any] | None | Unset
        if isinstance(self.checkpoint, Unset):
            checkpoint = UNSET
        elif isinstance(self.checkpoint, Checkpoint):
            checkpoint = self.checkpoint.to_dict()
        else:
            checkpoint = self.checkpoint

        global_batch_size: int | None | Unset
        if isinstance(self.global_batch_size, Unset):
            global_batch_size = UNSET
        else:
            global_batch_size = self.global_batch_size

        gradient_accumulation_steps = self.gradient_accumulation_steps

        micro_batch_size = self.micro_batch_size

        sequence_length = self.sequence_length

        total_tokens: int | None | Unset
        if isinstance(self.total_tokens, Unset):
            total_tokens = UNSET
        else:
            total_tokens = self.total_tokens

        utilisation: float | None | Unset
        if isinstance(self.utilisation, Unset):
            utilisation = UNSET
        else:
            utilisation = self.utilisation

        utilisation_recompute: None | str | Unset
        if isinstance(self.utilisation_recompute, Unset):
            utilisation_recompute = UNSET
        elif isinstance(self.utilisation_recompute, Recompute):
            utilisation_recompute = self.utilisation_recompute.value
        else:
            utilisation_recompute = self.utilisation_recompute

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if checkpoint is not UNSET:
            field_dict["checkpoint"] = checkpoint
        if global_batch_size is not UNSET:
            field_dict["global_batch_size"] = global_batch_size
        if gradient_accumulation_steps is not UNSET:
            field_dict["gradient_accumulation_steps"] = gradient_accumulation_steps
        if micro_batch_size is not UNSET:
            field_dict["micro_batch_size"] = micro_batch_size
        if sequence_length is not UNSET:
            field_dict["sequence_length"] = sequence_length
        if total_tokens is not UNSET:
            field_dict["total_tokens"] = total_tokens
        if utilisation is not UNSET:
            field_dict["utilisation"] = utilisation
        if utilisation_recompute is not UNSET:
            field_dict["utilisation_recompute"] = utilisation_recompute

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint import Checkpoint  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_checkpoint(data: object) -> Checkpoint | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                checkpoint_type_0 = Checkpoint.from_dict(data)

                return checkpoint_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Checkpoint | None | Unset, data)

        checkpoint = _parse_checkpoint(d.pop("checkpoint", UNSET))

        def _parse_global_batch_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        global_batch_size = _parse_global_batch_size(d.pop("global_batch_size", UNSET))

        gradient_accumulation_steps = d.pop("gradient_accumulation_steps", UNSET)

        micro_batch_size = d.pop("micro_batch_size", UNSET)

        sequence_length = d.pop("sequence_length", UNSET)

        def _parse_total_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        total_tokens = _parse_total_tokens(d.pop("total_tokens", UNSET))

        def _parse_utilisation(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        utilisation = _parse_utilisation(d.pop("utilisation", UNSET))

        def _parse_utilisation_recompute(data: object) -> None | Recompute | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                utilisation_recompute_type_0 = Recompute(data)

                return utilisation_recompute_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Recompute | Unset, data)

        utilisation_recompute = _parse_utilisation_recompute(d.pop("utilisation_recompute", UNSET))

        training = cls(
            checkpoint=checkpoint,
            global_batch_size=global_batch_size,
            gradient_accumulation_steps=gradient_accumulation_steps,
            micro_batch_size=micro_batch_size,
            sequence_length=sequence_length,
            total_tokens=total_tokens,
            utilisation=utilisation,
            utilisation_recompute=utilisation_recompute,
        )

        return training
