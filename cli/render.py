"""Readable tables of the answers: plain text, columns aligned, numbers grouped."""

from typing import Any

from service.numeric import GIB_BYTES
from service.sim.table import render_report, table

Rows = tuple[list[str], list[list[Any]]]


def gib(value_bytes: int) -> str:
    return f"{value_bytes / GIB_BYTES:,.1f} GiB"


def card_words(memory: dict[str, Any]) -> str:
    card, usable = memory["card_bytes"], memory["usable_bytes"]
    return f"a card of {gib(card)}" if usable == card else f"the {gib(usable)} usable of a card of {gib(card)}"


def render_fit(answer: dict[str, Any]) -> str:
    head = (
        f"{answer['parameter_count']:,} parameters, card {answer['card_bytes']:,} B ({gib(answer['card_bytes'])}, "
        f"{gib(answer['usable_bytes'])} usable), "
        f"{answer['gpus_per_node']} GPUs per node, grid {answer['grid'][0]}..{answer['grid'][-1]}"
    )
    rows = [
        [
            a["arrangement"],
            a["replicated_bytes_per_weight"],
            a["sharded_bytes_per_weight"],
            a["min_gpus"],
            a["min_gpus_exact"],
            a["min_gpus_whole_nodes"],
            a["min_gpus_on_grid"],
        ]
        for a in answer["arrangements"]
    ]
    headers = ["arrangement", "r B/weight", "s B/weight", "min GPUs", "boundary", "whole nodes", "on grid"]
    reasons = "\n".join(f"{a['arrangement']}: {a['reason']}" for a in answer["arrangements"])
    warnings = [f"warning: {w}" for w in answer["warnings"]]
    return "\n\n".join([head, table(headers, rows), reasons, *warnings])


def render_recommend(answer: dict[str, Any]) -> str:
    rows = [
        [s["rank"], s["lever"], s["arrangement"], s["min_gpus"], s["fits"], gib(s["per_gpu_bytes"]), s["step_s"]]
        for s in answer["steps"]
    ]
    headers = ["rank", "lever", "arrangement", "min GPUs", "fits", "per GPU", "step s"]
    parts = [answer["summary"], table(headers, rows)]
    omitted = [f"- {o['why']}" for o in answer.get("omitted", [])]
    if omitted:
        parts.append("not listed (they change nothing here):\n" + "\n".join(omitted))
    questions = [f"- {q['question']} ({q['what_settles_it']})" for q in answer["questions"] if q["relevant"]]
    if questions:
        parts.append("open questions:\n" + "\n".join(questions))
    parts += [f"warning: {w}" for w in answer["warnings"]]
    return "\n\n".join(parts)


def render_limits(answer: dict[str, Any]) -> str:
    model = f"{answer['parameter_count']:,} parameters" if answer["parameter_count"] else "no model"
    head = (
        f"{model} on {answer['world_size']} GPUs, {gib(answer['usable_bytes'])} usable of a card of "
        f"{gib(answer['card_bytes'])}; micro-batch at sequence {answer['sequence_length']:,}, sequence at "
        f"micro-batch {answer['micro_batch_size']}"
    )
    headers, rows = limits_rows(answer)
    words = [
        f"{a['arrangement']} {key.replace('_', ' ')}: {a[f'{key}_arithmetic']}"
        for a in answer["arrangements"]
        for key in _LIMIT_KEYS
        if a[f"{key}_arithmetic"]
    ]
    warnings = [f"warning: {w}" for w in answer["warnings"]]
    return "\n\n".join([head, table(headers, rows), "\n".join(words), *warnings])


_LIMIT_KEYS = (
    "largest_parameter_count",
    "largest_parameter_count_model_states_only",
    "largest_micro_batch_size",
    "longest_sequence_length",
)


def limits_rows(answer: dict[str, Any]) -> Rows:
    headers = ["arrangement", "largest_layers", *_LIMIT_KEYS]
    rows = [[a["arrangement"], a["largest_layers"], *(a[key] for key in _LIMIT_KEYS)] for a in answer["arrangements"]]
    return headers, rows


def render_presets(answer: dict[str, Any]) -> str:
    """Each list of presets as a table of its name and scalar fields (sources shortened)."""
    sections = []
    for section, items in answer.items():
        if not isinstance(items, list) or not items:
            continue
        columns = [k for k, v in items[0].items() if not isinstance(v, dict | list) and k != "source"]
        rows = [[_short(item.get(k)) for k in columns] for item in items]
        sections.append(f"{section}\n" + table(columns, rows))
    return "\n\n".join(sections)


def _short(value: Any, limit: int = 60) -> Any:
    return value[: limit - 3] + "..." if isinstance(value, str) and len(value) > limit else value


SWEEP_SHOWN = (
    "model",
    "parameter_count",
    "world_size",
    "arrangement",
    "micro_batch_size",
    "per_gpu_bytes",
    "fits",
    "bytes_sent_per_gpu",
    "step_s",
    "tokens_per_s",
)
SWEEP_ROWS_SHOWN = 40


def render_sweep(answer: dict[str, Any]) -> str:
    columns = answer["columns"]
    names = [name for name in SWEEP_SHOWN if name in columns]
    shown = min(answer["rows"], SWEEP_ROWS_SHOWN)
    rows = [[columns[name][i] for name in names] for i in range(shown)]
    head = f"{answer['rows']:,} rows of {answer['cells']:,} cells ({answer['skipped_cells']:,} skipped)" + (
        f"; the first {shown} shown, --json or --csv for all" if shown < answer["rows"] else ""
    )
    return "\n\n".join([head, table(names, rows), *answer["skipped_reasons"]])


# ---- the main table of each answer, for --csv ----------------------------------------------------


def fit_rows(answer: dict[str, Any]) -> Rows:
    headers = ["arrangement", "world_size", "per_gpu_bytes", "fits"]
    rows = [
        [a["arrangement"], c["world_size"], c["per_gpu_bytes"], c["fits"]]
        for a in answer["arrangements"]
        for c in a["table"]
    ]
    return headers, rows


def recommend_rows(answer: dict[str, Any]) -> Rows:
    headers = ["rank", "lever", "arrangement", "min_gpus", "fits", "per_gpu_bytes", "step_s"]
    return headers, [[s.get(h) for h in headers] for s in answer["steps"]]


def sweep_rows(answer: dict[str, Any]) -> Rows:
    columns = answer["columns"]
    names = list(columns)
    return names, [list(row) for row in zip(*(columns[n] for n in names), strict=True)]


def presets_rows(answer: dict[str, Any]) -> Rows:
    headers = ["kind", "name", "description", "source"]
    rows = [
        [kind, item.get("name"), item.get("description"), item.get("source")]
        for kind, items in answer.items()
        if isinstance(items, list)
        for item in items
    ]
    return headers, rows


def simulation_rows(answer: dict[str, Any]) -> Rows:
    headers = ["arrangement", "keep_gather", "collective", "formula_bytes", "payload_bytes_rank0", "wire_bytes_rank0"]
    rows = [
        [
            run["arrangement"],
            run["keep_gather"],
            c["name"],
            c["formula_bytes"],
            c["payload_bytes"][0],
            c["wire_bytes"][0],
        ]
        for run in (answer.get("report") or {}).get("arrangements", [])
        for c in run["collectives"]
    ]
    return headers, rows


def render_simulation(answer: dict[str, Any]) -> str:
    report = answer.get("report")
    if not report:
        return f"simulation {answer.get('status')}: {answer.get('error') or 'no report'}"
    return f"job {answer['status']}\n\n" + render_report(report)
