"""Time to train as it really goes: checkpoints, interruptions and restarts around the ideal steps.

A run of T_s seconds of steps (service.time.budget) saves a checkpoint every tau seconds of work; each save
stalls training for delta seconds; the job is interrupted at random with a mean time between
interruptions M (the rate per GPU-hour times its GPUs); each interruption costs a restart R (the
re-launch, then the read of the last checkpoint) and the work done since that checkpoint. For
exponentially distributed interruptions, the expected wall time is Daly's complete model (J. T. Daly,
"A higher order estimate of the optimum checkpoint interval for restart dumps", Future Generation
Computer Systems 22(3), 2006, the complete model of section 3):

    T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau

and the goodput (the useful fraction) is T_s / T_w. Without interruptions (M infinite) it is the
limit tau / (tau + delta). The interval that minimises T_w to first order is Young's (J. W. Young, "A
first order approximation to the optimum checkpoint interval", CACM 17(9), 1974):
tau = sqrt(2 delta M); Daly's higher-order estimate (2006) is

    tau = sqrt(2 delta M) (1 + sqrt(delta / (2M)) / 3 + delta / (18 M)) - delta   for delta < 2M, else M.

Checkpoint bytes are the states a checkpoint keeps: parameters, master weights and the optimizer's
moments (gradients are not saved), every weight once. PyTorch's distributed checkpoint writes a
replicated tensor once, from the rank whose plan is smallest so far
(torch/distributed/checkpoint/_dedup_save_plans.py), so each node writes its share, bytes / nodes,
whatever the arrangement. An asynchronous save (DCP ``async_save``) first copies each GPU's own
checkpointed states to host memory, which is where the arrangement's sharding shows: the stall is
that copy over the host link, and the write in the background must end before the next save begins.

Every function takes Python numbers or numpy arrays, so a sweep and a single plan share them.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from models.enums import Dtype, StateClass, StateLocation
from models.presets import PrecisionSpec
from models.resilience import Checkpoint, CheckpointSave, Failures
from service.memory.dtypes import WHOLE_BYTES, tensor_bytes
from service.memory.model_states import StateBytes
from service.memory.state_classes import state_specs
from service.numeric import FloatLike, IntLike, any_array, ceil_div

SECONDS_PER_HOUR = 3600
# What a checkpoint keeps of the state classes a plan counts.
CHECKPOINT_STATES = frozenset(
    {StateClass.parameters, StateClass.master_weights, StateClass.momentum, StateClass.variance}
)


def checkpoint_bytes(parameter_count: IntLike, precision: PrecisionSpec) -> IntLike:
    """Bytes of one checkpoint: every checkpointed state class of every weight, once."""
    return checkpoint_bytes_of(parameter_count, precision, whole_checkpoint_bytes_per_weight(precision))


def checkpoint_bytes_of(parameter_count: IntLike, precision: PrecisionSpec, whole_per_weight: int | None) -> IntLike:
    """``checkpoint_bytes`` given the precision's ``whole_checkpoint_bytes_per_weight`` (which a setup keeps)."""
    if whole_per_weight is not None:
        return parameter_count * whole_per_weight
    return sum((tensor_bytes(parameter_count, dtype) for dtype in checkpoint_dtypes(precision)), start=0)


@lru_cache(maxsize=256)  # a pure function of a frozen precision, read by every plan
def whole_checkpoint_bytes_per_weight(precision: PrecisionSpec) -> int | None:
    """Checkpoint bytes per weight when every checkpointed dtype stores whole bytes a value without a shared scale:
    the bytes of P weights are then exactly P times this, in integers. None when a dtype is packed or block-scaled
    (its bytes are rounded per tensor)."""
    dtypes = checkpoint_dtypes(precision)
    if not all(dtype in WHOLE_BYTES for dtype in dtypes):
        return None
    return sum(int(tensor_bytes(1, dtype)) for dtype in dtypes)


@lru_cache(maxsize=256)  # a pure function of a frozen precision, read by every plan
def checkpoint_dtypes(precision: PrecisionSpec) -> tuple[Dtype, ...]:
    """The dtypes of the state classes a checkpoint keeps, one per class."""
    return tuple(s.dtype for s in state_specs(precision) if s.state in CHECKPOINT_STATES)


def staged_rows(rows: Iterable[StateBytes]) -> IntLike:
    """Bytes one GPU copies to the host for an asynchronous save, from a breakdown's rows (numbers, or arrays for
    many layouts): its checkpointed states on the GPU."""
    staged: IntLike = 0
    gpu = StateLocation.gpu
    for r in rows:  # a loop, not a generator: read by every plan
        if r.location is gpu and r.spec.state in CHECKPOINT_STATES:
            staged = staged + r.bytes
    return staged


def run_finishes(goodput: FloatLike, training_days: FloatLike) -> FloatLike:
    """Whether the run ends: some of its wall time trains (goodput above 0) and its days are finite; otherwise
    interruptions come faster than a restart and a checkpoint interval absorb (numbers, or arrays of cells)."""
    return (np.asarray(goodput) > 0) & np.isfinite(training_days)


def job_mtbf_s(interruptions_per_gpu_hour: float, world_size: IntLike) -> FloatLike:
    """Mean time between the job's interruptions, seconds: infinite without failures."""
    if not any_array(interruptions_per_gpu_hour, world_size):  # one plan: plain floats are many times faster
        per_job = float(interruptions_per_gpu_hour) * float(world_size)
        return SECONDS_PER_HOUR / per_job if per_job else math.inf
    rate = np.multiply(interruptions_per_gpu_hour, world_size, dtype=np.float64)
    with np.errstate(divide="ignore"):
        mtbf = np.divide(SECONDS_PER_HOUR, rate)
    return float(mtbf) if np.ndim(mtbf) == 0 else mtbf


def write_s(
    checkpoint_bytes: IntLike, world_size: IntLike, gpus_per_node: IntLike, node_bytes_per_s: float
) -> FloatLike:
    """Seconds for the nodes to write (or read) one checkpoint, each its share of the bytes."""
    nodes = ceil_div(world_size, gpus_per_node)
    return ceil_div(checkpoint_bytes, nodes) / node_bytes_per_s


def young_interval_s(stall_s: FloatLike, mtbf_s: FloatLike) -> FloatLike:
    """Young 1974: sqrt(2 delta M)."""
    if not any_array(stall_s, mtbf_s):
        return _young(float(stall_s), float(mtbf_s))
    return np.sqrt(2 * stall_s * mtbf_s)


def _young(d: float, mm: float) -> float:
    return _sqrt(2 * d * mm)


def daly_interval_s(stall_s: FloatLike, mtbf_s: FloatLike) -> FloatLike:
    """Daly 2006's higher-order estimate of the optimum interval of work between checkpoints, seconds (infinite
    without failures; M when the stall is 2M or more)."""
    if not any_array(stall_s, mtbf_s):
        return _daly(float(stall_s), float(mtbf_s))
    delta, m = np.asarray(stall_s, dtype=np.float64), np.asarray(mtbf_s, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = delta / (2 * m)
        tau = np.sqrt(2 * delta * m) * (1 + np.sqrt(x) / 3 + x / 9) - delta
        out = np.where(delta < 2 * m, tau, m)
    return float(out) if out.ndim == 0 else out


def _daly(d: float, mm: float) -> float:
    if not d < 2 * mm:
        return mm
    xx = d / (2 * mm)
    return _sqrt(2 * d * mm) * (1 + _sqrt(xx) / 3 + xx / 9) - d


def wall_factor(interval_s: FloatLike, stall_s: FloatLike, restart_s: FloatLike, mtbf_s: FloatLike) -> FloatLike:
    """T_w / T_s by Daly's complete model; tau / (tau + delta) inverted without failures."""
    if not any_array(interval_s, stall_s, restart_s, mtbf_s):
        return _wall_factor(float(interval_s), float(stall_s), float(restart_s), float(mtbf_s))
    tau, delta, r, m = (np.asarray(v, dtype=np.float64) for v in (interval_s, stall_s, restart_s, mtbf_s))
    finite = np.isfinite(m)
    safe_m = np.where(finite, m, 1.0)
    with np.errstate(over="ignore"):
        failing = safe_m * np.exp(r / safe_m) * np.expm1((tau + delta) / safe_m) / tau
    out = np.where(finite, failing, (tau + delta) / tau)
    return float(out) if out.ndim == 0 else out


def _wall_factor(t: float, d: float, rr: float, mm: float) -> float:
    if not math.isfinite(mm):
        return (t + d) / t
    try:
        return mm * math.exp(rr / mm) * math.expm1((t + d) / mm) / t
    except OverflowError:
        return math.inf


class Run:
    """A run's checkpoints and interruptions, each figure a number or an array (one per sweep cell)."""

    def __init__(
        self,
        step_s: FloatLike,
        interval_steps: FloatLike,
        stall_s: FloatLike,
        restart_s: FloatLike,
        mtbf_s: FloatLike,
        write_s: FloatLike = 0.0,
    ) -> None:
        """interval_steps None: auto, Daly's optimum rounded to whole steps (at least one)."""
        if not any_array(step_s, interval_steps, stall_s, restart_s, mtbf_s, write_s):
            self._scalar(float(step_s), interval_steps, stall_s, restart_s, mtbf_s, write_s)
            return
        self.optimal_interval_s = daly_interval_s(stall_s, mtbf_s)
        self.young_interval_s = young_interval_s(stall_s, mtbf_s)
        if interval_steps is None:
            with np.errstate(invalid="ignore"):
                steps = np.where(
                    np.isfinite(self.optimal_interval_s),
                    np.maximum(1, np.rint(np.divide(self.optimal_interval_s, step_s))),
                    np.inf,
                )
            interval_steps = steps if np.ndim(steps) else float(steps)
        self.interval_steps = interval_steps  # infinite: no checkpoint (no failures to guard against)
        self.interval_s = np.multiply(interval_steps, step_s)
        self.stall_s, self.restart_s, self.mtbf_s, self.write_s = stall_s, restart_s, mtbf_s, write_s
        with np.errstate(invalid="ignore"):
            factor = np.where(np.isinf(self.interval_s), 1.0, wall_factor(self.interval_s, stall_s, restart_s, mtbf_s))
        with np.errstate(divide="ignore"):
            self.goodput = _plain(np.nan_to_num(1 / factor, nan=0.0))  # 0: a run that never finishes

    def _scalar(
        self,
        step_s: float,
        interval_steps: FloatLike | None,
        stall_s: FloatLike,
        restart_s: FloatLike,
        mtbf_s: FloatLike,
        write_s: FloatLike,
    ) -> None:
        """The same figures as __init__'s for one plan, in plain floats (the scalar forms of daly_interval_s,
        young_interval_s and wall_factor, called directly: every value is known to be a number)."""
        d, mm = float(stall_s), float(mtbf_s)
        self.optimal_interval_s = optimum = _daly(d, mm)
        self.young_interval_s = _young(d, mm)
        if interval_steps is None:
            interval_steps = max(1.0, float(round(optimum / step_s))) if math.isfinite(optimum) else math.inf
        self.interval_steps = interval_steps
        self.interval_s = float(interval_steps) * step_s
        self.stall_s, self.restart_s, self.mtbf_s, self.write_s = stall_s, restart_s, mtbf_s, write_s
        factor = 1.0 if math.isinf(self.interval_s) else _wall_factor(self.interval_s, d, float(restart_s), mm)
        self.goodput = 1 / factor if factor and not math.isnan(factor) else 0.0  # 0: a run that never finishes

    def totals(self, training_s: FloatLike) -> dict[str, FloatLike]:
        """For ideal seconds of steps: wall seconds, expected interruptions, and the hours of wall time
        spent saving, restarting (re-launch and read) and redoing lost work."""
        # a goodput of 0 (a run that never finishes) gives infinite wall time, which the callers refuse or skip
        with np.errstate(invalid="ignore", divide="ignore"):
            wall = np.divide(training_s, self.goodput)
            interruptions = np.where(np.isfinite(self.mtbf_s), np.divide(wall, self.mtbf_s), 0.0)
            saves = np.where(np.isinf(self.interval_s), 0.0, np.divide(training_s, self.interval_s))
            checkpoint = saves * np.asarray(self.stall_s)
            restart = interruptions * np.asarray(self.restart_s)
            lost = np.maximum(wall - training_s - checkpoint - restart, 0.0)
        return {
            "wall_s": _plain(wall),
            "expected_interruptions": _plain(interruptions),
            "checkpoint_hours": _plain(checkpoint / SECONDS_PER_HOUR),
            "restart_hours": _plain(restart / SECONDS_PER_HOUR),
            "lost_work_hours": _plain(lost / SECONDS_PER_HOUR),
        }


def stall_s(
    asynchronous: bool,
    write: FloatLike,
    staged: IntLike,
    host_bytes_per_s: float,
) -> FloatLike:
    """The stall per checkpoint: the write (synchronous), or the copy of the GPU's states to the host
    (asynchronous; the wait for a write longer than the interval is added by ``async_stall_s``)."""
    return np.divide(staged, host_bytes_per_s) if asynchronous else write


def async_stall_s(copy_s: FloatLike, write: FloatLike, interval_s: FloatLike) -> FloatLike:
    """An asynchronous save whose write outlasts the interval holds the next save back by the rest."""
    return copy_s + np.maximum(np.asarray(write) - np.asarray(interval_s), 0.0)


@dataclass(frozen=True)
class Resilience:
    """What the request says about checkpoints and failures, resolved to numbers."""

    interval_steps: int | None  # None: auto
    node_bytes_per_s: float
    storage_source: str
    asynchronous: bool
    interruptions_per_gpu_hour: FloatLike  # an array in a sweep over gpus_per_node with node_mtbf_hours
    failures_source: str
    relaunch_s: float


def resilience_of(checkpoint: Checkpoint | None, failures: Failures | None, gpus_per_node: IntLike) -> Resilience:
    if checkpoint is None and failures is None:
        return default_resilience()  # most plans state neither
    return _resilience_of(checkpoint or Checkpoint(), failures or Failures(), gpus_per_node)


@lru_cache(maxsize=1)
def default_resilience() -> Resilience:
    """Neither checkpoints nor failures stated: the defaults, resolved once (the default rate of failures is
    per GPU, so it does not depend on gpus_per_node)."""
    return _resilience_of(Checkpoint(), Failures(), 1)


def _resilience_of(checkpoint: Checkpoint, failures: Failures, gpus_per_node: IntLike) -> Resilience:
    node_bytes_per_s, storage_source = checkpoint.storage_bytes_per_s()
    rate, failures_source = failures.rate_per_gpu_hour(gpus_per_node)
    interval = checkpoint.interval_steps
    return Resilience(
        None if interval == "auto" else int(interval),
        node_bytes_per_s,
        storage_source,
        checkpoint.save is CheckpointSave.asynchronous,
        rate,
        failures_source,
        failures.restart_s,
    )


def run_of(
    spec: Resilience,
    step_s: FloatLike,
    world_size: IntLike,
    gpus_per_node: IntLike,
    checkpoint: IntLike,
    staged: IntLike,
    host_bytes_per_s: float,
) -> Run:
    """The run's checkpoints and interruptions for its step time, checkpoint bytes (``checkpoint_bytes``)
    and bytes each GPU stages (``staged_bytes``)."""
    write = write_s(checkpoint, world_size, gpus_per_node, spec.node_bytes_per_s)
    mtbf = job_mtbf_s(spec.interruptions_per_gpu_hour, world_size)
    restart = spec.relaunch_s + write  # the read of the checkpoint, at the storage's rate
    if not spec.asynchronous:
        return Run(step_s, spec.interval_steps, write, restart, mtbf, write)
    copy = stall_s(True, write, staged, host_bytes_per_s)
    first = Run(step_s, spec.interval_steps, copy, restart, mtbf, write)
    return Run(step_s, first.interval_steps, async_stall_s(copy, write, first.interval_s), restart, mtbf, write)


def _sqrt(value: float) -> float:
    return math.sqrt(value) if value >= 0 else math.nan


def _plain(value: FloatLike) -> FloatLike:
    array = np.asarray(value, dtype=np.float64)
    return float(array) if array.ndim == 0 else array
