"""The single-process references every arrangement is held to (no process group).

1. Ring-order reference: one process trains on the same global batch, split into the N ranks'
   micro-batches; the N micro-batch gradients are summed chunk by chunk in the order the ring's
   reduce-scatter adds them (``ring_order``), then the same elementwise Adam runs on the whole
   vector. Any correct arrangement must match it bitwise, in every precision.
2. One-pass reference: one forward and backward over the whole global batch at once (what a
   single GPU would do); reduction order differs, so it is compared within a stated tolerance.
3. Gradient check: the global loss's central finite differences in fp64 against the gradient
   the arrangement computed at step 0.
"""

import torch

from service.memory.model_states import shard_elements
from service.sim.config import SimConfig
from service.sim.model import (
    batch,
    compute_dtype,
    forward_loss,
    initial_units,
    layer_backward,
    layer_forward,
    loss_and_grad_out,
    torch_dtype,
)
from service.sim.optimizer import adam_update
from service.sim.ring import ring_order

FD_STEP = 1e-6


class Reference:
    def __init__(self, cfg: SimConfig) -> None:
        spec = cfg.precision_spec
        self.cfg = cfg
        self.n, self.p_unit, self.width = cfg.world_size, cfg.unit_elements, cfg.width
        self.s = int(shard_elements(self.p_unit, self.n))
        self.param_dtype, self.grad_dtype = torch_dtype(spec.parameter_dtype), torch_dtype(spec.gradient_dtype)
        self.master_dtype = torch_dtype(spec.master_dtype) if spec.master_dtype else None
        self.state_dtype = torch_dtype(spec.optimizer_state_dtype)
        self.compute = compute_dtype(self.param_dtype)
        length = self.n * self.s
        units = [
            torch.cat([u, torch.zeros(length - self.p_unit, dtype=u.dtype)])
            for u in initial_units(cfg.seed, cfg.layers, self.width)
        ]
        self.master = [u.to(self.master_dtype) for u in units] if self.master_dtype else None
        self.params = [
            (m if self.master else u).to(self.param_dtype) for m, u in zip(self.master or units, units, strict=True)
        ]
        self.m = [torch.zeros(length, dtype=self.state_dtype) for _ in units]
        self.v = [torch.zeros(length, dtype=self.state_dtype) for _ in units]
        self.step_count = 0

    def local_gradients(
        self, step_index: int, rank: int, rows_ranks: tuple[int, ...] | None = None
    ) -> list[torch.Tensor]:
        ranks = rows_ranks if rows_ranks is not None else (rank,)
        pairs = [batch(self.cfg.seed, step_index, r, self.cfg.batch_per_rank, self.width, self.compute) for r in ranks]
        x, y = torch.cat([p[0] for p in pairs]), torch.cat([p[1] for p in pairs])
        caches = []
        for i, unit in enumerate(self.params):
            x, cache = layer_forward(unit[: self.p_unit], x, self.width, last=i == len(self.params) - 1)
            caches.append(cache)
        _, grad_out = loss_and_grad_out(x, y)
        grads = [torch.zeros(self.n * self.s, dtype=self.compute) for _ in self.params]
        for i in reversed(range(len(self.params))):
            grad_out = layer_backward(self.params[i][: self.p_unit], caches[i], grad_out, self.width, grads[i])
        return [g.to(self.grad_dtype) for g in grads]

    def ring_summed_gradients(self, step_index: int) -> list[torch.Tensor]:
        per_rank = [self.local_gradients(step_index, r) for r in range(self.n)]
        summed = []
        for i in range(len(self.params)):
            chunks = [g[i].view(self.n, -1) for g in per_rank]
            out = torch.empty(self.n * self.s, dtype=self.grad_dtype).view(self.n, -1)
            for c in range(self.n):
                order = ring_order(c, self.n)
                acc = chunks[order[0]][c].clone()
                for r in order[1:]:
                    acc = acc + chunks[r][c]
                out[c] = acc
            summed.append(out.view(-1))
        return summed

    def one_pass_gradients(self, step_index: int) -> list[torch.Tensor]:
        """Gradient of the global loss from one pass over all N micro-batches, times N (a sum)."""
        return [
            (g.to(self.state_dtype) * self.n).to(self.grad_dtype)
            for g in self.local_gradients(step_index, 0, tuple(range(self.n)))
        ]

    def step(self, step_index: int, one_pass: bool = False) -> None:
        grads = self.one_pass_gradients(step_index) if one_pass else self.ring_summed_gradients(step_index)
        self.step_count += 1
        for i, g in enumerate(grads):
            target = self.master[i] if self.master else self.params[i]
            adam_update(
                target, g.to(self.state_dtype) / self.n, self.m[i], self.v[i], self.step_count, self.cfg.learning_rate
            )
            if self.master:
                self.params[i] = target.to(self.param_dtype)

    def train(self, steps: int, one_pass: bool = False) -> list[torch.Tensor]:
        for t in range(steps):
            self.step(t, one_pass)
        return [p[: self.p_unit] for p in self.params]


def check_points(cfg: SimConfig) -> list[tuple[int, int]]:
    """(unit, index) coordinates the gradient check probes: spread over units, weights and biases."""
    h, p_unit = cfg.width, cfg.unit_elements
    points = []
    for j in range(cfg.gradient_check_points):
        unit = j % cfg.layers
        index = (h * h + (j * 7) % h) if j % 3 == 2 else (j * 104_729 + 17) % (h * h)
        points.append((unit, index % p_unit))
    return points


def finite_differences(cfg: SimConfig, points: list[tuple[int, int]]) -> list[float]:
    """Central differences of the global loss in fp64 at the initial parameters (as stored)."""
    ref = Reference(cfg)
    units = [p[: ref.p_unit].to(torch.float64) for p in ref.params]
    data = [batch(cfg.seed, 0, r, cfg.batch_per_rank, ref.width, torch.float64) for r in range(cfg.world_size)]

    def global_loss() -> float:
        return sum(forward_loss(units, x, y, ref.width) for x, y in data) / cfg.world_size

    out = []
    for unit, index in points:
        original = float(units[unit][index])
        units[unit][index] = original + FD_STEP
        plus = global_loss()
        units[unit][index] = original - FD_STEP
        minus = global_loss()
        units[unit][index] = original
        out.append((plus - minus) / (2 * FD_STEP))
    return out
