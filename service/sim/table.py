"""A simulation report as the text tables `zeroplan simulate` and `python -m service.sim` both print.

Plain text, columns aligned, numbers grouped (no torch, no HTTP): the verdict and every check first,
then the measurements beside the plan's figures. The torch engine's memory table shows three
figures per class: what the tracker measured, the plan for the layout the engine keeps (fp32
parameters and gradients: "predicted", which must equal the measurement) and /v1/plan's own figure
for the requested precision ("plan"); the convention that separates the last two is in `reasons`.
"""

from collections.abc import Sequence
from typing import Any


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(c.rjust(w) if _numeric(c) else c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells
    ]
    return "\n".join(line.rstrip() for line in lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def _numeric(text: str) -> bool:
    return text == "-" or text.replace(",", "").replace(".", "").lstrip("-").isdigit()


VERDICT_MEANING = {  # models.simulation's verdict, in the words of its field
    "confirmed": "every rank finished and every check passed",
    "refuted": "every rank finished, a check failed",
    "incomplete": "a rank failed, was dropped or the job ran out of time",
}


def checks_table(report: dict[str, Any]) -> str:
    verdict = report.get("verdict", "incomplete")
    head = f"verdict: {verdict} ({VERDICT_MEANING.get(verdict, 'a verdict of another version')})"
    rows = [[c["arrangement"], c["check"], c["passed"], c["detail"]] for c in report.get("checks", [])]
    return head + ("\n\n" + table(["arrangement", "check", "passed", "what was compared"], rows) if rows else "")


def render_report(report: dict[str, Any]) -> str:
    if report.get("engine") == "torch":
        return render_torch_report(report)
    rows = [
        [
            run["arrangement"] + (" (kept gather)" if run["keep_gather"] else ""),
            c["name"],
            c["formula_bytes"],
            c["payload_bytes"][0],
            c["wire_bytes"][0],
            c["payload_matches"],
        ]
        for run in report["arrangements"]
        for c in run["collectives"]
    ]
    traffic = table(["arrangement", "collective", "formula B", "payload B (rank 0)", "wire B (rank 0)", "exact"], rows)
    memory = table(
        ["arrangement", "state", "formula B", "resident B (rank 0)", "exact"],
        [
            [run["arrangement"], m["state"], m["formula_bytes"], m["resident_bytes"][0], m["matches"]]
            for run in report["arrangements"]
            for m in run["memory"]
        ],
    )
    return "\n\n".join(["simulation (rings engine)", checks_table(report), traffic, memory])


def render_torch_report(report: dict[str, Any]) -> str:
    """Rank 0's bytes by class: measured, predicted for the engine's layout and /v1/plan's; then the plan's
    activations and working set beside the tracker's peaks."""
    rows = []
    for run in report["arrangements"]:
        name = run["arrangement"]
        for m in run["memory"]:
            plan = m.get("preset_bytes_by_rank", [m["preset_bytes"]])[0]  # reports stored before it: the max
            rows.append([name, m["state"], m["measured_bytes"][0], m["predicted_bytes"][0], plan, m["matches"]])
        measured = sum(m["measured_bytes"][0] for m in run["memory"])
        predicted = sum(m["predicted_bytes"][0] for m in run["memory"])
        plan = sum(m.get("preset_bytes_by_rank", [m["preset_bytes"]])[0] for m in run["memory"])
        rows.append([name, "= model states", measured, predicted, plan, measured == predicted])
    memory = table(["arrangement", "class", "measured B (rank 0)", "engine layout B", "/v1/plan B", "exact"], rows)
    convention = (
        "engine layout: the plan's count for the layout PyTorch keeps (fp32 parameters and gradients, no separate "
        "master copy, Adam's step counters); /v1/plan: the requested precision's layout (bf16 parameters and "
        "gradients, fp32 master and moments). Both are 16 bytes a weight, split differently: they meet at the total, "
        "less the engine's 4-byte Adam step counter per parameter tensor."
    )
    compared = [
        [
            run["arrangement"],
            c["term"],
            c["plan_bytes"],
            c["engine_bytes"],
            None if c["ratio"] is None else f"{c['ratio']:.3f}",
            "exact" if c["tolerance"] == 0 else (None if c["tolerance"] is None else f"±{100 * c['tolerance']:g}%"),
            c["within_tolerance"],
        ]
        for run in report["arrangements"]
        for c in run.get("plan_comparison", [])
    ]
    parts = [f"simulation (torch engine, {report['backend']})", checks_table(report), memory, convention]
    if compared:
        parts.append(
            table(["arrangement", "term", "/v1/plan B", "engine peak B", "ratio", "tolerance", "within"], compared)
        )
        notes: dict[str, list[str]] = {}
        for run in report["arrangements"]:
            for c in run.get("plan_comparison", []):
                notes.setdefault(f"{c['term']}: {c['convention']}", []).append(run["arrangement"])
        parts.append("\n".join(f"{', '.join(names)} {words}" for words, names in notes.items()))
    return "\n\n".join(parts)
