"""Properties of the layout evaluation: with every degree 1 it is the data-parallel evaluation."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.common import Cluster, ModelSpec
from models.enums import ArrangementName, Recompute
from models.training import Activations, Levers, Training
from service.engine.data_parallel import evaluate
from service.engine.layout import evaluate_layout
from service.inputs import resolve
from service.mesh.degrees import Mesh

PRESETS = ["llama-3-8b", "llama-3-70b", "mixtral-8x7b", "gpt-3-175b", "qwen3-30b-a3b", "deepseek-v3", "gemma-2-9b"]
ARRANGEMENTS = [a for a in ArrangementName if a is not ArrangementName.hybrid]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(PRESETS),
    st.sampled_from(ARRANGEMENTS),
    st.sampled_from([8, 16, 64, 256]),
    st.sampled_from(list(Recompute)),
    st.integers(1, 8),
    st.sampled_from([1024, 4096]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["mixed_bf16_adam", "megatron", "deepspeed", "fsdp2"]),
)
def test_all_degrees_one_equals_the_data_parallel_evaluation(
    preset, arrangement, n, recompute, k, s, offload, flash, precision
):
    training = Training(micro_batch_size=1, sequence_length=s, gradient_accumulation_steps=k)
    levers = Levers(recompute=recompute, offload_optimizer=offload)
    cluster = Cluster(world_size=n, gpus_per_node=8, gpu="h100-80gb")
    scene = resolve.scenario(
        ModelSpec(preset=preset), precision, training, Activations(flash_attention=flash), levers, cluster
    )
    setup = resolve.setup_for(scene, resolve.sharding(arrangement))
    plain = evaluate(resolve.inputs_for(scene, n, 8), setup)
    arch = scene.model.architecture
    layout = evaluate_layout(arch, Mesh(n, 8), setup, k, 1, s, True)
    top = layout.top
    assert top.per_gpu_bytes == plain.per_gpu_bytes
    assert top.model_state_bytes == plain.model_state_bytes
    assert top.working_set_bytes == plain.working_set_bytes
    assert top.activations_bytes == plain.activations_bytes
    assert layout.replicated_floor_bytes == plain.replicated_floor_bytes
    assert layout.host_bytes == plain.host_bytes
    assert layout.pcie_bytes_per_gpu == plain.pcie_bytes_per_gpu
    assert layout.tokens_per_step == plain.tokens_per_step
    assert layout.compute_s == pytest.approx(plain.compute_s, rel=1e-12)
    assert layout.data_parallel_exposed_s == pytest.approx(plain.exposed_communication_s, rel=1e-12, abs=1e-15)
    assert layout.offload_s == pytest.approx(plain.offload_s, rel=1e-12, abs=1e-15)
    assert layout.step_s == pytest.approx(plain.step_s, rel=1e-12)
    assert layout.mfu == pytest.approx(plain.mfu, rel=1e-12)
    assert layout.pipeline_bubble_s == 0


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["llama-3-8b", "mixtral-8x7b", "qwen3-30b-a3b"]),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4]),
    st.sampled_from([1, 2]),
    st.sampled_from([1, 2, 4]),
    st.sampled_from([ArrangementName.zero3, ArrangementName.zero1, ArrangementName.ddp]),
    st.sampled_from([None, 1, 2, 4, 8]),
)
def test_state_bytes_summed_over_the_mesh_are_the_parameters_held(preset, t, p, c, e, arrangement, expert_tensor):
    """Over the t x c x d GPUs of every stage, ZeRO's shards add up to each state class once per parameter
    held (service.mesh.stages' shares, which the parameter property sums to the model): nothing lost or counted
    twice by sharding over the data group x context or the experts' group. With an expert tensor degree of its
    own the t x c x d GPUs of a stage are expert_tensor x e x EDP for the experts (Megatron-Core's expert grid)."""
    n = 64
    cluster = Cluster(world_size=n, gpus_per_node=8, gpu="h100-80gb")
    scene = resolve.scenario(ModelSpec(preset=preset), "mixed_bf16_adam", Training(), Activations(), Levers(), cluster)
    arch = scene.model.architecture
    experts = arch.moe.experts if arch.moe else 1
    etp = expert_tensor if arch.moe else None
    mesh = Mesh(n, 8, tensor=t, pipeline=p, context=c, expert=e if arch.moe else 1, expert_tensor=etp)
    if arch.attention_heads % t or arch.kv_heads % t or experts % mesh.expert:
        return
    if (t * mesh.data_context) % (mesh.etp * mesh.expert) or mesh.data_context % mesh.expert and etp is None:
        return
    setup = resolve.setup_for(scene, resolve.sharding(arrangement))
    layout = evaluate_layout(arch, mesh, setup, max(p, 1), 1, 2048, False)
    per_weight = 16  # mixed bf16 Adam: 2 + 2 + 4 + 4 + 4
    for stage in layout.stages:
        dense = stage.share.dense_parameters + (0 if stage.expert_rows else stage.share.expert_parameters)
        experts_held = stage.share.expert_parameters if stage.expert_rows else 0
        if dense % mesh.data_context or experts_held % mesh.expert_data:
            continue  # padded shards: covered by the padding tests of service.memory.model_states
        gpus = t * mesh.data_context  # the stage's GPUs
        summed = gpus * stage.model_state_bytes
        sharded = 12 if arrangement is ArrangementName.zero1 else 16 if arrangement is ArrangementName.zero3 else 0
        replicated = per_weight - sharded
        # each stage GPU holds its share: sharded classes once over d x c (experts over d x c / e), the rest whole
        expected = t * (sharded * dense + replicated * dense * mesh.data_context) + mesh.etp * mesh.expert * (
            sharded * experts_held + replicated * experts_held * mesh.expert_data
        ) * (1 if stage.expert_rows else 0)
        assert summed == expected


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3"]),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4]),
    st.sampled_from([1, 2, 4, 8]),
    st.booleans(),
    st.sampled_from([ArrangementName.zero1, ArrangementName.zero3, ArrangementName.ddp]),
)
def test_an_expert_tensor_degree_equal_to_t_is_the_omitted_one(preset, t, p, e, sequence_parallel, arrangement):
    """Megatron-LM's --expert-tensor-parallel-size defaults to the tensor degree: giving it as t changes nothing."""
    n = 64
    cluster = Cluster(world_size=n, gpus_per_node=8, gpu="h100-80gb")
    scene = resolve.scenario(ModelSpec(preset=preset), "megatron", Training(), Activations(), Levers(), cluster)
    arch = scene.model.architecture
    omitted = Mesh(n, 8, tensor=t, pipeline=p, expert=e, sequence_parallel=sequence_parallel)
    if arch.attention_heads % t or arch.kv_heads % t or arch.moe.experts % e or omitted.data_context % e:
        return
    if p > arch.layers:
        return
    given_t = Mesh(n, 8, tensor=t, pipeline=p, expert=e, expert_tensor=t, sequence_parallel=sequence_parallel)
    setup = resolve.setup_for(scene, resolve.sharding(arrangement))
    one = evaluate_layout(arch, omitted, setup, p, 1, 2048, True)
    other = evaluate_layout(arch, given_t, setup, p, 1, 2048, True)
    assert [s.per_gpu_bytes for s in one.stages] == [s.per_gpu_bytes for s in other.stages]
    assert [s.model_state_bytes for s in one.stages] == [s.model_state_bytes for s in other.stages]
    assert one.group_calls == other.group_calls
    assert one.step_s == other.step_s
    assert one.data_parallel_s == other.data_parallel_s
