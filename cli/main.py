"""zeroplan serve | plan | fit | presets: argument parsing and output."""

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from api.settings import Settings
from cli.flags import add_request_flags
from cli.inputs import overlay, read_request_file
from cli.operations import OPERATIONS, Operation
from cli.serve import add_serve_parser
from cli.transport import Answer, run_local, run_remote
from cli.worker import add_worker_parser

EXIT_OK, EXIT_FAILED, EXIT_BAD_REQUEST = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zeroplan", description="Plan DP and ZeRO-1/2/3 (FSDP) training memory.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_serve_parser(commands)
    add_worker_parser(commands)
    for name, operation in OPERATIONS.items():
        sub = commands.add_parser(name, help=operation.summary, description=f"{operation.method} {operation.path}")
        sub.set_defaults(operation=name)
        if operation.request_model is not None:
            sub.add_argument("-f", "--file", help="request as JSON or YAML (flags override its fields)")
            add_request_flags(sub, list(operation.flags))
        sub.add_argument("--json", action="store_true", help="print the answer as JSON")
        sub.add_argument("--url", help="ask a running server (e.g. http://127.0.0.1:8000) instead of the core")
        sub.add_argument("--token", default=os.environ.get("ZEROPLAN_API_TOKEN"), help="bearer token for --url")
    return parser


def request_body(operation: Operation, args: argparse.Namespace) -> dict[str, Any] | None:
    if operation.request_model is None:
        return None
    body = read_request_file(args.file) if args.file else {}
    return overlay(body, args, operation.flags)


def show(operation: Operation, answer: Answer, as_json: bool) -> int:
    if as_json:
        print(json.dumps(answer.body, indent=2))
    elif answer.ok:
        print(operation.render(answer.body))
    else:
        print(_problem_text(answer), file=sys.stderr)
    if answer.ok:
        return EXIT_OK
    return EXIT_BAD_REQUEST if answer.status < 500 else EXIT_FAILED


def _problem_text(answer: Answer) -> str:
    body = answer.body
    lines = [f"error {answer.status} {body.get('code', '')}: {body.get('detail', '')}".rstrip()]
    lines += [f"  at {e.get('pointer')}: {e.get('detail')}" for e in body.get("errors") or []]
    if body.get("request_id"):
        lines.append(f"  request id {body['request_id']}")
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "worker"):
        return int(args.handler(args))
    operation = OPERATIONS[args.operation]
    try:
        body = request_body(operation, args)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    if args.url:
        answer = run_remote(operation, body, args.url, args.token)
    else:
        answer = run_local(operation, body, Settings())
    return show(operation, answer, args.json)
