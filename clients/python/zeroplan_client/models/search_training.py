from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.checkpoint import Checkpoint


T = TypeVar("T", bound="SearchTraining")


@_attrs_define
class SearchTraining:
    """The training shape every layout keeps: sequences per optimizer step and tokens per sequence; the rest
    as /v1/plan's training takes it.

        Attributes:
            checkpoint (Checkpoint | None | Unset): As /v1/plan's training.checkpoint: interval, storage and save mode,
                which every layout keeps. With cluster.failures they set each row's goodput, and the training_days, gpu_hours
                and cost objectives rank by them: an asynchronous save's stall by each layout's own stage that holds the most
                checkpointed states, as /v1/plan prices it.
            global_batch_size (int | None | Unset): Sequences per optimizer step. Omitted: the request's own job's,
                micro_batch_size x gradient_accumulation_steps x its data-parallel degree (cluster.world_size / (tensor x
                pipeline x context) of its parallelism), as a /v1/plan body states it.
            gradient_accumulation_steps (int | None | Unset): The job's micro-batches per step: with global_batch_size
                omitted it sizes the batch.
            micro_batch_size (int | None | Unset): The job's micro-batch size (b): with global_batch_size omitted it sizes
                the batch; the search still tries every micro-batch size unless restrict.micro_batch_size says otherwise.
            sequence_length (int | Unset): Tokens per sequence (s). Default: 2048.
            total_tokens (int | None | Unset): Tokens of the whole run: each row's time then holds training_steps,
                training_days and gpu_hours (and cost with cluster.gpu_hour_price).
            utilisation (float | None | Unset): As /v1/plan's training.utilisation: the compute's MFU, overriding the
                efficiency model.
            utilisation_recompute (None | Recompute | Unset): As /v1/plan's training.utilisation_recompute: the
                recomputation the run that measured training.utilisation ran with, kept by every layout. Omitted: each layout's
                own levers.recompute.
    """

    checkpoint: Checkpoint | None | Unset = UNSET
    global_batch_size: int | None | Unset = UNSET
    gradient_accumulation_steps: int | None | Unset = UNSET
    micro_batch_size: int | None | Unset = UNSET
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

        gradient_accumulation_steps: int | None | Unset
        if isinstance(self.gradient_accumulation_steps, Unset):
            gradient_accumulation_steps = UNSET
        else:
            gradient_accumulation_steps = self.gradient_accumulation_steps

        micro_batch_size: int | None | Unset
        if isinstance(self.micro_batch_size, Unset):
            micro_batch_size = UNSET
        else:
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

        def _parse_gradient_accumulation_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        gradient_accumulation_steps = _parse_gradient_accumulation_steps(d.pop("gradient_accumulation_steps", UNSET))

        def _parse_micro_batch_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        micro_batch_size = _parse_micro_batch_size(d.pop("micro_batch_size", UNSET))

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

        search_training = cls(
            checkpoint=checkpoint,
            global_batch_size=global_batch_size,
            gradient_accumulation_steps=gradient_accumulation_steps,
            micro_batch_size=micro_batch_size,
            sequence_length=sequence_length,
            total_tokens=total_tokens,
            utilisation=utilisation,
            utilisation_recompute=utilisation_recompute,
        )

        return search_training
