"""Parameter counts of a decoder-only transformer from its architecture: total and active.

Per layer, with head dimension d (h / a unless given) and key/value width kv_heads x d:
- attention: W_q is h x (a d), W_o (a d) x h, W_k and W_v h x (kv d) each (grouped-query
  attention, Ainslie et al. 2023, when kv_heads < a); biases on all four with a gelu MLP (GPT-2,
  Radford et al. 2019), on q, k and v only with ``qkv_bias`` (Qwen2, Hugging Face
  ``modeling_qwen2.py``); ``qk_norm`` adds one d-vector each for q and k (Qwen3
  ``modeling_qwen3.py``, Gemma 3 ``modeling_gemma3.py``).
- multi-head latent attention (DeepSeek-V2/V3, Hugging Face ``modeling_deepseek_v3.py``): q goes
  through a rank-r_q down-projection with its RMSNorm (or straight h x a(d_nope + d_rope) when
  r_q is 0), k and v through one h x (r_kv + d_rope) down-projection, an r_kv RMSNorm and an
  r_kv x a(d_nope + d_v) up-projection; W_o is (a d_v) x h.
- MLP of width f: gated (swiglu, Llama, Touvron et al. 2023; geglu, Gemma) three h x f matrices,
  gelu two. Biases (``linear_bias``, Megatron-LM's ``--add-bias-linear``; by default with gelu
  alone, as GPT-2 has them and Llama not): on q, k, v and the output projection, and on each MLP
  matrix (the gated first layer's 2f, Megatron-LM's fused ``linear_fc1``).
- mixture of experts (Shazeer et al. 2017; Mixtral, Jiang et al. 2024; DeepSeek-V3 report,
  section 2.1.2): a router of experts x h (plus a per-expert bias in DeepSeek-V3), ``experts``
  routed MLPs of width f_e and ``shared_experts`` always-on MLPs of width f_s (f_e unless given;
  Megatron-LM's ``moe_shared_expert_intermediate_size``). With a latent width l (``latent_size``,
  Megatron-LM's ``--moe-latent-size``, megatron/core/transformer/moe/moe_layer.py) the routed
  experts work on l instead of h (their matrices l x f_e, their output bias l), and each MoE layer
  adds the two projections h -> l before dispatch and l -> h after combine, 2hl (plus biases l and
  h with ``linear_bias``), counted once per layer, in the total and the active count alike
  (megatron/training/theoretical_memory_usage.py); the shared experts keep h. The first ``dense_layers``
  layers and, after them, all but every ``layer_interval``-th layer keep the dense MLP of width f
  (Llama 4 Maverick interleaves: ``interleave_moe_layer_step`` 2).
- norms (``normalization``; by default LayerNorm with gelu, RMSNorm otherwise): RMSNorm one
  h-vector (Llama), LayerNorm two (GPT); two per layer, four with the sandwich
  norms of Gemma 2 and 3 (``modeling_gemma2.py``), and one final norm.
Embeddings: V x h, a separate V x h output layer unless tied, and learned absolute positions
(GPT-2/3) of ``position_embeddings`` x h when given.
Active parameters are those one token passes through: the total less the routed experts it does
not use, (experts - top_k) MLPs per MoE layer. FLOPs use them; memory uses the total.
"""

from dataclasses import dataclass

from models.enums import MlpKind, Normalization


@dataclass(frozen=True)
class Moe:
    experts: int
    top_k: int
    expert_ffn_hidden_size: int
    shared_experts: int = 0
    dense_layers: int = 0
    layer_interval: int = 1
    router_bias: bool = False
    shared_expert_ffn_hidden_size: int | None = None  # None: expert_ffn_hidden_size
    latent_size: int | None = None  # None: the routed experts work on hidden_size
    max_nodes_per_token: int | None = None  # node-limited routing (DeepSeek-V3's 4); None: no limit


@dataclass(frozen=True)
class Mla:
    q_lora_rank: int  # 0: queries projected directly, without the low-rank step
    kv_lora_rank: int
    qk_rope_head_dim: int
    qk_nope_head_dim: int
    v_head_dim: int


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
    head_dim: int | None = None
    qkv_bias: bool = False
    qk_norm: bool = False
    sandwich_norm: bool = False
    position_embeddings: int = 0
    moe: Moe | None = None
    mla: Mla | None = None
    linear_bias: bool | None = None  # None: with a gelu MLP only
    normalization: Normalization | None = None  # None: LayerNorm with a gelu MLP, RMSNorm otherwise


def head_dim(arch: Architecture) -> int:
    return arch.head_dim if arch.head_dim is not None else arch.hidden_size // arch.attention_heads


def attention_width(arch: Architecture) -> int:
    """The width the attention core works in, per token: a x d (h for Llama and GPT, whose heads
    split h; Gemma and Qwen3 set head_dim apart from it). With MLA scores take d_nope + d_rope per
    head and the weighted sum d_v, so the mean of the two: a x (d_qk + d_v) / 2 (torchtitan counts
    the attention FLOPs as 12 x layers x heads x head_dim x s, models/utils.py)."""
    if arch.mla is not None:
        mla = arch.mla
        return arch.attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim) // 2
    return arch.attention_heads * head_dim(arch)


def has_linear_bias(arch: Architecture) -> bool:
    """Biases on the attention and MLP matrices: as given, else with a gelu MLP (GPT-2) and not with a gated one."""
    return arch.linear_bias if arch.linear_bias is not None else arch.mlp == MlpKind.gelu


def norm_width(arch: Architecture) -> int:
    """Parameters per channel of a norm: RMSNorm has a scale; LayerNorm (by default with gelu, GPT-style) a
    scale and a bias."""
    kind = arch.normalization
    if kind is None:
        kind = Normalization.layernorm if arch.mlp == MlpKind.gelu else Normalization.rmsnorm
    return 2 if kind == Normalization.layernorm else 1


def shared_expert_width(moe: Moe) -> int:
    """f_s: one shared expert's inner width."""
    return moe.shared_expert_ffn_hidden_size or moe.expert_ffn_hidden_size


def routed_expert_width(arch: Architecture) -> int:
    """The width a routed expert's tokens have: the latent width l when given, else h."""
    moe = arch.moe
    return moe.latent_size if moe is not None and moe.latent_size is not None else arch.hidden_size


def _norm(arch: Architecture, width: int) -> int:
    return norm_width(arch) * width


def attention_parameters(arch: Architecture) -> int:
    h, a = arch.hidden_size, arch.attention_heads
    if arch.mla is not None:
        return _mla_parameters(h, a, arch.mla)
    d = head_dim(arch)
    q_width, kv_width = a * d, arch.kv_heads * d
    weights = 2 * h * q_width + 2 * h * kv_width
    if has_linear_bias(arch):
        biases = q_width + 2 * kv_width + h
    else:
        biases = q_width + 2 * kv_width if arch.qkv_bias else 0
    qk_norms = 2 * d if arch.qk_norm else 0
    return weights + biases + qk_norms


def _mla_parameters(h: int, a: int, mla: Mla) -> int:
    """DeepSeek-V3 ``DeepseekV3Attention``: q_a/q_b (or q), kv_a_proj_with_mqa, kv_b, o, two RMSNorms."""
    qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    if mla.q_lora_rank:
        q = h * mla.q_lora_rank + mla.q_lora_rank + mla.q_lora_rank * a * qk_head
    else:
        q = h * a * qk_head
    kv_down = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank
    kv_up = mla.kv_lora_rank * a * (mla.qk_nope_head_dim + mla.v_head_dim)
    return q + kv_down + kv_up + a * mla.v_head_dim * h


def mlp_parameters(arch: Architecture, width: int, model_width: int | None = None) -> int:
    """An MLP of inner width f on tokens of model_width (h unless given: a latent expert's l)."""
    h = arch.hidden_size if model_width is None else model_width
    gated = arch.mlp != MlpKind.gelu
    weights = (3 if gated else 2) * h * width
    return weights + (((2 if gated else 1) * width + h) if has_linear_bias(arch) else 0)


def routed_expert_parameters(arch: Architecture) -> int:
    """One routed expert's MLP, of width f_e on tokens of the routed width (l or h)."""
    moe = arch.moe
    assert moe is not None
    return mlp_parameters(arch, moe.expert_ffn_hidden_size, routed_expert_width(arch))


def latent_projection_parameters(arch: Architecture) -> int:
    """The h -> l and l -> h projections around the routed experts of one MoE layer (0 without a latent
    width): 2hl, and the biases l and h with linear biases (Megatron-LM's fc1_latent_proj and
    fc2_latent_proj take ``bias=add_bias_linear``)."""
    moe = arch.moe
    if moe is None or moe.latent_size is None:
        return 0
    h, latent = arch.hidden_size, moe.latent_size
    return 2 * h * latent + ((latent + h) if has_linear_bias(arch) else 0)


def router_parameters(arch: Architecture) -> int:
    """experts x h, plus a per-expert bias (DeepSeek-V3's e_score_correction_bias)."""
    moe = arch.moe
    assert moe is not None
    return moe.experts * arch.hidden_size + (moe.experts if moe.router_bias else 0)


def moe_layer_count(arch: Architecture) -> int:
    if arch.moe is None:
        return 0
    return max(0, arch.layers - arch.moe.dense_layers) // arch.moe.layer_interval


def _layer_norms(arch: Architecture) -> int:
    return (4 if arch.sandwich_norm else 2) * _norm(arch, arch.hidden_size)


def layer_parameters(arch: Architecture) -> int:
    """One layer with the dense MLP of width ffn_hidden_size."""
    return attention_parameters(arch) + mlp_parameters(arch, arch.ffn_hidden_size) + _layer_norms(arch)


def moe_layer_parameters(arch: Architecture) -> int:
    """One mixture-of-experts layer: attention, router, latent projections, routed and shared experts, norms."""
    moe = arch.moe
    assert moe is not None
    experts = moe.experts * routed_expert_parameters(arch)
    experts += moe.shared_experts * mlp_parameters(arch, shared_expert_width(moe))
    around = router_parameters(arch) + latent_projection_parameters(arch)
    return attention_parameters(arch) + around + experts + _layer_norms(arch)


def embedding_parameters(arch: Architecture) -> int:
    """Token embedding, the output layer unless tied, and learned positions."""
    h, v = arch.hidden_size, arch.vocab_size
    return v * h * (1 if arch.tied_embeddings else 2) + arch.position_embeddings * h


def input_lookup_parameters(arch: Architecture) -> int:
    """Embedding tables only looked up, never multiplied: the token table unless it is tied to the
    output layer (then it is that layer's matmul too), and learned positions."""
    h = arch.hidden_size
    return (0 if arch.tied_embeddings else arch.vocab_size * h) + arch.position_embeddings * h


def non_embedding_parameter_count(arch: Architecture) -> int:
    moe_layers = moe_layer_count(arch)
    dense = (arch.layers - moe_layers) * layer_parameters(arch)
    sparse = moe_layers * moe_layer_parameters(arch) if moe_layers else 0
    return dense + sparse + _norm(arch, arch.hidden_size)


def parameter_count(arch: Architecture) -> int:
    return non_embedding_parameter_count(arch) + embedding_parameters(arch)


def inactive_parameters(arch: Architecture) -> int:
    """Routed experts a token skips: (experts - top_k) MLPs in every MoE layer."""
    if arch.moe is None:
        return 0
    unused = arch.moe.experts - arch.moe.top_k
    return moe_layer_count(arch) * unused * routed_expert_parameters(arch)


def active_parameter_count(arch: Architecture) -> int:
    """Parameters one token passes through (all of them in a dense model)."""
    return parameter_count(arch) - inactive_parameters(arch)


def active_non_embedding_parameter_count(arch: Architecture) -> int:
    """What 6N-style FLOP counts take as N (Kaplan et al. 2020, section 2.1) for a sparse model."""
    return non_embedding_parameter_count(arch) - inactive_parameters(arch)


def largest_layer_parameters(arch: Architecture) -> int:
    """Parameters of the largest single module, as DeepSpeed's estimate_zero3_model_states_mem_needs_all_live
    finds it (each module's own parameters, ``recurse=False``) on a Hugging Face decoder: the embedding or
    output matrix (V x h), one MLP projection (h x f, plus its bias for gelu), one expert's projection (l x f_e
    on a latent width), a latent projection (h x l), the router (experts x h) or the query projection (h x a d,
    plus its bias)."""
    h, v = arch.hidden_size, arch.vocab_size
    bias = has_linear_bias(arch)
    widths = [(h, arch.ffn_hidden_size)]
    if arch.moe is not None:
        widths.append((routed_expert_width(arch), arch.moe.expert_ffn_hidden_size))
        if arch.moe.shared_experts:
            widths.append((h, shared_expert_width(arch.moe)))
        if arch.moe.latent_size is not None:
            widths.append((h, arch.moe.latent_size))
    candidates = [v * h] + [k * f + (f if bias else 0) for k, f in widths]
    q_width = arch.attention_heads * head_dim(arch)
    candidates.append(h * q_width + (q_width if bias or arch.qkv_bias else 0))
    if arch.moe is not None:
        candidates.append(arch.moe.experts * h)
    return max(candidates)
