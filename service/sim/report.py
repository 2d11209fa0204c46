"""The job's JSON report: each rank's measurements beside the core's formulas (no torch).

Stated allowances, measured on this machine with torch 2.13 / gloo over TCP on 127.0.0.1:
- wire: every ring hop (one isend plus one irecv) writes the payload plus 144 bytes, three
  socket writes of gloo's 48-byte header (WIRE_HEADER_BYTES x WIRE_WRITES_PER_HOP); the wire
  check is payload <= wire <= payload + sends x 144.
- learning against the one-pass single process (a different reduction order): max abs
  parameter difference within ``one_pass_tolerance``: 1e-10 in fp64, 1e-5 in fp32; for 16-bit
  parameters 2 x lr x steps + 2**-7 (Adam moves a weight by at most about lr a step, so two
  trajectories whose gradients round differently part by at most 2 lr a step, plus one bf16 ulp
  of a weight below 2). Against the ring-order single process the parameters must be bitwise equal.
- gradient check: |analytic - finite difference| <= GRADIENT_RTOL x max |finite difference|.
"""

from statistics import mean
from typing import Any

from service.inputs.arrangements import canonical_name
from service.sim.config import RunSpec, SimConfig
from service.sim.formulas import predicted_collectives, predicted_memory
from service.sim.verdict import check, verdict
from service.time.collectives import RING_PHASES

WIRE_HEADER_BYTES = 48
WIRE_WRITES_PER_HOP = 3
WIDE_TOLERANCE = {"fp64": 1e-10, "fp32": 1e-5}
GRADIENT_RTOL = {"fp64": 1e-6, "fp32": 1e-3, "bf16": 2**-5, "fp16": 2**-8}


def build_report(cfg: SimConfig, launched: dict[str, Any]) -> dict[str, Any]:
    results = launched["results"]
    complete = all(r is not None and r["failure"] is None for r in results) and not launched["timed_out"]
    report: dict[str, Any] = {
        "world_size": cfg.world_size,
        "parameter_count_requested": cfg.parameter_count,
        "parameter_count": cfg.exact_parameter_count,
        "layers": cfg.layers,
        "unit_elements": cfg.unit_elements,
        "precision": cfg.precision,
        "steps": cfg.steps,
        "formula_basis": "core formulas applied per layer unit (each padded to a multiple of N) and summed",
        "wire_allowance_bytes_per_send": WIRE_HEADER_BYTES * WIRE_WRITES_PER_HOP,
        "arrangements": [],
        "ranks": launched["ranks"],
        "wall_s": launched["wall_s"],
        "timed_out": launched["timed_out"],
        "succeeded": complete,
    }
    if complete:
        learning = results[0].get("learning", {"runs": [None] * len(cfg.runs)})["runs"]
        for index, run in enumerate(cfg.runs):
            per_rank = [r["runs"][index] for r in results]
            report["arrangements"].append(
                arrangement_report(cfg, run, per_rank, learning[index], results[0]["gradient_fd"])
            )
        if results[0].get("builtin_reduce_scatter"):
            report["builtin_reduce_scatter"] = builtin_report(cfg, results)
    report["faults"] = fault_report(cfg, launched)
    report["checks"] = [c for a in report["arrangements"] for c in arrangement_checks(a)]
    report["verdict"] = verdict(complete, report["checks"])
    return report


def arrangement_checks(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The rings' checks of one arrangement: bytes sent, bytes on the wire, memory, learning, gradients."""
    name = run["arrangement"] + (" (kept gather)" if run["keep_gather"] else "")
    learning = run["learning"]
    gradient = run["gradient_check"]
    return [
        check(name, "traffic", run["payload_matches"], "payload bytes of every collective = the ring formula"),
        check(name, "wire", run["wire_within_allowance"], "payload <= bytes written <= payload + 144 B a send"),
        check(name, "memory", run["memory_matches"], "resident bytes of every state class = the formula"),
        check(
            name,
            "learning",
            None if learning is None else learning["identical"],
            "parameters equal a single process's (bitwise in ring order, within tolerance in one pass)",
        ),
        check(
            name,
            "gradient",
            gradient["passed"],
            f"analytic gradient within {gradient['rtol']:g} x scale of finite differences",
        ),
    ]


def arrangement_report(
    cfg: SimConfig, run: RunSpec, per_rank: list[dict[str, Any]], learning: dict[str, Any] | None, fd: list[float]
) -> dict[str, Any]:
    sharding, spec = run.sharding, cfg.precision_spec
    collectives, volume = [], 0.0
    for p in predicted_collectives(cfg.unit_elements, cfg.layers, cfg.world_size, spec, sharding, run.keep_gather):
        row = collective_row(cfg, p, per_rank)
        volume += (
            row["payload_bytes"][0]
            / max(1, p.bytes_per_step * cfg.steps)
            * RING_PHASES[p.name]
            * p.collective.count_per_step
        )
        collectives.append(row)
    memory = memory_rows(cfg, run, per_rank)
    return {
        "arrangement": canonical_name(sharding).value,
        "shard_optimizer": sharding.shard_optimizer,
        "shard_gradients": sharding.shard_gradients,
        "shard_parameters": sharding.shard_parameters,
        "keep_gather": run.keep_gather,
        "collectives": collectives,
        "volume_in_p_measured": round(volume, 6),
        "payload_matches": all(c["payload_matches"] for c in collectives),
        "wire_within_allowance": all(c["wire_within_allowance"] for c in collectives),
        "memory": memory,
        "memory_matches": all(m["matches"] for m in memory),
        "transient": transient_report(memory, per_rank),
        "learning": learning_report(cfg, learning),
        "gradient_check": gradient_report(cfg, per_rank, fd),
        "step_s_mean": [mean(s["step_s"] for s in r["steps"]) for r in per_rank],
    }


def collective_row(cfg: SimConfig, p: Any, per_rank: list[dict[str, Any]]) -> dict[str, Any]:
    empty = {"calls": 0, "sends": 0, "payload_bytes": 0, "wire_bytes": 0}
    tallies = [r["collectives"].get(p.key, empty) for r in per_rank]
    formula = p.bytes_per_step * cfg.steps
    allowance = WIRE_HEADER_BYTES * WIRE_WRITES_PER_HOP
    payload = [t["payload_bytes"] for t in tallies]
    wire = [t["wire_bytes"] for t in tallies]
    return {
        "name": p.name.value,
        "purpose": p.collective.purpose,
        "dtype": p.collective.dtype.value,
        "calls_per_rank": [t["calls"] for t in tallies],
        "sends_per_rank": [t["sends"] for t in tallies],
        "formula_bytes": formula,
        "payload_bytes": payload,
        "wire_bytes": wire,
        "wire_overhead_bytes_per_send": [
            (w - b) / t["sends"] if t["sends"] else 0.0 for w, b, t in zip(wire, payload, tallies, strict=True)
        ],
        "payload_matches": all(b == formula for b in payload),
        "wire_within_allowance": all(
            b <= w <= b + t["sends"] * allowance for w, b, t in zip(wire, payload, tallies, strict=True)
        ),
    }


def memory_rows(cfg: SimConfig, run: RunSpec, per_rank: list[dict[str, Any]]) -> list[dict[str, Any]]:
    predicted = predicted_memory(cfg.unit_elements, cfg.layers, cfg.world_size, cfg.precision_spec, run.sharding)
    rows = []
    for state, formula in predicted.items():
        resident = [r["resident_bytes"].get(state.value, 0) for r in per_rank]
        rows.append(
            {
                "state": state.value,
                "formula_bytes": formula,
                "resident_bytes": resident,
                "matches": all(b == formula for b in resident),
            }
        )
    return rows


def transient_report(memory: list[dict[str, Any]], per_rank: list[dict[str, Any]]) -> dict[str, Any]:
    """Buffers that are not model state: ZeRO-3's gathered units and the per-layer gradient buffer."""
    params = next(m for m in memory if m["state"] == "parameters")["resident_bytes"]
    gathered = [r["peak_gathered_parameter_bytes"] for r in per_rank]
    return {
        "note": "transient, not model state: excluded from memory[] and reported here as peaks",
        "peak_gathered_parameter_bytes": gathered,
        "peak_parameter_bytes": [p + g for p, g in zip(params, gathered, strict=True)],
        "peak_gradient_buffer_bytes": [r["peak_gradient_buffer_bytes"] for r in per_rank],
    }


def learning_report(cfg: SimConfig, learning: dict[str, Any] | None) -> dict[str, Any] | None:
    if learning is None:
        return None
    tolerance = one_pass_tolerance(cfg)
    return {
        **learning,
        "one_pass_tolerance": tolerance,
        "identical": learning["bitwise_equal_ring_order"] and learning["max_abs_diff_one_pass"] <= tolerance,
        "reference": "single process, same global batch: ring-order sums (bitwise) and one pass (tolerance)",
    }


def one_pass_tolerance(cfg: SimConfig) -> float:
    dtype = cfg.precision_spec.parameter_dtype.value
    return WIDE_TOLERANCE.get(dtype, 2 * cfg.learning_rate * cfg.steps + 2**-7)


def gradient_report(cfg: SimConfig, per_rank: list[dict[str, Any]], fd: list[float]) -> dict[str, Any]:
    analytic: dict[int, float] = {}
    for r in per_rank:
        analytic.update({int(k): v for k, v in r["gradient_samples"].items()})
    errors = [abs(analytic[j] - fd[j]) for j in range(len(fd))]
    scale = max(abs(v) for v in fd) or 1.0
    rtol = GRADIENT_RTOL[cfg.precision_spec.gradient_dtype.value]
    return {
        "points": len(fd),
        "max_abs_error": max(errors),
        "scale": scale,
        "rtol": rtol,
        "passed": len(analytic) == len(fd) and max(errors) <= rtol * scale,
        "method": "central finite differences of the global loss in fp64, step 1e-6",
    }


def builtin_report(cfg: SimConfig, results: list[dict[str, Any]]) -> dict[str, Any]:
    from models.enums import CollectiveName
    from service.time.collectives import ring_bytes_sent

    elements = results[0]["builtin_reduce_scatter"]["elements"]
    dtype = cfg.precision_spec.gradient_dtype
    ring = int(ring_bytes_sent(CollectiveName.reduce_scatter, elements, cfg.world_size, dtype))
    wire = [r["builtin_reduce_scatter"]["wire_bytes"] for r in results]
    return {
        "elements": elements,
        "ring_formula_bytes": ring,
        "wire_bytes": wire,
        "ratio_to_ring": [w / ring for w in wire],
        "note": "gloo's own reduce_scatter sends an all-reduce's worth (about twice the ring formula); "
        "the simulation therefore runs its rings by hand",
    }


def fault_report(cfg: SimConfig, launched: dict[str, Any]) -> dict[str, Any]:
    from service.sim.faults import checkpoint_report, dropped_report, slow_report

    out: dict[str, Any] = {}
    results = launched["results"]
    if cfg.slow_rank is not None and all(r is not None for r in results):
        out["slow_rank"] = slow_report(cfg, results)
    failures = dropped_report(launched)
    if failures is not None:
        out["failure"] = failures
    if cfg.partial_checkpoint is not None and all(r is not None and r.get("checkpoint") for r in results):
        out["checkpoint"] = checkpoint_report(results)
    return out
