"""/v1/recommend prices its steps with /v1/plan's model and lists no lever that changes nothing.

Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models"), table 2
and section 4.2: a layer keeps 34sbh + 5as^2b bytes of activations; selective recomputation drops
the 5as^2b of attention scores, softmax and dropout outputs and recomputes them (the attention
core's forward, 4 x L x h x s FLOPs per token) in the backward. Flash attention never stores the
scores, so with it selective recomputation saves no byte and costs no FLOP.
"""

import pytest

L, H, A, V, S, B = 4, 2048, 16, 32000, 4096, 1
ARCH = {"layers": L, "hidden_size": H, "attention_heads": A, "ffn_hidden_size": 4 * H, "vocab_size": V, "mlp": "gelu"}
TRAINING = {"micro_batch_size": B, "sequence_length": S}
CLUSTER = {"gpus_per_node": 8, "gpu": "h100-80gb"}
# Korthikanti table 2 and section 4.3 with flash attention: 34sbh per layer, the embedding's dropout
# mask (sbh), the final norm and projection inputs (4sbh); the loss's peak (service.memory.activations): bf16
# logits, fp32 log-softmax and its fp32 gradient (2 + 4 + 4 sbV)
FLASH_ACTIVATIONS = L * 34 * S * B * H + S * B * H + 4 * S * B * H + 10 * S * B * V
SCORES = L * 5 * A * S * S * B  # what flash attention never stores, and selective recomputation drops


def recommend(client, **extra):
    body = {"model": ARCH, "training": TRAINING, "cluster": CLUSTER, "max_gpus": 8} | extra
    response = client.post("/v1/recommend", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def plan(client, step, **extra):
    body = {
        "model": ARCH,
        "training": TRAINING,
        "cluster": CLUSTER | {"world_size": step["world_size"]},
        "arrangement": step["arrangement"],
        "levers": step["levers"],
    }
    body.update(extra)
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def find(steps, arrangement, recompute):
    return next(
        (
            s
            for s in steps
            if s["arrangement"] == arrangement
            and s["levers"]["recompute"] == recompute
            and not s["levers"]["offload_optimizer"]
            and not s["levers"]["mxfp8"]
        ),
        None,
    )


def test_selective_recomputation_with_flash_attention_is_not_a_step(client):
    answer = recommend(client)
    assert all(s["levers"]["recompute"] != "selective" for s in answer["steps"])
    omitted = {(o["arrangement"], o["levers"]["recompute"]): o for o in answer["omitted"]}
    assert set(omitted) == {("zero2", "selective"), ("zero3", "selective")}
    assert omitted[("zero2", "selective")]["same_as"] == find(answer["steps"], "zero2", "none")["lever"]
    assert "flash attention never stores them" in omitted[("zero2", "selective")]["why"]
    # the arithmetic behind it: the same activation bytes and the same FLOPs with and without the lever
    zero2 = find(answer["steps"], "zero2", "none")
    none = plan(client, zero2)
    selective = plan(client, zero2 | {"levers": zero2["levers"] | {"recompute": "selective"}})
    assert none["memory"]["activations_bytes"] == selective["memory"]["activations_bytes"] == FLASH_ACTIVATIONS
    p = none["parameter_count"]
    tokens = zero2["world_size"] * S * B
    flops = tokens * (6 * (p - V * H) + 12 * L * H * S)  # 6N + 12Lhs, N without the input embedding (a lookup)
    assert none["time"]["hardware_flops_per_step"] == selective["time"]["hardware_flops_per_step"] == flops


def test_selective_recomputation_without_flash_attention_is_a_step(client):
    answer = recommend(client, activations={"flash_attention": False})
    assert answer["omitted"] == []
    for arrangement in ("zero2", "zero3"):
        plain, selective = find(answer["steps"], arrangement, "none"), find(answer["steps"], arrangement, "selective")
        assert selective is not None
        assert selective["world_size"] == plain["world_size"]
        assert plain["per_gpu_bytes"] - selective["per_gpu_bytes"] == SCORES
        assert selective["step_s"] > plain["step_s"]
        p = answer["parameter_count"]
        model = 6 * (p - V * H) + 12 * L * H * S
        assert selective["cost"]["extra_compute_fraction"] == pytest.approx(4 * L * H * S / model, rel=1e-12)


def test_recommend_prices_its_steps_as_plan_does(client):
    # the efficiency model by default (training.utilisation null): every step is its plan
    answer = recommend(client)
    assert {s["levers"]["recompute"] for s in answer["steps"]} == {"none", "full"}
    for step in answer["steps"]:
        planned = plan(client, step)
        assert step["per_gpu_bytes"] == planned["memory"]["per_gpu_bytes"]
        assert step["step_s"] == pytest.approx(planned["time"]["step_s"], rel=1e-12)
    # a given MFU holds for the request's own recomputation (none): the steps that keep it are their plans;
    # a recomputation step keeps its hardware efficiency instead (tests/fit/test_flops.py)
    training = TRAINING | {"utilisation": 0.4}
    for step in recommend(client, training=training)["steps"]:
        if step["levers"]["recompute"] == "none":
            planned = plan(client, step, training=training)
            assert step["step_s"] == pytest.approx(planned["time"]["step_s"], rel=1e-12)


def test_with_a_given_utilisation_selective_recomputation_with_flash_attention_still_changes_nothing(client):
    answer = recommend(client, training=TRAINING | {"utilisation": 0.4})
    assert all(s["levers"]["recompute"] != "selective" for s in answer["steps"])
    assert {o["levers"]["recompute"] for o in answer["omitted"]} == {"selective"}


def test_recomputation_is_omitted_when_activations_are_not_counted(client):
    body = {"model": {"parameter_count": 30_000_000_000}, "cluster": {"gpu": "seed-80gb", "gpus_per_node": 8}}
    answer = client.post("/v1/recommend", json=body | {"max_gpus": 64}).json()
    assert all(s["levers"]["recompute"] == "none" for s in answer["steps"])
    omitted = {(o["arrangement"], o["levers"]["recompute"]) for o in answer["omitted"]}
    assert omitted == {("zero2", "selective"), ("zero3", "selective"), ("zero3", "full")}
    assert all("activations are not counted" in o["why"] for o in answer["omitted"])
