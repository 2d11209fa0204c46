"""What the README promises about serving: make serve's port, the image's health check."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def serve_command(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("PORT", "HOST", "ZEROPLAN_PORT", "ZEROPLAN_HOST")}
    result = subprocess.run(
        ["make", "-n", "-W", "pyproject.toml", "serve"], cwd=ROOT, env=clean | env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return next(line for line in result.stdout.splitlines() if "zeroplan serve" in line)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is absent")
@pytest.mark.parametrize(
    ("env", "port"),
    [
        ({}, "8000"),
        ({"ZEROPLAN_PORT": "18343"}, "18343"),
        ({"PORT": "9000"}, "9000"),
        ({"PORT": "9000", "ZEROPLAN_PORT": "18343"}, "9000"),
    ],
)
def test_make_serve_takes_the_port_from_the_environment(env, port):
    assert serve_command(**env).endswith(f"--port {port}")


def test_the_image_checks_readiness_on_the_port_it_serves():
    dockerfile = (ROOT / "Dockerfile").read_text()
    check = re.search(r"HEALTHCHECK[^\n]*\\\n\s*CMD ([^\n]+)", dockerfile)
    assert check, "no HEALTHCHECK"
    assert "/readyz" in check.group(1) and "ZEROPLAN_PORT" in check.group(1)
    readme = (ROOT / "README.md").read_text()
    assert "HEALTHCHECK on\n`/readyz`" in readme or "HEALTHCHECK on `/readyz`" in readme
