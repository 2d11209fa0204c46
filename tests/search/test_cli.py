"""`zeroplan search`: the same flags as the request, the answer of the core, a human table and CSV."""

import json

from cli.main import run
from models.search import SearchRequest
from service.answers.search import search

FLAGS = [
    "search",
    "--model",
    "llama-3-8b",
    "--cluster.world-size",
    "8,16",
    "--gpu",
    "h100-80gb",
    "--global-batch-size",
    "128",
    "--sequence-length",
    "8192",
    "--total-tokens",
    "1T",
    "--top-k",
    "3",
    "--restrict.tensor",
    '{"max": 4}',
]
BODY = {
    "model": {"preset": "llama-3-8b"},
    "cluster": {"world_size": [8, 16], "gpu": "h100-80gb"},
    "training": {"global_batch_size": 128, "sequence_length": 8192, "total_tokens": 1_000_000_000_000},
    "top_k": 3,
    "restrict": {"tensor": {"max": 4}},
}


def zeroplan(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_flags_as_json_equal_the_core(capsys):
    code, out, _ = zeroplan(capsys, *FLAGS, "--json")
    assert code == 0
    assert json.loads(out) == search(SearchRequest.model_validate(BODY), 10**9).model_dump(mode="json")


def test_search_prints_the_layouts_as_a_table(capsys):
    code, out, _ = zeroplan(capsys, *FLAGS)
    assert code == 0
    answer = search(SearchRequest.model_validate(BODY), 10**9)
    header = next(line for line in out.splitlines() if line.startswith("rank"))
    for column in ("GPUs", "t", "p", "c", "e", "d", "MFU", "GiB/GPU", "fits", "step s", "days", "GPU-hours"):
        assert f" {column} " in f" {header} "
    first = answer.layouts[0]
    row = next(line for line in out.splitlines() if line.split()[:2] == ["1", str(first.world_size)])
    assert f"{first.step_s:.4g}" in row and f"{first.mfu:.3f}" in row
    assert f"{first.time.training_days:,.1f}" in row and f"{first.time.gpu_hours:,.0f}" in row
    assert "Pareto front" in out and "why:" in out and "pruned" in out


def test_search_csv_and_a_missing_price(capsys):
    code, out, _ = zeroplan(capsys, *FLAGS, "--csv")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("rank,world_size,tensor,pipeline") and len(lines) == 4
    code, _, err = zeroplan(capsys, *FLAGS, "--objective", "cost")
    assert code == 2 and "gpu-hour-price" in err


def test_the_jobs_short_flags_are_the_plans_on_search_too():
    """`--world-size` names cluster.world_size on search as on plan, though restrict.world_size ends the same way;
    the restriction keeps its dotted name, and a restriction no job field shares keeps its short one."""
    from cli.flags import request_flags
    from models.plan import PlanRequest

    def names(model: type, path: tuple[str, ...]) -> tuple[str, ...]:
        return next(f.names for f in request_flags(model) if f.path == path)

    assert "--world-size" in names(PlanRequest, ("cluster", "world_size"))
    assert "--world-size" in names(SearchRequest, ("cluster", "world_size"))
    assert names(SearchRequest, ("restrict", "world_size")) == ("--restrict.world-size",)
    assert "--pipeline-split" in names(SearchRequest, ("restrict", "pipeline_split"))
    short = [arg if arg != "--cluster.world-size" else "--world-size" for arg in FLAGS]
    assert run([*short, "--json"]) == 0


def test_the_table_and_csv_name_each_rows_split_of_the_layers(capsys):
    """Llama 3.1 405B on 16 stages: its balanced split counts the embedding and loss as layers (tests/search/
    test_splits.py), and a restriction to the lighter ends gives rows whose first and last chunk are one lighter."""
    flags = ["search", "--model", "llama-3.1-405b", "--world-size", "8192", "--gpu", "h100-80gb"]
    flags += ["--global-batch-size", "2048", "--sequence-length", "8192", "--top-k", "2"]
    flags += ["--restrict.tensor", "8", "--restrict.pipeline", "16", "--restrict.context", "1"]
    flags += ["--restrict.pipeline-schedule", "1f1b"]
    code, out, _ = zeroplan(capsys, *flags)
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("rank")).split()
    at = header.index("split")
    rows = [line.split() for line in lines if line.split()[:2] == ["1", "8,192"] or line.split()[:2] == ["2", "8,192"]]
    assert rows and all(row[at] == "embedding_loss" for row in rows)
    code, out, _ = zeroplan(capsys, *flags, "--restrict.pipeline-split", "lighter_ends_1", "--csv")
    assert code == 0
    head, *body = out.strip().splitlines()
    column = head.split(",").index("pipeline_split")
    assert body and all(line.split(",")[column] == "lighter_ends_1" for line in body)
