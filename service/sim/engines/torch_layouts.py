"""A layout as PyTorch runs it: tensor x pipeline x data parallelism on one DeviceMesh (torch 2.13).

Composed as torchtitan composes them (torchtitan/models/llama3/infra/parallelize.py ``apply_tp``
and ``apply_fsdp``; torchtitan/distributed/pipeline_parallel.py):
- the mesh is (pipeline, data, tensor), tensor innermost (Megatron-LM's placement, as the
  planner's service/mesh/degrees.py numbers ranks);
- pipeline: each rank keeps its stage's blocks (the first stage the embedding, the last the final
  norm and output layer) and deletes the rest, then ``PipelineStage`` and ``Schedule1F1B`` or
  ``ScheduleGPipe`` run ``micro_batches`` micro-batches a step, the loss averaged per micro-batch
  and the gradients divided by their number (the schedule's ``scale_grads``);
- tensor: ``parallelize_module`` with ``ColwiseParallel`` on q, k, v and up, ``RowwiseParallel``
  on o and down (their biases replicated), ``RowwiseParallel`` on the embedding (vocabulary rows)
  and ``ColwiseParallel`` on the output layer with replicated logits; norms stay whole on every
  tensor rank; attention runs the rank's heads / t (the model reads heads from the width);
- FSDP2 ``fully_shard`` on each block and the stage's root over the data dimension.
"""

import datetime
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor, Replicate
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from service.sim.engines.torch_config import TorchArrangement, TorchSimConfig
from service.sim.engines.torch_model import TinyDecoder, build

MESH_DIMS = ("pipeline", "data", "tensor")


@dataclass
class LayoutRun:
    """One rank's share of a layout: its module, optimizer and, with pipeline stages, the schedule."""

    mesh: DeviceMesh
    module: nn.Module
    optimizer: torch.optim.Optimizer
    schedule: Any  # a pipelining schedule, or None without pipeline parallelism
    stage: int
    first: bool
    last: bool

    def train_step(self, tokens: torch.Tensor) -> float | None:
        """Forward and backward on the replica's tokens; the loss where this rank computes it."""
        inputs, targets = tokens[:, :-1], tokens[:, 1:]
        if self.schedule is None:
            loss = _loss(self.module(inputs), targets)
            loss.backward()  # type: ignore[no-untyped-call]
            return float(loss.detach())
        losses: list[torch.Tensor] = []
        if self.first:
            self.schedule.step(inputs)
        elif self.last:
            self.schedule.step(target=targets, losses=losses)
        else:
            self.schedule.step()
        return float(torch.stack([loss.detach() for loss in losses]).mean()) if losses else None


def _loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1))


def stage_blocks(layers: int, pipeline: int, stage: int) -> list[str]:
    per = layers // pipeline
    return [str(i) for i in range(stage * per, (stage + 1) * per)]


def mesh_group_options(cfg: TorchSimConfig, names: tuple[str, ...]) -> dict[int | str, Any]:
    """Each mesh dimension's process group with the job's collective timeout: without it DeviceMesh's
    sub-groups take c10d's default (30 minutes for gloo), and a dead peer hangs its group's ranks."""
    out: dict[int | str, Any] = {}
    for name in names:
        gloo = cfg.backend == "gloo"
        options = dist.ProcessGroupGloo._Options() if gloo else dist.ProcessGroupNCCL.Options()  # type: ignore[attr-defined]
        options._timeout = datetime.timedelta(seconds=cfg.collective_timeout_s)
        out[name] = (cfg.backend, options)
    return out


def build_layout(cfg: TorchSimConfig, arrangement: TorchArrangement, device: torch.device, rank: int) -> LayoutRun:
    mesh = init_device_mesh(
        device.type,
        (cfg.pipeline, cfg.data, cfg.tensor),
        mesh_dim_names=MESH_DIMS,
        backend_override=mesh_group_options(cfg, MESH_DIMS),
    )
    model = build(cfg.model, cfg.seed, device)
    stage = cfg.stage_of(rank)
    first, last = stage == 0, stage == cfg.pipeline - 1
    keep = set(stage_blocks(cfg.model.layers, cfg.pipeline, stage))
    for name in [k for k in model.blocks if k not in keep]:
        del model.blocks[name]
    if not first:
        model.embed = None
    if not last:
        model.norm = model.out = None
    if cfg.tensor > 1:
        _tensor_parallel(model, mesh["tensor"])
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16) if cfg.precision == "mixed_bf16_adam" else None
    options: dict[str, Any] = {
        "mesh": mesh["data"],
        "reshard_after_forward": arrangement is not TorchArrangement.shard_grad_op,
    }
    if policy is not None:
        options["mp_policy"] = policy
    for block in model.blocks.values():
        fully_shard(block, **options)
    fully_shard(model, **options)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate)
    schedule = _schedule(cfg, model, stage, device, mesh) if cfg.pipeline > 1 else None
    return LayoutRun(mesh, model, optimizer, schedule, stage, first, last)


def _tensor_parallel(model: TinyDecoder, tp: DeviceMesh) -> None:
    plan: dict[str, Any] = {}
    if model.embed is not None:
        plan["embed"] = RowwiseParallel(input_layouts=Replicate())
    if model.out is not None:
        plan["out"] = ColwiseParallel(output_layouts=Replicate())
    for name in model.blocks:
        for proj in ("q", "k", "v", "up"):
            plan[f"blocks.{name}.{proj}"] = ColwiseParallel()
        for proj in ("o", "down"):
            plan[f"blocks.{name}.{proj}"] = RowwiseParallel()
    parallelize_module(model, tp, plan)


def _schedule(cfg: TorchSimConfig, model: nn.Module, stage: int, device: torch.device, mesh: DeviceMesh) -> Any:
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

    pipe = PipelineStage(model, stage, cfg.pipeline, device, group=mesh["pipeline"].get_group())
    kind = Schedule1F1B if cfg.pipeline_schedule == "1f1b" else ScheduleGPipe
    return kind(pipe, n_microbatches=cfg.micro_batches, loss_fn=_loss)


def local_bytes(tensor: torch.Tensor | None) -> int:
    """Bytes of what this rank holds of a tensor: a DTensor's local shard."""
    if tensor is None:
        return 0
    if isinstance(tensor, DTensor):
        tensor = tensor.to_local()
    return tensor.numel() * tensor.element_size()


def held_bytes(run: LayoutRun) -> dict[str, int]:
    """Per class, counted from the local tensors this rank holds after the optimizer step."""
    params = list(run.module.parameters())
    state = [v for s in run.optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return {
        "parameters": sum(local_bytes(p) for p in params),
        "gradients": sum(local_bytes(p.grad) for p in params),
        "optimizer_state": sum(local_bytes(v) for v in state),
    }


def full_parameters(run: LayoutRun, rank: int) -> dict[str, torch.Tensor]:
    """Every parameter of the model in full on rank 0: DTensors gathered in their stage, the
    stages' parameters collected by a gather over the world (outside the measured window)."""
    mine = {}
    for name, p in run.module.named_parameters():
        value = p.full_tensor() if isinstance(p, DTensor) else p
        mine[name] = value.detach().to("cpu", torch.float64)
    every: list[Any] = [None] * dist.get_world_size()
    dist.gather_object(mine, every if rank == 0 else None, dst=0)
    out: dict[str, torch.Tensor] = {}
    if rank == 0:
        for part in every:
            out.update(part)
    return out
