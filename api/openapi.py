"""Write the app's OpenAPI spec: ``python -m api.openapi [path]`` (default openapi/openapi.json)."""

import json
import sys
from pathlib import Path
from typing import Any

from api.app import create_app
from api.settings import Settings

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def spec() -> dict[str, Any]:
    return create_app(Settings()).openapi()


def render() -> str:
    return json.dumps(spec(), indent=2, sort_keys=True) + "\n"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH
    path.write_text(render())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
