"""Command-line flags derived from the request models: every field reachable, none written by hand.

Each leaf field of a request model becomes ``--dotted.path`` (``--cluster.world-size``,
``--training.sequence-length``, ``--levers.offload-optimizer``) and, where no other field ends
the same way, its shortest unambiguous tail (``--world-size``, ``--sequence-length``). A field
added to a model is a flag at once. Values are parsed by the field's type: human counts for
integers (70B, 7e9, 1.5T), units for ``*_bytes`` (80GB, 80GiB), choices for enums, true/false
for booleans (a bare flag means true), comma lists for list fields, and a name or a JSON object
for the fields that take a preset name or an object (``@file.json`` reads the JSON from a file).
"""

import argparse
import json
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from cli.numbers import NotANumber, parse_bytes, parse_count, parse_float

# Friendly names kept from earlier releases, and the obvious words for a few fields.
ALIASES: dict[str, tuple[str, ...]] = {"model.preset": ("--model-preset", "--model")}
TRUE_WORDS, FALSE_WORDS = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


@dataclass(frozen=True)
class Flag:
    path: tuple[str, ...]  # the request field, e.g. ("cluster", "world_size")
    names: tuple[str, ...]  # the first is the dotted name
    parse: Callable[[str], Any]
    help: str
    is_bool: bool = False
    numeric: bool = False  # a count or a number: strings in request files are parsed too

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def dest(self) -> str:
        return "field__" + "__".join(self.path)

    @property
    def shown(self) -> str:
        return self.names[-1] if len(self.names) > 1 else self.names[0]


def unwrap(annotation: Any) -> Any:
    """Strip Annotated and Optional: what values the field takes."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if is_union(annotation):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return unwrap(members[0])
        return typing.Union[tuple(unwrap(m) for m in members)]  # noqa: UP007
    return annotation


def is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def leaves(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, FieldInfo]]:
    """(path, unwrapped type, field) of every field a flag can set; nested models are walked."""
    for name, field in model.model_fields.items():
        annotation = unwrap(field.annotation)
        path = (*prefix, name)
        if is_model(annotation):
            yield from leaves(annotation, path)
        else:
            yield path, annotation, field


def parser_for(name: str, annotation: Any) -> tuple[Callable[[str], Any], str, bool]:
    """(parse, metavar hint, numeric) for a field's type."""
    if is_union(annotation):
        members = typing.get_args(annotation)
        parsers = [parser_for(name, m)[0] for m in members if not is_model(m)]
        takes_object = any(is_model(m) or typing.get_origin(m) is list for m in members)
        return _first_of(parsers, takes_object), "NAME|JSON" if takes_object else "VALUE", False
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (str,)
        item = unwrap(item)
        if is_model(item) and "preset" in item.model_fields:
            # presets as a comma list (llama-3-8b,llama-3-70b), or JSON for the objects
            return _json_or(lambda text: [{"preset": name} for name in _names(text)]), "PRESET,...|JSON", False
        if is_model(item):
            return _json_or(None), "JSON", False  # objects without a name of their own
        if is_union(item):
            # names as a comma list (ddp,zero3), or JSON for items that are objects
            return _json_or(_names), "NAME,...|JSON", False
        parse_item, hint, numeric = parser_for(name, item)
        return _comma_list(parse_item), f"{hint},...", numeric
    if annotation is bool:
        return parse_bool, "true|false", False
    if annotation is int:
        return (parse_bytes if name.endswith("_bytes") else parse_count), "N", True
    if annotation is float:
        return parse_float, "X", True
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return _choice([m.value for m in annotation]), "|".join(str(m.value) for m in annotation), False
    if typing.get_origin(annotation) is Literal:
        return _choice(list(typing.get_args(annotation))), "|".join(map(str, typing.get_args(annotation))), False
    if annotation is str:
        return str, "TEXT", False
    return _json_or(None), "JSON", False


def _wrap(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def typed(text: str) -> Any:
        try:
            return parse(text)
        except (NotANumber, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return typed


def parse_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"{text!r} is not true or false")


def _choice(values: list[Any]) -> Callable[[str], Any]:
    def choose(text: str) -> Any:
        if text in values:
            return text
        raise ValueError(f"{text!r} is not one of {', '.join(map(str, values))}")

    return choose


def _names(text: str) -> list[str]:
    """A comma list of names; an empty one (8,,16 or a trailing comma) is refused, not dropped."""
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        raise ValueError(f"{text!r}: a comma list without empty items")
    return parts


def _comma_list(parse_item: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    return lambda text: [parse_item(part) for part in _names(text)]


def _json_or(fallback: Callable[[str], Any] | None) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if text.startswith("@"):  # @config.json: the JSON of a file (e.g. --model.hf-config @config.json)
            try:
                text = Path(text[1:]).read_text()
            except OSError as exc:
                raise ValueError(f"cannot read {text[1:]}: {exc.strerror}") from None
        if text.lstrip()[:1] in ("{", "["):
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not valid JSON: {exc}") from None
            except RecursionError:
                raise ValueError("not valid JSON: nested too deeply") from None
        if fallback is None:
            raise ValueError(f"{text!r}: give a JSON value")
        return fallback(text)

    return parse


def _first_of(parsers: list[Callable[[str], Any]], takes_object: bool) -> Callable[[str], Any]:
    """A union: JSON when it looks like JSON, else the first member's parser that accepts the text."""

    def parse(text: str) -> Any:
        if takes_object and text.lstrip()[:1] in ("{", "["):
            return _json_or(None)(text)
        errors = []
        for member in parsers:
            try:
                return member(text)
            except (NotANumber, ValueError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors) or f"{text!r} is not valid here")

    return parse


def _flag_name(parts: tuple[str, ...]) -> str:
    return "--" + ".".join(p.replace("_", "-") for p in parts)


def _groups(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, field in model.model_fields.items():
        annotation = unwrap(field.annotation)
        if is_model(annotation):
            yield (*prefix, name)
            yield from _groups(annotation, (*prefix, name))


# Blocks that bound what a question searches (a search's restrict) rather than state the job: their fields keep
# their dotted names alone, so the job's own fields take the same short names on every command
# (``--world-size`` is cluster.world_size for plan and search alike, not clashing with restrict.world_size).
QUESTION_BLOCKS = frozenset({"restrict"})


def _short_names(paths: list[tuple[str, ...]], groups: list[tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    """The shortest tail of each path that no other path (nor a group) ends with; a job's field does not count the
    fields of a question block (QUESTION_BLOCKS) as clashing, so it keeps the short name they share."""
    out = {}
    everything = paths + groups
    job = [p for p in everything if p[0] not in QUESTION_BLOCKS]
    for path in paths:
        rivals = everything if path[0] in QUESTION_BLOCKS else job
        for size in range(1, len(path)):
            tail = path[-size:]
            clash = [p for p in rivals if p != path and p[-size:] == tail]
            if not clash:
                out[path] = _flag_name(tail)
                break
    return out


@cache
def request_flags(model: type[BaseModel]) -> list[Flag]:
    found = list(leaves(model))
    short = _short_names([path for path, _, _ in found], list(_groups(model)))
    flags = []
    for path, annotation, field in found:
        parse, hint, numeric = parser_for(path[-1], annotation)
        names = [_flag_name(path)]
        if path in short:
            names.append(short[path])
        for suffix, extra in ALIASES.items():
            if ".".join(path).endswith(suffix):
                names.extend(extra)
        description = (field.description or "").split(". ")[0].rstrip(".")
        text = f"{description} [{hint}]" if description else f"[{hint}]"
        flags.append(Flag(path, tuple(dict.fromkeys(names)), _wrap(parse), text, annotation is bool, numeric))
    return flags


def add_request_flags(parser: argparse.ArgumentParser, flags: list[Flag]) -> None:
    group = parser.add_argument_group("request fields (override the file's)")
    taken: set[str] = set(parser._option_string_actions)  # noqa: SLF001 - argparse keeps no public list
    for flag in flags:
        names = [n for n in flag.names if n not in taken]
        taken.update(names)
        options: dict[str, Any] = {"dest": flag.dest, "type": flag.parse, "help": flag.help, "default": None}
        if flag.is_bool:
            options |= {"nargs": "?", "const": True, "metavar": "true|false"}
        else:
            options["metavar"] = "VALUE"
        group.add_argument(*names, **options)


def given(args: argparse.Namespace, flags: list[Flag]) -> Iterator[tuple[Flag, Any]]:
    for flag in flags:
        value = getattr(args, flag.dest, None)
        if value is not None:
            yield flag, value
