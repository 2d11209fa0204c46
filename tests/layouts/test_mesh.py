"""The mesh: validation naming every factor, rank placement, stages, and what the mesh conserves."""

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.common import ModelSpec
from models.parallelism import PipelineSchedule
from models.presets import ModelPresetName
from service.errors import InvalidLayout
from service.inputs import resolve
from service.mesh.degrees import (
    SCHEDULES,
    Group,
    Mesh,
    ModelLimits,
    layout_problem_masks,
    layout_problems,
    micro_batches,
    validated_mesh,
)
from service.mesh.pipeline import SPLIT_BACKWARD, bubble_fraction, in_flight, stage_layer_indices
from service.mesh.stages import embedding_split, layer_split, output_split, stage_shares

N = ModelPresetName
LLAMA = ModelLimits(layers=80, attention_heads=64, kv_heads=8)


def pointers(mesh: Mesh, model: ModelLimits = LLAMA, b: int = 1, s: int = 4096, gbs: int | None = None, k: int = 8):
    return [pointer for _, pointer in layout_problems(mesh, model, b, s, gbs, k)]


def test_degrees_that_do_not_multiply_name_every_factor():
    problems = layout_problems(Mesh(100, 8, tensor=8, pipeline=4), LLAMA, 1, 4096, None, 8)
    assert [p for _, p in problems] == ["/parallelism"]
    detail = problems[0][0]
    for factor in ("tensor 8", "pipeline 4", "context 1", "cluster.world_size 100"):
        assert factor in detail


def test_each_factor_points_at_its_field():
    assert pointers(Mesh(96, 8, tensor=3)) == ["/parallelism/tensor"]
    assert pointers(Mesh(64, 8, tensor=16), ModelLimits(80, 64, 8)) == ["/parallelism/tensor"]  # kv heads 8
    assert pointers(Mesh(64, 8, expert=2)) == ["/parallelism/expert"]  # a dense model
    moe = ModelLimits(32, 32, 8, experts=8)
    assert pointers(Mesh(64, 8, expert=3), moe) == ["/parallelism/expert", "/parallelism/expert"]
    # 80 layers over 2 x 3 chunks: uneven (13 or 14 a chunk) but every chunk has layers, as torchtitan runs it
    assert pointers(Mesh(64, 8, pipeline=2, schedule=PipelineSchedule.interleaved, virtual_stages=3)) == []
    assert pointers(Mesh(64, 8, pipeline=2, schedule=PipelineSchedule.interleaved, virtual_stages=41), k=2) == [
        "/parallelism/virtual_stages"  # 82 chunks, 80 layers: two chunks would hold none
    ]
    assert pointers(Mesh(64, 8, virtual_stages=2)) == ["/parallelism/virtual_stages"]  # not interleaved
    # ZB-H1 over model chunks (ScheduleInterleavedZeroBubble) follows interleaving's rules; ZB-V has its two fixed
    zb_h1, zb_v = PipelineSchedule.zero_bubble_h1, PipelineSchedule.zero_bubble_v
    assert pointers(Mesh(64, 8, pipeline=2, schedule=zb_h1, virtual_stages=4), k=4) == []  # 80 = 2 x 4 x 10
    assert pointers(Mesh(64, 8, pipeline=2, schedule=zb_h1, virtual_stages=3), k=4) == []  # 80 over 6 chunks, uneven
    assert pointers(Mesh(64, 8, pipeline=2, schedule=zb_h1, virtual_stages=2), k=3) == [
        "/training/gradient_accumulation_steps"  # m 3 not a multiple of p 2
    ]
    assert pointers(Mesh(64, 8, pipeline=2, schedule=zb_h1), k=3) == []  # without chunks, m >= p is enough
    assert pointers(Mesh(64, 8, pipeline=2, schedule=zb_v, virtual_stages=2), k=4) == ["/parallelism/virtual_stages"]
    assert pointers(Mesh(64, 8, pipeline=4, schedule=zb_v), k=3) == ["/training/gradient_accumulation_steps"]
    assert pointers(Mesh(64, 8, pipeline=8), k=4) == ["/training/gradient_accumulation_steps"]  # m 4 < p 8
    assert pointers(Mesh(64, 8, pipeline=8), gbs=40) == ["/training/global_batch_size"]  # m = 40 / 8 = 5 < 8 stages
    assert pointers(Mesh(64, 8, tensor=8), gbs=12) == ["/training/global_batch_size"]  # 12 not a multiple of d = 8
    assert pointers(Mesh(64, 8, tensor=8, context=2, sequence_parallel=True), s=4104) == ["/training/sequence_length"]
    # context 2 cuts the sequence into 2 x 2 equal chunks (Megatron-Core's get_batch_on_this_cp_rank): 4,098 = 2 x 2,049
    # is split evenly over c = 2 ranks but not into 4 chunks; 4,100 = 4 x 1,025 is
    assert pointers(Mesh(64, 8, context=2), s=4098) == ["/training/sequence_length"]
    assert pointers(Mesh(64, 8, context=2), s=4100) == []
    assert pointers(Mesh(128, 8, pipeline=128), k=128) == ["/parallelism/pipeline"]  # more stages than 80 layers
    assert pointers(Mesh(64, 8, tensor=2), ModelLimits()) == ["/parallelism/tensor"]  # no architecture


def test_validated_mesh_raises_every_problem():
    with pytest.raises(InvalidLayout) as error:
        validated_mesh(Mesh(96, 8, tensor=3, pipeline=2), LLAMA, 1, 4096, None, 1)
    expected = ["/parallelism/tensor", "/training/gradient_accumulation_steps"]
    assert [p for _, p in error.value.field_errors()] == expected


def test_micro_batches_from_the_global_batch():
    # Narayanan et al. 2021, table 1, 1T: 3072 GPUs, t 8, p 64, batch 3072: d = 6, m = 3072 / (1 x 6) = 512
    mesh = Mesh(3072, 8, tensor=8, pipeline=64)
    assert mesh.data == 6
    assert micro_batches(3072, 1, 1, mesh.data) == 512
    assert micro_batches(None, 7, 1, mesh.data) == 7


def test_placement_tensor_innermost_pipeline_outermost():
    mesh = Mesh(64, 8, tensor=4, context=2, pipeline=2)  # d = 4
    assert [mesh.stride(g) for g in (Group.tensor, Group.context, Group.data, Group.pipeline)] == [1, 4, 4, 32]
    assert not mesh.spans_nodes(Group.tensor)  # ranks 0-3
    assert not mesh.spans_nodes(Group.context)  # ranks 0 and 4
    assert mesh.spans_nodes(Group.data)  # d x c = 8 ranks at stride 4: 0..28
    assert mesh.spans_nodes(Group.pipeline)
    assert mesh.members_per_node(Group.data) == 2
    assert Mesh(16, 8, tensor=16).spans_nodes(Group.tensor)


def test_stages_split_layers():
    assert stage_layer_indices(10, 4) == [[0, 1], [2, 3], [4, 5, 6], [7, 8, 9]]
    # interleaved: stage s holds chunks s, s + p, ... of L / (p v) layers
    assert stage_layer_indices(8, 2, 2) == [[0, 1, 4, 5], [2, 3, 6, 7]]


def test_in_flight_per_schedule():
    p, m = 4, 16
    assert [in_flight(PipelineSchedule.one_f_one_b, i, p, 1, m) for i in range(p)] == [4, 3, 2, 1]
    assert [in_flight(PipelineSchedule.gpipe, i, p, 1, m) for i in range(p)] == [16] * 4
    assert [in_flight(PipelineSchedule.zero_bubble, i, p, 1, m) for i in range(p)] == [7, 5, 3, 1]
    # ZB-H1 holds 1F1B's p M_B (Qi et al. 2023, table 2); ZB-V p M_B on every device (Qi et al. 2024, V-ZB)
    assert [in_flight(PipelineSchedule.zero_bubble_h1, i, p, 1, m) for i in range(p)] == [4, 3, 2, 1]
    assert [in_flight(PipelineSchedule.zero_bubble_v, i, p, 1, m) for i in range(p)] == [4, 4, 4, 4]
    # Megatron-LM's interleaved warm-up: (p - i - 1) x 2 + (v - 1) x p, plus the one in flight, in chunks of 1/v
    assert in_flight(PipelineSchedule.interleaved, 3, p, 2, m) == Fraction(0 * 2 + 4 + 1, 2)


def test_bubble_of_each_schedule():
    assert bubble_fraction(PipelineSchedule.one_f_one_b, 8, 1, 32) == Fraction(7, 32)
    assert bubble_fraction(PipelineSchedule.interleaved, 8, 4, 32) == Fraction(7, 128)
    assert bubble_fraction(PipelineSchedule.gpipe, 8, 1, 32) == Fraction(7, 32)
    assert bubble_fraction(PipelineSchedule.one_f_one_b, 1, 1, 1) == 0
    # The zero-bubble schedules' bubble reads the pass times (Qi et al. 2023, table 2): no fraction without them.
    for schedule in SPLIT_BACKWARD:
        with pytest.raises(ValueError, match="pass times"):
            bubble_fraction(schedule, 8, 1, 32)


def architecture(name: ModelPresetName):  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset=name)).architecture
    assert arch is not None
    return arch


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([N.llama3_8b, N.mixtral_8x7b, N.gpt3_175b, N.qwen3_30b_a3b, N.deepseek_v3]),
    st.sampled_from([1, 2, 4, 8]),
    st.integers(1, 16),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([None, 1, 2, 4, 8]),
    st.sampled_from([None, 256, 1000]),
)
def test_parameters_summed_over_the_mesh_are_the_model(name, t, p, e, expert_tensor, latent):
    """Every parameter is held by exactly one GPU of a (tensor, expert) group of each stage, except the parts
    kept whole on every tensor rank (norms, router, row-parallel biases), a copy of a tied embedding on the last
    stage, and the rows a vocabulary padded to a multiple of t adds. The routed experts are held once by the
    expert_tensor x e GPUs of the experts' grid (expert_tensor None: t). A latent width (Megatron-LM's
    --moe-latent-size) narrows the routed experts and adds its projections among the parts kept whole."""
    arch = architecture(name)
    if latent is not None and arch.moe is not None:
        arch = replace(arch, moe=replace(arch.moe, latent_size=latent))
    etp = t if expert_tensor is None else expert_tensor
    experts = arch.moe.experts if arch.moe else 1
    if arch.attention_heads % t or arch.kv_heads % t or experts % e or p > arch.layers:
        return
    if arch.moe is None:
        e = 1
    shares = stage_shares(arch, t, p, e, expert_tensor=expert_tensor)
    held = 0
    for share, indices in zip(shares, stage_layer_indices(arch.layers, p), strict=True):
        replicated = sum(layer_split(arch, i).replicated for i in indices)
        if share.first:
            replicated += embedding_split(arch, t).replicated
        if share.last:
            replicated += output_split(arch, t, p).replicated
        held += t * share.dense_parameters - (t - 1) * replicated + etp * e * share.expert_parameters
    padded_rows = (-arch.vocab_size) % t
    copies = 1 if arch.tied_embeddings else 2
    extra = arch.vocab_size * arch.hidden_size if arch.tied_embeddings and p > 1 else 0
    tensor_padding = sum(
        t * -(-layer_split(arch, i).tensor // t) - layer_split(arch, i).tensor for i in range(arch.layers)
    )
    expert_padding = 0
    if arch.moe:
        for i in range(arch.layers):
            split = layer_split(arch, i)
            if split.expert_count:
                one = split.experts // split.expert_count
                expert_padding += split.expert_count * (etp * -(-one // etp) - one)
    from service.inputs.architecture import parameter_count

    total = parameter_count(arch) + extra + (copies + (1 if extra else 0)) * padded_rows * arch.hidden_size
    assert held == total + tensor_padding + expert_padding


@st.composite
def mesh_cells(draw):
    """A model's limits (an architecture or none), an expert tensor degree and a batch kind shared by the
    cells, and a few random cells (world size, degrees, schedule, sequence parallelism, batch shape)."""
    if draw(st.integers(0, 5)) == 0:
        model = ModelLimits()
    else:
        model = ModelLimits(
            layers=draw(st.sampled_from([1, 2, 6, 12, 32, 80])),
            attention_heads=draw(st.sampled_from([None, 8, 12, 32, 64])),
            kv_heads=draw(st.sampled_from([None, 1, 4, 8])),
            experts=draw(st.sampled_from([None, None, 4, 8, 64])),
        )
    expert_tensor = draw(st.sampled_from([None, None, 1, 2, 4]))
    global_batch = draw(st.sampled_from([None, None, 0, 8, 24, 64, 96, 512]))
    cells = []
    for _ in range(draw(st.integers(1, 12))):
        t, p, c = (draw(st.sampled_from(values)) for values in ([1, 2, 3, 4, 8], [1, 2, 3, 4, 8, 16], [1, 2, 4]))
        n = t * p * c * draw(st.sampled_from([1, 2, 3, 4]))
        if draw(st.integers(0, 5)) == 0:
            n = draw(st.sampled_from([8, 12, 16, 24, 64]))
        cells.append(
            {
                "world_size": n,
                "tensor": t,
                "pipeline": p,
                "context": c,
                "expert": draw(st.sampled_from([1, 1, 2, 3, 4, 8])),
                "virtual_stages": draw(st.sampled_from([1, 1, 2, 3, 4])),
                "schedule": draw(st.integers(0, len(SCHEDULES) - 1)),
                "sequence_parallel": draw(st.booleans()),
                "micro_batch_size": draw(st.sampled_from([1, 2, 4])),
                "sequence_length": draw(st.sampled_from([1000, 2048, 3000, 4096])),
                "gradient_accumulation_steps": draw(st.sampled_from([1, 2, 3, 4, 8, 16])),
            }
        )
    return model, expert_tensor, global_batch, cells


@settings(max_examples=300, deadline=None)
@given(mesh_cells())
def test_the_array_form_reports_what_layout_problems_reports(drawn):
    """layout_problem_masks over many cells at once, against layout_problems (what /v1/plan refuses) one cell
    at a time: each cell's failing rules are its list of problems, pointer for pointer and in order."""
    model, expert_tensor, global_batch, cells = drawn
    column = {name: np.array([cell[name] for cell in cells]) for name in cells[0]}
    degrees = ("tensor", "pipeline", "context", "expert", "virtual_stages")
    mesh = Mesh(column["world_size"], 8, **{k: column[k] for k in degrees}, expert_tensor=expert_tensor)
    rules = layout_problem_masks(
        model,
        mesh,
        column["schedule"],
        column["sequence_parallel"],
        column["micro_batch_size"],
        column["sequence_length"],
        global_batch,
        column["gradient_accumulation_steps"],
    )
    for i, cell in enumerate(cells):
        one = Mesh(
            cell["world_size"],
            8,
            **{k: cell[k] for k in degrees},
            expert_tensor=expert_tensor,
            sequence_parallel=cell["sequence_parallel"],
            schedule=SCHEDULES[cell["schedule"]],
        )
        expected = layout_problems(
            one,
            model,
            cell["micro_batch_size"],
            cell["sequence_length"],
            global_batch,
            cell["gradient_accumulation_steps"],
        )
        assert [rule.pointer for rule in rules if rule.failing[i]] == [pointer for _, pointer in expected], cell
