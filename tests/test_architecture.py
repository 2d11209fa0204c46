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


PACKAGES = ("api", "cli", "models", "service")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each project module and the project modules it imports, at any level of the file (a function's
    imports and ``if TYPE_CHECKING:`` blocks included): ``from a.b import c`` names a.b.c when it is a module."""
    paths = {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {
                    f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in paths else node.module
                    for alias in node.names
                }
        graph[name] = {module for module in found if module in paths and module != name}
    return graph


def cycle_from(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if any (depth first)."""
    stack, seen = [(start, [start])], set()
    while stack:
        module, path = stack.pop()
        for imported in graph[module]:
            if imported == start:
                return path + [start]
            if imported not in seen:
                seen.add(imported)
                stack.append((imported, path + [imported]))
    return None


def test_no_import_cycles():
    """A module never imports, directly or through others, a module that imports it (issue 23: the flow reads one
    way), not even for type checking alone."""
    graph = import_graph()
    cycles = [cycle for cycle in (cycle_from(graph, module) for module in sorted(graph)) if cycle is not None]
    assert not cycles, " ; ".join(" -> ".join(cycle) for cycle in cycles[:5])


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycle_from(graph, "a") == ["a", "b", "c", "a"]
    assert cycle_from(graph, "d") is None


def called_names(path: Path) -> set[str]:
    """The names a module calls (``f(...)`` and ``x.f(...)``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            found.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return found


def test_one_evaluation_orchestrates_a_plan():
    """A data-parallel plan and a plan on a mesh are one evaluation (service/engine/evaluation.py): the modules that
    build their stages hand them to it and take no step of a plan themselves (the stage's compute, the data groups,
    the step's totals), as each did when each had an evaluation of its own."""
    engine = ROOT / "service" / "engine"
    steps = {
        *("rank_step", "part_step", "stage_compute", "mesh_stage_compute", "stage_bubble", "step_totals"),
        *("model_parallel_calls", "exposed_group_s"),
    }
    assert steps & called_names(engine / "evaluation.py") >= {"rank_step", "mesh_stage_compute", "stage_bubble"}
    for builder in ("data_parallel.py", "layout.py"):
        calls = called_names(engine / builder)
        assert "evaluate_mesh" in calls, builder
        assert not steps & calls, f"{builder} takes {sorted(steps & calls)} itself"
    for answers in (ROOT / "service" / "answers").glob("*.py"):
        assert not steps & called_names(answers), f"{answers.name} takes a step of the evaluation itself"


def test_the_grid_takes_the_evaluations_steps():
    """The many layouts of a search or a layout sweep (service/engine/layout_grid.py) go through the plan's steps:
    the busiest stage, the slowest pacing stage, the model-parallel groups, the data groups and what follows them
    (the host link, the optimizer step, the totals), each the function the one evaluation calls. The grid decides
    only which rows share a term; it does not put a step together from its pieces (the bubble, each group's exposed
    seconds, the expert overlap's pairs, a part's data group, the step's sum, a sweep row's floor and bytes sent), as
    it did when it had an orchestration of its own."""
    engine = ROOT / "service" / "engine"
    steps = {"busiest_stage", "slowest_stage", "model_parallel_step", "data_groups_step", "rank_totals"}
    steps |= {"gpu_state_bytes", "floor_bytes", "data_bytes_sent"}  # a sweep row's detail, as a plan reports it
    pieces = {
        *("stage_bubble", "exposed_group_s", "hidden_lever_s", "group_seconds", "ring_step_core_s"),
        *("combined_pairs", "combined_group_s", "expert_hidden_s", "part_step", "rank_step"),
        *("host_step", "optimizer_step", "step_totals", "replicated_bytes", "per_step"),
    }
    evaluation = called_names(engine / "evaluation.py") | called_names(engine / "step.py")
    assert steps <= evaluation, "the one evaluation takes these steps"
    grid = called_names(engine / "layout_grid.py")
    assert steps <= grid, f"the grid skips {sorted(steps - grid)}"
    assert not pieces & grid, f"the grid assembles {sorted(pieces & grid)} itself"
