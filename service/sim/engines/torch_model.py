"""The small decoder-only transformer the torch engine trains (GPT-2 shaped: Radford et al. 2019).

Exactly the weights service/inputs/architecture.py counts for a gelu architecture: per block a
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
        self.head_dim = h // m.attention_heads
        self.norm1 = nn.LayerNorm(h)
        self.q, self.k, self.v, self.o = (nn.Linear(h, h) for _ in range(4))
        self.norm2 = nn.LayerNorm(h)
        self.up = nn.Linear(h, m.ffn_hidden_size)
        self.down = nn.Linear(m.ffn_hidden_size, h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        y = self.norm1(x)
        # heads from the projection's width: under tensor parallelism each rank has its heads / t
        q, k, v = (p(y).view(b, s, -1, self.head_dim).transpose(1, 2) for p in (self.q, self.k, self.v))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(attended.transpose(1, 2).reshape(b, s, -1))
        out: torch.Tensor = x + self.down(F.gelu(self.up(self.norm2(x))))
        return out


class TinyDecoder(nn.Module):
    """Blocks keyed by their index, so a pipeline stage that keeps some of them (and drops the
    embedding or the output layer, torchtitan's pattern) names its parameters as the whole model does."""

    def __init__(self, m: TinyArchitecture) -> None:
        super().__init__()
        self.embed: nn.Embedding | None = nn.Embedding(m.vocab_size, m.hidden_size)
        self.blocks = nn.ModuleDict({str(i): Block(m) for i in range(m.layers)})
        self.norm: nn.LayerNorm | None = nn.LayerNorm(m.hidden_size)
        self.out: nn.Linear | None = nn.Linear(m.hidden_size, m.vocab_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Tokens in and logits out; a pipeline stage without the embedding (output layer) takes
        (returns) hidden states."""
        if self.embed is not None:
            x = self.embed(x)
        for block in self.blocks.values():
            x = block(x)
        if self.norm is not None and self.out is not None:
            x = self.out(self.norm(x))
        return x


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
