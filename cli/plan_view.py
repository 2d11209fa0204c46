"""A plan's answer as terms that add up: memory per GPU, the step, the traffic (text and --csv).

Every total the CLI prints is preceded by the terms it is the sum of, read from the answer's own
fields (models/plan.py), so a reader sees what decides a fit or a step time:
- per GPU = model states + working set + activations (the busiest pipeline stage's);
  usable = card - reserve - fragmentation; headroom = usable - per GPU.
- step = compute + overlap slowdown + exposed communication by group + pipeline bubble +
  optimizer step + offload (the sum Time.step_s is defined as).
- traffic per GPU per step = the sum over its collectives of bytes per call x calls, split by
  the mesh group each runs in.
The exposed communication of the data-parallel group is what the answer's exposed total leaves
after the tensor, pipeline, context and expert groups' exposed parts (Time.exposed_communication_s
is their sum).
"""

from typing import Any

from cli.render import Rows, card_words, gib, table
from service.numeric import GIB_BYTES

GROUPS = ("data", "tensor", "context", "pipeline", "expert")
_GROUP_SECONDS = {
    "tensor": "tensor_parallel_s",
    "pipeline": "pipeline_p2p_s",
    "context": "context_parallel_s",
    "expert": "expert_parallel_s",
}


def arrangement_words(answer: dict[str, Any], request: dict[str, Any] | None) -> str:
    """The arrangement as the request named it ('full_shard'), with the canonical flag set it resolves to."""
    resolved = answer["arrangement"]
    flags = [f for f in ("optimizer", "gradients", "parameters") if resolved[f"shard_{f}"]]
    what = f"shards {', '.join(flags)}" if flags else "replicates every state"
    asked = (request or {}).get("arrangement")
    name = resolved["name"]
    if isinstance(asked, str) and asked != name:
        return f"{asked} (the flags of {name}: {what}{', per node' if resolved['hybrid'] else ''})"
    return f"{name} ({what}{', per node' if resolved['hybrid'] else ''})"


def layout_words(answer: dict[str, Any]) -> str:
    layout = answer["parallelism"]
    degrees = " x ".join(f"{k[0]} {layout[k]}" for k in ("tensor", "pipeline", "context", "data"))
    words = f"layout {degrees} = {answer['world_size']} GPUs; expert e {layout['expert']}"
    words += f" (expert data {layout['expert_data']})"
    words += f"; {layout['micro_batches']} micro-batches of the global batch {layout['global_batch_size']}"
    if layout["pipeline"] > 1:
        words += f", schedule {layout['pipeline_schedule']}"
    if layout["sequence_parallel"]:
        words += ", sequence parallel"
    if layout["context"] > 1:
        exchange = "all-gathered" if layout.get("context_attention") == "all_gather" else "round a ring"
        words += f", context K/V {exchange}"
    return words


def memory_terms(answer: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(term, bytes, what it is): the three terms of per GPU, their sum, then the card's and the headroom."""
    memory = answer["memory"]
    activations = "activations" if memory["activations_counted"] else "activations (NOT counted: no training shape)"
    return [
        ("model states", memory["model_state_bytes"], f"{memory['bytes_per_weight']:g} B per weight of model states"),
        ("working set", memory["working_set_bytes"], "gathered units and unit gradients, or reduction buckets"),
        (activations, memory["activations_bytes"], memory["activations"]["model"]),
        ("= per GPU", memory["per_gpu_bytes"], "model states + working set + activations"),
        ("card", memory["card_bytes"], ""),
        ("- reserve", memory["reserve_bytes"], "CUDA context, NCCL buffers"),
        ("- fragmentation", memory["fragmentation_bytes"], "allocator fragmentation"),
        ("= usable", memory["usable_bytes"], "card - reserve - fragmentation"),
        ("headroom", memory["headroom_bytes"], "usable - per GPU: " + ("fits" if memory["fits"] else "does NOT fit")),
    ]


def step_terms(answer: dict[str, Any]) -> list[tuple[str, float]]:
    """(term, seconds): the terms of step_s in the order of its definition, then the step."""
    time = answer["time"]
    groups = {g: time[key] for g, key in _GROUP_SECONDS.items()}
    groups = {"data": max(0.0, time["exposed_communication_s"] - sum(groups.values())), **groups}
    terms = [("compute (the slowest stage)", time["compute_s"]), ("overlap slowdown", time["overlap_slowdown_s"])]
    terms += [(f"exposed communication: {g}", groups[g]) for g in GROUPS]
    terms += [
        ("pipeline bubble", time["pipeline_bubble_s"]),
        ("optimizer step", time["optimizer_s"]),
        ("offload (PCIe and CPU optimizer)", time["offload_s"]),
        ("= step", time["step_s"]),
    ]
    return terms


def traffic_by_group(answer: dict[str, Any]) -> list[tuple[str, int]]:
    """(group, bytes sent per GPU per step) for each group that sends, then the total."""
    sent = dict.fromkeys(GROUPS, 0)
    for c in answer["traffic"]["collectives"]:
        sent[c["group"]] += c["bytes_sent_per_gpu"] * c["count_per_step"]
    return [(g, b) for g, b in sent.items() if b] + [("= per GPU per step", answer["traffic"]["bytes_sent_per_gpu"])]


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_plan(answer: dict[str, Any], request: dict[str, Any] | None = None, components: bool = False) -> str:
    memory, traffic, time = answer["memory"], answer["traffic"], answer["time"]
    head = (
        f"{answer['parameter_count']:,} parameters ({answer['active_parameter_count']:,} active) on "
        f"{answer['world_size']} GPUs ({answer['gpus_per_node']} per node), arrangement "
        f"{arrangement_words(answer, request)}\n{layout_words(answer)}"
    )
    stage = max(memory["stages"], key=lambda s: s["per_gpu_bytes"])["stage"] if memory["stages"] else 0
    terms = memory_terms(answer)
    per_gpu = table(
        [
            "memory per GPU" + (f" (stage {stage}, the busiest)" if len(memory["stages"]) > 1 else ""),
            "bytes",
            "GiB",
            "",
        ],
        [[t, b, f"{b / GIB_BYTES:,.1f}", words] for t, b, words in terms],
    )
    states = table(
        ["model states and working set", "dtype", "sharded", "where", "bytes per GPU"],
        [[r["state"], r["dtype"], r["sharded"], r["location"], r["bytes"]] for r in memory["breakdown"]],
    )
    verdict = "fits" if memory["fits"] else "does NOT fit"
    summary = f"per GPU {memory['per_gpu_bytes']:,} B ({gib(memory['per_gpu_bytes'])}): {verdict} {card_words(memory)}"
    parts = [head, per_gpu + "\n" + summary, states]
    if components:
        rows = [[c["name"], c["bytes"]] for c in memory["activations"]["components"]]
        rows.append(["= activations", memory["activations_bytes"]])
        parts.append(table(["activation component", "bytes per GPU"], rows) + f"\n{memory['activations']['source']}")
    parts.append(
        table(
            ["step term", "ms", "share"],
            [[t, f"{1000 * s:,.3f}", _share(s, time["step_s"])] for t, s in step_terms(answer)],
        )
    )
    parts.append(
        f"MFU {100 * time['mfu']:.1f}% (HFU {100 * time['hfu']:.1f}%), {time['tokens_per_s']:,.0f} tokens/s, "
        f"{time['tokens_per_s_per_gpu']:,.0f} tokens/s per GPU, {time['tokens_per_step']:,} tokens per step"
        + _budget_words(time)
    )
    parts.append(
        table(
            [
                "collective",
                "group",
                "link",
                "ranks",
                "dtype",
                "B per call",
                "calls",
                "B per step",
                "overlaps",
                "purpose",
            ],
            [
                [
                    c["name"],
                    c["group"],
                    c["link"],
                    c["ranks"],
                    c["dtype"],
                    c["bytes_sent_per_gpu"],
                    c["count_per_step"],
                    c["bytes_sent_per_gpu"] * c["count_per_step"],
                    c["overlaps_with"],
                    c["purpose"],
                ]
                for c in traffic["collectives"]
            ],
        )
    )
    total = traffic["bytes_sent_per_gpu"]
    parts.append(
        table(
            ["traffic by group", "bytes sent per GPU", "share"],
            [[g, b, _share(b, total)] for g, b in traffic_by_group(answer)],
        )
        + f"\n({traffic['volume_in_p']:g} P of model-sized buffers in the data group)"
    )
    parts += [f"warning: {w}" for w in answer["warnings"]]
    return "\n\n".join(parts)


def _budget_words(time: dict[str, Any]) -> str:
    if time.get("training_steps") is None:
        return ""
    words = (
        f"\n{time['total_tokens']:,} tokens: {time['training_steps']:,} steps, {time['training_days']:,.1f} days, "
        f"{time['gpu_hours']:,.0f} GPU-hours"
    )
    if time.get("cost") is not None:
        words += f", cost {time['cost']:,.2f}" + (f" {time['currency']}" if time.get("currency") else "")
    if time.get("goodput") is not None and time.get("ideal_gpu_hours") is not None:
        words += (
            f"\n  at goodput {time['goodput']:.3f}: {time['expected_interruptions']:,.0f} expected interruptions, "
            f"{time['checkpoint_hours']:,.1f} h saving checkpoints, {time['restart_hours']:,.1f} h restarting, "
            f"{time['lost_work_hours']:,.1f} h redoing lost work (ideal steps alone: "
            f"{time['ideal_training_days']:,.1f} days, {time['ideal_gpu_hours']:,.0f} GPU-hours)"
        )
    return words


def plan_rows(answer: dict[str, Any], request: dict[str, Any] | None = None) -> Rows:
    """Every figure of the text view in one long table: section, term, value, unit, detail."""
    memory, time, layout = answer["memory"], answer["time"], answer["parallelism"]
    rows: list[list[Any]] = [["arrangement", "asked", (request or {}).get("arrangement") or "", "", ""]]
    rows.append(["arrangement", "resolved", answer["arrangement"]["name"], "", arrangement_words(answer, request)])
    rows += [["layout", k, layout[k], "", ""] for k in ("tensor", "pipeline", "context", "data", "expert")]
    rows += [["memory", t, b, "B", words] for t, b, words in memory_terms(answer)]
    rows += [
        ["model_state", r["state"], r["bytes"], "B", f"{r['dtype']}, {r['location']}, sharded {r['sharded']}"]
        for r in memory["breakdown"]
    ]
    rows += [["activation", c["name"], c["bytes"], "B", c["arithmetic"]] for c in memory["activations"]["components"]]
    rows += [["step", t, s, "s", ""] for t, s in step_terms(answer)]
    rows += [
        ["throughput", "mfu", time["mfu"], "", "model FLOPs / (step x GPUs x peak)"],
        ["throughput", "tokens_per_s", time["tokens_per_s"], "tokens/s", ""],
        ["throughput", "tokens_per_s_per_gpu", time["tokens_per_s_per_gpu"], "tokens/s", ""],
    ]
    rows += [
        [
            "collective",
            f"{c['name']} ({c['group']}, {c['link']})",
            c["bytes_sent_per_gpu"] * c["count_per_step"],
            "B",
            f"{c['bytes_sent_per_gpu']} B x {c['count_per_step']} calls; {c['purpose']}",
        ]
        for c in answer["traffic"]["collectives"]
    ]
    rows += [["traffic", g, b, "B", ""] for g, b in traffic_by_group(answer)]
    return ["section", "term", "value", "unit", "detail"], rows
