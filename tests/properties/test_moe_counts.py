"""Properties of the parameter counts of a mixture of experts."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from models.enums import MlpKind
from service.inputs import resolve
from service.inputs.architecture import (
    Architecture,
    Moe,
    active_parameter_count,
    has_linear_bias,
    latent_projection_parameters,
    mlp_parameters,
    moe_layer_count,
    parameter_count,
    routed_expert_parameters,
    routed_expert_width,
)
from service.memory.activations import transformer_shape
from service.mesh.stages import is_moe_layer, layer_split


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


def _latent(arch: Architecture, latent: int) -> Architecture:
    return replace(arch, moe=replace(arch.moe, latent_size=latent))


def _mlp(arch: Architecture, width: int, model_width: int) -> int:
    """An MLP of inner width f on tokens of width w, written out: 3wf gated or 2wf, and with biases the first
    layer's f (2f gated) and the second's w."""
    gated = arch.mlp != MlpKind.gelu
    weights = (3 if gated else 2) * model_width * width
    return weights + (((2 if gated else 1) * width + model_width) if has_linear_bias(arch) else 0)


@settings(max_examples=200, deadline=None)
@given(moe_models())
def test_without_a_latent_width_the_experts_work_on_h(arch):
    """latent_size omitted: every count is the hidden-width one (the routed experts of 3hf or 2hf, no
    projections), the activation, kernel and traffic shapes take h."""
    moe, h = arch.moe, arch.hidden_size
    assert moe.latent_size is None
    assert routed_expert_width(arch) == h
    assert latent_projection_parameters(arch) == 0
    one = _mlp(arch, moe.expert_ffn_hidden_size, h)
    assert routed_expert_parameters(arch) == one
    skipped = moe_layer_count(arch) * (moe.experts - moe.top_k) * one
    assert active_parameter_count(arch) == parameter_count(arch) - skipped
    shape = transformer_shape(arch)
    assert (shape.expert_outer_width, shape.latent_size) == ((moe.top_k + moe.shared_experts) * h, 0)
    kernels = resolve.kernel_shape(arch)
    assert (kernels.latent_size, kernels.latent_ffn_hidden_size) == (0, 0)
    assert kernels.ffn_hidden_size == moe.top_k * moe.expert_ffn_hidden_size + moe.shared_experts * (
        moe.shared_expert_ffn_hidden_size or moe.expert_ffn_hidden_size
    )


@settings(max_examples=200, deadline=None)
@given(moe_models(), st.integers(1, 8192))
def test_a_latent_width_moves_the_routed_experts_and_adds_the_projections(arch, latent):
    """theoretical_memory_usage.py: routed experts of 2 l f_e (x 3/2 gated) each, plus 2hl per MoE layer in
    the total and the active count alike; in a layer's split the projections are whole on every tensor rank."""
    wide, narrow, h = arch, _latent(arch, latent), arch.hidden_size
    moe = arch.moe
    projections = 2 * h * latent + ((latent + h) if has_linear_bias(arch) else 0)
    per_expert = _mlp(arch, moe.expert_ffn_hidden_size, latent) - _mlp(arch, moe.expert_ffn_hidden_size, h)
    layers = moe_layer_count(arch)
    assert parameter_count(narrow) - parameter_count(wide) == layers * (moe.experts * per_expert + projections)
    active = active_parameter_count(narrow) - active_parameter_count(wide)
    assert active == layers * (moe.top_k * per_expert + projections)
    for index in range(arch.layers):
        if not is_moe_layer(arch, index):
            assert layer_split(narrow, index) == layer_split(wide, index)
            continue
        before, after = layer_split(wide, index), layer_split(narrow, index)
        assert after.tensor == before.tensor
        assert after.replicated - before.replicated == projections
        assert after.experts - before.experts == moe.experts * per_expert
        assert after.expert_count == before.expert_count == moe.experts
