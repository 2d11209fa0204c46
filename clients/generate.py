"""Generate the Python client in clients/python/ from openapi/openapi.json (openapi-python-client).

``make openapi`` runs it after writing the spec, so the committed client always matches the
committed spec; tests/api/test_client.py regenerates it into a temporary folder and compares.
The generator formats its output with ruff from the same environment, so the result depends only
on the spec and the pinned generator. One setting: the figures' image types (valid OpenAPI,
`type: string, format: binary`) are read as application/octet-stream, the binary type the
generator knows.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
CLIENT_DIR = ROOT / "clients" / "python"
PACKAGE = "zeroplan_client"
CONFIG = {
    "project_name_override": "zeroplan-client",
    "package_name_override": PACKAGE,
    "content_type_overrides": {"image/png": "application/octet-stream", "image/svg+xml": "application/octet-stream"},
}
TIMEOUT_S = 300


def generate(out: Path, spec: Path = SPEC) -> str:
    """Write the client package (with its setup.py) to `out`, replacing it; returns the generator's report."""
    bin_dir = Path(sys.executable).parent
    generator = bin_dir / "openapi-python-client"
    if not generator.exists():
        raise SystemExit("openapi-python-client is missing: pip install -e '.[dev]'")
    env = os.environ | {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "config.json"
        config.write_text(json.dumps(CONFIG))
        target = Path(work) / "client"
        command = [str(generator), "generate", "--path", str(spec), "--meta", "setup", "--config", str(config)]
        command += ["--output-path", str(target)]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, cwd=work)
        report = result.stdout + result.stderr
        if result.returncode != 0:
            raise SystemExit(f"openapi-python-client failed:\n{report}")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(target, out, ignore=shutil.ignore_patterns(".ruff_cache", "__pycache__"))
    return report


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else CLIENT_DIR
    generate(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
