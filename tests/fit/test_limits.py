"""POST /v1/limits: the largest model, micro-batch and sequence that fit, as integer boundaries.

The ZeRO paper's table 2 (Rajbhandari et al. 2020: the largest model per data-parallel degree on
a 32 GB V100 with mixed-precision Adam, K = 12) through the endpoint; micro-batch and sequence
limits from Korthikanti et al.'s activation formula written out here.
"""

import pytest

ZERO_TABLE_2 = 32 * 10**9  # the paper's 32 GB card, in bytes (its 7.6B and 14.4B at 64 GPUs need 1e9-byte GB)


def limits(client, **body):
    response = client.post("/v1/limits", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def largest(answer):
    return {a["arrangement"]: a["largest_parameter_count_model_states_only"] for a in answer["arrangements"]}


@pytest.mark.parametrize("world_size", [1, 4, 16, 64, 256, 1024])
def test_the_zero_papers_table_2(client, world_size):
    answer = limits(
        client,
        precision="mixed_fp16_adam",
        cluster={"world_size": world_size, "gpus_per_node": 8, "gpu_memory_bytes": ZERO_TABLE_2},
    )
    sizes = largest(answer)
    # P_os+g+p: 16 B / N per weight, so 2B per GPU: 2B, 8B, 32B, 128B, 512B, 2T
    assert sizes["zero3"] == 2 * 10**9 * world_size
    # P_os: 4 + 12/N, P_os+g: 2 + 14/N bytes per weight
    assert sizes["zero1"] == max(p for p in _near(ZERO_TABLE_2 / (4 + 12 / world_size)) if _zero1(p, world_size))
    assert sizes["zero2"] == max(p for p in _near(ZERO_TABLE_2 / (2 + 14 / world_size)) if _zero2(p, world_size))
    assert sizes["ddp"] == 2 * 10**9  # 16 B per weight on every GPU, whatever N
    table = {1: (2, 2), 64: (7.6, 14.4), 1024: (8, 16)}  # the paper's P_os and P_os+g columns, in billions
    if world_size in table:
        pos, posg = table[world_size]
        digits = 0 if world_size != 64 else 1
        assert (round(sizes["zero1"] / 1e9, digits), round(sizes["zero2"] / 1e9, digits)) == (pos, posg)
    for a in answer["arrangements"]:
        assert a["largest_micro_batch_size"] is None and a["largest_micro_batch_size_arithmetic"] is None
    assert answer["parameter_count"] is None
    assert all(a["largest_parameter_count"] is None for a in answer["arrangements"])  # no shape: no real model
    assert ["largest_parameter_count_model_states_only" in w for w in answer["warnings"]] == [True]


def _near(estimate):
    centre = int(estimate)
    return range(centre - 2048, centre + 2048)


def _zero1(p, n):
    return 2 * p + 2 * p + 12 * -(-p // n) <= ZERO_TABLE_2


def _zero2(p, n):
    return 2 * p + 14 * -(-p // n) <= ZERO_TABLE_2


def test_the_arithmetic_names_the_boundary(client):
    answer = limits(client, cluster={"world_size": 4, "gpu_memory_bytes": ZERO_TABLE_2}, arrangement="zero3")
    [zero3] = answer["arrangements"]
    assert zero3["arrangement"] == "zero3" and zero3["largest_parameter_count_model_states_only"] == 8 * 10**9
    words = zero3["largest_parameter_count_model_states_only_arithmetic"]
    assert "P = 8,000,000,000: 32,000,000,000 B <=" in words
    assert "P = 8,000,000,001: 32,000,000,016 B > usable" in words


H, V, L = 4096, 128_256, 32
STATES_8 = 16 * -(-8_030_261_248 // 8)  # ZeRO-3 on 8 GPUs
WORKING_SET = 2_537_586_688  # two adjacent units and one unit's gradients (tests/fit/test_working_set.py)
H100_USABLE = 75_489_188_249  # tests/fit/test_reserve.py


def activations(b, s):
    # Korthikanti et al. table 2 with flash attention: 34sbh per layer, the embedding's dropout mask sbh,
    # the final norm and output projection inputs 4sbh; the loss's peak of PyTorch's cross_entropy on
    # logits.float(): bf16 logits 2sbV, fp32 log-softmax 4sbV and its fp32 gradient 4sbV
    return L * 34 * s * b * H + s * b * H + 4 * s * b * H + (2 + 4 + 4) * s * b * V


def test_llama_3_8b_largest_micro_batch_and_longest_sequence(client):
    answer = limits(
        client,
        model={"preset": "llama-3-8b"},
        training={"micro_batch_size": 1, "sequence_length": 2048},
        cluster={"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
        arrangement="zero3",
    )
    [zero3] = answer["arrangements"]
    room = H100_USABLE - STATES_8 - WORKING_SET
    expected_b = room // activations(1, 2048)
    assert zero3["largest_micro_batch_size"] == expected_b == 4
    expected_s = room // activations(1, 1)  # activations are linear in s with flash attention
    assert zero3["longest_sequence_length"] == expected_s == 9_877
    assert f"b = {expected_b + 1}" in zero3["largest_micro_batch_size_arithmetic"]
    assert answer["parameter_count"] == 8_030_261_248 and answer["usable_bytes"] == H100_USABLE


def test_null_when_even_the_smallest_does_not_fit_and_why(client):
    answer = limits(
        client,
        model={"preset": "llama-3-70b"},
        cluster={"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
    )
    ddp = next(a for a in answer["arrangements"] if a["arrangement"] == "ddp")
    assert ddp["largest_micro_batch_size"] is None and ddp["longest_sequence_length"] is None
    assert "not even the smallest fits" in ddp["largest_micro_batch_size_arithmetic"]
    bare = limits(client, model={"parameter_count": 10**9}, cluster={"world_size": 8, "gpu": "h100-80gb"})
    for a in bare["arrangements"]:
        assert a["largest_micro_batch_size"] is None
        assert "activations are not counted" in a["largest_micro_batch_size_arithmetic"]


def test_limits_validate_like_plan(client):
    response = client.post("/v1/limits", json={"cluster": {"world_size": 8, "gpu": "h100-80gb", "reserve_bytes": -1}})
    assert response.status_code == 422
    assert response.json()["errors"][0]["pointer"] == "/cluster/reserve_bytes"


def test_the_command_line_prints_the_limits(capsys):
    from cli.main import run

    code = run(["limits", "--gpu-memory-bytes", "32e9", "--world-size", "64", "--precision", "mixed_fp16_adam"])
    out = capsys.readouterr().out
    assert code == 0
    assert "128,000,000,000" in out  # ZeRO-3 at 64 GPUs: 16 B x 128e9 / 64 = 32e9 B, the whole card


NEWCOMER = {
    "model": {"preset": "llama-3-70b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
}


def plan(client, body):
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"levers": {"recompute": "full"}},
        {
            "parallelism": {"tensor": 8, "pipeline": 2},
            "training": {"micro_batch_size": 1, "sequence_length": 8192, "gradient_accumulation_steps": 4},
        },
    ],
    ids=["no-recompute", "full-recompute", "t8-p2"],
)
def test_the_largest_model_of_the_family_counts_activations_and_the_working_set(client, extra):
    """Llama 3 70B's family (its width, layers varied) on 64 H100 at 8K tokens: the largest member that fits, as
    /v1/plan itself plans it with its activations and working set, and one more stage of layers does not fit."""
    body = NEWCOMER | extra
    zero3 = limits(client, **body)["arrangements"][0]
    layers, p = zero3["largest_layers"], zero3["largest_parameter_count"]
    step = body.get("parallelism", {}).get("pipeline", 1)
    member = plan(client, body | {"model": {"preset": "llama-3-70b", "layers": layers}})
    assert member["parameter_count"] == p and member["memory"]["fits"]
    assert member["memory"]["activations_bytes"] > 0 and member["memory"]["working_set_bytes"] > 0
    above = plan(client, body | {"model": {"preset": "llama-3-70b", "layers": layers + step}})
    assert not above["memory"]["fits"]
    # the model-states-only bound is a separate, larger number: each GPU holds ceil(P / 64) weights' 16 bytes
    usable = member["memory"]["usable_bytes"]
    assert zero3["largest_parameter_count_model_states_only"] == 64 * (usable // 16)
    assert p < zero3["largest_parameter_count_model_states_only"]
    assert "activations" in zero3["largest_parameter_count_arithmetic"]


def test_recompute_buys_a_larger_model(client):
    none = limits(client, **NEWCOMER)["arrangements"][0]["largest_layers"]
    full = limits(client, **NEWCOMER, levers={"recompute": "full"})["arrangements"][0]["largest_layers"]
    assert full > none
