"""Each framework's buckets, and each data-parallel collective as NCCL runs it, in a plan (service/time/buckets.py,
service/time/nccl.py). Expected values written out from the frameworks' sources and NCCL's tuning constants
(NVIDIA/nccl src/graph/tuning.cc @5067397c2676d5aed50042fc39e5c8ee96eb0027)."""

import pytest

from models.plan import PlanRequest
from service.answers import plan as planner


def plan(arrangement, preset="llama-3-8b", gpu="h100-80gb", world_size=512, **extra):
    body = {"model": {"preset": preset}, "cluster": {"world_size": world_size, "gpu": gpu}, "arrangement": arrangement}
    body.update(extra)
    return planner.plan(PlanRequest.model_validate(body))


def data_calls(answer):
    return [c for c in answer.traffic.collectives if c.group.value == "data"]


def test_mixtral_ddp_on_512_a100s_is_3564_buckets_on_nccls_tree():
    # Mixtral 8x7B, 46,702,792,704 bf16 gradients = 93,405,585,408 B all-reduced in PyTorch DDP's 25 MiB buckets
    # (bucket_cap_mb=25): ceil(93,405,585,408 / 26,214,400) = 3,564 calls over 64 nodes of 8 A100s.
    # NCCL picks the tree in LL128 for each: latency 14.0 + 2 x ((8 - 1) x 1.25 + log2(64) x 8.5) = 133.5 us;
    # bandwidth: the bus bandwidth of 8 x 200 Gb/s NICs (8 x 25 GB/s x 0.96 = 192 GB/s), x 0.92 (tree all-reduce,
    # under 16 channels x 17.8 GB/s), x 120/128 (LL128 across nodes), x 1/2 (a tree's algorithm bandwidth),
    # x 0.9 (treeCorrectionFactor of LL128 at 2^18 x 64 B).
    # Before, every bucket paid 2 x 511 hops at the inter-node latency: 37.4 s for this one all-reduce.
    answer = plan("ddp", preset="mixtral-8x7b", gpu="a100-80gb")
    (reduce,) = data_calls(answer)
    buffer = 93_405_585_408
    calls = -(-buffer // (25 * 2**20))
    assert (
        (reduce.buffer_bytes, reduce.calls, reduce.algorithm)
        == (buffer, calls, "tree/LL128")
        == (buffer, 3564, "tree/LL128")
    )
    latency_us = 14.0 + 2 * (7 * 1.25 + 6 * 8.5)
    bandwidth_gbps = 192 * 0.92 * 120 / 128 * 0.5 * 0.9
    per_call = -(-buffer // calls)
    assert reduce.latency_s == pytest.approx(calls * latency_us * 1e-6, rel=1e-12)
    assert reduce.seconds == pytest.approx(calls * (latency_us + per_call / (1000 * bandwidth_gbps)) * 1e-6, rel=1e-12)
    assert answer.time.communication_s == pytest.approx(reduce.seconds, rel=1e-12)
    assert answer.time.communication_s < 2.0


def test_deepspeed_zero2_reduces_in_buckets_of_5e8_elements():
    # Llama 3 8B, 8,030,261,248 bf16 gradients = 16,060,522,496 B; DeepSpeed's reduce_bucket_size and
    # allgather_bucket_size, 5e8 elements (deepspeed/runtime/zero/config.py): 1e9 B buckets, 17 calls each.
    answer = plan("zero2")
    assert [(c.name.value, c.calls) for c in data_calls(answer)] == [("reduce_scatter", 17), ("all_gather", 17)]
    assert -(-16_060_522_496 // 1_000_000_000) == 17


def test_megatron_buckets_grow_with_the_data_parallel_group():
    # With tensor parallelism the data group runs Megatron-Core's DDP: buckets of max(40M, 1M x dp) parameters
    # (megatron/core/distributed/distributed_data_parallel.py), dp = 512 / 2 = 256: 256M parameters, 512 MB of
    # bf16; the rank's half of the model, 8,030,527,488 B (the tensor-split share), in 16 calls.
    answer = plan("zero1", parallelism={"tensor": 2})
    for c in data_calls(answer):
        assert c.calls == -(-c.buffer_bytes // (max(40_000_000, 1_000_000 * 256) * 2)) == 16
    small = plan("zero1", world_size=32, parallelism={"tensor": 2})  # dp 16: the 40M floor, 80 MB buckets
    for c in data_calls(small):
        assert c.calls == -(-c.buffer_bytes // (40_000_000 * 2))


def test_fsdp_calls_once_per_unit_and_the_lever_overrides_every_bucket():
    # ZeRO-3 / FSDP: one call per wrapped unit, each of Llama 3 8B's 32 blocks and the rest: 33.
    assert {c.calls for c in data_calls(plan("zero3"))} == {33}
    given = plan("zero2", levers={"bucket_bytes": 25 * 2**20})
    assert {c.calls for c in data_calls(given)} == {-(-16_060_522_496 // (25 * 2**20))}


def test_every_collective_says_how_nccl_runs_it_and_point_to_point_calls_do_not():
    answer = plan(
        "zero1",
        parallelism={"tensor": 8, "pipeline": 2, "sequence_parallel": True},
        training={"gradient_accumulation_steps": 4},
    )
    for c in answer.traffic.collectives:
        if c.name.value in ("send_recv", "all_to_all"):
            assert (c.calls, c.algorithm, c.latency_s) == (None, None, None)
            continue
        assert c.calls and c.algorithm and 0 < c.latency_s < c.seconds
        assert "as NCCL runs it" in c.arithmetic and "tuning.cc" in c.arithmetic
        if c.group.value == "tensor":  # one call of each, inside the node
            assert c.calls == 1
