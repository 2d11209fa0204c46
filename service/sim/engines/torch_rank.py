"""One rank of a torch-engine job: train the tiny transformer under each arrangement with
PyTorch's own implementation and measure it (torch 2.13).

Per arrangement: warm-up steps (DDP rebuilds its buckets in the second), then the measured steps
inside ``torch.distributed._tools``' tracker (FSDPMemTracker for FSDP2, MemTracker for DDP and
ZeRO-1), a dispatch mode that records every c10d collective call (op, dtype, elements, group) and
the process's written bytes (/proc/self/io wchar) around the measured steps. Nothing is printed
while measuring. On CUDA with NCCL the caching allocator's peaks are read instead of the wire.
"""

import datetime
import logging
import os
import time
import traceback
import warnings
from contextlib import nullcontext
from typing import Any

import torch
import torch.distributed as dist
from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker
from torch.distributed._tools.mem_tracker import MemTracker
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.distributed.tensor import DTensor
from torch.nn.parallel import DistributedDataParallel
from torch.utils._python_dispatch import TorchDispatchMode

from service.sim.engines.torch_config import FSDP_ARRANGEMENTS, TorchArrangement, TorchSimConfig
from service.sim.engines.torch_model import batch, build, loss_of
from service.sim.wire import written_bytes

COLLECTIVE_OPS = {  # c10d's ops (FSDP2, DDP, ZeroRedundancyOptimizer, pipelining's send and recv)
    "allreduce_": "all_reduce",
    "_allgather_base_": "all_gather",
    "_reduce_scatter_base_": "reduce_scatter",
    "broadcast_": "broadcast",
    "send": "send",
    "recv_": "recv",
}
FUNCTIONAL_OPS = {  # DTensor's functional collectives (torch/distributed/_functional_collectives.py)
    "all_reduce": "all_reduce",
    "all_gather_into_tensor": "all_gather",
    "reduce_scatter_tensor": "reduce_scatter",
}
TRACKER_CLASS = {  # tracker category -> state class
    "Parameter": "parameters",
    "Sharded Param": "parameters",
    "Gradient": "gradients",
    "Sharded Grad": "gradients",
    "Optstate": "optimizer_state",
    "OptState": "optimizer_state",
}


class CollectiveCounter(TorchDispatchMode):  # type: ignore[no-untyped-call]
    """Records each c10d collective this rank issues: what the gloo algorithm is then priced on."""

    def __init__(self, cfg: TorchSimConfig | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.calls: list[dict[str, Any]] = []
        self.first_issue_s: float | None = None
        self.cfg = cfg  # labels each call's group by mesh dimension

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        if any(t is DTensor for t in types):
            return NotImplemented
        name = func._schema.name.split("::")[-1]
        call = None
        if func.namespace == "c10d" and name in COLLECTIVE_OPS:
            call = _describe(COLLECTIVE_OPS[name], args)
        elif func.namespace == "_c10d_functional" and name in FUNCTIONAL_OPS:
            call = _describe_functional(FUNCTIONAL_OPS[name], args)
        if call is not None:
            ranks = call.pop("group_ranks")
            call["group"] = self.cfg.group_label(ranks) if self.cfg is not None else "data"
            self.calls.append(call)
            if self.first_issue_s is None:
                self.first_issue_s = time.perf_counter()
        return func(*args, **(kwargs or {}))


def _describe(op: str, args: tuple[Any, ...]) -> dict[str, Any]:
    group = next(dist.ProcessGroup.unbox(a) for a in args if isinstance(a, torch.ScriptObject))
    if op == "all_gather":  # (output, input, group, ...): every rank's input, gathered
        buffer = args[0]
    elif op == "reduce_scatter":  # (output, input, group, ...): the whole input is reduced
        buffer = args[1]
    else:  # (tensors, group, ...)
        buffer = args[0][0]
    root = int(args[2]) if op == "broadcast" else 0
    return {
        "op": op,
        "dtype": str(buffer.dtype).removeprefix("torch."),
        "elements": buffer.numel(),
        "group_size": group.size(),
        "group_rank": group.rank(),
        "root": root,
        "group_ranks": dist.get_process_group_ranks(group),
    }


def _describe_functional(op: str, args: tuple[Any, ...]) -> dict[str, Any]:
    """(input, [reduce_op,] [group_size,] group_name): the buffer every rank reduces or gathers in full."""
    from torch.distributed import distributed_c10d

    buffer, group_name = args[0], str(args[-1])
    group = distributed_c10d._resolve_process_group(group_name)  # type: ignore[attr-defined, arg-type]
    elements = buffer.numel() * (group.size() if op == "all_gather" else 1)
    return {
        "op": op,
        "dtype": str(buffer.dtype).removeprefix("torch."),
        "elements": elements,
        "group_size": group.size(),
        "group_rank": group.rank(),
        "root": 0,
        "group_ranks": dist.get_process_group_ranks(group),
    }


def init(cfg: TorchSimConfig, rank: int, init_method: str) -> torch.device:
    timeout = datetime.timedelta(seconds=cfg.collective_timeout_s)
    if cfg.backend == "nccl":
        local = int(os.environ.get("LOCAL_RANK", rank))
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
    else:
        device = torch.device("cpu")
    dist.init_process_group(cfg.backend, init_method=init_method, rank=rank, world_size=cfg.world_size, timeout=timeout)
    return device


def quiet_known_warnings() -> None:
    """Two framework messages that a tensor-parallel run prints and that say nothing about this run:
    - FSDP2's "returned a view tensor ... can cause backward to fail or produce wrong gradients": the
      risk is an in-place op on the view; the loss takes the logits out of place (``logits.float()``
      copies them, torch_model.loss_of), so the pre-backward hook always runs, and the learning check
      against one fp32 process would fail if a gradient were wrong;
    - DTensor's "2 sequential all_gather operations will be performed. This is suboptimal": the
      redistribution that gathers the final parameters for that learning check, after the measured
      steps, whose time and bytes are not measured."""
    warnings.filterwarnings("ignore", message=r"FSDP2-wrapped module .* returned a view tensor", category=UserWarning)
    logging.getLogger("torch.distributed.tensor._redistribute").setLevel(logging.ERROR)


def run_rank(cfg: TorchSimConfig, rank: int, init_method: str) -> dict[str, Any]:
    """Everything one rank measures. A failure is recorded, with its run and step, not raised."""
    torch.set_num_threads(1)
    quiet_known_warnings()
    where: dict[str, Any] = {"run": None, "step": None}
    result: dict[str, Any] = {"rank": rank, "pid": os.getpid(), "runs": [], "failure": None}
    started = time.perf_counter()
    try:
        device = init(cfg, rank, init_method)
        finals = []
        for index, name in enumerate(cfg.arrangements):
            where["run"] = index
            run = run_layout if cfg.layout else run_one
            measured, final = run(cfg, TorchArrangement(name), rank, device, where)
            result["runs"].append(measured)
            finals.append(final)
        where["run"] = where["step"] = None
        if rank == 0:
            result["learning"] = compare_learning(cfg, finals)
    except Exception as exc:  # a dead peer or a timeout: report where, then leave
        result["failure"] = {
            **where,
            "error": f"{type(exc).__name__}: {exc}"[:500],
            "after_s": time.perf_counter() - started,
            "trace": traceback.format_exc()[-1500:],
        }
    return result


def wrap(cfg: TorchSimConfig, arrangement: TorchArrangement, device: torch.device) -> tuple[Any, Any, Any, bool]:
    """(module, optimizer, tracker, autocast): the arrangement as PyTorch runs it."""
    model = build(cfg.model, cfg.seed, device)
    mixed = cfg.precision == "mixed_bf16_adam"
    if arrangement in FSDP_ARRANGEMENTS:
        mesh = None
        if arrangement is TorchArrangement.hybrid:
            g = cfg.ranks_per_node
            from service.sim.engines.torch_layouts import mesh_group_options

            names = ("replicate", "shard")
            mesh = init_device_mesh(
                device.type,
                (cfg.world_size // g, g),
                mesh_dim_names=names,
                backend_override=mesh_group_options(cfg, names),
            )
        else:
            mesh = init_device_mesh(device.type, (cfg.world_size,))
        # PyTorch's defaults beyond param_dtype: reduce_dtype None reduces in bf16, the sharded
        # gradients stay fp32 (torch/distributed/fsdp/_fully_shard/_fsdp_api.py)
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16) if mixed else None
        reshard = arrangement is not TorchArrangement.shard_grad_op
        options: dict[str, Any] = {"mesh": mesh, "reshard_after_forward": reshard}
        if policy is not None:
            options["mp_policy"] = policy
        for block in model.blocks.values():
            fully_shard(block, **options)
        fully_shard(model, **options)
        adamw = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
        return model, adamw, FSDPMemTracker(model, adamw), False
    module = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    if arrangement is TorchArrangement.zero1:
        optimizer: torch.optim.Optimizer = ZeroRedundancyOptimizer(
            module.parameters(), optimizer_class=torch.optim.AdamW, lr=cfg.learning_rate
        )
    else:
        optimizer = torch.optim.AdamW(module.parameters(), lr=cfg.learning_rate)
    tracker = MemTracker()
    return module, optimizer, tracker, mixed


def run_one(
    cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int, device: torch.device, where: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    module, optimizer, tracker, autocast = wrap(cfg, arrangement, device)
    steps: list[dict[str, Any]] = []

    def step(t: int, counter: CollectiveCounter | None) -> None:
        where["step"] = t
        start = time.perf_counter()
        _faults(cfg, rank, t)  # a slow rank's delay counts as its own (busy) time
        tokens = batch(cfg.model, cfg.seed, t, rank, cfg.batch_per_rank, cfg.sequence_length).to(device)
        with torch.autocast(device.type, dtype=torch.bfloat16) if autocast else nullcontext():
            loss = loss_of(module, tokens)
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        if t == cfg.steps - 1:
            held.update(_class_bytes(tracker.get_tracker_snapshot()))
        optimizer.zero_grad()
        issued = counter.first_issue_s if counter is not None and counter.first_issue_s else None
        step_s = time.perf_counter() - start
        steps.append({"step_s": step_s, "wait_s": step_s - ((issued or start) - start), "loss": float(loss.detach())})

    held: dict[str, int] = {}
    dist.barrier()
    for t in range(cfg.warmup_steps):
        step(t, None)
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(device)
    if not isinstance(module, FSDPModule):
        tracker.track_external(module, optimizer)
    dist.barrier()
    calls: list[dict[str, Any]] = []
    wire_per_step: list[int] = []
    with tracker:
        for t in range(cfg.warmup_steps, cfg.steps):
            tracker.reset_mod_stats()
            counter = CollectiveCounter()
            before = written_bytes()
            with counter:
                step(t, counter)
            wire_per_step.append(written_bytes() - before)
            calls.extend(counter.calls)
    peak = _class_bytes(tracker.get_tracker_snapshot("peak"), every=True)
    measured: dict[str, Any] = {
        "arrangement": arrangement.value,
        "held_bytes": held,
        "tracker_peak_bytes": peak,
        "tracker_category_peak_bytes": category_peaks(tracker),
        "calls": calls,
        "wire_bytes_per_step": wire_per_step,
        "steps": steps,
    }
    if cuda:
        measured["cuda"] = {
            "max_memory_allocated_bytes": torch.cuda.max_memory_allocated(device),
            "max_memory_reserved_bytes": torch.cuda.max_memory_reserved(device),
            "card_bytes": torch.cuda.get_device_properties(device).total_memory,
        }
    where["step"] = None
    final = _full_parameters(module)
    dist.barrier()
    return measured, final if rank == 0 else {}


def run_layout(
    cfg: TorchSimConfig, arrangement: TorchArrangement, rank: int, device: torch.device, where: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """A tensor x pipeline x data layout: each rank's bytes by class from FSDPMemTracker (tensor x
    data), or counted from the local tensors it holds (DTensor shards) with pipeline stages, whose
    micro-batches run a stage's forward more than once an iteration, which the tracker refuses
    (torch/distributed/_tools/fsdp2_mem_tracker.py); its collectives labelled by mesh dimension, the
    wire around the measured steps."""
    from service.sim.engines.torch_layouts import build_layout, full_parameters, held_bytes

    run = build_layout(cfg, arrangement, device, rank)
    tracker = FSDPMemTracker(run.module, run.optimizer) if cfg.pipeline == 1 else None
    replica = cfg.data_rank_of(rank)
    steps: list[dict[str, Any]] = []
    held: dict[str, int] = {}

    def step(t: int, counter: CollectiveCounter | None) -> None:
        where["step"] = t
        start = time.perf_counter()
        _faults(cfg, rank, t)
        tokens = batch(cfg.model, cfg.seed, t, replica, cfg.sequences_per_replica, cfg.sequence_length).to(device)
        loss = run.train_step(tokens)
        run.optimizer.step()
        if t == cfg.steps - 1:
            held.update(_class_bytes(tracker.get_tracker_snapshot()) if tracker is not None else held_bytes(run))
        run.optimizer.zero_grad()
        issued = counter.first_issue_s if counter is not None and counter.first_issue_s else None
        step_s = time.perf_counter() - start
        steps.append({"step_s": step_s, "wait_s": step_s - ((issued or start) - start), "loss": loss})

    dist.barrier()
    for t in range(cfg.warmup_steps):
        step(t, None)
    dist.barrier()
    calls: list[dict[str, Any]] = []
    wire_per_step: list[int] = []
    with tracker if tracker is not None else nullcontext():
        for t in range(cfg.warmup_steps, cfg.steps):
            if tracker is not None:
                tracker.reset_mod_stats()
            counter = CollectiveCounter(cfg)
            before = written_bytes()
            with counter:
                step(t, counter)
            wire_per_step.append(written_bytes() - before)
            calls.extend(counter.calls)
    where["step"] = None
    peak = _class_bytes(tracker.get_tracker_snapshot("peak"), every=True) if tracker is not None else {}
    measured: dict[str, Any] = {
        "arrangement": arrangement.value,
        "held_bytes": held,
        "tracker_peak_bytes": peak,
        "tracker_category_peak_bytes": category_peaks(tracker) if tracker is not None else {},
        "calls": calls,
        "wire_bytes_per_step": wire_per_step,
        "steps": steps,
        "stage": run.stage,
    }
    final = full_parameters(run, rank)
    dist.barrier()
    return measured, final


def category_peaks(tracker: Any) -> dict[str, int]:
    """Each of the tracker's categories at its own largest, over every module's snapshots of the last measured
    step (before and after each forward and backward, and their peaks): the activations the forward holds for
    the backward, and the all-gather buffers (FSDP2's working set), whenever each is largest. The tracker's own
    "peak" is one snapshot, taken when the total is largest, where activations may already be freed."""
    out: dict[str, int] = {}
    for stats in tracker.memory_tracking.values():
        for snapshots in stats.snapshots.values():
            for snapshot in snapshots:
                for name, value in _class_bytes(snapshot, every=True).items():
                    out[name] = max(out.get(name, 0), value)
    return out


def _class_bytes(snapshot: dict[Any, dict[Any, int]], every: bool = False) -> dict[str, int]:
    """A tracker snapshot summed over devices: by state class, or (every) by the tracker's own names."""
    out: dict[str, int] = {}
    for by_kind in snapshot.values():
        for kind, value in by_kind.items():
            name = kind if isinstance(kind, str) else kind.value
            key = name if every else TRACKER_CLASS.get(name)
            if key is not None:
                out[key] = out.get(key, 0) + int(value)
    return out


def _full_parameters(module: Any) -> dict[str, torch.Tensor]:
    """Every parameter in full (DTensors gathered: a collective, outside the measured window)."""
    inner = module.module if hasattr(module, "module") else module
    out = {}
    for name, p in inner.named_parameters():
        value = p.full_tensor() if isinstance(p, DTensor) else p
        out[name] = value.detach().to("cpu", torch.float64)
    return out


def _faults(cfg: TorchSimConfig, rank: int, step: int) -> None:
    slow, dropped = cfg.slow_rank, cfg.dropped_rank
    if slow is not None and slow.rank == rank and step >= cfg.steps // 2:
        time.sleep(slow.delay_s)
    if dropped is not None and dropped.rank == rank and dropped.step == step:
        if dropped.mode == "hang":
            time.sleep(10**6)
        os._exit(3)


def reference(cfg: TorchSimConfig) -> tuple[dict[str, torch.Tensor], list[float]]:
    """One process, fp32, the global batch (every data-parallel replica's tokens) each step: the
    learning reference."""
    model = build(cfg.model, cfg.seed, torch.device("cpu"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    losses = []
    for t in range(cfg.steps):
        tokens = torch.cat(
            [
                batch(cfg.model, cfg.seed, t, r, cfg.sequences_per_replica, cfg.sequence_length)
                for r in range(cfg.replicas)
            ]
        )
        loss = loss_of(model, tokens)
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        optimizer.zero_grad()
        losses.append(float(loss.detach()))
    return {n: p.detach().to(torch.float64) for n, p in model.named_parameters()}, losses


def compare_learning(cfg: TorchSimConfig, finals: list[dict[str, torch.Tensor]]) -> dict[str, Any]:
    params, losses = reference(cfg)
    runs = []
    for final in finals:
        diffs = [float((final[n] - p).abs().max()) for n, p in params.items()]
        runs.append({"max_abs_diff": max(diffs)})
    return {"reference_losses": losses, "runs": runs}
