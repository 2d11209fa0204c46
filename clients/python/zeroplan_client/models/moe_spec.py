from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MoeSpec")


@_attrs_define
class MoeSpec:
    """Mixture of experts (Shazeer et al. 2017; Mixtral, Jiang et al. 2024; DeepSeek-V3 report, 2.1.2).

    Attributes:
        expert_ffn_hidden_size (int): Inner width of one expert's MLP.
        experts (int): Routed experts per MoE layer.
        top_k (int): Routed experts each token uses.
        dense_layers (int | Unset): Leading layers with the dense MLP (DeepSeek-V3: first_k_dense_replace). Default: 0.
        latent_size (int | None | Unset): Width the routed experts work on (Megatron-LM's --moe-latent-size): tokens are
            projected from hidden_size down to it before dispatch and back after combine, by two projections held whole on
            every rank; the shared experts keep hidden_size. Omitted: the routed experts work on hidden_size.
        layer_interval (int | Unset): After the dense layers, every layer_interval-th layer is MoE, the others dense
            (Llama 4 Maverick: interleave_moe_layer_step 2). Default: 1.
        max_nodes_per_token (int | None | Unset): Node-limited routing (DeepSeek-V3 report, section 2.1.2: each token is
            sent to at most 4 nodes): a token's routed copies cross the network once per node they go to and are forwarded
            inside the node over NVLink (section 3.2.2). With an expert group that spans nodes the all-to-all then sends
            min(max_nodes_per_token, top_k) copies across nodes, not top_k. Omitted: no limit, every copy sent.
        router_bias (bool | Unset): A per-expert bias beside the router (DeepSeek-V3 e_score_correction_bias). Default:
            False.
        shared_expert_ffn_hidden_size (int | None | Unset): Inner width of one shared expert's MLP; default
            expert_ffn_hidden_size (Megatron-LM's --moe-shared-expert-intermediate-size is this times shared_experts).
        shared_experts (int | Unset): Experts every token uses (DeepSeek, Llama 4). Default: 0.
    """

    expert_ffn_hidden_size: int
    experts: int
    top_k: int
    dense_layers: int | Unset = 0
    latent_size: int | None | Unset = UNSET
    layer_interval: int | Unset = 1
    max_nodes_per_token: int | None | Unset = UNSET
    router_bias: bool | Unset = False
    shared_expert_ffn_hidden_size: int | None | Unset = UNSET
    shared_experts: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        expert_ffn_hidden_size = self.expert_ffn_hidden_size

        experts = self.experts

        top_k = self.top_k

        dense_layers = self.dense_layers

        latent_size: int | None | Unset
        if isinstance(self.latent_size, Unset):
            latent_size = UNSET
        else:
            latent_size = self.latent_size

        layer_interval = self.layer_interval

        max_nodes_per_token: int | None | Unset
        if isinstance(self.max_nodes_per_token, Unset):
            max_nodes_per_token = UNSET
        else:
            max_nodes_per_token = self.max_nodes_per_token

        router_bias = self.router_bias

        shared_expert_ffn_hidden_size: int | None | Unset
        if isinstance(self.shared_expert_ffn_hidden_size, Unset):
            shared_expert_ffn_hidden_size = UNSET
        else:
            shared_expert_ffn_hidden_size = self.shared_expert_ffn_hidden_size

        shared_experts = self.shared_experts

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "expert_ffn_hidden_size": expert_ffn_hidden_size,
                "experts": experts,
                "top_k": top_k,
            }
        )
        if dense_layers is not UNSET:
            field_dict["dense_layers"] = dense_layers
        if latent_size is not UNSET:
            field_dict["latent_size"] = latent_size
        if layer_interval is not UNSET:
            field_dict["layer_interval"] = layer_interval
        if max_nodes_per_token is not UNSET:
            field_dict["max_nodes_per_token"] = max_nodes_per_token
        if router_bias is not UNSET:
            field_dict["router_bias"] = router_bias
        if shared_expert_ffn_hidden_size is not UNSET:
            field_dict["shared_expert_ffn_hidden_size"] = shared_expert_ffn_hidden_size
        if shared_experts is not UNSET:
            field_dict["shared_experts"] = shared_experts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expert_ffn_hidden_size = d.pop("expert_ffn_hidden_size")

        experts = d.pop("experts")

        top_k = d.pop("top_k")

        dense_layers = d.pop("dense_layers", UNSET)

        def _parse_latent_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        latent_size = _parse_latent_size(d.pop("latent_size", UNSET))

        layer_interval = d.pop("layer_interval", UNSET)

        def _parse_max_nodes_per_token(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_nodes_per_token = _parse_max_nodes_per_token(d.pop("max_nodes_per_token", UNSET))

        router_bias = d.pop("router_bias", UNSET)

        def _parse_shared_expert_ffn_hidden_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        shared_expert_ffn_hidden_size = _parse_shared_expert_ffn_hidden_size(
            d.pop("shared_expert_ffn_hidden_size", UNSET)
        )

        shared_experts = d.pop("shared_experts", UNSET)

        moe_spec = cls(
            expert_ffn_hidden_size=expert_ffn_hidden_size,
            experts=experts,
            top_k=top_k,
            dense_layers=dense_layers,
            latent_size=latent_size,
            layer_interval=layer_interval,
            max_nodes_per_token=max_nodes_per_token,
            router_bias=router_bias,
            shared_expert_ffn_hidden_size=shared_expert_ffn_hidden_size,
            shared_experts=shared_experts,
        )

        return moe_spec
