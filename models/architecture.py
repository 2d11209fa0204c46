"""Contract of a model's architecture beyond the dense basics: mixture of experts and latent attention."""

from typing import Self

from pydantic import ConfigDict, Field, model_validator

from models.base import Strict


class MoeSpec(Strict):
    """Mixture of experts (Shazeer et al. 2017; Mixtral, Jiang et al. 2024; DeepSeek-V3 report, 2.1.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    experts: int = Field(ge=1, le=100_000, description="Routed experts per MoE layer.")
    top_k: int = Field(ge=1, le=100_000, description="Routed experts each token uses.")
    expert_ffn_hidden_size: int = Field(ge=1, le=10_000_000, description="Inner width of one expert's MLP.")
    shared_experts: int = Field(default=0, ge=0, le=1_000, description="Experts every token uses (DeepSeek, Llama 4).")
    shared_expert_ffn_hidden_size: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="Inner width of one shared expert's MLP; default expert_ffn_hidden_size (Megatron-LM's "
        "--moe-shared-expert-intermediate-size is this times shared_experts).",
    )
    dense_layers: int = Field(
        default=0,
        ge=0,
        le=10_000,
        description="Leading layers with the dense MLP (DeepSeek-V3: first_k_dense_replace).",
    )
    layer_interval: int = Field(
        default=1,
        ge=1,
        le=10_000,
        description="After the dense layers, every layer_interval-th layer is MoE, the others dense "
        "(Llama 4 Maverick: interleave_moe_layer_step 2).",
    )
    router_bias: bool = Field(
        default=False, description="A per-expert bias beside the router (DeepSeek-V3 e_score_correction_bias)."
    )
    latent_size: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="Width the routed experts work on (Megatron-LM's --moe-latent-size): tokens are projected "
        "from hidden_size down to it before dispatch and back after combine, by two projections held whole "
        "on every rank; the shared experts keep hidden_size. Omitted: the routed experts work on hidden_size.",
    )

    max_nodes_per_token: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="Node-limited routing (DeepSeek-V3 report, section 2.1.2: each token is sent to at most 4 "
        "nodes): a token's routed copies cross the network once per node they go to and are forwarded inside the "
        "node over NVLink (section 3.2.2). With an expert group that spans nodes the all-to-all then sends "
        "min(max_nodes_per_token, top_k) copies across nodes, not top_k. Omitted: no limit, every copy sent.",
    )

    @model_validator(mode="after")
    def _top_k_within_experts(self) -> Self:
        if self.top_k > self.experts:
            raise ValueError(f"moe.top_k {self.top_k} is larger than moe.experts {self.experts}")
        return self


class MlaSpec(Strict):
    """Multi-head latent attention (DeepSeek-V2 report, section 2.1; DeepSeek-V3 config.json names)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q_lora_rank: int = Field(default=0, ge=0, le=1_000_000, description="Query down-projection rank; 0 for none.")
    kv_lora_rank: int = Field(ge=1, le=1_000_000, description="Compressed key/value width.")
    qk_rope_head_dim: int = Field(ge=0, le=100_000, description="Rotary part of each query/key head.")
    qk_nope_head_dim: int = Field(ge=0, le=100_000, description="Non-rotary part of each query/key head.")
    v_head_dim: int = Field(ge=1, le=100_000, description="Width of each value head.")
