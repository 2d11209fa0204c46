"""The small decoder-only transformer the torch engine trains (GPT-2 shaped: Radford et al. 2019).

Exactly the weights service/architecture.py counts for a gelu architecture: per block a
LayerNorm, q/k/v/o projections with biases, a LayerNorm and a two-layer gelu MLP with biases; a
token embedding, a final LayerNorm and an untied output layer without bias. No learned position
embedding (the planner does not count one): causal attention alone orders the tokens.
"""

import torch
import torch.nn.functional as F
from torch import nn

from service.sim.engines.torch_config import TinyArchitecture


class Block(nn.Module):
    def __init__(self, m: TinyArchitecture) -> None:
        super().__init__()
        h = m.hidden_size
        self.heads = m.attention_heads
        self.norm1 = nn.LayerNorm(h)
        self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
        self.norm2 = nn.LayerNorm(h)
        self.up = nn.Linear(h, m.ffn_hidden_size)
        self.down = nn.Linear(m.ffn_hidden_size, h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        y = self.norm1(x)
        q, k, v = (p(y).view(b, s, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(attended.transpose(1, 2).reshape(b, s, h))
        out: torch.Tensor = x + self.down(F.gelu(self.up(self.norm2(x))))
        return out


class TinyDecoder(nn.Module):
    def __init__(self, m: TinyArchitecture) -> None:
        super().__init__()
        self.embed = nn.Embedding(m.vocab_size, m.hidden_size)
        self.blocks = nn.ModuleList(Block(m) for _ in range(m.layers))
        self.norm = nn.LayerNorm(m.hidden_size)
        self.out = nn.Linear(m.hidden_size, m.vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        logits: torch.Tensor = self.out(self.norm(x))
        return logits


def build(m: TinyArchitecture, seed: int, device: torch.device) -> TinyDecoder:
    """The same initial weights on every rank and in the single-process reference."""
    torch.manual_seed(seed)
    return TinyDecoder(m).to(device)


def batch(m: TinyArchitecture, seed: int, step: int, rank: int, size: int, length: int) -> torch.Tensor:
    """Rank ``rank``'s tokens of step ``step``: (size, length + 1); inputs [:, :-1], targets [:, 1:]."""
    g = torch.Generator().manual_seed(seed * 1_000_003 + step * 1009 + rank)
    return torch.randint(0, m.vocab_size, (size, length + 1), generator=g)


def loss_of(model: nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    logits = model(tokens[:, :-1])
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
