"""zeroplan serve | plan | fit | recommend | limits | sweep | search | simulate | presets: parsing and output."""

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from api.settings import Settings
from api.tables import csv_text
from cli.figure import add_figure_parser
from cli.flags import Flag, add_request_flags, request_flags
from cli.inputs import overlay, read_numbers, read_request_file
from cli.operations import OPERATIONS, Operation
from cli.problems import problem_text
from cli.serve import add_serve_parser
from cli.transport import Answer, Unreachable, run_local, run_remote
from cli.worker import add_worker_parser

EXIT_OK, EXIT_FAILED, EXIT_BAD_REQUEST = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zeroplan",
        description=(
            "Plan distributed training: per-GPU memory, traffic and step time under data parallelism, ZeRO-1/2/3 "
            "(FSDP) and tensor, pipeline, context and expert parallelism; which layout fits, and which to pick."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_serve_parser(commands)
    add_worker_parser(commands)
    add_figure_parser(commands)
    for name, operation in OPERATIONS.items():
        sub = commands.add_parser(
            name,
            help=operation.summary,
            description=f"{operation.summary} ({operation.method} {operation.path}).",
            epilog="Counts take 70B, 7e9 or 1.5T; *_bytes fields 80GB or 80GiB; booleans true or false.",
        )
        sub.set_defaults(operation=name)
        output = sub.add_mutually_exclusive_group()
        output.add_argument("--json", action="store_true", help="print the answer as JSON")
        output.add_argument("--csv", action="store_true", help="print the answer's main table as CSV")
        sub.add_argument("--url", help="ask a running server (e.g. http://127.0.0.1:8000) instead of the core")
        sub.add_argument("--token", default=os.environ.get("ZEROPLAN_API_TOKEN"), help="bearer token for --url")
        if operation.wants_request:
            sub.add_argument("--components", action="store_true", help="also list the components of the activations")
        if operation.request_model is not None:
            sub.add_argument("-f", "--file", help="request as JSON or YAML (flags override its fields)")
            add_request_flags(sub, flags_of(operation))
    return parser


def flags_of(operation: Operation) -> list[Flag]:
    assert operation.request_model is not None
    return request_flags(operation.request_model)


def request_body(operation: Operation, args: argparse.Namespace) -> dict[str, Any] | None:
    if operation.request_model is None:
        return None
    body = read_request_file(args.file) if args.file else {}
    body = read_numbers(body, operation.request_model, "")
    return overlay(body, args, flags_of(operation))


def show(operation: Operation, answer: Answer, args: argparse.Namespace, request: dict[str, Any] | None = None) -> int:
    if not answer.ok:
        print(problem_text(answer, flags_of(operation) if operation.request_model else []), file=sys.stderr)
        return EXIT_BAD_REQUEST if answer.status < 500 else EXIT_FAILED
    if args.json:
        print(json.dumps(answer.body, indent=2))
    elif args.csv:
        headers, rows = operation.rows(answer.body, request) if operation.wants_request else operation.rows(answer.body)
        sys.stdout.write(csv_text(headers, rows))
    elif operation.wants_request:
        print(operation.render(answer.body, request, args.components))
    else:
        print(operation.render(answer.body))
    return EXIT_FAILED if operation.poll and not confirmed(answer.body) else EXIT_OK


def confirmed(job: dict[str, Any]) -> bool:
    """Whether a simulation job confirmed the formulas: it succeeded and its verdict is confirmed (a failed or
    cancelled job, ranks that did not all finish, or a check that failed, is not; a report from before verdicts is
    judged by its status alone)."""
    report = job.get("report") or {}
    return job.get("status") == "succeeded" and report.get("verdict") in (None, "confirmed")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "worker", "figure"):
        return int(args.handler(args))
    operation = OPERATIONS[args.operation]
    try:
        body = request_body(operation, args)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    if args.url:
        try:
            answer = run_remote(operation, body, args.url, args.token)
        except Unreachable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_FAILED
    else:
        answer = run_local(operation, body, Settings())
    return show(operation, answer, args, body)
