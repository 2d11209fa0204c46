"""Step time and the levers (issue: levers), expected values written out from the formulas.

Sources: the lever table of DESIGN.md; Ren et al. 2021 (ZeRO-Offload); Korthikanti et al. 2022;
OCP MX spec v1.0 (MXFP8: 8-bit values, one 8-bit scale per 32).
"""

import pytest

P = 30_000_000_000
CARD = 80_000_000_000
GPT3 = {
    "layers": 96,
    "hidden_size": 12288,
    "attention_heads": 96,
    "ffn_hidden_size": 4 * 12288,
    "vocab_size": 50257,
    "mlp": "gelu",
}


def plan(client, arrangement="zero2", world_size=8, gpus_per_node=8, parameter_count=P, **extra):
    body = {
        "model": {"parameter_count": parameter_count},
        "cluster": {"world_size": world_size, "gpus_per_node": gpus_per_node, "gpu": "seed-80gb", "links": "seed"},
        "arrangement": arrangement,
    }
    body.update(extra)
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_offload_bill_at_60_gb_per_s(client):
    body = plan(client, "zero2", levers={"offload_optimizer": True})
    shard = P // 8
    # gradients down (2 B x shard) and updated parameters up (2 B x shard), per GPU per step
    assert body["traffic"]["pcie_bytes_per_gpu"] == 2 * shard + 2 * shard == 15_000_000_000
    assert body["time"]["offload_transfer_s"] == pytest.approx(15e9 / 60e9, rel=1e-12)
    # ZeRO-Offload: gradients and the 12 optimizer bytes leave the card, the 2 B parameters remain
    assert body["memory"]["per_gpu_bytes"] == 2 * P
    assert body["memory"]["fits"]
    # host memory per node: (4 B fp32 gradient partition + 12 B) x shard for each of the 8 GPUs
    assert body["memory"]["host_bytes"] == 16 * shard * 8
    host_rows = [r["state"] for r in body["memory"]["breakdown"] if r["location"] == "host"]
    assert host_rows == ["optimizer_gradients", "master_weights", "momentum", "variance"]


def test_zero_offload_two_bytes_down_two_up(client):
    # Ren et al. 2021, section 4.1: per step, 2M bytes of fp16 gradients go to the CPU and 2M bytes of
    # fp16 parameters come back (M weights), here on one GPU
    m = 1_000_000_000
    body = plan(
        client,
        "zero2",
        world_size=1,
        parameter_count=m,
        precision="mixed_fp16_adam",
        levers={"offload_optimizer": True},
    )
    assert body["traffic"]["pcie_bytes_per_gpu"] == 2 * m + 2 * m


def test_full_recomputation_costs_a_third_more_compute(client):
    shape = {"micro_batch_size": 1, "sequence_length": 4096, "utilisation": 0.4}
    none = plan(client, training=shape)
    full = plan(client, training=shape, levers={"recompute": "full"})
    tokens = 8 * 1 * 4096
    assert none["time"]["tokens_per_step"] == tokens
    assert none["time"]["compute_flops"] == 6 * P * tokens
    assert full["time"]["compute_flops"] == full["time"]["hardware_flops_per_step"] == 8 * P * tokens
    assert full["time"]["model_flops_per_step"] == 6 * P * tokens
    # the utilisation is the MFU of the run as asked: the same model FLOPs in the same time, and a
    # third more hardware FLOPs in it
    assert full["time"]["compute_s"] == pytest.approx(none["time"]["compute_s"], rel=1e-12)
    assert full["time"]["hfu"] / full["time"]["mfu"] == pytest.approx(4 / 3, rel=1e-12)
    # seed-80gb assumes an H100-class peak, 989.4 TFLOP/s, here at the utilisation 0.4 the request gives
    assert none["time"]["compute_s"] == pytest.approx(6 * P * tokens / (8 * 989.4e12 * 0.4), rel=1e-12)


def test_mxfp8_saves_twelve_percent_of_state_and_about_half_the_wire(client):
    p = 32 * 10**9  # a multiple of 32: whole MX blocks
    base = plan(client, "ddp", parameter_count=p)
    mx = plan(client, "ddp", parameter_count=p, levers={"mxfp8": True})
    # parameters and gradients: 2 x (1 + 1/32) B instead of 2 x 2 B; the other 12 B unchanged
    assert mx["memory"]["per_gpu_bytes"] == p * 12 + 2 * (p + p // 32)
    saved = 1 - mx["memory"]["per_gpu_bytes"] / base["memory"]["per_gpu_bytes"]
    assert round(saved, 3) == 0.121
    wire_saved = 1 - mx["traffic"]["bytes_sent_per_gpu"] / base["traffic"]["bytes_sent_per_gpu"]
    assert round(wire_saved, 2) == 0.48
    assert any("Blackwell" in w for w in mx["warnings"])
    b200 = {"world_size": 8, "gpus_per_node": 8, "gpu": "b200"}
    on_b200 = plan(client, "ddp", parameter_count=p, levers={"mxfp8": True}, cluster=b200)["warnings"]
    assert not any("Blackwell" in w for w in on_b200)


# Collectives are priced at NCCL's bus bandwidth whether or not training.utilisation is given (it sets the
# compute's efficiency and nothing else): 370 GB/s of NVLink's 450 line rate (NVIDIA/nccl-tests issue 212),
# 96 GB/s of 4 x 200 Gb/s NICs per node (NVIDIA/nccl-tests issue 119); each call's latency as NCCL's tuning
# model predicts it. Before, a given utilisation silently priced line rates and a hierarchical schedule instead.
NVLINK_BUS = 450e9 * 370 / 450
NIC_BUS_PER_NODE = 8 * 50e9 * 96 / 100


def test_the_last_bucket_is_never_hidden(client):
    # A long sequence makes the backward pass far longer than the all-reduce; one bucket stays exposed.
    long = {"micro_batch_size": 1, "sequence_length": 1_000_000, "utilisation": 0.4}
    body = plan(client, "ddp", training=long)
    # One 25 MiB bucket (PyTorch DDP's bucket_cap_mb) on 8 GPUs of one node, as NCCL's tuning model prices it
    # (NVIDIA/nccl src/graph/tuning.cc@5067397c): ring/LL128 wins, base 14 us + 14 steps x 1.9 us NVLink latency,
    # and 0.92 of the 370 GB/s bus bandwidth (below 16 channels x 36.7 GB/s), x 8 / 14 as algorithm bandwidth.
    # Before, each bucket was 14 hops x 3 us + its bytes at the full bus bandwidth.
    # The 60e9-byte gradient buffer is cut into ceil(60e9 / 25 MiB) = 2,289 equal calls.
    calls = -(-2 * P // (25 * 2**20))
    per_call = -(-2 * P // calls)
    latency_us = 14.0 + 14 * 1.9
    bucket_s = (latency_us + per_call / (1000 * (NVLINK_BUS / 1e9 * 0.92) * 8 / 14)) * 1e-6
    assert body["time"]["exposed_communication_s"] == pytest.approx(bucket_s, rel=1e-12)
    assert body["time"]["exposed_communication_s"] > 0
    no_overlap = plan(client, "ddp", training=long, levers={"overlap": False})
    assert no_overlap["time"]["exposed_communication_s"] == no_overlap["time"]["communication_s"]


def test_a_ring_across_two_nodes_is_priced_alike_with_or_without_a_utilisation(client):
    given = plan(client, "ddp", world_size=16, training={"utilisation": 0.4})
    modelled = plan(client, "ddp", world_size=16)
    # A 60e9-byte bf16 all-reduce over 16 ranks on two nodes, in 25 MiB buckets (PyTorch DDP's bucket_cap_mb):
    # 2,289 equal calls. NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc@5067397c) picks ring/LL128: base
    # 14 us, 28 of its 30 steps inside a node at NVLink's 1.9 us (above the 1 us network post overhead) and only
    # 2 (nodes - 1) = 2 across at the network's 4 us; bandwidth 0.92 of the bus bandwidth, x 16 / 30. Before,
    # every one of the 30 hops of every call paid the 10 us inter-node latency, and each call 10.14 us more.
    calls = -(-2 * P // (25 * 2**20))
    per_call = -(-2 * P // calls)
    latency_us = 14.0 + 28 * 1.9 + 2 * 4.0
    bus_gbps = min(NVLINK_BUS, NIC_BUS_PER_NODE) / 1e9 * 0.92
    ring_s = calls * (latency_us + per_call / (1000 * bus_gbps * 16 / 30)) * 1e-6
    overhead_s = 0.0
    for body in (given, modelled):
        assert body["time"]["communication_s"] == pytest.approx(ring_s + overhead_s, rel=1e-12)
        assert body["time"]["schedule"] == "flat"
        (reduce,) = body["traffic"]["collectives"]
        assert (reduce["calls"], reduce["algorithm"]) == (calls, "ring/LL128")
        assert reduce["latency_s"] == pytest.approx(calls * latency_us * 1e-6, rel=1e-12)
    for term in ("communication_s", "optimizer_s"):
        assert given["time"][term] == modelled["time"][term]
    assert given["time"]["compute_s"] != modelled["time"]["compute_s"]


def test_more_gpus_never_move_the_floor(client):
    arch = {"preset": "llama-2-13b"}
    floors = set()
    for world_size in (8, 16, 64, 512):
        body = plan(client, "zero1", world_size=world_size, model=arch, training={"sequence_length": 4096})
        floors.add(body["memory"]["replicated_floor_bytes"])
        assert body["memory"]["activations_bytes"] > 0
    assert len(floors) == 1


def test_gradient_accumulation_counts_per_micro_batch_collectives(client):
    training = {"gradient_accumulation_steps": 4}
    counts = {
        name: [
            (c["name"], c["count_per_step"]) for c in plan(client, name, training=training)["traffic"]["collectives"]
        ]
        for name in ("ddp", "zero1", "zero2", "zero3")
    }
    assert counts["ddp"] == [("all_reduce", 1)]
    assert counts["zero1"] == [("reduce_scatter", 1), ("all_gather", 1)]
    assert counts["zero2"] == [("reduce_scatter", 4), ("all_gather", 1)]
    assert counts["zero3"] == [("all_gather", 4), ("all_gather", 4), ("reduce_scatter", 4)]
    assert plan(client, "zero3", training=training)["traffic"]["volume_in_p"] == 12.0


def test_hybrid_shards_inside_a_node(client):
    body = plan(client, "hybrid", world_size=32)
    assert body["memory"]["per_gpu_bytes"] == 16 * P // 8  # ZeRO-3 over G = 8, not N = 32
    node_shard = P // 8
    in_node = 3 * 7 * node_shard * 2  # two all-gathers and a reduce-scatter inside the node
    across = 2 * 3 * (-(-node_shard // 4)) * 2  # all-reduce of the shard over 4 nodes
    assert body["traffic"]["bytes_sent_per_gpu"] == in_node + across
    assert body["traffic"]["intra_node_bytes_per_gpu"] == in_node
    assert body["traffic"]["inter_node_bytes_per_gpu"] == across


def test_gpt3_activations_by_the_published_formula(client):
    s, b, h, a = 2048, 1, 12288, 96
    assert 5 * a * s // h == 80
    body = plan(
        client,
        "zero3",
        world_size=64,
        model=GPT3,
        training={"micro_batch_size": b, "sequence_length": s},
        activations={"model": "transformer", "flash_attention": False},
    )
    comps = {c["name"]: c["bytes"] for c in body["memory"]["activations"]["components"]}
    per_layer = s * b * h * (34 + 80)
    assert comps["layers"] == 96 * per_layer
    # the loss's peak, PyTorch's cross_entropy on logits.float(): bf16 logits, fp32 log-softmax, its fp32 gradient
    assert (
        comps["loss peak: bf16 logits, fp32 log-softmax and its fp32 gradient (10sbV)"] == (2 + 4 + 4) * s * b * 50257
    )
    selective = plan(
        client,
        "zero3",
        world_size=64,
        model=GPT3,
        training={"micro_batch_size": b, "sequence_length": s},
        activations={"model": "transformer", "flash_attention": False},
        levers={"recompute": "selective"},
    )
    layers_selective = [c["bytes"] for c in selective["memory"]["activations"]["components"] if "34sbh" in c["name"]]
    assert layers_selective == [96 * 34 * s * b * h]
    assert round(1 - layers_selective[0] / comps["layers"], 2) == 0.70  # "selective saves 70%" (section 6)


def test_fudge_model_is_labelled(client):
    body = plan(
        client,
        "zero3",
        model={"preset": "llama-2-7b"},
        training={"micro_batch_size": 2, "sequence_length": 4096},
        activations={"model": "fudge", "fudge": 10},
    )
    activations = body["memory"]["activations"]
    assert activations["fudge"] == 10
    assert activations["bytes"] == 2 * 4096 * 4096 * 32 * 2 * 10


def test_architecture_gives_the_parameter_count(client):
    llama3_8b = {
        "layers": 32,
        "hidden_size": 4096,
        "attention_heads": 32,
        "kv_heads": 8,
        "ffn_hidden_size": 14336,
        "vocab_size": 128256,
        "mlp": "swiglu",
    }
    body = plan(client, "ddp", model=llama3_8b)
    assert body["parameter_count"] == 8_030_261_248  # Meta-Llama-3-8B model card
    mismatch = plan(client, "ddp", model={"preset": "llama-2-7b", "parameter_count": 7_000_000_000})
    assert mismatch["parameter_count"] == 6_738_415_616 and "differs" in mismatch["warnings"][0]


@pytest.mark.parametrize(
    ("extra", "pointer"),
    [
        ({"arrangement": "zero2", "levers": {"offload_parameters": True}}, "/levers"),
        (
            {"arrangement": "hybrid", "cluster": {"world_size": 4, "gpus_per_node": 8, "gpu": "seed-80gb"}},
            "/arrangement",
        ),
        ({"training": {"utilisation": 0}}, "/training/utilisation"),
        ({"training": {"utilisation": 1.5}}, "/training/utilisation"),
        ({"activations": {"model": "transformer"}}, "/activations/model"),
        ({"levers": {"recompute": "sometimes"}}, "/levers/recompute"),
        ({"cluster": {"world_size": 8, "gpu": "seed-80gb", "links": "carrier-pigeon"}}, "/cluster/links"),
    ],
)
def test_bad_lever_combinations_are_problems(client, extra, pointer):
    body = {"model": {"parameter_count": P}, "cluster": {"world_size": 8, "gpu": "seed-80gb"}, "arrangement": "zero3"}
    body.update(extra)
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert pointer in [e["pointer"] for e in response.json()["errors"]]


def test_fit_takes_levers(client):
    body = {
        "model": {"parameter_count": P},
        "cluster": {"gpu": "seed-80gb"},
        "max_gpus": 64,
        "levers": {"offload_optimizer": True},
    }
    fit = {a["arrangement"]: a for a in client.post("/v1/fit", json=body).json()["arrangements"]}
    # offloaded: ZeRO-1 keeps 2 + 2 B/weight = 120e9 > 80e9; ZeRO-2 keeps only its 2 B parameters
    # (the gradients go to the host): 60e9 fits on one GPU
    assert fit["zero1"]["never_fits"]
    assert fit["zero2"]["min_gpus_exact"] == 1


def test_recommend_orders_by_computed_cost(client):
    body = {"model": {"parameter_count": P}, "cluster": {"gpu": "seed-80gb", "gpus_per_node": 8}, "max_gpus": 64}
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    steps = answer["steps"]
    assert [s["rank"] for s in steps] == list(range(1, len(steps) + 1))
    # steps that fit come first (before, an MXFP8 step that fits was ranked after data parallel, which never
    # does); among them levers that need hardware the card lacks come last
    fitting = [s["fits"] for s in steps]
    assert fitting == sorted(fitting, reverse=True)
    hardware = [s["cost"]["hardware"] is not None for s in steps if s["fits"]]
    assert hardware == sorted(hardware)
    first = answer["recommendation"]
    assert first == next(s for s in steps if s["fits"])
    by_name = {(s["arrangement"], s["levers"]["offload_optimizer"], s["levers"]["mxfp8"]): s for s in steps}
    assert by_name[("ddp", False, False)]["fits"] is False
    assert by_name[("zero1", False, False)]["fits"] is False
    assert by_name[("zero2", False, False)]["min_gpus"] == 24  # exact 22, rounded up to whole nodes
    assert by_name[("zero3", False, False)]["min_gpus"] == 6
    assert by_name[("zero3", False, False)]["cost"]["extra_traffic_fraction"] == 0.5
    assert "+50% wire volume" in by_name[("zero3", False, False)]["why"]
    assert by_name[("zero2", False, False)]["cost"]["extra_traffic_fraction"] == 0
    assert by_name[("zero2", True, False)]["cost"]["pcie_bytes_per_gpu"] > 0
    questions = {q["question"]: q for q in answer["questions"]}
    assert len(questions) == 4
    assert questions["ZeRO-2 on more GPUs, or ZeRO-3 on fewer?"]["relevant"]


def test_recommend_prices_traffic_with_gradient_accumulation(client):
    # k = 4 micro-batches: DP all-reduces once (2P); ZeRO-2 reduce-scatters 4 times and gathers once
    # (5P: +150%); ZeRO-3 gathers twice and reduce-scatters once per micro-batch (12P: +500%)
    body = {
        "model": {"parameter_count": P},
        "cluster": {"gpu": "seed-80gb", "gpus_per_node": 8},
        "max_gpus": 64,
        "training": {"gradient_accumulation_steps": 4},
    }
    steps = client.post("/v1/recommend", json=body).json()["steps"]
    plain = {s["arrangement"]: s for s in steps if not any(s["levers"][k] for k in ("offload_optimizer", "mxfp8"))}
    assert plain["zero1"]["cost"]["extra_traffic_fraction"] == pytest.approx(0.0, abs=1e-12)
    assert plain["zero2"]["cost"]["extra_traffic_fraction"] == pytest.approx(5 / 2 - 1, rel=1e-12)
    assert plain["zero3"]["cost"]["extra_traffic_fraction"] == pytest.approx(12 / 2 - 1, rel=1e-12)
    assert "+150% wire volume" in plain["zero2"]["why"]


def test_both_offloads_fetch_parameters_and_send_no_update_up(client):
    # ZeRO-3, N = 8, parameters and optimizer state in host memory, one micro-batch: gradients down
    # (2 B x shard) and the parameter shard fetched for the forward and again for the backward (2 x 2 B)
    body = plan(client, "zero3", levers={"offload_optimizer": True, "offload_parameters": True})
    shard = P // 8
    assert body["traffic"]["pcie_bytes_per_gpu"] == 2 * shard + 2 * 2 * shard
