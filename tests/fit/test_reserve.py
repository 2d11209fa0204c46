"""The reserve: fits compares per-GPU bytes with the card less its CUDA context, NCCL buffers and fragmentation.

Expected values are written out from the preset figures' sources: 723 MiB CUDA context (PyTorch
forum measurement), 688 MiB NCCL buffers (NVIDIA/nccl issue 964, 4 x A100), 10% fragmentation
(GMLake, ASPLOS 2024: 9.2 GB of 80 GB on average).
"""

import pytest

MIB = 2**20
H100_CARD = 81_559 * MIB
RESERVE = (723 + 688) * MIB
FRAGMENTATION = -(-H100_CARD // 10)  # ceil(0.1 x card)
H100_USABLE = H100_CARD - RESERVE - FRAGMENTATION


def plan(client, cluster, parameter_count=40_000_000_000, arrangement="zero3", **extra):
    body = {"model": {"parameter_count": parameter_count}, "cluster": cluster, "arrangement": arrangement, **extra}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def h100(world_size=8, **extra):
    return {"world_size": world_size, "gpus_per_node": 8, "gpu": "h100-80gb", **extra}


def test_the_h100_preset_keeps_a_reserve_and_fragmentation(client):
    memory = plan(client, h100())["memory"]
    assert memory["card_bytes"] == H100_CARD == 85_520_809_984
    assert memory["reserve_bytes"] == RESERVE == 1_479_540_736
    assert memory["fragmentation_bytes"] == FRAGMENTATION == 8_552_080_999
    assert memory["usable_bytes"] == H100_USABLE == 75_489_188_249
    assert "75,489,188,249 B usable" in memory["usable_arithmetic"]


def test_fits_is_decided_against_the_usable_bytes(client):
    # ZeRO-3, 40e9 weights on 8 GPUs: 16 x 40e9 / 8 = 80e9 B, under the card, over what is usable
    memory = plan(client, h100())["memory"]
    assert memory["per_gpu_bytes"] == 80_000_000_000
    assert H100_USABLE < 80_000_000_000 < H100_CARD
    assert memory["fits"] is False
    assert memory["headroom_bytes"] == H100_USABLE - 80_000_000_000
    bare = plan(client, {"world_size": 8, "gpus_per_node": 8, "gpu_memory_bytes": H100_CARD})["memory"]
    assert bare["reserve_bytes"] == bare["fragmentation_bytes"] == 0
    assert bare["usable_bytes"] == H100_CARD and bare["fits"] is True


def test_the_request_overrides_the_presets_reserve(client):
    memory = plan(client, h100(reserve_bytes=0, fragmentation=0))["memory"]
    assert memory["usable_bytes"] == H100_CARD and memory["fits"] is True
    own = plan(client, h100(reserve_bytes=10**9, fragmentation=0.05))["memory"]
    assert own["usable_bytes"] == H100_CARD - 10**9 - -(-H100_CARD * 5 // 100)
    sized = {"world_size": 8, "gpus_per_node": 8, "gpu_memory_bytes": 80 * 10**9, "reserve_bytes": 2 * 10**9}
    assert plan(client, sized, 30 * 10**9)["memory"]["usable_bytes"] == 78 * 10**9


def test_the_seed_card_keeps_the_textbook_table(client):
    memory = plan(client, {"world_size": 6, "gpus_per_node": 1, "gpu": "seed-80gb"}, 30 * 10**9)["memory"]
    assert memory["usable_bytes"] == memory["card_bytes"] == 80 * 10**9
    assert memory["per_gpu_bytes"] == 80 * 10**9 and memory["fits"] is True  # to the byte


def test_fit_minimums_use_the_usable_bytes(client):
    p = 30 * 10**9
    body = {"model": {"parameter_count": p}, "cluster": {"gpus_per_node": 1, "gpu": "h100-80gb"}, "max_gpus": 64}
    answer = client.post("/v1/fit", json=body).json()
    assert answer["usable_bytes"] == H100_USABLE
    zero3 = next(a for a in answer["arrangements"] if a["arrangement"] == "zero3")
    # smallest N with 16 B x ceil(P / N) <= usable
    expected = next(n for n in range(1, 100) if 16 * -(-p // n) <= H100_USABLE)
    assert zero3["min_gpus_exact"] == expected == 7  # the bare card would take 6: 16 x 5e9 = 80e9 <= 85.5e9
    assert "usable" in zero3["reason"]


def test_recommend_fits_the_usable_bytes(client):
    body = {"model": {"parameter_count": 30 * 10**9}, "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"}}
    answer = client.post("/v1/recommend", json=body).json()
    assert answer["usable_bytes"] == H100_USABLE
    assert answer["recommendation"]["per_gpu_bytes"] <= H100_USABLE
    assert all(s["per_gpu_bytes"] <= H100_USABLE for s in answer["steps"] if s["fits"])


def test_presets_show_the_reserve_they_apply(client):
    gpus = {g["name"]: g for g in client.get("/v1/presets").json()["gpus"]}
    assert gpus["h100-80gb"]["reserve_bytes"] == RESERVE and gpus["h100-80gb"]["fragmentation"] == 0.1
    assert gpus["h100-80gb"]["usable_bytes"] == H100_USABLE
    assert "nccl" in gpus["h100-80gb"]["reserve_source"].lower()
    assert gpus["seed-80gb"]["reserve_bytes"] == 0 and gpus["seed-80gb"]["usable_bytes"] == 80 * 10**9


@pytest.mark.parametrize(
    ("cluster", "pointer"),
    [
        (h100(reserve_bytes=-1), "/cluster/reserve_bytes"),
        (h100(fragmentation=1), "/cluster/fragmentation"),
        (h100(fragmentation=-0.1), "/cluster/fragmentation"),
        (h100(reserve_bytes=H100_CARD), "/cluster/reserve_bytes"),
        (h100(reserve_bytes=0, fragmentation=0.9999999999999), "/cluster/fragmentation"),
    ],
)
def test_out_of_range_reserve_is_a_422_naming_the_field(client, cluster, pointer):
    body = {"model": {"parameter_count": 10**9}, "cluster": cluster, "arrangement": "zero3"}
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert pointer in [e["pointer"] for e in problem["errors"]]
    assert pointer.rsplit("/", 1)[1] in problem["detail"]


def test_an_omitted_training_block_means_the_default_shape_and_model_states_only_is_asked_for(client):
    # Llama-3-70B, ZeRO-3, 64 H100s. An omitted training block used to mean "model states only" (16.4 GiB)
    # while the step time was computed at 1 x 2048 tokens, the shape whose activations it left out; it is
    # now the empty block: the default shape, its activations counted (the step and the memory agree).
    body = {"model": {"preset": "llama-3-70b"}, "cluster": h100(64), "arrangement": "zero3"}
    bare = client.post("/v1/plan", json=body).json()
    empty = client.post("/v1/plan", json={**body, "training": {}}).json()
    assert bare["memory"] == empty["memory"] and bare["time"] == empty["time"]
    assert bare["memory"]["activations_counted"] is True
    assert bare["memory"]["model_state_bytes"] == 16 * 70_553_706_496 // 64
    assert bare["memory"]["activations_bytes"] > 0
    assert not any("activations are not counted" in w for w in bare["warnings"])
    # model states only, when asked for, is said in a field, without a warning
    asked = client.post("/v1/plan", json={**body, "activations": {"model": "none"}}).json()
    assert asked["memory"]["activations_counted"] is False
    assert asked["memory"]["per_gpu_bytes"] == bare["memory"]["per_gpu_bytes"] - bare["memory"]["activations_bytes"]
    assert not any("activations are not counted" in w for w in asked["warnings"])


def test_a_bare_count_with_a_shape_says_why_activations_are_not_counted(client):
    body = {"model": {"parameter_count": 10**9}, "cluster": h100(), "arrangement": "zero3", "training": {}}
    answer = client.post("/v1/plan", json=body).json()
    assert answer["memory"]["activations_counted"] is False
    assert any("no architecture" in w for w in answer["warnings"])
    fit = client.post("/v1/fit", json={"model": {"parameter_count": 10**9}, "cluster": {"gpu": "h100-80gb"}}).json()
    assert fit["activations_counted"] is False
    assert any("activations are not counted" in w for w in fit["warnings"])
