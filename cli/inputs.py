"""A request from a JSON or YAML file, its human numbers read, overlaid with command-line flags."""

import argparse
import json
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cli.flags import Flag, given, is_model, is_union, unwrap
from cli.numbers import NotANumber, parse_bytes, parse_count, parse_float


def read_request_file(path: str) -> dict[str, Any]:
    """The file's mapping; a file that does not parse is a ValueError naming it (the caller's one-line error)."""
    text = Path(path).read_text()
    try:
        if path.endswith((".yaml", ".yml")):
            import yaml

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ValueError(f"{path}: not YAML a request can be read from: {_one_line(exc)}") from None
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: not JSON a request can be read from: {exc}") from None
            except ValueError:  # an integer of thousands of digits, past CPython's limit on converting one
                raise ValueError(f"{path}: holds a number too long to be a request's") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be a request") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the request must be a mapping, not {type(data).__name__}")
    return data


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def read_numbers(value: Any, annotation: Any, where: str, field: str = "") -> Any:
    """Strings such as '70e9' or '70B' where the model takes a number (YAML reads 70e9 as a string)."""
    annotation = unwrap(annotation)
    if isinstance(value, dict):
        model = annotation if is_model(annotation) else _model_member(annotation)
        if model is None:
            return value
        out = dict(value)
        for name, item in value.items():
            sub = model.model_fields.get(name)
            if sub is not None:
                out[name] = read_numbers(item, sub.annotation, f"{where}.{name}" if where else name, name)
        return out
    if isinstance(value, list):
        item_type = _list_item(annotation)
        return [read_numbers(item, item_type, f"{where}.{i}", field) for i, item in enumerate(value)]
    if isinstance(value, str) and value not in _literal_values(annotation):
        parse = _number_parser(annotation, field)
        if parse is not None:
            try:
                return parse(value)
            except NotANumber as exc:
                raise ValueError(f"{where}: {exc}") from None
    return value


def _model_member(annotation: Any) -> type[BaseModel] | None:
    if is_union(annotation):
        return next((m for m in typing.get_args(annotation) if is_model(m)), None)
    return None


def _list_item(annotation: Any) -> Any:
    members = typing.get_args(annotation) if is_union(annotation) else (annotation,)
    for member in members:
        if typing.get_origin(member) is list:
            return (typing.get_args(member) or (Any,))[0]
    return Any


def _literal_values(annotation: Any) -> set[Any]:
    """The words a field takes beside a number ('auto' of training.checkpoint.interval_steps)."""
    members = typing.get_args(annotation) if is_union(annotation) else (annotation,)
    return {v for m in members if typing.get_origin(m) is typing.Literal for v in typing.get_args(m)}


def _number_parser(annotation: Any, field: str) -> Any:
    members = typing.get_args(annotation) if is_union(annotation) else (annotation,)
    if int in members:
        return parse_bytes if field.endswith("_bytes") else parse_count
    if float in members:
        return parse_float
    return None


def set_path(body: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """set_path(b, ('cluster', 'world_size'), 8) sets b['cluster']['world_size']."""
    *parents, leaf = path
    node = body
    for key in parents:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[leaf] = value


def overlay(body: dict[str, Any], args: argparse.Namespace, flags: list[Flag]) -> dict[str, Any]:
    """Each flag given replaces its field of the file's request."""
    for flag, value in given(args, flags):
        set_path(body, flag.path, value)
    return body
