"""zeroplan figure NAME: one of the figures as PNG or SVG, drawn in process or by a server (--url)."""

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cli.flags import add_request_flags, request_flags
from cli.inputs import overlay, read_numbers, read_request_file
from cli.problems import problem_text
from models.figures import FIGURE_MEDIA_TYPES, FigureFormat, FigureName, FigureRequest

EXIT_OK, EXIT_FAILED, EXIT_BAD_REQUEST = 0, 1, 2


def add_figure_parser(commands: Any) -> None:
    sub = commands.add_parser(
        "figure",
        help=f"draw a figure ({', '.join(n.value for n in FigureName)}) as PNG or SVG",
        description=f"One of the {len(FigureName)} figures for a plan request (POST /v1/figures/{{name}}): four "
        "that compare the arrangements and two of a layout.",
    )
    sub.add_argument("name", choices=[n.value for n in FigureName])
    sub.add_argument("-o", "--output", help="file to write (default NAME.FORMAT); - for standard output")
    sub.add_argument("--format", choices=[f.value for f in FigureFormat], default=None, help="png or svg")
    sub.add_argument("-f", "--file", help="request as JSON or YAML (flags override its fields)")
    sub.add_argument("--url", help="ask a running server instead of the core")
    sub.add_argument("--token", default=os.environ.get("ZEROPLAN_API_TOKEN"), help="bearer token for --url")
    add_request_flags(sub, request_flags(FigureRequest))
    sub.set_defaults(handler=figure)


def _format(args: argparse.Namespace) -> FigureFormat:
    """The output's suffix (.png or .svg), else --format, else PNG; another suffix, or one --format contradicts, is
    a ValueError (the file would hold bytes its name does not say)."""
    suffix = Path(args.output).suffix.lstrip(".").lower() if args.output and args.output != "-" else ""
    if suffix and suffix not in {f.value for f in FigureFormat}:
        raise ValueError(f"{args.output}: the format follows the suffix, .png or .svg")
    if suffix and args.format and args.format != suffix:
        raise ValueError(f"{args.output}: --format {args.format} and the suffix .{suffix} disagree")
    return FigureFormat(suffix or args.format or FigureFormat.png.value)


def figure(args: argparse.Namespace) -> int:
    from cli.transport import Answer, Unreachable, domain_problem, validation_problem
    from service.errors import DomainError

    flags = request_flags(FigureRequest)
    try:
        fmt = _format(args)
        body = read_numbers(read_request_file(args.file) if args.file else {}, FigureRequest, "")
        body = overlay(body, args, flags)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_REQUEST
    if args.url:
        try:
            status, content = _remote(args, body, fmt)
        except Unreachable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if isinstance(content, dict):
            print(problem_text(Answer(status, content), flags), file=sys.stderr)
            return EXIT_BAD_REQUEST if status < 500 else EXIT_FAILED
        image = content
    else:
        try:
            request = FigureRequest.model_validate(body)
        except ValidationError as exc:
            print(problem_text(Answer(422, validation_problem(exc, body)), flags), file=sys.stderr)
            return EXIT_BAD_REQUEST
        from service.answers.figures import draw

        try:
            image = draw(FigureName(args.name), request, fmt)
        except DomainError as exc:
            problem = domain_problem(exc)
            print(problem_text(problem, flags), file=sys.stderr)
            return EXIT_BAD_REQUEST if problem.status < 500 else EXIT_FAILED
    output = args.output or f"{args.name}.{fmt.value}"
    if output == "-":
        sys.stdout.buffer.write(image)
    else:
        try:
            Path(output).write_bytes(image)
        except OSError as exc:
            print(f"error: cannot write {output}: {exc.strerror}", file=sys.stderr)
            return EXIT_BAD_REQUEST
        print(f"wrote {output} ({len(image):,} bytes, {fmt.value})")
    return EXIT_OK


def _remote(args: argparse.Namespace, body: dict[str, Any], fmt: FigureFormat) -> tuple[int, bytes | dict[str, Any]]:
    import httpx

    from cli.transport import TIMEOUT_S, Unreachable

    headers = {"Accept": FIGURE_MEDIA_TYPES[fmt]} | ({"Authorization": f"Bearer {args.token}"} if args.token else {})
    try:
        with httpx.Client(base_url=args.url.rstrip("/"), timeout=TIMEOUT_S, headers=headers) as client:
            response = client.post(f"/v1/figures/{args.name}", json=body)
    except httpx.HTTPError as exc:
        raise Unreachable(f"cannot reach {args.url}: {str(exc) or type(exc).__name__}") from None
    if response.is_success:
        return response.status_code, response.content
    if "json" in response.headers.get("content-type", ""):
        return response.status_code, response.json()
    return response.status_code, {"status": response.status_code, "detail": response.text[:500]}
