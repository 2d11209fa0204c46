"""The base of every request model: the validator says exactly what the JSON Schema says.

pydantic's default (lax) mode turns `1` into `true`, `false` into `0` and the string
`"30000000000"` into an integer, while the spec promises a boolean, an integer and an integer. A
request model built on ``Strict`` refuses those: its booleans, integers, floats and strings
are validated in pydantic's strict mode, whatever fields a model adds later. Three things stay as
JSON Schema has them:

- an integer field takes a float with no fractional part (``30e9``, ``8.0``): JSON Schema 2020-12
  counts 1.0 as an integer (section 6.1.1 of the validation vocabulary) and clients send it; ``8.5``
  is refused;
- a float field takes an integer (every JSON integer is a JSON number);
- enums and literals take their JSON values (pydantic's strict mode would demand Python enum
  instances, which JSON cannot carry).

The models' own ``ConfigDict(strict=True)`` cannot do this: it makes enums refuse their values.
So the scalars are made strict in the model's core schema, once, when the class is built.
"""

from collections.abc import Callable
from itertools import repeat
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler
from pydantic_core import CoreSchema
from pydantic_core import core_schema as cs

STRICT_SCALARS = frozenset({"bool", "float", "str", "int"})
# Keys of a core schema that hold values or settings, not schemas to walk into.
NOT_SCHEMAS = frozenset({"metadata", "default", "serialization", "ref", "examples", "json_schema_extra"})
WHOLE_FLOAT_MARK = "zeroplan_whole_float"


def whole_float_as_int(value: Any) -> Any:
    """30000000000.0 -> 30000000000; anything else unchanged, for the strict integer check."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def strict_scalars(schema: Any) -> Any:
    """The same core schema with every bool, int, float and str validated strictly (in place)."""
    if isinstance(schema, list):
        return [strict_scalars(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("metadata", {}).get(WHOLE_FLOAT_MARK):
        return schema  # already walked (a model nested in another keeps its schema)
    for key, value in schema.items():
        if key not in NOT_SCHEMAS and isinstance(value, dict | list):
            schema[key] = strict_scalars(value)
    kind = schema.get("type")
    if kind in STRICT_SCALARS:
        schema["strict"] = True
    if kind == "int":
        wrapped = cs.no_info_before_validator_function(whole_float_as_int, schema)
        wrapped["metadata"] = {WHOLE_FLOAT_MARK: True}
        return wrapped
    return schema


class Strict(BaseModel):
    """Unknown fields are refused; scalars are strict (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def __get_pydantic_core_schema__(cls, source: type[BaseModel], handler: GetCoreSchemaHandler) -> CoreSchema:
        schema: CoreSchema = strict_scalars(handler(source))
        return schema


class StrictValue(Strict):
    """A request block that is a value: frozen (setting a field raises), so equal blocks are equal keys of a
    memo, and one instance can stand for the block in every request that leaves it out (``shared_default``)."""

    model_config = ConfigDict(frozen=True)

    def __eq__(self, other: object) -> bool:
        """pydantic's equality, its common case in C: two blocks of one model whose ``__dict__`` are equal are equal
        (a value block has no private attributes and no extras, the other things pydantic compares). A memo's
        look-up compares the request's blocks with the kept ones."""
        if type(other) is type(self) and self.__dict__ == other.__dict__:
            return True
        return super().__eq__(other)


Frozen = TypeVar("Frozen", bound=BaseModel)
SHARED_DEFAULTS: dict[type, BaseModel] = {}  # each shared default's one instance, by its model


def shared_default(model: type[Frozen]) -> Callable[[], Frozen]:
    """A ``default_factory`` giving every request that leaves the block out one instance of it, built once: the
    omitted block costs no validation and is the same object in every request (a frozen model cannot change)."""
    if not model.model_config.get("frozen"):
        raise TypeError(f"{model.__name__} is not frozen: one instance of it cannot be shared")
    instance = SHARED_DEFAULTS.setdefault(model, model())
    # the next of an endless repeat of the instance: the validator calls it in C (a lambda costs a Python call)
    return repeat(instance).__next__  # type: ignore[return-value]


def non_strict_scalars(schema: Any) -> list[str]:
    """Paths of the scalar schemas that are not strict: empty for a model built on Strict."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}/{i}")
        elif isinstance(node, dict):
            if node.get("type") in STRICT_SCALARS and not node.get("strict"):
                found.append(path)
            for key, value in node.items():
                if key not in NOT_SCHEMAS:
                    walk(value, f"{path}/{key}")

    walk(schema, "")
    return found
