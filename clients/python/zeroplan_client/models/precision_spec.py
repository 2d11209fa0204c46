from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dtype import Dtype
from ..models.optimizer_kind import OptimizerKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="PrecisionSpec")


@_attrs_define
class PrecisionSpec:
    """Dtypes of every state class and the optimizer: together they fix the bytes of one weight.

    ``optimizer_gradient_dtype`` is an extra gradient copy the optimizer keeps beside its master
    weights (DeepSpeed's fp32 gradient partition); null for none. ``compute_parameter_dtype`` is an
    unsharded copy of the parameters that forward and backward read (FSDP2's
    ``MixedPrecisionPolicy.param_dtype``); the two wire dtypes say what the collectives send when it
    differs from what is stored (FSDP2's ``reduce_dtype``, DeepSpeed's ``communication_data_type``).

        Attributes:
            compute_parameter_copies (int | Unset): Copies of the compute parameters held: 2 when a rowwise and a columnwise
                quantised copy are both cached (Transformer Engine's MXFP8 weights: forward and the transposed use in the
                backward). Default: 1.
            compute_parameter_dtype (Dtype | None | Unset): An unsharded copy of the parameters in this dtype for forward
                and backward (FSDP2 param_dtype): on every GPU when parameters are not sharded; under zero3/full_shard only the
                units in flight hold it. Null: compute reads the parameters as stored.
            gradient_dtype (Dtype | Unset): Storage or wire format of one tensor element.
            gradient_reduce_dtype (Dtype | None | Unset): Dtype the gradient reduction sends; default gradient_dtype.
            master_dtype (Dtype | None | Unset): Master copy of the weights kept by the optimizer; null for none. Default:
                Dtype.FP32.
            optimizer (OptimizerKind | Unset): The optimizer, which decides how many state tensors each weight carries.
            optimizer_gradient_dtype (Dtype | None | Unset):
            optimizer_state_dtype (Dtype | Unset): Storage or wire format of one tensor element.
            parameter_dtype (Dtype | Unset): Storage or wire format of one tensor element.
            parameter_gather_dtype (Dtype | None | Unset): Dtype the parameter all-gathers send; default
                compute_parameter_dtype, else parameter_dtype.
    """

    compute_parameter_copies: int | Unset = 1
    compute_parameter_dtype: Dtype | None | Unset = UNSET
    gradient_dtype: Dtype | Unset = UNSET
    gradient_reduce_dtype: Dtype | None | Unset = UNSET
    master_dtype: Dtype | None | Unset = Dtype.FP32
    optimizer: OptimizerKind | Unset = UNSET
    optimizer_gradient_dtype: Dtype | None | Unset = UNSET
    optimizer_state_dtype: Dtype | Unset = UNSET
    parameter_dtype: Dtype | Unset = UNSET
    parameter_gather_dtype: Dtype | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        compute_parameter_copies = self.compute_parameter_copies

        compute_parameter_dtype: None | str | Unset
        if isinstance(self.compute_parameter_dtype, Unset):
            compute_parameter_dtype = UNSET
        elif isinstance(self.compute_parameter_dtype, Dtype):
            compute_parameter_dtype = self.compute_parameter_dtype.value
        else:
            compute_parameter_dtype = self.compute_parameter_dtype

        gradient_dtype: str | Unset = UNSET
        if not isinstance(self.gradient_dtype, Unset):
            gradient_dtype = self.gradient_dtype.value

        gradient_reduce_dtype: None | str | Unset
        if isinstance(self.gradient_reduce_dtype, Unset):
            gradient_reduce_dtype = UNSET
        elif isinstance(self.gradient_reduce_dtype, Dtype):
            gradient_reduce_dtype = self.gradient_reduce_dtype.value
        else:
            gradient_reduce_dtype = self.gradient_reduce_dtype

        master_dtype: None | str | Unset
        if isinstance(self.master_dtype, Unset):
            master_dtype = UNSET
        elif isinstance(self.master_dtype, Dtype):
            master_dtype = self.master_dtype.value
        else:
            master_dtype = self.master_dtype

        optimizer: str | Unset = UNSET
        if not isinstance(self.optimizer, Unset):
            optimizer = self.optimizer.value

        optimizer_gradient_dtype: None | str | Unset
        if isinstance(self.optimizer_gradient_dtype, Unset):
            optimizer_gradient_dtype = UNSET
        elif isinstance(self.optimizer_gradient_dtype, Dtype):
            optimizer_gradient_dtype = self.optimizer_gradient_dtype.value
        else:
            optimizer_gradient_dtype = self.optimizer_gradient_dtype

        optimizer_state_dtype: str | Unset = UNSET
        if not isinstance(self.optimizer_state_dtype, Unset):
            optimizer_state_dtype = self.optimizer_state_dtype.value

        parameter_dtype: str | Unset = UNSET
        if not isinstance(self.parameter_dtype, Unset):
            parameter_dtype = self.parameter_dtype.value

        parameter_gather_dtype: None | str | Unset
        if isinstance(self.parameter_gather_dtype, Unset):
            parameter_gather_dtype = UNSET
        elif isinstance(self.parameter_gather_dtype, Dtype):
            parameter_gather_dtype = self.parameter_gather_dtype.value
        else:
            parameter_gather_dtype = self.parameter_gather_dtype

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if compute_parameter_copies is not UNSET:
            field_dict["compute_parameter_copies"] = compute_parameter_copies
        if compute_parameter_dtype is not UNSET:
            field_dict["compute_parameter_dtype"] = compute_parameter_dtype
        if gradient_dtype is not UNSET:
            field_dict["gradient_dtype"] = gradient_dtype
        if gradient_reduce_dtype is not UNSET:
            field_dict["gradient_reduce_dtype"] = gradient_reduce_dtype
        if master_dtype is not UNSET:
            field_dict["master_dtype"] = master_dtype
        if optimizer is not UNSET:
            field_dict["optimizer"] = optimizer
        if optimizer_gradient_dtype is not UNSET:
            field_dict["optimizer_gradient_dtype"] = optimizer_gradient_dtype
        if optimizer_state_dtype is not UNSET:
            field_dict["optimizer_state_dtype"] = optimizer_state_dtype
        if parameter_dtype is not UNSET:
            field_dict["parameter_dtype"] = parameter_dtype
        if parameter_gather_dtype is not UNSET:
            field_dict["parameter_gather_dtype"] = parameter_gather_dtype

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        compute_parameter_copies = d.pop("compute_parameter_copies", UNSET)

        def _parse_compute_parameter_dtype(data: object) -> Dtype | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                compute_parameter_dtype_type_0 = Dtype(data)

                return compute_parameter_dtype_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Dtype | None | Unset, data)

        compute_parameter_dtype = _parse_compute_parameter_dtype(d.pop("compute_parameter_dtype", UNSET))

        _gradient_dtype = d.pop("gradient_dtype", UNSET)
        gradient_dtype: Dtype | Unset
        if isinstance(_gradient_dtype, Unset):
            gradient_dtype = UNSET
        else:
            gradient_dtype = Dtype(_gradient_dtype)

        def _parse_gradient_reduce_dtype(data: object) -> Dtype | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                gradient_reduce_dtype_type_0 = Dtype(data)

                return gradient_reduce_dtype_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Dtype | None | Unset, data)

        gradient_reduce_dtype = _parse_gradient_reduce_dtype(d.pop("gradient_reduce_dtype", UNSET))

        def _parse_master_dtype(data: object) -> Dtype | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                master_dtype_type_0 = Dtype(data)

                return master_dtype_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Dtype | None | Unset, data)

        master_dtype = _parse_master_dtype(d.pop("master_dtype", UNSET))

        _optimizer = d.pop("optimizer", UNSET)
        optimizer: OptimizerKind | Unset
        if isinstance(_optimizer, Unset):
            optimizer = UNSET
        else:
            optimizer = OptimizerKind(_optimizer)

        def _parse_optimizer_gradient_dtype(data: object) -> Dtype | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                optimizer_gradient_dtype_type_0 = Dtype(data)

                return optimizer_gradient_dtype_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Dtype | None | Unset, data)

        optimizer_gradient_dtype = _parse_optimizer_gradient_dtype(d.pop("optimizer_gradient_dtype", UNSET))

        _optimizer_state_dtype = d.pop("optimizer_state_dtype", UNSET)
        optimizer_state_dtype: Dtype | Unset
        if isinstance(_optimizer_state_dtype, Unset):
            optimizer_state_dtype = UNSET
        else:
            optimizer_state_dtype = Dtype(_optimizer_state_dtype)

        _parameter_dtype = d.pop("parameter_dtype", UNSET)
        parameter_dtype: Dtype | Unset
        if isinstance(_parameter_dtype, Unset):
            parameter_dtype = UNSET
        else:
            parameter_dtype = Dtype(_parameter_dtype)

        def _parse_parameter_gather_dtype(data: object) -> Dtype | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parameter_gather_dtype_type_0 = Dtype(data)

                return parameter_gather_dtype_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Dtype | None | Unset, data)

        parameter_gather_dtype = _parse_parameter_gather_dtype(d.pop("parameter_gather_dtype", UNSET))

        precision_spec = cls(
            compute_parameter_copies=compute_parameter_copies,
            compute_parameter_dtype=compute_parameter_dtype,
            gradient_dtype=gradient_dtype,
            gradient_reduce_dtype=gradient_reduce_dtype,
            master_dtype=master_dtype,
            optimizer=optimizer,
            optimizer_gradient_dtype=optimizer_gradient_dtype,
            optimizer_state_dtype=optimizer_state_dtype,
            parameter_dtype=parameter_dtype,
            parameter_gather_dtype=parameter_gather_dtype,
        )

        return precision_spec
