"""Parameter count of a decoder-only transformer from its architecture.

Per layer, with head dimension d = h / a and key/value width h_kv = kv_heads x d:
- attention: W_q and W_o are h x h, W_k and W_v are h x h_kv (grouped-query attention,
  Ainslie et al. 2023, when kv_heads < a);
- MLP: swiglu (Llama, Touvron et al. 2023) has three h x f matrices and no biases; gelu (GPT-2/3,
  Radford et al. 2019) has two, plus biases on every linear layer;
- norms: RMSNorm has one h-vector (Llama), LayerNorm two (GPT), two norms a layer and one final.
Embeddings: V x h, and a separate V x h output layer unless tied. Learned position embeddings
(GPT) are not counted: they depend on a maximum length the contract does not carry.
Reproduces the published counts of every Llama preset exactly (tests/golden).
"""

from dataclasses import dataclass

from models.enums import MlpKind


@dataclass(frozen=True)
class Architecture:
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    ffn_hidden_size: int
    vocab_size: int
    mlp: MlpKind
    tied_embeddings: bool


def layer_parameters(arch: Architecture) -> int:
    h, f = arch.hidden_size, arch.ffn_hidden_size
    kv_width = arch.kv_heads * (h // arch.attention_heads)
    attention = 2 * h * h + 2 * h * kv_width
    if arch.mlp == MlpKind.swiglu:
        return attention + 3 * h * f + 2 * h
    biases = (2 * h + 2 * kv_width) + (f + h)
    return attention + 2 * h * f + biases + 2 * (2 * h)


def parameter_count(arch: Architecture) -> int:
    h, v = arch.hidden_size, arch.vocab_size
    embeddings = v * h * (1 if arch.tied_embeddings else 2)
    final_norm = h if arch.mlp == MlpKind.swiglu else 2 * h
    return arch.layers * layer_parameters(arch) + embeddings + final_norm
