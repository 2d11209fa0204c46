"""Offload as ZeRO-Offload does it, expected values written out from the sources' arithmetic.

- Ren et al. 2021, "ZeRO-Offload: Democratizing Billion-Scale Model Training", sections 3-4: the GPU
  keeps the 2 B fp16 parameters (2M of 16M), the gradients (2M) go down and the updated parameters
  (2M) come up every step: 4M over PCIe; the fp32 parameters, moments and the optimizer step run
  on the CPU.
- DeepSpeed's estimators count 16 B per weight of host memory with the optimizer offloaded and 18
  with the parameters too (deepspeed/runtime/zero/stage3.py): the fp32 gradient partition is among
  them.
- CPU step: bytes streamed over the host memory bandwidth (service/memory/offload.py states the
  assumption): 4 (fp32 gradient, read) + 2 x 4 (master) + 2 x 4 + 2 x 4 (moments) + 2 (16-bit
  parameters written) = 30 B per weight of the partition.
"""

import pytest

from tests.golden.test_levers import plan

P = 30_000_000_000
SHARD = P // 8


def test_zero_offload_per_weight_figures(client):
    m = 1_000_000_000
    body = plan(
        client,
        "zero2",
        world_size=1,
        parameter_count=m,
        precision="mixed_fp16_adam",
        levers={"offload_optimizer": True},
    )
    assert body["memory"]["model_state_bytes"] == 2 * m  # the GPU keeps the fp16 parameters only
    assert body["traffic"]["pcie_bytes_per_gpu"] == 2 * m + 2 * m  # 2M down, 2M up
    assert body["memory"]["host_bytes"] == 16 * m  # fp32 gradients, parameters, momentum, variance


def test_gradient_partition_crosses_pcie_every_micro_step(client):
    k = 4
    body = plan(client, "zero2", levers={"offload_optimizer": True}, training={"gradient_accumulation_steps": k})
    # k x 2 B x shard down (one copy per micro-step), 2 B x shard up once
    assert body["traffic"]["pcie_bytes_per_gpu"] == k * 2 * SHARD + 2 * SHARD
    # ZeRO-1 accumulates the full gradient on the GPU: one copy of its partition per step
    zero1 = plan(client, "zero1", levers={"offload_optimizer": True}, training={"gradient_accumulation_steps": k})
    assert zero1["traffic"]["pcie_bytes_per_gpu"] == 2 * SHARD + 2 * SHARD


def test_cpu_optimizer_time_from_host_memory_bandwidth(client):
    body = plan(client, "zero2", levers={"offload_optimizer": True})
    time = body["time"]
    per_node = 30 * SHARD * 8  # 900e9 B streamed by the node's CPUs
    assert time["cpu_optimizer_s"] == pytest.approx(per_node / 300e9, rel=1e-12)  # 3.0 s
    assert time["offload_transfer_s"] == pytest.approx(4 * SHARD / 60e9, rel=1e-12)  # 0.25 s
    assert time["offload_s"] == pytest.approx(time["cpu_optimizer_s"] + time["offload_transfer_s"], rel=1e-12)
    faster = plan(
        client,
        "zero2",
        levers={"offload_optimizer": True},
        cluster={"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb", "host_memory_bytes_per_s": 600e9},
    )
    assert faster["time"]["cpu_optimizer_s"] == pytest.approx(per_node / 600e9, rel=1e-12)


def test_no_offload_no_cpu_time(client):
    body = plan(client, "zero3")
    assert body["time"]["cpu_optimizer_s"] == 0 and body["time"]["offload_s"] == 0


def test_parameter_offload_priced_the_same_way(client):
    k = 2
    body = plan(
        client,
        "zero3",
        levers={"offload_optimizer": True, "offload_parameters": True},
        training={"gradient_accumulation_steps": k},
    )
    memory = body["memory"]
    assert memory["model_state_bytes"] == 0
    assert memory["host_bytes"] == 18 * SHARD * 8  # 2 B parameters + 16 B
    # gradients down every micro-step, parameter shards fetched for every forward and backward
    assert body["traffic"]["pcie_bytes_per_gpu"] == k * 2 * SHARD + 2 * k * 2 * SHARD
    assert body["time"]["cpu_optimizer_s"] == pytest.approx(30 * SHARD * 8 / 300e9, rel=1e-12)


@pytest.mark.parametrize(("host", "fits"), [(16 * SHARD * 8, True), (16 * SHARD * 8 - 1, False)])
def test_host_memory_is_checked_to_the_byte(client, host, fits):
    cluster = {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb", "host_memory_bytes": host}
    body = plan(client, "zero2", levers={"offload_optimizer": True}, cluster=cluster)
    memory = body["memory"]
    assert memory["host_bytes"] == 16 * SHARD * 8
    assert memory["host_memory_bytes"] == host
    assert memory["host_fits"] is fits
    assert memory["fits"] is fits  # the GPU side fits (60e9 B); the host decides


@pytest.mark.parametrize(
    ("field", "value"), [("host_memory_bytes", -1), ("host_memory_bytes_per_s", 0), ("host_memory_bytes_per_s", -5)]
)
def test_host_fields_out_of_range(client, field, value):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "seed-80gb", field: value},
        "arrangement": "zero2",
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422
    assert [e["pointer"] for e in response.json()["errors"]] == [f"/cluster/{field}"]
