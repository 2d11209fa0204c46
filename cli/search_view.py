"""`zeroplan search`: the ranked layouts as a table (degrees, split of the layers, MFU, memory, fits, step, days,
GPU-hours), the Pareto front, what was pruned, and why each row ranks where it does."""

from typing import Any

from service.numeric import GIB_BYTES
from service.sim.table import table

Rows = tuple[list[str], list[list[Any]]]

HEADERS = [
    "rank",
    "GPUs",
    "t",
    "p",
    "c",
    "e",
    "d",
    "schedule",
    "split",
    "SP",
    "b",
    "m",
    "arrangement",
    "recompute",
    "offload",
    "MFU",
    "GiB/GPU",
    "fits",
    "step s",
    "days",
    "GPU-hours",
]


def _schedule(par: dict[str, Any]) -> str:
    if par["pipeline"] == 1:
        return "-"
    v = par.get("virtual_stages", 1)
    return par["pipeline_schedule"] + (f" v{v}" if v > 1 else "")


def _split(row: dict[str, Any]) -> str:
    """The split of the layers as the row's request states it, by restrict.pipeline_split's names: even,
    embedding_loss, lighter_ends_k, or asked (the request's own split, of another shape)."""
    par = row["request"]["parallelism"]
    if par.get("pipeline", 1) == 1:
        return "-"
    embedding, loss = par.get("pipeline_embedding_layers") or 0, par.get("pipeline_loss_layers") or 0
    if embedding or loss:
        return "embedding_loss" if (embedding, loss) == (1, 1) else "asked"
    given = par.get("pipeline_layers")
    if not given:
        return "even"
    lighter = sum(given) // len(given) - given[0]
    return f"lighter_ends_{lighter}" if lighter in (1, 2) and given[0] == given[-1] else "asked"


def _cells(row: dict[str, Any]) -> list[Any]:
    par, time = row["parallelism"], row["time"]
    days, hours = time.get("training_days"), time.get("gpu_hours")
    return [
        row["rank"] or "-",
        row["world_size"],
        par["tensor"],
        par["pipeline"],
        par["context"],
        par["expert"],
        par["data"],
        _schedule(par),
        _split(row),
        "on" if par["sequence_parallel"] else "off",
        row["micro_batch_size"],
        par["micro_batches"],
        row["arrangement"],
        row["recompute"],
        "on" if row["offload_optimizer"] else "off",
        f"{row['mfu']:.3f}",
        f"{row['per_gpu_bytes'] / GIB_BYTES:,.1f}",
        "yes" if row["fits"] else "NO",
        f"{row['step_s']:.4g}",
        "-" if days is None else f"{days:,.1f}",
        "-" if hours is None else f"{hours:,.0f}",
    ]


def _equivalents(row: dict[str, Any]) -> str:
    if not row["equivalents"]:
        return ""
    words = ["; ".join(f"{k} {v}" for k, v in change.items()) for change in row["equivalents"]]
    return f"   the same figures with: {' | '.join(words)}"


def render_search(answer: dict[str, Any]) -> str:
    pruned = sum(answer["pruned"].values())
    head = (
        f"best {len(answer['layouts'])} layouts by {answer['objective']}: {answer['considered']:,} valid layouts, "
        f"{pruned:,} pruned, {answer['evaluated']:,} evaluated, {answer['fitting']:,} fit, "
        f"{answer['dominated']:,} dominated by the same layout with other levers"
    )
    parts = [head]
    if answer["layouts"]:
        parts.append(table(HEADERS, [_cells(row) for row in answer["layouts"]]))
    if answer.get("note"):
        parts.append(answer["note"])
    if answer.get("asked"):
        parts.append("the job as asked:\n" + table(HEADERS, [_cells(answer["asked"])]))
    if answer["pareto"]:
        parts.append("Pareto front (GPUs against step):\n" + table(HEADERS, [_cells(row) for row in answer["pareto"]]))
    why = []
    for row in answer["layouts"]:
        why.append(row["why"] + ("\n" + _equivalents(row) if row["equivalents"] else ""))
    if why:
        parts.append("why:\n" + "\n".join(f"- {w}" for w in why))
    if answer["pruned"]:
        parts.append("pruned:\n" + "\n".join(f"- {count:,}: {reason}" for reason, count in answer["pruned"].items()))
    return "\n\n".join(parts)


def search_rows(answer: dict[str, Any]) -> Rows:
    headers = [
        "rank",
        "world_size",
        "tensor",
        "pipeline",
        "context",
        "expert",
        "data",
        "pipeline_schedule",
        "virtual_stages",
        "sequence_parallel",
        "micro_batch_size",
        "micro_batches",
        "arrangement",
        "recompute",
        "offload_optimizer",
        "mfu",
        "per_gpu_bytes",
        "fits",
        "step_s",
        "training_days",
        "gpu_hours",
        "cost",
        "pipeline_split",
    ]
    rows = []
    for row in answer["layouts"]:
        par, time = row["parallelism"], row["time"]
        rows.append(
            [row["rank"], row["world_size"]]
            + [par[k] for k in ("tensor", "pipeline", "context", "expert", "data", "pipeline_schedule")]
            + [par["virtual_stages"], par["sequence_parallel"], row["micro_batch_size"], par["micro_batches"]]
            + [row["arrangement"], row["recompute"], row["offload_optimizer"], row["mfu"], row["per_gpu_bytes"]]
            + [row["fits"], row["step_s"], time.get("training_days"), time.get("gpu_hours"), time.get("cost")]
            + [_split(row)]
        )
    return headers, rows
