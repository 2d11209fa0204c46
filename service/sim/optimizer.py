"""Adam (Kingma and Ba 2015, algorithm 1) written elementwise, so that a shard of the flat vector
updated on its own gives bitwise the values the whole vector would: every operation is
elementwise and the same on every rank and in the single-process reference."""

import torch

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


def adam_update(
    target: torch.Tensor, grad: torch.Tensor, m: torch.Tensor, v: torch.Tensor, step: int, lr: float
) -> None:
    """One Adam step on ``target`` in place; ``step`` counts from 1."""
    m.mul_(BETA1).add_(grad, alpha=1 - BETA1)
    v.mul_(BETA2).addcmul_(grad, grad, value=1 - BETA2)
    m_hat = m / (1 - BETA1**step)
    v_hat = v / (1 - BETA2**step)
    target.sub_(lr * (m_hat / (v_hat.sqrt() + EPS)))
