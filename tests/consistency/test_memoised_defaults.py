"""Values the plan path resolves once and shares (memoised defaults) equal what resolving them afresh gives."""

import numpy as np
import pytest

from models.resilience import LLAMA3_INTERRUPTIONS_PER_GPU_HOUR, Checkpoint, Failures
from service.time.goodput import resilience_of


@pytest.mark.parametrize("gpus_per_node", [1, 4, 8, 72, np.array([1, 8, 16])])
def test_the_default_resilience_is_the_default_checkpoint_and_failures_at_any_node_size(gpus_per_node):
    shared = resilience_of(None, None, gpus_per_node)
    fresh = resilience_of(Checkpoint(), Failures(), gpus_per_node)
    assert shared == fresh
    # Dubey et al. 2024, section 3.3.4: 466 interruptions / (54 days x 24 h x 16,384 GPUs), a rate per GPU-hour
    assert shared.interruptions_per_gpu_hour == pytest.approx(466 / (54 * 24 * 16_384), rel=1e-12)
    assert shared.interruptions_per_gpu_hour == LLAMA3_INTERRUPTIONS_PER_GPU_HOUR
    assert shared.interval_steps is None and not shared.asynchronous


def test_a_stated_checkpoint_or_failure_rate_is_not_the_default():
    stated = resilience_of(Checkpoint(interval_steps=100), None, 8)
    assert stated.interval_steps == 100
    per_node = resilience_of(None, Failures(node_mtbf_hours=1000.0), 8)
    assert per_node.interruptions_per_gpu_hour == pytest.approx(1 / (1000.0 * 8), rel=1e-12)


def test_an_omitted_request_block_is_one_shared_frozen_value():
    import pydantic

    from models.base import shared_default
    from models.plan import PlanRequest
    from models.training import Levers

    body = {"model": {"parameter_count": 10**9}, "cluster": {"world_size": 8, "gpu": "h100-80gb"}, "arrangement": "ddp"}
    first, second = PlanRequest.model_validate(body), PlanRequest.model_validate(body)
    assert first.levers is second.levers and first.parallelism is second.parallelism
    assert first.levers == Levers() and first.levers.model_fields_set == set()  # as if built afresh
    with pytest.raises(pydantic.ValidationError):
        first.levers.recompute = "full"  # frozen: no request can change what the others share
    with pytest.raises(TypeError):
        shared_default(PlanRequest)  # not frozen: one instance cannot be shared


def test_an_arrangement_keeps_the_hash_of_its_own_flags():
    import pickle
    from dataclasses import replace

    from service.inputs.arrangements import Sharding, ZeroPlusPlus

    zero3 = Sharding(True, True, True)
    assert hash(zero3) == hash((True, True, True, False, True, ZeroPlusPlus()))  # the flags', computed once
    assert hash(zero3) == hash(Sharding(True, True, True)) == hash(pickle.loads(pickle.dumps(zero3)))
    hybrid = replace(zero3, hybrid=True)  # a new arrangement: its own flags' hash, not the kept one
    assert hybrid != zero3 and hash(hybrid) == hash((True, True, True, True, True, ZeroPlusPlus()))


def test_a_collective_keeps_its_hash_but_not_across_a_pickle():
    import pickle

    from models.enums import CollectiveName, Dtype
    from service.time.traffic import StepCollective

    gather = StepCollective(CollectiveName.all_gather, "parameters", Dtype.bf16, 1)
    fields = (CollectiveName.all_gather, "parameters", Dtype.bf16, 1, "all", False, "none", False, False)
    assert hash(gather) == hash(fields) and gather.__dict__["_hash"] == hash(fields)  # the fields', kept
    copied = pickle.loads(pickle.dumps(gather))  # another process hashes strings otherwise: nothing kept travels
    assert "_hash" not in copied.__dict__ and copied == gather and hash(copied) == hash(fields)
