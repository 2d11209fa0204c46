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
"""

from statistics import mean
from typing import Any

from models.enums import Dtype
from models.presets import PRECISION_PRESETS, PrecisionPresetName
from service.architecture import parameter_count
from service.sim.engines.torch_config import TorchArrangement, TorchSimConfig
from service.sim.engines.torch_predict import (
    ADAM_STEP_BYTES,
    CLASSES,
    CUDA_BLOCK_BYTES,
    ENGINE_LAYOUT_REASON,
    GLOO_ALGORITHM,
    MESSAGE_ALLOWANCE_BYTES,
    conventions,
    core_class_bytes,
    engine_layout,
    gloo_call_cost,
    optimizer_tensors,
    parameter_shapes,
    plan_collectives,
    planned_gpu_memory,
    predicted_class_bytes,
    shard_degree,
    traffic_reasons,
)

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
        "not_run": "tensor and pipeline degrees: they need layouts (mesh degrees) the planner does not have yet",
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
    return report


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
    losses = [mean(r["steps"][t]["loss"] for r in per_rank) for t in range(cfg.steps)]
    out = {
        "arrangement": arrangement.value,
        "implementation": IMPLEMENTATION[arrangement],
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
        "wire": wire,
        "wire_within_allowance": wire["within_allowance"] if wire is not None else None,
        "collectives": collective_rows(cfg, arrangement, per_rank),
        "traffic": traffic_report(cfg, arrangement, per_rank),
        "learning": {
            "max_abs_diff": diff,
            "tolerance": tolerance,
            "within_tolerance": diff <= tolerance,
            "losses": losses,
            "reference_losses": learning["reference_losses"],
            "reference": "one process, fp32, AdamW, the global batch (every rank's tokens) each step",
        },
        "step_s_mean": [mean(s["step_s"] for s in r["steps"][cfg.warmup_steps :]) for r in per_rank],
    }
    if any("cuda" in r for r in per_rank):
        out["cuda"] = cuda_rows(cfg, arrangement, per_rank)
    out["checks_pass"] = out["memory_matches"] and out["wire_within_allowance"] is not False and diff <= tolerance
    return out


IMPLEMENTATION = {
    TorchArrangement.ddp: "DistributedDataParallel + AdamW",
    TorchArrangement.zero1: "DistributedDataParallel + ZeroRedundancyOptimizer(AdamW)",
    TorchArrangement.shard_grad_op: "fully_shard(reshard_after_forward=False) per block and root + AdamW",
    TorchArrangement.zero3: "fully_shard(reshard_after_forward=True) per block and root + AdamW",
    TorchArrangement.hybrid: "fully_shard on a 2-D DeviceMesh (replicate, shard): HSDP + AdamW",
}


def memory_rows(
    cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    preset = core_class_bytes(cfg, arrangement, requested)
    predicted = [predicted_class_bytes(cfg, arrangement, r) for r in range(cfg.world_size)]
    layout_reason = ENGINE_LAYOUT_REASON[cfg.precision]
    rows = []
    for name in CLASSES:
        measured = [r["held_bytes"].get(name, 0) for r in per_rank]
        expected = [p[name] for p in predicted]
        reasons = [c.reason for c in conventions(cfg, arrangement, 0) if c.bytes_by_class.get(name)]
        if layout_reason and expected[0] != preset[name]:
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
                "preset_bytes": preset[name],
                "delta_from_preset_bytes": [m - preset[name] for m in measured],
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
    """Rank 0's calls per step by kind and group, priced by gloo, next to the planner's bytes."""
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    plan = plan_collectives(cfg, arrangement, requested)
    kinds: dict[tuple[str, str, int], dict[str, Any]] = {}
    for call in per_rank[0]["calls"]:
        key = (call["op"], call["dtype"], call["group_size"])
        row = kinds.setdefault(
            key,
            {
                "name": key[0],
                "dtype": key[1],
                "group_size": key[2],
                "calls": 0,
                "payload_bytes": 0,
                "gloo_algorithm": GLOO_ALGORITHM[key[0]],
            },
        )
        row["calls"] += 1
        row["payload_bytes"] += _cost(call).payload_bytes
    rows = []
    steps = cfg.measured_steps
    for row in kinds.values():
        rows.append(
            {
                **row,
                "calls_per_step": row["calls"] / steps,
                "payload_bytes_per_step": row["payload_bytes"] // steps,
                "plan_bytes_per_step": plan.get(row["name"]),
            }
        )
    return rows


def traffic_report(
    cfg: TorchSimConfig, arrangement: TorchArrangement, per_rank: list[dict[str, Any]]
) -> dict[str, Any]:
    """Each rank's bytes a step (gloo's algorithms on the observed calls) against /v1/plan's."""
    requested = PRECISION_PRESETS[PrecisionPresetName(cfg.precision)].spec
    plan = plan_collectives(cfg, arrangement, requested)
    engine = [sum(_cost(c).payload_bytes for c in r["calls"]) // cfg.measured_steps for r in per_rank]
    layout_plan = plan_collectives(cfg, arrangement, engine_layout(cfg, arrangement))
    return {
        "plan_bytes_per_step": plan,
        "plan_total_bytes_per_step": sum(plan.values()),
        "engine_layout_plan_bytes_per_step": layout_plan,
        "engine_bytes_per_step": engine,
        "reasons": traffic_reasons(cfg, arrangement),
    }


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
