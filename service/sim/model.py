"""The simulated model: an MLP whose parameters are flat per-layer vectors, with a hand-written
backward so that each layer's parameters are needed (and, under ZeRO-3, gathered) exactly at
that layer's forward and again at its backward.

Layer i maps x (B x h) to z = x W^T + b and, except the last, a = tanh(z). Unit i's flat vector
is W (h * h, row-major) followed by b (h). Loss on a batch: 0.5 * mean over rows of
sum((out - y)^2). The global loss is the mean over ranks of the local losses (equal local batch
sizes), so the global gradient is the sum of the local gradients divided by N.
"""

from dataclasses import dataclass

import torch

TORCH_DTYPES = {"fp64": torch.float64, "fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def torch_dtype(dtype: object) -> torch.dtype:
    return TORCH_DTYPES[str(dtype)]


@dataclass
class Cache:
    x: torch.Tensor
    a: torch.Tensor | None


def split(unit: torch.Tensor, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    h = width
    return unit[: h * h].view(h, h), unit[h * h : h * h + h]


def layer_forward(unit: torch.Tensor, x: torch.Tensor, width: int, last: bool) -> tuple[torch.Tensor, Cache]:
    weight, bias = split(unit.to(x.dtype), width)
    z = torch.addmm(bias, x, weight.t())
    if last:
        return z, Cache(x, None)
    a = torch.tanh(z)
    return a, Cache(x, a)


def layer_backward(
    unit: torch.Tensor, cache: Cache, grad_out: torch.Tensor, width: int, grad: torch.Tensor
) -> torch.Tensor:
    """Write this layer's parameter gradient into ``grad`` (flat, >= h*(h+1)); return dL/dx."""
    weight, _ = split(unit.to(grad_out.dtype), width)
    dz = grad_out if cache.a is None else grad_out * (1 - cache.a * cache.a)
    g_weight, g_bias = split(grad, width)
    g_weight.copy_(dz.t() @ cache.x)
    g_bias.copy_(dz.sum(0))
    return dz @ weight


def loss_and_grad_out(out: torch.Tensor, target: torch.Tensor) -> tuple[float, torch.Tensor]:
    diff = out - target
    rows = out.shape[0]
    return float(0.5 * (diff * diff).sum() / rows), diff / rows


def batch(
    seed: int, step: int, rank: int, rows: int, width: int, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank ``rank``'s micro-batch of step ``step``: the same on every process that asks."""
    gen = torch.Generator().manual_seed(1_000_003 * seed + 10_007 * step + rank + 1)
    x = torch.randn(rows, width, generator=gen, dtype=torch.float64)
    y = torch.tanh(x.roll(1, dims=1))
    return x.to(dtype), y.to(dtype)


def initial_units(seed: int, layers: int, width: int) -> list[torch.Tensor]:
    """fp64 initial parameters of each unit (Xavier-like scale, small biases)."""
    gen = torch.Generator().manual_seed(seed)
    scale = width**-0.5
    units = []
    for _ in range(layers):
        weight = torch.randn(width * width, generator=gen, dtype=torch.float64) * scale
        bias = torch.randn(width, generator=gen, dtype=torch.float64) * 0.1
        units.append(torch.cat([weight, bias]))
    return units


def forward_loss(units: list[torch.Tensor], x: torch.Tensor, y: torch.Tensor, width: int) -> float:
    for i, unit in enumerate(units):
        x, _ = layer_forward(unit, x, width, last=i == len(units) - 1)
    return loss_and_grad_out(x, y)[0]


def compute_dtype(parameter_dtype: torch.dtype) -> torch.dtype:
    """Forward and backward run in fp32 for 16-bit parameters, else in the parameter dtype."""
    return torch.float32 if parameter_dtype in (torch.bfloat16, torch.float16) else parameter_dtype
