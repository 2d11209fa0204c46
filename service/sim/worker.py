"""One rank of a simulation job: init gloo, run every arrangement, return a JSON-able result.

Used by the fork launcher (launcher.py) and under torchrun (__main__.py). Nothing is printed
while measuring: wchar counts every byte the process writes.
"""

import datetime
import os
import time
import traceback
from typing import Any

import torch
import torch.distributed as dist

from models.enums import StateClass
from service.sim import checkpoint
from service.sim.config import RunSpec, SimConfig
from service.sim.errors import IncompleteCheckpoint
from service.sim.model import torch_dtype
from service.sim.reference import Reference, check_points, finite_differences
from service.sim.ring import Ring, builtin_reduce_scatter_wire_bytes
from service.sim.trainer import Trainer


def init_group(cfg: SimConfig, rank: int, init_method: str) -> None:
    timeout = datetime.timedelta(seconds=cfg.collective_timeout_s)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=cfg.world_size, timeout=timeout)


def run_rank(cfg: SimConfig, rank: int, init_method: str) -> dict[str, Any]:
    """Everything one rank measures. A failure is recorded, with its run and step, not raised."""
    torch.set_num_threads(1)
    where: dict[str, Any] = {"run": None, "step": None}
    result: dict[str, Any] = {"rank": rank, "pid": os.getpid(), "runs": [], "failure": None}
    started = time.perf_counter()
    try:
        init_group(cfg, rank, init_method)
        if cfg.measure_builtin and cfg.world_size > 1:
            result["builtin_reduce_scatter"] = _builtin(cfg)
        finals: list[list[torch.Tensor]] = []
        for index, run in enumerate(cfg.runs):
            where["run"] = index
            measured, final = run_one(cfg, run, rank, where)
            result["runs"].append(measured)
            if rank == 0:
                finals.append(final)
        where["run"] = where["step"] = None
        if cfg.partial_checkpoint is not None:
            result["checkpoint"] = checkpoint_scenario(cfg, rank, where)
        if rank == 0:
            result["learning"] = compare_learning(cfg, finals)
            result["gradient_fd"] = finite_differences(cfg, check_points(cfg))
    except Exception as exc:  # a dead peer or a gloo timeout: report where, then leave
        result["failure"] = {
            **where,
            "error": f"{type(exc).__name__}: {exc}"[:500],
            "after_s": time.perf_counter() - started,
            "trace": traceback.format_exc()[-1500:],
        }
    return result


def _builtin(cfg: SimConfig) -> dict[str, Any]:
    elements = cfg.world_size * -(-cfg.unit_elements // cfg.world_size)
    dtype = torch_dtype(cfg.precision_spec.gradient_dtype)
    return {"elements": elements, "wire_bytes": builtin_reduce_scatter_wire_bytes(elements, cfg.world_size, dtype)}


def run_one(
    cfg: SimConfig, run: RunSpec, rank: int, where: dict[str, Any]
) -> tuple[dict[str, Any], list[torch.Tensor]]:
    ring = Ring(rank, cfg.world_size)
    trainer = Trainer(cfg, run, rank, ring)
    steps, samples = [], {}
    dist.barrier()
    for t in range(cfg.steps):
        where["step"] = t
        steps.append(trainer.step(t))
        if t == 0:
            samples = gradient_samples(cfg, trainer)
    where["step"] = None
    final = full_parameters(trainer)
    measured = {
        "collectives": {k: vars(v) for k, v in ring.tallies.items()},
        "resident_bytes": trainer.resident_bytes(),
        "peak_gathered_parameter_bytes": trainer.peak_gathered_bytes,
        "peak_gradient_buffer_bytes": trainer.peak_gradient_buffer_bytes,
        "steps": steps,
        "gradient_samples": samples,
    }
    return measured, final


def gradient_samples(cfg: SimConfig, trainer: Trainer) -> dict[str, float]:
    """Step-0 summed gradient / N at the check points this rank owns (its chunk)."""
    out = {}
    for j, (unit, index) in enumerate(check_points(cfg)):
        if index // trainer.s != trainer.rank:
            continue
        owned = trainer.owned_gradient(unit)
        local = index if owned.numel() == cfg.unit_elements else index - trainer.rank * trainer.s
        out[str(j)] = float(owned[local])
    return out


def full_parameters(trainer: Trainer) -> list[torch.Tensor]:
    """Every unit's parameters on every rank (a diagnostic gather outside the measured ring)."""
    held = trainer.state[StateClass.parameters]
    if not trainer.sharding.shard_parameters:
        return [p.clone() for p in held]
    out = []
    for chunk in held:
        buffer = torch.empty(trainer.n * trainer.s, dtype=chunk.dtype)
        dist.all_gather_single(buffer.view(torch.uint8), chunk.view(torch.uint8))
        out.append(buffer[: trainer.p_unit])
    return out


def compare_learning(cfg: SimConfig, finals: list[list[torch.Tensor]]) -> dict[str, Any]:
    """Rank 0: each run's final parameters against the two single-process references."""
    ring_order = Reference(cfg).train(cfg.steps)
    one_pass = Reference(cfg).train(cfg.steps, one_pass=True)
    out = []
    for final in finals:
        out.append(
            {
                "bitwise_equal_ring_order": all(torch.equal(a, b) for a, b in zip(final, ring_order, strict=True)),
                "max_abs_diff_ring_order": _max_diff(final, ring_order),
                "max_abs_diff_one_pass": _max_diff(final, one_pass),
            }
        )
    return {"runs": out}


def _max_diff(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    return max(float((x.to(torch.float64) - y.to(torch.float64)).abs().max()) for x, y in zip(a, b, strict=True))


def checkpoint_scenario(cfg: SimConfig, rank: int, where: dict[str, Any]) -> dict[str, Any]:
    """Save a checkpoint only one rank writes (refused), then a complete one (resumes exactly)."""
    fault = cfg.partial_checkpoint
    assert fault is not None and cfg.checkpoint_dir is not None
    run = cfg.runs[0]
    trainer = Trainer(cfg, run, rank, Ring(rank, cfg.world_size))
    for t in range(fault.step):
        where["step"] = t
        trainer.step(t)
    partial_dir, full_dir = os.path.join(cfg.checkpoint_dir, "partial"), os.path.join(cfg.checkpoint_dir, "complete")
    checkpoint.save(trainer, partial_dir, write=rank == fault.writer_rank)
    refused: list[str] = []
    try:
        checkpoint.verify(partial_dir, cfg.world_size)
    except IncompleteCheckpoint as exc:
        refused = exc.missing
    checkpoint.save(trainer, full_dir)
    for t in range(fault.step, cfg.steps):
        where["step"] = t
        trainer.step(t)
    resumed = Trainer(cfg, run, rank, Ring(rank, cfg.world_size))
    checkpoint.load(resumed, full_dir)
    for t in range(fault.step, cfg.steps):
        where["step"] = t
        resumed.step(t)
    return {
        "refused_missing": refused,
        "resumed_equal": checkpoint.states_equal(trainer.state, resumed.state),
        "saved_at_step": fault.step,
    }
