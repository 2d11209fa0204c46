"""A problem answer as the command line shows it: each field named as the flag that sets it."""

import re
from typing import Any

from cli.flags import Flag
from cli.transport import Answer

EXIT_OK, EXIT_FAILED, EXIT_BAD_REQUEST = 0, 1, 2


def problem_text(answer: Answer, flags: list[Flag]) -> str:
    """The problem with each field named as the flag that sets it."""
    body = answer.body
    errors = body.get("errors") or []
    head = f"error {answer.status} {body.get('code', '')}".rstrip()
    if not errors:
        return f"{head}: {with_flag_names(str(body.get('detail', '')), flags)}" + _request_id(body)
    lines = [head + ":"]
    for error in errors:
        pointer = str(error.get("pointer", ""))
        message = str(error.get("detail", ""))
        field = pointer.strip("/").replace("/", ".")
        message = message.removeprefix(field + ": ") if field else message
        lines.append(f"  {flag_for(pointer, flags)}: {with_flag_names(message, flags)}")
    return "\n".join(lines) + _request_id(body)


def _request_id(body: dict[str, Any]) -> str:
    return f"\n  request id {body['request_id']}" if body.get("request_id") else ""


def flag_for(pointer: str, flags: list[Flag]) -> str:
    """'/cluster/world_size' -> '--world-size'; a group or a list item names the closest flag or field."""
    parts = tuple(p for p in pointer.strip("/").split("/") if p)
    if not parts:
        return "the request"
    for size in range(len(parts), 0, -1):
        match = next((f for f in flags if f.path == parts[:size]), None)
        if match is not None:
            return match.shown
    group = ".".join(parts)
    if any(f.path[: len(parts)] == parts for f in flags):
        return f"--{group.replace('_', '-')}.*"
    return group


def with_flag_names(text: str, flags: list[Flag]) -> str:
    """Field names in a message ('cluster.gpu') written as their flags ('--gpu')."""
    for flag in sorted(flags, key=lambda f: -len(f.dotted)):
        text = re.sub(rf"(?<![\w.-]){re.escape(flag.dotted)}(?![\w])", flag.shown, text)
    return text
