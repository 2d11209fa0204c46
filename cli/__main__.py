import sys

from cli.main import run


def main() -> int:
    try:
        return run()
    except BrokenPipeError:  # the reader (e.g. `| head`) went away
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
