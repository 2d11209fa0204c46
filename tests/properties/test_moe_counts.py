"""Properties of the parameter counts of a mixture of experts."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from models.enums import MlpKind
from service.architecture import (
    Architecture,
    Moe,
    active_parameter_count,
    mlp_parameters,
    moe_layer_count,
    parameter_count,
)


@st.composite
def moe_models(draw: st.DrawFn) -> Architecture:
    heads = draw(st.integers(1, 16))
    experts = draw(st.integers(1, 64))
    layers = draw(st.integers(1, 48))
    return Architecture(
        layers=layers,
        hidden_size=heads * draw(st.integers(1, 64)),
        attention_heads=heads,
        kv_heads=heads,
        ffn_hidden_size=draw(st.integers(1, 4096)),
        vocab_size=draw(st.integers(1, 50_000)),
        mlp=draw(st.sampled_from(list(MlpKind))),
        tied_embeddings=draw(st.booleans()),
        moe=Moe(
            experts=experts,
            top_k=draw(st.integers(1, experts)),
            expert_ffn_hidden_size=draw(st.integers(1, 4096)),
            shared_experts=draw(st.integers(0, 2)),
            dense_layers=draw(st.integers(0, layers)),
            layer_interval=draw(st.integers(1, 4)),
        ),
    )


@settings(max_examples=200, deadline=None)
@given(moe_models())
def test_active_is_total_less_the_skipped_experts(arch):
    moe = arch.moe
    skipped = moe_layer_count(arch) * (moe.experts - moe.top_k) * mlp_parameters(arch, moe.expert_ffn_hidden_size)
    assert active_parameter_count(arch) == parameter_count(arch) - skipped
    assert 0 < active_parameter_count(arch) <= parameter_count(arch)


@settings(max_examples=200, deadline=None)
@given(moe_models())
def test_more_experts_add_memory_and_only_a_router_row_of_compute(arch):
    more = replace(arch, moe=replace(arch.moe, experts=arch.moe.experts + 1))
    assert parameter_count(more) >= parameter_count(arch)
    # Every token still runs top_k experts; the router scores one more expert (an h-row per MoE layer).
    assert active_parameter_count(more) - active_parameter_count(arch) == moe_layer_count(arch) * arch.hidden_size
