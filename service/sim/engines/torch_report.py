"""The torch engine's JSON report: each rank's measurements beside the core's plan (no torch).

Per arrangement and rank:
- memory by class (parameters, gradients, optimizer state) as the tracker holds them after the
  last optimizer step, against ``predicted_bytes`` (the core's breakdown for the layout the
  engine keeps plus its documented conventions, torch_predict.py): ``matches`` is exact equality.
  Beside it the core's bytes for the requested preset, the delta and its reasons;
- the tracker's peak snapshot by its own categories (activations, temporaries, all-gather and
  reduce-scatter buffers: the working set, reported, not predicted);
- wire: written bytes over the measured steps against the observed collective calls priced by
  gloo's algorithm; within the allowance means payload <= wire <= payload + 144 B per message;
- the collectives by kind against the planner's bytes per step (/v1/plan's traffic);
- learning: final parameters against one fp32 process on the global batch, within a tolerance.
A layout (tensor x pipeline x data) compares each rank with the planner's share for its stage and
labels every collective with its mesh dimension (data, tensor, pipeline).
"""

from statistics import mean
from typing import Any

from models.enums import Dtype
from models.presets import PRECISION_PRESETS, PrecisionPresetName
from service.inputs.architecture import parameter_count
from service.sim.engines.torch_config import TorchArrangement, TorchSimConfig
from service.sim.engines.torch_predict import (
    ADAM_STEP_BYTES,
    CLASSES,
    CUDA_BLOCK_BYTES,
    ENGINE_LAYOUT_REASON,
    GLOO_ALGORITHM,
    MESSAGE_ALLOWANCE_BYTES,
    class_bytes_of_rank,
    conventions,
    engine_layout,
    gloo_call_cost,
    layout_engine_group_bytes,
    layout_plan_collectives,
    optimizer_tensors,
    parameter_shapes,
    plan_collectives,
    plan_memory_comparison,
    planned_gpu_memory,
    planned_stages,
    predicted_class_bytes,
    shard_degree,
    traffic_reasons,
)
from service.sim.verdict import check, verdict

FP32_TOLERANCE = 1e-4


def learning_tolerance(cfg: TorchSimConfig) -> float:
    """bf16 compute: Adam moves a weight by at most about lr a step, so two trajectories whose bf16
    gradients round differently part by at most 2 lr a step: 2 x lr x steps. fp32: the sums over
    ranks run in another order than one pass; Adam divides by sqrt(v), which magnifies that for
    weights with tiny gradients: 1e-4, a tenth of lr (measured: 3e-5 after 3 steps at lr 1e-3)."""
    if cfg.precision == "fp32_adam":
        return FP32_TOLERANCE
    return 2 * cfg.learning_rate * cfg.steps


def build_report(cfg: TorchSimConfig, launched: dict[str, Any]) -> dict[str, Any]:
    from service.sim.faults import dropped_report, slow_report

    results = launched["results"]
    complete = all(r is not None and r["failure"] is None for r in results) and not launched["timed_out"]
    report: dict[str, Any] = {
        "engine": "torch",
        "backend": cfg.backend,
        "world_size": cfg.world_size,
        "model": vars(cfg.model),
        "parameter_count": parameter_count(cfg.model.architecture()),
        "precision": cfg.precision,
        "steps": cfg.steps,
        "measured_steps": cfg.measured_steps,
        "ranks_per_node": cfg.ranks_per_node,
        "wire_allowance_bytes_per_message": MESSAGE_ALLOWANCE_BYTES,
        "learning_tolerance": learning_tolerance(cfg),
        "parallelism": layout_echo(cfg),
        "not_run": NOT_RUN,
        "arrangements": [],
        "ranks": launched["ranks"],
        "wall_s": launched["wall_s"],
        "timed_out": launched["timed_out"],
    }
    if complete:
        learning = results[0]["learning"]
        for index, name in enumerate(cfg.arrangements):
            per_rank = [r["runs"][index] for r in results]
            report["arrangements"].append(arrangement_report(cfg, TorchArrangement(name), per_rank, learning, index))
    faults: dict[str, Any] = {}
    if cfg.slow_rank is not None and complete:
        faults["slow_rank"] = slow_report(cfg, results)  # type: ignore[arg-type]
    failure = dropped_report(launched)
    if failure is not None:
        faults["failure"] = failure
    report["faults"] = faults
    report["succeeded"] = complete and all(a["checks_pass"] for a in report["arrangements"])
    report["checks"] = [c for a in report["arrangements"] for c in arrangement_checks(a)]
    report["verdict"] = verdict(complete, report["checks"])
    return report


def arrangement_checks(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The torch engine's checks of one arrangement: memory by class, wire, learning, model-parallel traffic,
    and the plan's activations and working set against the tracker's peaks (where both count the same)."""
    name = run["arrangement"]
    rows = [
        check(name, "memory", run["memory_matches"], "held bytes by class = the plan's for the engine's layout"),
        check(name, "wire", run["wire_within_allowance"], "payload <= bytes written <= payload + allowance"),
        check(
            name,
            "learning",
            run["learning"]["within_tolerance"],
            f"parameters within {run['learning']['tolerance']:g} of one fp32 process",
        ),
    ]
    if "model_parallel_matches" in run["traffic"]:
        rows.append(check(name, "model-parallel traffic", run["traffic"]["model_parallel_matches"], "bytes by group"))
    for row in run["plan_comparison"]:
        if row["within_tolerance"] is not None:
            detail = f"engine {row['engine_bytes']:,} B against the plan's {row['plan_bytes']:,} B"
            rows.append(check(name, row["term"], row["within_tolerance"], detail))
    return rows


NOT_RUN = (
    "context and expert parallelism, sequence parallelism and the interleaved and zero-bubble schedules; "
    "ddp, zero1 and hybrid within a tensor or pipeline layout"
)


def layout_echo(cfg: TorchSimConfig) -> dict[str, Any]:
    """The mesh the job ran: degrees, micro-batches, and each rank's stage, data and tensor index."""
    return {
        "tensor": cfg.tensor,
        "pipeline": cfg.pipeline,
        "data": cfg.data if cfg.layout else cfg.world_size,
        "micro_batches": cfg.micro_batches,
        "pipeline_schedule": cfg.pipeline_schedule,
        "mesh_dims": ["pipeline", "data", "tensor"],
        "stage_of_rank": [cfg.stage_of(r) for r in range(cfg.world_size)],
        "data_rank_of_rank": [cfg.data_rank_of(r) for r in range(cfg.world_size)],
        "tensor_rank_of_rank": [r % cfg.tensor for r in range(cfg.world_size)],
    }


def arrangement_report(
    cfg: TorchSimConfig,
    arrangement: TorchArrangement,
    per_rank: list[dict[str, Any]],
    learning: dict[str, Any],
    index: int,
) -> dict[str, Any]:
    memory = memory_rows(cfg, arrangement, per_rank)
    wire = wire_rows(per_rank, cfg) if cfg.backend == "gloo" else None  # NCCL's bytes never pass write(2)
    tolerance = learning_tolerance(cfg)
    diff = learning["runs"][index]["max_abs_diff"]
    # the ranks that compute the loss: every rank, or a pipeline's last stage
    traffic = traffic_report(cfg, arrangement, per_rank)
    losses = [
        mean(r["steps"][t]["loss"] for r in per_rank if r["steps"][t]["loss"] is not None) for t in range(cfg.steps)
    ]
    out = {
        "arrangement": arrangement.value,
        "implementation": layout_implementation(cfg, arrangement) if cfg.layout else IMPLEMENTATION[arrangement],
        "shard_degree": shard_degree(cfg, arrangement),
        "memory": memory,
        "memory_matches": all(m["matches"] for m in memory),
        "conventions": [
            [
                {"name": c.name, "bytes_by_class": c.bytes_by_class, "reason": c.reason}
                for c in conventions(cfg, arrangement, r)
            ]
            for r in range(cfg.world_size)
        ],
        "tracker_peak_bytes": [r["tracker_peak_bytes"] for r in per_rank],
        "tracker_category_peak_bytes": [r.get("tracker_category_peak_bytes", {}) for r in per_rank],
        "wire": wire,
        "wire_within_allowance": wire["within_allowance"] if wire is not None else None,
        "collectives": collective_rows(cfg, arrangement, per_rank),
        "traffic": traffic,
        "learning": {
            "max_abs_diff": diff,
            "tolerance": tolerance,
            "within_tolerance": diff <= tolerance,
            "losses": losses,
            "reference_losses": learning["reference_losses"],
            "reference": "one process, fp32, AdamW, the global batch (every data-parallel replica's tokens) each step",
        },
        "step_s_mean": [mean(s["step_s"] for s in r["steps"][cfg.warmup_steps :]) for r in per_rank],
    }
    comparisons = [
        plan_memory_comparison(cfg, arrangement, r.get("tracker_category_peak_bytes", {}), rank)
        for rank, r in enumerate(per_rank)
    ]
    out["plan_comparison"] = [
        {**row, "within_tolerance_all_ranks": all(c[i]["within_tolerance"] is not False for c in comparisons)}
        for i, row in enumerate(comparisons[0])
    ]
    if cfg.layout:
        out["plan_stages"] = planned_stages(cfg, arrangement)
    if any("cuda" in r for r in per_rank):
        out["cuda"] = cuda_rows(cfg, arrangement, per_rank)
    out["checks_pass"] = (
        out["memory_matches"]
        and out["wire_within_allowance"] is not False
        and diff <= tolerance
        and traffic.get("model_parallel_matches", True)
    )
    return out


IMPLEMENTATION = {
    TorchArrangement.ddp: "DistributedDataParallel + AdamW",
    TorchArrangement.zero1: "DistributedDataParallel + ZeroRedundancyOptimizer(AdamW)",
    TorchArrangement.shard_grad_op: "fully_shard(reshard_after_forward=False) per block and root + AdamW",
    TorchArrangement.zero3: "fully_shard(reshard_after_forward=True) per block and root + AdamW",
    TorchArrangement.hybrid: "fully_shard on a 2-D DeviceMesh (replicate, shard): HSDP + AdamW",
}


def layout_implementation(cfg: TorchSimConfig, arrangement: TorchArrangement) -> str:
    parts = []
    if cfg.tensor > 1:
        parts.append(
            f"parallelize_module over tensor {cfg.tensor} (ColwiseParallel q/k/v/up/out, RowwiseParallel o/down/embed)"
        )
    if cfg.pipeline > 1:
        kind = "Schedule1F1B" if cfg.pipeline_schedule == "1f1b" else "ScheduleGPipe"
        parts.append(f"PipelineStage x {cfg.pipeline} with {kind}, {cfg.micro_batches} micro-batches")
    reshard = arrangement is not TorchArrangement.shard_grad_op
    parts.append(f"fully_shard(reshard_after_forward={reshard}) over data {cfg.data} + AdamW")
    held = "FSDPMemTracker" if cfg.pipeline == 1 else "each rank's local tensors (DTensor shards)"
    return "; ".join(parts) + f"; held bytes from {held}"


def memory_rows(
    cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    presets = [class_bytes_of_rank(cfg, arrangement, requested, r) for r in range(cfg.world_size)]
    predicted = [predicted_class_bytes(cfg, arrangement, r) for r in range(cfg.world_size)]
    layout_reason = ENGINE_LAYOUT_REASON[cfg.precision]
    rows = []
    for name in CLASSES:
        measured = [r["held_bytes"].get(name, 0) for r in per_rank]
        expected = [p[name] for p in predicted]
        preset = [p[name] for p in presets]
        reasons = [c.reason for c in conventions(cfg, arrangement, 0) if c.bytes_by_class.get(name)]
        if layout_reason and expected[0] != preset[0]:
            reasons.insert(0, layout_reason)
        slack = [0] * cfg.world_size
        if cfg.backend == "nccl":
            slack = [(CUDA_BLOCK_BYTES - 1) * _storages(cfg, arrangement, r, name) for r in range(cfg.world_size)]
            reasons.append("on CUDA the tracker counts each storage in whole 512-byte allocator blocks")
        rows.append(
            {
                "state": name,
                "measured_bytes": measured,
                "predicted_bytes": expected,
                "matches": all(e <= m <= e + s for m, e, s in zip(measured, expected, slack, strict=True)),
                "preset_bytes": max(preset),
                "preset_bytes_by_rank": preset,
                "delta_from_preset_bytes": [m - e for m, e in zip(measured, preset, strict=True)],
                "reasons": reasons,
            }
        )
    return rows


def _storages(cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int, name: str) -> int:
    """Device storages of a class on ``rank``: one per tensor, the two Adam moments per updated tensor."""
    if name == "optimizer_state":
        return 2 * optimizer_tensors(cfg, arrangement, rank)
    return len(parameter_shapes(cfg.model))


def wire_rows(per_rank: list[dict[str, Any]], cfg: TorchSimConfig) -> dict[str, Any]:
    payload, messages, wire = [], [], []
    for r in per_rank:
        costs = [_cost(c) for c in r["calls"]]
        payload.append(sum(c.payload_bytes for c in costs))
        messages.append(sum(c.messages for c in costs))
        wire.append(sum(r["wire_bytes_per_step"]))
    return {
        "measured_steps": cfg.measured_steps,
        "wire_bytes": wire,
        "predicted_payload_bytes": payload,
        "messages": messages,
        "allowance_bytes": [m * MESSAGE_ALLOWANCE_BYTES for m in messages],
        "within_allowance": all(
            p <= w <= p + m * MESSAGE_ALLOWANCE_BYTES for p, w, m in zip(payload, wire, messages, strict=True)
        ),
    }


def _cost(call: dict[str, Any]) -> Any:
    return gloo_call_cost(
        call["op"], call["elements"], Dtype(_DTYPE[call["dtype"]]), call["group_size"], call["group_rank"], call["root"]
    )


_DTYPE = {
    "float32": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "float64": "fp64",
    "int32": "int32",
    "int64": "int64",
}


def collective_rows(
    cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Rank 0's calls per step by group and kind, priced by gloo, next to the planner's bytes."""
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    plan = _plan(cfg, arrangement, requested, 0)
    kinds: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for call in per_rank[0]["calls"]:
        group = call.get("group", "data")
        key = (group, call["op"], call["dtype"], call["group_size"])
        row = kinds.setdefault(
            key,
            {
                "group": group,
                "name": call["op"],
                "dtype": call["dtype"],
                "group_size": call["group_size"],
                "calls": 0,
                "payload_bytes": 0,
                "gloo_algorithm": GLOO_ALGORITHM[call["op"]],
            },
        )
        row["calls"] += 1
        row["payload_bytes"] += _cost(call).payload_bytes
    rows = []
    steps = cfg.measured_steps
    for (group, name, _, _), row in kinds.items():
        planned = plan.get(f"{group}:{_plan_name(name)}" if cfg.layout else name)
        rows.append(
            {
                **row,
                "calls_per_step": row["calls"] / steps,
                "payload_bytes_per_step": row["payload_bytes"] // steps,
                "plan_bytes_per_step": planned,
            }
        )
    return rows


def _plan_name(op: str) -> str:
    """The planner prices a pipeline boundary as send_recv."""
    return "send_recv" if op in ("send", "recv") else op


def _plan(cfg: TorchSimConfig, arrangement: TorchArrangement, spec: Any, rank: int) -> dict[str, int]:
    if cfg.layout:
        return layout_plan_collectives(cfg, arrangement, spec, rank)
    return plan_collectives(cfg, arrangement, spec)


def _bytes_by_group(cfg: TorchSimConfig, calls: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for call in calls:
        group = call.get("group", "data")
        out[group] = out.get(group, 0) + _cost(call).payload_bytes
    return {group: total // cfg.measured_steps for group, total in out.items()}


def traffic_report(
    cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]
) -> dict[str, Any]:
    """Each rank's bytes a step (gloo's algorithms on the observed calls) against /v1/plan's."""
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    plan = _plan(cfg, arrangement, requested, 0)
    engine = [sum(_cost(c).payload_bytes for c in r["calls"]) // cfg.measured_steps for r in per_rank]
    layout_plan = _plan(cfg, arrangement, engine_layout(cfg, arrangement), 0)
    out = {
        "plan_bytes_per_step": plan,
        "plan_total_bytes_per_step": sum(plan.values()),
        "engine_layout_plan_bytes_per_step": layout_plan,
        "engine_bytes_per_step": engine,
        "reasons": traffic_reasons(cfg, arrangement),
    }
    if cfg.layout:
        out["plan_bytes_per_step_by_rank"] = [_plan(cfg, arrangement, requested, r) for r in range(cfg.world_size)]
        measured = [_bytes_by_group(cfg, r["calls"]) for r in per_rank]
        expected = [layout_engine_group_bytes(cfg, r) for r in range(cfg.world_size)]
        out["engine_bytes_per_step_by_group"] = measured
        out["model_parallel_predicted_bytes_per_step"] = expected
        out["model_parallel_matches"] = all(
            m.get(group, 0) == value for m, e in zip(measured, expected, strict=True) for group, value in e.items()
        )
    return out


def cuda_rows(cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]) -> dict[str, Any]:
    """NCCL on GPUs: the caching allocator's peaks against the predicted model state and against
    /v1/plan's per-GPU bytes (model state and activations) on this card; what reserved exceeds the
    plan by is what the card's reserve and fragmentation must cover: the figure to calibrate."""
    predicted = [  # Adam's step counters stay in host memory
        sum(predicted_class_bytes(cfg, arrangement, r).values())
        - ADAM_STEP_BYTES * optimizer_tensors(cfg, arrangement, r)
        for r in range(cfg.world_size)
    ]
    allocated = [r["cuda"]["max_memory_allocated_bytes"] for r in per_rank]
    reserved = [r["cuda"]["max_memory_reserved_bytes"] for r in per_rank]
    planned = planned_gpu_memory(cfg, arrangement, per_rank[0]["cuda"]["card_bytes"])
    return {
        "plan": planned,
        "reserved_minus_plan_bytes": [r - planned["per_gpu_bytes"] for r in reserved],
        "predicted_model_state_bytes": predicted,
        "max_memory_allocated_bytes": allocated,
        "max_memory_reserved_bytes": reserved,
        "allocated_minus_predicted_bytes": [a - p for a, p in zip(allocated, predicted, strict=True)],
        "reserved_minus_allocated_bytes": [r - a for r, a in zip(reserved, allocated, strict=True)],
    }
