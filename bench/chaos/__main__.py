"""python -m bench.chaos [--only SECTION ...]: run the chaos sections and print each figure."""

import argparse
import sys
from collections.abc import Callable
from typing import Any

from bench.chaos import attack, jobs, load, schema

# One entry per section; each runs on its own and returns the figures it printed.
SECTIONS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "jobs": jobs.run,
    "load": load.run,
    "schema": schema.run,
    "attack": attack.run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__)
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS), help="run only this section")
    jobs.add_arguments(parser)
    load.add_arguments(parser)
    schema.add_arguments(parser)
    attack.add_arguments(parser)
    args = parser.parse_args(argv)
    failed = []
    for name in args.only or list(SECTIONS):
        print(f"== {name}", flush=True)
        figures = SECTIONS[name](args)
        failed += [f"{name}: {key}" for key, ok in figures.get("checks", {}).items() if not ok]
    print("all figures met" if not failed else "missed: " + "; ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
