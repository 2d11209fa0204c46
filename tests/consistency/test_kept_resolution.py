"""A plan resolved from a kept resolution (service.answers.layout_plan.resolution: the settings' part of a request
resolved once and kept) is byte for byte the plan resolved afresh, and requests whose settings differ in any block
never share one.

The bodies are bench.answer_dump's varied /v1/plan requests (presets, Hugging Face configs, architecture fields,
every precision and arrangement, GPUs, links, shapes, levers and layouts), drawn by seed.
"""

import random

import pytest

from bench.answer_dump import plan_body
from models.plan import PlanRequest
from service.answers import layout_plan
from service.answers.layout_plan import settings_key
from service.answers.plan import plan
from service.errors import DomainError
from service.inputs import resolve


def fresh(request: PlanRequest) -> bytes | None:
    """The plan's JSON with nothing kept (None when the plan refuses the request)."""
    layout_plan._resolutions.clear()
    try:
        return plan(request).model_dump_json().encode()
    except DomainError:
        return None
    finally:
        layout_plan._resolutions.clear()


def kept(request: PlanRequest) -> bool:
    return layout_plan._kept(settings_key(request, resolve.model(request.model))) is not None


def with_count(body: dict, count: int) -> dict:
    return body | {"model": {"parameter_count": count}}


@pytest.mark.parametrize("seed", range(40))
def test_a_plan_from_a_kept_resolution_is_the_fresh_plan(seed):
    rng = random.Random(seed)
    request = PlanRequest.model_validate(plan_body(rng, with_layout=seed % 3 == 0))
    expected = fresh(request)
    if expected is None:
        return
    plan(request)  # resolves and keeps the settings
    if settings_key(request, resolve.model(request.model)) is not None:
        assert kept(request)
    assert plan(request).model_dump_json().encode() == expected


@pytest.mark.parametrize("seed", range(20))
def test_another_model_count_on_kept_settings_is_its_own_fresh_plan(seed):
    body = plan_body(random.Random(seed), with_layout=False)
    first, second = (PlanRequest.model_validate(with_count(body, count)) for count in (7 * 10**9, 13 * 10**9))
    expected = fresh(second)
    if expected is None or fresh(first) is None:
        return
    plan(first)
    assert kept(second)  # a bare count's settings are the same for any count
    assert plan(second).model_dump_json().encode() == expected


BASE = {
    "model": {"preset": "llama-3-8b"},
    "precision": "mixed_bf16_adam",
    "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "training": {"micro_batch_size": 2, "sequence_length": 4096},
}
# each changes one block that resolution reads
VARIANTS = [
    {"model": {"preset": "llama-3-70b"}},
    {"model": {"parameter_count": 8 * 10**9}},
    {"model": {"preset": "llama-3-8b", "largest_unit_parameters": 2 * 10**8}},  # the units alone differ
    {"model": {"preset": "llama-3-8b", "largest_unit_parameters": 4 * 10**8}},
    {"model": {"preset": "llama-3-70b", "largest_unit_parameters": 2 * 10**8}},  # the architecture alone differs
    {"precision": "fsdp2"},
    {"arrangement": "zero2"},
    {"training": {"micro_batch_size": 1, "sequence_length": 4096}},
    {"activations": {"flash_attention": False}},
    {"cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "a100-80gb"}},
    {"cluster": {"world_size": 16, "gpus_per_node": 4, "gpu": "h100-80gb"}},
    {"parallelism": {"tensor": 2}},
    {"levers": {"recompute": "full"}},
    {"levers": {"offload_optimizer": True}},
    {"training": {"micro_batch_size": 2, "sequence_length": 4096, "utilisation": 0.4}},
    {"training": {"micro_batch_size": 2, "sequence_length": 4096, "gradient_accumulation_steps": 4}},
]


# each changes the run alone (its length, checkpoints), which the time's report reads from the request
RUNS = [
    {"training": {"micro_batch_size": 2, "sequence_length": 4096, "total_tokens": 10**12}},
    {"training": {"micro_batch_size": 2, "sequence_length": 4096, "total_tokens": 2 * 10**12}},
    {"training": {"micro_batch_size": 2, "sequence_length": 4096, "checkpoint": {"interval_steps": 100}}},
    {
        "training": {
            "micro_batch_size": 2,
            "sequence_length": 4096,
            "gradient_accumulation_steps": 4,
            "total_tokens": 10**12,
        },
        "parallelism": {"tensor": 2, "pipeline": 2},
    },
    {
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 64, "total_tokens": 10**12},
        "parallelism": {"tensor": 2, "pipeline": 2},
    },
    {
        "training": {"micro_batch_size": 1, "sequence_length": 4096, "global_batch_size": 64, "total_tokens": 10**13},
        "parallelism": {"tensor": 2, "pipeline": 2},
    },
]


def test_settings_that_differ_in_any_block_are_resolved_apart():
    requests = [PlanRequest.model_validate(BASE)] + [PlanRequest.model_validate(BASE | v) for v in VARIANTS]
    expected = [fresh(request) for request in requests]
    assert None not in expected and len(set(expected)) == len(expected)  # each variant changes the answer
    for request in requests:  # every variant after the base: the base's kept settings must not answer it
        plan(request)
    assert len(layout_plan._resolutions) == len(requests)
    assert [plan(request).model_dump_json().encode() for request in requests] == expected


@pytest.mark.parametrize("run", RUNS)
def test_settings_that_differ_in_the_run_alone_share_one_resolution_and_keep_their_own_run(run):
    request = PlanRequest.model_validate(BASE | run)
    expected = fresh(request)
    assert expected is not None
    shape = {key: value for key, value in run["training"].items() if key not in ("total_tokens", "checkpoint")}
    plan(PlanRequest.model_validate(BASE | run | {"training": shape}))  # the same settings, no run stated
    assert kept(request)
    resolved = layout_plan.resolution(request).scene.training  # the request's own run, not the kept request's
    assert (resolved.total_tokens, resolved.checkpoint) == (request.training.total_tokens, request.training.checkpoint)
    assert plan(request).model_dump_json().encode() == expected
