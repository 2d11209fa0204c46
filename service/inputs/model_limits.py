"""The model's limits, checked once after resolving, whatever way the model was stated.

Architecture fields given in the request are bounded by ModelSpec's schema as they arrive. Fields a
preset or a Hugging Face config supplies are not: a ``config.json`` may say 1e8 layers or 100,001
experts. Once the fields are merged, this module validates them against the same ModelSpec (its
field bounds, MoeSpec's and MlaSpec's, and its rules across fields), so every source meets one set
of limits with the same messages, and a value past them is a 422 naming the key it came from, never
a 500. The parameter count derived from an architecture is bounded as a given one is
(``MAX_PARAMETER_COUNT``), which also keeps the byte counts of model states well inside 64 bits.
"""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from models.common import MAX_PARAMETER_COUNT, ModelSpec
from service.errors import InvalidHfConfig, InvalidModel
from service.inputs.hf_config import POINTER as HF_POINTER
from service.inputs.hf_config import key_pointer


def check_fields(fields: Mapping[str, Any], hf_config: Mapping[str, Any] | None) -> None:
    """Validate merged architecture fields as ModelSpec would validate them given directly."""
    given = {name: _plain(value) for name, value in fields.items() if value is not None}
    try:
        ModelSpec.model_validate(given)
    except ValidationError as exc:
        problems = [_problem(error, hf_config) for error in exc.errors(include_url=False, include_input=False)]
        if hf_config is not None:
            raise InvalidHfConfig("; ".join(detail for detail, _ in problems), problems) from None
        detail, pointer = problems[0]
        raise InvalidModel(detail, pointer=pointer) from None


def check_parameter_count(count: int, hf_config: Mapping[str, Any] | None) -> None:
    """A parameter count derived from an architecture stays within the limit a given count has."""
    if count > MAX_PARAMETER_COUNT:
        detail = f"model: the architecture implies {count:,} parameters, more than the limit of {MAX_PARAMETER_COUNT:,}"
        if hf_config is not None:
            raise InvalidHfConfig(f"model.hf_config: {detail.removeprefix('model: ')}", [(detail, HF_POINTER)])
        raise InvalidModel(detail, pointer="/model")


def _plain(value: Any) -> Any:
    return value.model_dump() if isinstance(value, BaseModel) else value


def _problem(error: Any, hf_config: Mapping[str, Any] | None) -> tuple[str, str]:
    loc = tuple(str(part) for part in error["loc"])
    field = ".".join(loc)
    message = error["msg"].removeprefix("Value error, ")
    if hf_config is not None:
        pointer = key_pointer(hf_config, loc)
        key = pointer.removeprefix(HF_POINTER).lstrip("/").replace("/", ".")
        return (f"model.hf_config.{key}: {message}" if key else f"model.hf_config: {message}"), pointer
    pointer = "/model/" + "/".join(loc) if loc else "/model"
    return (f"model.{field}: {message}" if loc else f"model: {message}"), pointer
