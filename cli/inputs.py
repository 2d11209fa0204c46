"""A request from a JSON or YAML file, overlaid with command-line flags."""

import argparse
import json
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any


def count(text: str) -> int:
    """'30e9', '30_000_000_000' or '8' as an exact integer; argparse type for counts."""
    try:
        value = Decimal(text.replace("_", ""))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def grid(text: str) -> str | list[int]:
    """powers_of_two, whole_nodes, or a comma-separated list of GPU counts."""
    if "," not in text and not text.strip().isdigit():
        return text
    return [count(part) for part in text.split(",") if part.strip()]


def read_request_file(path: str) -> dict[str, Any]:
    text = Path(path).read_text()
    if path.endswith((".yaml", ".yml")):
        import yaml

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the request must be a mapping, not {type(data).__name__}")
    return data


def set_path(body: dict[str, Any], dotted: str, value: Any) -> None:
    """set_path(b, 'cluster.world_size', 8) sets b['cluster']['world_size']."""
    *parents, leaf = dotted.split(".")
    node = body
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = value


def overlay(body: dict[str, Any], args: argparse.Namespace, fields: dict[str, str]) -> dict[str, Any]:
    """Each flag given (dest -> dotted field) replaces that field of the file's request."""
    for dest, dotted in fields.items():
        value = getattr(args, dest, None)
        if value is not None:
            set_path(body, dotted, value)
    return body
