"""Response bodies: a model's JSON, byte for byte what pydantic's ``model_dump_json`` writes, at orjson's speed.

pydantic's serializer spends a fixed cost on every nested model it enters (a plan answer has about
forty: its state rows, collectives, stages and groups), so it encodes a 6 KB plan in about three
times the time orjson takes over the same values. For a model whose serialisation is plain (every
field written under its own name, as its value, none excluded or computed, no custom serializer,
no extra fields; the same of every model its fields can hold), the JSON is the model's fields in
their declared order, which is the order of the model's ``__dict__`` (pydantic builds it field by
field); orjson writes enums by their values and floats in the shortest form that reads back the
same, as pydantic does. Any value orjson does not write as pydantic would (an integer beyond 64
bits, a date, a dataclass, bytes, a set, a key that is not a string) makes orjson raise, and then
pydantic writes the body. The values must be of their fields' types, as validation leaves them (a
float field given an int by ``model_construct`` would read 1, not 1.0): tests/api/test_encoding.py
compares the two encoders on the planning operations' answers, and the spec's property test
(tests/properties/test_finite_outputs.py) every answered plan, fit and recommend body.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import orjson
from pydantic import BaseModel

from service.errors import AnswerOutOfRange
from service.numeric import INT64_MAX, outside_int64

# Dates and dataclasses go to _fields, which refuses them: pydantic then writes the body.
OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
# Kinds of core schema (pydantic_core.core_schema) whose values orjson writes as pydantic does.
PLAIN_KINDS = frozenset(
    {"model", "model-fields", "model-field", "int", "float", "str", "bool", "enum", "literal", "none", "nullable"}
    | {"list", "default", "definitions", "definition-ref"}
)
# Keys of a core schema node that change what is written: a serializer, another name, a left-out or
# computed field, a root model.
SERIALISING_KEYS = ("serialization", "serialization_alias", "serialization_exclude", "serialization_exclude_if")
SERIALISING_KEYS += ("computed_fields", "root_model")
EXTRA_KEYS = ("extra_behavior", "extra_fields_behavior")  # extra fields, which __dict__ does not hold
NOT_SCHEMAS = frozenset({"metadata", "default", "examples", "json_schema_extra", "cls", "members"})
# model_config keys that change what model_dump_json writes; their defaults are what orjson writes.
PLAIN_CONFIG = {
    "ser_json_timedelta": "iso8601",
    "ser_json_temporal": "iso8601",
    "ser_json_bytes": "utf8",
    "ser_json_inf_nan": "null",
    "serialize_by_alias": False,
}


def model_json(model: BaseModel) -> bytes:
    """The model's JSON as ``model.model_dump_json().encode()`` writes it."""
    if plain_model(type(model)):
        try:
            return _orjson_within_int64(model)
        except TypeError:
            pass  # a value orjson does not write as pydantic would
    return within_int64(model.model_dump_json().encode())


def fields_json(fields: dict[str, Any], model: type[BaseModel]) -> bytes:
    """The JSON of ``model.model_validate(fields)``, written from the fields as they are: the caller gives them
    in the model's order and of its types (service.answers.plan.plan_fields; its tests compare the two bodies).
    A value orjson does not write as pydantic would sends them through the model."""
    try:
        return _orjson_within_int64(fields)
    except TypeError:
        return model_json(model.model_validate(fields))


def _orjson_within_int64(value: Any) -> bytes:
    """orjson's JSON of the value, checked against the signed 64-bit range (``within_int64``); TypeError for a
    value orjson does not write as pydantic would. Most answers hold no integer past 2^53 - 1 (9.0e15): orjson
    checks that while it writes (``OPT_STRICT_INTEGER``), which spares the scan of the body (4 us of a 6 KB plan's
    10). An answer with a larger integer is written again and scanned."""
    try:
        return orjson.dumps(value, default=_fields, option=OPTIONS | orjson.OPT_STRICT_INTEGER)
    except TypeError:
        pass  # an integer past 2^53 - 1, or a value pydantic writes (raised again below)
    return within_int64(orjson.dumps(value, default=_fields, option=OPTIONS))


# An answer's integers are read by clients as signed 64-bit (JSON Schema's int64, Java's long, numpy's
# int64): one past 2^63 - 1 would be read wrong or refused. Only a number whose leading run of digits is 19
# or longer can be one (a fraction's digits follow a point: orjson writes 0.000031145864864864865 so), so
# the body is searched for such a run and parsed exactly only then. The search maps every digit to "1", the
# point to itself and the rest to a space (bytes.translate), finds each run of 19 ones and looks at the byte
# before it: a point (a fraction's digits) is passed over, anything else is a long integer. Searching for
# the run alone takes about 1 us for a 6 KB plan; a needle that starts with a space, 15 us (CPython's search
# skips poorly on a byte that is everywhere); a regular expression's character class, 60.
DIGITS_AS_ONES = bytes(0x31 if 0x30 <= byte <= 0x39 else byte if byte == 0x2E else 0x20 for byte in range(256))
NINETEEN_ONES = b"1" * 19
POINT, SPACE = 0x2E, b" "


def within_int64(body: bytes) -> bytes:
    """The body, or AnswerOutOfRange naming the first integer past the signed 64-bit range."""
    if not may_hold_a_long_integer(body.translate(DIGITS_AS_ONES)):
        return body
    found = outside_int64(json.loads(body))
    if found is None:
        return body
    pointer, value = found
    raise AnswerOutOfRange(
        f"the answer's {pointer or '/'} would be {value:,}, past what a 64-bit client reads ({INT64_MAX:,}): "
        "the request is too large to answer (a smaller model, sequence, batch or fewer micro-batches)"
    )


# The sizes an answer's integers grow with, besides the model: bytes and FLOPs scale with the tokens of a step.
TRAINING_SIZE_FIELDS = (
    "micro_batch_size",
    "sequence_length",
    "gradient_accumulation_steps",
    "global_batch_size",
    "total_tokens",
)


def size_pointers(request: BaseModel) -> list[str]:
    """The fields of a request an answer's size grows with: its model, and each training size the caller sent
    (a sweep's under /base)."""
    base = getattr(request, "base", None)
    prefix, job = ("/base", base) if isinstance(base, BaseModel) else ("", request)
    pointers = [f"{prefix}/model"] if getattr(job, "model", None) is not None else []
    axes = getattr(request, "axes", None)
    for axis in ("model", "parameter_count"):  # a sweep's models come from its axes when it gives them
        if getattr(axes, axis, None) is not None:
            pointers = [f"/axes/{axis}"]
            break
    training = getattr(job, "training", None)
    if isinstance(training, BaseModel):
        sent = training.model_fields_set
        pointers += [f"{prefix}/training/{name}" for name in TRAINING_SIZE_FIELDS if name in sent]
    return pointers


@contextmanager
def sizes_named(request: BaseModel) -> Iterator[None]:
    """An answer past the 64-bit range (within_int64) points at the request's size fields, which a 422's
    ``errors`` must name: the body is valid, its job too large to answer."""
    try:
        yield
    except AnswerOutOfRange as error:
        if error.field_errors():
            raise
        raise AnswerOutOfRange(error.detail, size_pointers(request)) from None


def may_hold_a_long_integer(ones: bytes) -> bool:
    """Whether the translated body has a run of 19 or more digits that does not follow a point."""
    start = ones.find(NINETEEN_ONES)
    while start != -1:
        if start == 0 or ones[start - 1] != POINT:
            return True
        end = ones.find(SPACE, start)  # the fraction's digits end at the next non-digit
        start = ones.find(NINETEEN_ONES, end) if end != -1 else -1
    return False


def _fields(value: Any) -> Any:
    if isinstance(value, BaseModel) and plain_model(type(value)):
        return value.__dict__
    raise TypeError(f"{type(value).__name__} is written by pydantic")


@cache
def plain_model(cls: type[BaseModel]) -> bool:
    """Whether pydantic writes the class's instances as their fields in order, under their names: its core
    schema, with every model its fields can hold, has only plain kinds of value and no serialisation setting."""
    return _plain_schema(cls.__pydantic_core_schema__)


def _plain_schema(node: Any) -> bool:
    if isinstance(node, list):
        return all(_plain_schema(item) for item in node)
    if not isinstance(node, dict):
        return True
    kind = node.get("type")
    if isinstance(kind, str) and kind not in PLAIN_KINDS:
        return False
    if any(node.get(key) for key in SERIALISING_KEYS) or "allow" in (node.get(key) for key in EXTRA_KEYS):
        return False
    if any(key in node and node[key] != plain for key, plain in PLAIN_CONFIG.items()):
        return False
    return all(_plain_schema(value) for key, value in node.items() if key not in NOT_SCHEMAS)
