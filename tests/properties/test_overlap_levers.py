"""The overlap levers (models.training.Levers; service/time/overlaps.py), as properties.

- Every lever at its framework's default changes nothing: a request that names the defaults is answered as one
  that does not.
- An overlap lever never lengthens a step: it only moves seconds from exposed to hidden, where they cost the
  compute the overlap slowdown (a fraction below one) of themselves.
- A sweep of layouts with the levers on answers every cell as /v1/plan does.
"""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.plan import PlanRequest
from service.answers.plan import plan
from service.time.efficiency import FITTED
from tests.layouts import test_sweep_layouts as layouts

DEFAULTS = {
    "overlap_grad_reduce": None,
    "overlap_param_gather": False,
    "tp_comm_overlap": False,
    "overlap_moe_expert_parallel_comm": False,
    "fsdp_prefetch": True,
}
# lever: (off, on)
LEVERS = {
    "overlap_grad_reduce": (False, True),
    "overlap_param_gather": (False, True),
    "tp_comm_overlap": (False, True),
    "overlap_moe_expert_parallel_comm": (False, True),
    "fsdp_prefetch": (False, True),
}
CASES = [
    ("llama-3-8b", "h100-80gb", 64, "ddp", {}),
    ("llama-3-8b", "h100-80gb", 64, "zero1", {}),
    ("llama-3-8b", "a100-80gb", 512, "zero2", {}),
    ("llama-3-8b", "h100-80gb", 64, "zero3", {}),
    ("llama-3-70b", "h100-80gb", 512, "zero1", {"tensor": 8, "sequence_parallel": True}),
    ("llama-3-70b", "h100-80gb", 256, "zero1", {"tensor": 4, "pipeline": 4, "sequence_parallel": True}),
    ("mixtral-8x7b", "h100-80gb", 64, "zero1", {"tensor": 2, "expert": 8, "sequence_parallel": True}),
    ("mixtral-8x7b", "a100-80gb", 128, "zero3", {"expert": 8}),
]


def answer(preset, gpu, world_size, arrangement, parallelism, levers, micro_batches=4):
    body = {
        "model": {"preset": preset},
        "cluster": {"world_size": world_size, "gpu": gpu},
        "arrangement": arrangement,
        "training": {"gradient_accumulation_steps": micro_batches, "sequence_length": 4096},
        "levers": levers,
    }
    if parallelism:
        body["parallelism"] = parallelism
    return plan(PlanRequest.model_validate(body))


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[3]}-{c[2]}" for c in CASES])
def test_every_lever_at_its_framework_default_changes_nothing(case):
    plain = answer(*case, {})
    named = answer(*case, dict(DEFAULTS))
    assert named.model_dump() == plain.model_dump()


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[3]}-{c[2]}" for c in CASES])
@pytest.mark.parametrize("lever", sorted(LEVERS))
@pytest.mark.parametrize("micro_batches", [4, 8])
def test_an_overlap_lever_never_lengthens_a_step(case, lever, micro_batches):
    off, on = LEVERS[lever]
    for others in itertools.islice(itertools.product([False, True], repeat=2), 4):
        # the lever flipped with a couple of the others held either way
        rest = {name: value for name, value in zip([n for n in LEVERS if n != lever][:2], others, strict=True)}
        slow = answer(*case, rest | {lever: off}, micro_batches)
        fast = answer(*case, rest | {lever: on}, micro_batches)
        assert fast.time.step_s <= slow.time.step_s * (1 + 1e-12), (lever, rest)
        assert fast.time.exposed_communication_s <= slow.time.exposed_communication_s * (1 + 1e-12)


def test_the_overlap_slowdown_is_below_one():
    assert 0 <= FITTED.overlap_slowdown < 1  # what "never lengthens a step" rests on


def test_tensor_parallel_overlap_hides_each_call_behind_its_paired_gemm():
    # Llama 3 70B, t8 with sequence parallelism on 512 H100s: with --tp-comm-overlap the tensor group's exposed
    # time is what its calls exceed their paired GEMMs by, never more than before.
    case = ("llama-3-70b", "h100-80gb", 512, "zero1", {"tensor": 8, "sequence_parallel": True})
    off = answer(*case, {})
    on = answer(*case, {"tp_comm_overlap": True})
    assert on.time.tensor_parallel_s < off.time.tensor_parallel_s
    assert on.time.overlap_slowdown_s > off.time.overlap_slowdown_s  # what it hides costs the compute a part


def test_param_gather_overlap_moves_the_zero1_gather_under_the_forward_pass():
    case = ("llama-3-8b", "h100-80gb", 64, "zero1", {})
    gathers = [c for c in answer(*case, {"overlap_param_gather": True}).traffic.collectives if c.name == "all_gather"]
    assert [c.overlaps_with for c in gathers] == ["forward"]
    gathers = [c for c in answer(*case, {}).traffic.collectives if c.name == "all_gather"]
    assert [c.overlaps_with for c in gathers] == ["none"]


def test_without_grad_reduce_overlap_or_fsdp_prefetch_the_calls_are_exposed():
    zero3 = answer("llama-3-8b", "h100-80gb", 64, "zero3", {}, {"overlap_grad_reduce": False, "fsdp_prefetch": False})
    assert {c.overlaps_with for c in zero3.traffic.collectives} == {"none"}
    assert zero3.time.exposed_communication_s == pytest.approx(zero3.time.communication_s, rel=1e-12)


overlaps = st.fixed_dictionaries(
    {
        "overlap_grad_reduce": st.sampled_from([None, False, True]),
        "overlap_param_gather": st.booleans(),
        "tp_comm_overlap": st.booleans(),
        "overlap_moe_expert_parallel_comm": st.booleans(),
        "fsdp_prefetch": st.booleans(),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts.layout_sweeps(), overlaps)
def test_every_layout_sweep_cell_with_overlap_levers_is_its_plan(drawn, levers):
    base, axes = drawn
    base["levers"] = base["levers"] | levers
    layouts.test_every_layout_sweep_cell_is_its_plan.hypothesis.inner_test((base, axes))
