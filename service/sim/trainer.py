"""One rank of one arrangement: it holds only what its three flags say, counted per state class.

Per unit (one layer) of P_unit elements, padded to N * s with s = ceil(P_unit / N):
- parameters: P_unit elements, or (ZeRO-3) the rank's chunk of s. ZeRO-3 gathers a unit into a
  transient N * s buffer for that layer's forward, frees it, and gathers it again for its
  backward; ``keep_gather`` keeps the forward gather alive instead ("the mistake that hides the
  third P": one gather fewer, the whole model resident at the peak).
- gradients: a transient N * s buffer per layer during the backward, reduced at once; then
  P_unit elements persist (DDP, ZeRO-1) or only the rank's chunk of s (ZeRO-2/3).
- master weights and Adam moments: P_unit elements, or the rank's chunk of s (shard optimizer).
DDP all-reduces the gradients; ZeRO-1/2 reduce-scatter them and all-gather the updated
parameters; ZeRO-3 reduce-scatters and keeps its parameter chunk (DESIGN.md, 'Collectives').
Transient buffers are not model state: they are reported separately as peaks.
Faults: a slow rank sleeps ``delay_s`` at the start of each step from step ``steps // 2`` on (the
earlier steps are the baseline); a dropped rank exits or hangs at the start of its step.
"""

import os
import time

import torch

from models.enums import StateClass
from service.memory.model_states import shard_elements
from service.sim.config import RunSpec, SimConfig
from service.sim.model import (
    batch,
    compute_dtype,
    initial_units,
    layer_backward,
    layer_forward,
    loss_and_grad_out,
    torch_dtype,
)
from service.sim.optimizer import adam_update
from service.sim.ring import Ring


def padded(full: torch.Tensor, length: int) -> torch.Tensor:
    out = torch.zeros(length, dtype=full.dtype)
    out[: full.numel()] = full
    return out


class Trainer:
    def __init__(self, cfg: SimConfig, run: RunSpec, rank: int, ring: Ring) -> None:
        self.cfg, self.run, self.rank, self.ring = cfg, run, rank, ring
        self.sharding = run.sharding
        self.n, self.p_unit, self.width = cfg.world_size, cfg.unit_elements, cfg.width
        self.s = int(shard_elements(self.p_unit, self.n))
        spec = cfg.precision_spec
        self.param_dtype, self.grad_dtype = torch_dtype(spec.parameter_dtype), torch_dtype(spec.gradient_dtype)
        self.master_dtype = torch_dtype(spec.master_dtype) if spec.master_dtype else None
        self.state_dtype = torch_dtype(spec.optimizer_state_dtype)
        self.compute = compute_dtype(self.param_dtype)
        self.step_count = 0
        self.gathered_bytes = self.peak_gathered_bytes = self.peak_gradient_buffer_bytes = 0
        self.state: dict[StateClass, list[torch.Tensor]] = {}
        self._init_state()

    # ---- state -------------------------------------------------------------------------
    def _own(self, full: torch.Tensor) -> torch.Tensor:
        return padded(full, self.n * self.s)[self.rank * self.s : (self.rank + 1) * self.s].clone()

    def _hold(self, full: torch.Tensor, sharded: bool, dtype: torch.dtype) -> torch.Tensor:
        return (self._own(full) if sharded else full.clone()).to(dtype)

    def _init_state(self) -> None:
        opt, grads, params = (
            self.sharding.shard_optimizer,
            self.sharding.shard_gradients,
            self.sharding.shard_parameters,
        )
        st, units = self.state, initial_units(self.cfg.seed, self.cfg.layers, self.width)
        source = [u.to(self.master_dtype) if self.master_dtype else u for u in units]
        st[StateClass.parameters] = [self._hold(u.to(self.param_dtype), params, self.param_dtype) for u in source]
        st[StateClass.gradients] = [self._hold(torch.zeros(self.p_unit), grads, self.grad_dtype) for _ in units]
        if self.master_dtype is not None:
            st[StateClass.master_weights] = [self._hold(u, opt, self.master_dtype) for u in source]
        st[StateClass.momentum] = [self._hold(torch.zeros(self.p_unit), opt, self.state_dtype) for _ in units]
        st[StateClass.variance] = [self._hold(torch.zeros(self.p_unit), opt, self.state_dtype) for _ in units]

    def resident_bytes(self) -> dict[str, int]:
        """Bytes of the storages each state class really holds (views counted once)."""
        out = {}
        for state, tensors in self.state.items():
            storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
            out[state.value] = sum(storages.values())
        return out

    # ---- parameters for compute ----------------------------------------------------------
    def _gather(self, i: int, key: str) -> torch.Tensor:
        buffer = torch.empty(self.n * self.s, dtype=self.param_dtype)
        buffer.view(self.n, -1)[self.rank].copy_(self.state[StateClass.parameters][i])
        self.ring.all_gather(buffer, key)
        self._track_gathered(buffer.numel() * buffer.element_size())
        return buffer[: self.p_unit]

    def _track_gathered(self, delta_bytes: int) -> None:
        self.gathered_bytes += delta_bytes
        self.peak_gathered_bytes = max(self.peak_gathered_bytes, self.gathered_bytes)

    def _release(self, unit: torch.Tensor) -> None:
        if self.sharding.shard_parameters:
            self._track_gathered(-unit.untyped_storage().nbytes())

    def _params(self, i: int, key: str, kept: dict[int, torch.Tensor]) -> torch.Tensor:
        if not self.sharding.shard_parameters:
            return self.state[StateClass.parameters][i]
        if i in kept:
            return kept.pop(i)
        return self._gather(i, key)

    # ---- one step ----------------------------------------------------------------------
    def step(self, step_index: int) -> dict[str, float]:
        start, waited0 = time.perf_counter(), self._waited_s()
        self._faults(step_index)
        x, y = batch(self.cfg.seed, step_index, self.rank, self.cfg.batch_per_rank, self.width, self.compute)
        kept: dict[int, torch.Tensor] = {}
        caches = []
        for i in range(self.cfg.layers):
            unit = self._params(i, "forward", {})
            x, cache = layer_forward(unit, x, self.width, last=i == self.cfg.layers - 1)
            caches.append(cache)
            if self.run.keep_gather:
                kept[i] = unit
            else:
                self._release(unit)
        _, grad_out = loss_and_grad_out(x, y)
        for i in reversed(range(self.cfg.layers)):
            unit = self._params(i, "backward", kept)
            grad_out = self._backward_unit(i, unit, caches[i], grad_out)
            self._release(unit)
        self._update()
        elapsed = time.perf_counter() - start
        return {"step_s": elapsed, "wait_s": self._waited_s() - waited0}

    def _faults(self, step_index: int) -> None:
        slow, dropped = self.cfg.slow_rank, self.cfg.dropped_rank
        if slow is not None and slow.rank == self.rank and step_index >= self.cfg.steps // 2:
            time.sleep(slow.delay_s)
        if dropped is not None and dropped.rank == self.rank and dropped.step == step_index:
            if dropped.mode == "hang":
                time.sleep(10**6)
            os._exit(3)

    def _waited_s(self) -> float:
        return sum(t.wait_s for t in self.ring.tallies.values())

    def _backward_unit(self, i: int, unit: torch.Tensor, cache: object, grad_out: torch.Tensor) -> torch.Tensor:
        local = torch.zeros(self.n * self.s, dtype=self.compute)
        grad_in = layer_backward(unit, cache, grad_out, self.width, local)  # type: ignore[arg-type]
        buffer = local.to(self.grad_dtype)
        self.peak_gradient_buffer_bytes = max(
            self.peak_gradient_buffer_bytes, local.untyped_storage().nbytes() + buffer.untyped_storage().nbytes()
        )
        held = self.state[StateClass.gradients][i]
        if not self.sharding.shard_optimizer:
            self.ring.all_reduce(buffer, "gradients")
            held.copy_(buffer[: self.p_unit])
        elif not self.sharding.shard_gradients:
            self.ring.reduce_scatter(buffer, "gradients")
            held.copy_(buffer[: self.p_unit])  # ZeRO-1 keeps the full buffer; only its chunk is summed
        else:
            held.copy_(self.ring.reduce_scatter(buffer, "gradients"))
        return grad_in

    # ---- the optimizer -------------------------------------------------------------------
    def owned_gradient(self, i: int) -> torch.Tensor:
        """This rank's summed gradient, divided by N, in the optimizer-state dtype."""
        held = self.state[StateClass.gradients][i]
        if self.sharding.shard_optimizer and not self.sharding.shard_gradients:
            held = padded(held, self.n * self.s)[self.rank * self.s : (self.rank + 1) * self.s]
        return held.to(self.state_dtype) / self.n

    def _update(self) -> None:
        self.step_count += 1
        for i in range(self.cfg.layers):
            self._update_unit(i)

    def _update_unit(self, i: int) -> None:
        st, params = self.state, self.state[StateClass.parameters][i]
        master = st[StateClass.master_weights][i] if self.master_dtype is not None else None
        if master is None and self.sharding.shard_optimizer and not self.sharding.shard_parameters:
            target = self._own(params)
        else:
            target = master if master is not None else params
        adam_update(
            target,
            self.owned_gradient(i),
            st[StateClass.momentum][i],
            st[StateClass.variance][i],
            self.step_count,
            self.cfg.learning_rate,
        )
        new_params = target.to(self.param_dtype)
        if not self.sharding.shard_optimizer or self.sharding.shard_parameters:
            if new_params.data_ptr() != params.data_ptr():
                params.copy_(new_params)
            return
        buffer = torch.empty(self.n * self.s, dtype=self.param_dtype)
        buffer.view(self.n, -1)[self.rank].copy_(new_params)
        self.ring.all_gather(buffer, "parameters")
        params.copy_(buffer[: self.p_unit])
