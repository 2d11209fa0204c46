"""Imports flow one way: api -> service -> models. No fastapi in the core, no torch outside service/sim."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(package: str):
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                yield path, node.module


def top(module: str) -> str:
    return module.split(".", 1)[0]


def test_core_and_contract_know_no_http():
    for package in ("service", "models"):
        for path, module in imported_modules(package):
            assert top(module) not in {"fastapi", "starlette", "uvicorn", "api"}, f"{path} imports {module}"


def test_contract_imports_nothing_of_the_project():
    for path, module in imported_modules("models"):
        assert top(module) not in {"service", "api"}, f"{path} imports {module}"


def test_torch_only_in_the_simulation():
    for package in ("service", "models", "api"):
        for path, module in imported_modules(package):
            if top(module) == "torch":
                assert (ROOT / "service" / "sim") in path.parents, f"{path} imports torch"


def test_core_does_not_read_the_environment():
    for path in (ROOT / "service").rglob("*.py"):
        if (ROOT / "service" / "sim") in path.parents:
            continue  # the simulation's child processes read their rendezvous variables
        assert "os.environ" not in path.read_text() and "getenv" not in path.read_text(), path
