"""The search against what practitioners published: the best row's MFU against the best published MFU for the
model's size and GPU generation, and the published layouts, asked as their authors ran them, against the best
row under the same constraints (the same cluster, batch and sequence).

Published figures (model FLOPs utilization: 6N + attention FLOPs per token over the dense BF16 peak):
- GPT-3 175B on A100: Korthikanti et al. 2022 (arXiv 2205.05198), the MFU/HFU table the Megatron-LM README
  reproduces: 175B at 51.4% MFU (52.8% HFU), with sequence parallelism and selective recomputation, the best
  published for that size on A100; Narayanan et al. 2021 (arXiv 2104.04473), section 5.1: 175B on 1,024 A100 at
  batch 1,536 at 140 TFLOP/s per GPU counted with the recomputed forward (44.9% of the 312 TFLOP/s peak) with
  t8 p16, the interleaved schedule and full recomputation (the 2021 Megatron-LM: data-parallel all-reduce, no
  flash attention; the micro-batch 1 and 2 model chunks a stage are not published).
- Llama 3.1 405B on H100 at 8K tokens: Dubey et al. 2024 (arXiv 2407.21783), table 4: 8,192 GPUs with t8 c1 p16
  d64 at 430 TFLOP/s per GPU, 43% BF16 MFU; 16,384 GPUs, d128, 400 TFLOP/s, 41% (38% at 131K tokens with c16).
- Llama 3 70B on 512 H100 at 8K: no layout and throughput of Meta's own is published (Dubey et al. give table 4
  for 405B alone), so it is not among the cases.

A row above the published figure by more than 10%, or a published layout more than 15% slower than the best
row, must have the best row's why name the mechanism in terms a reviewer can check: its contrast with the job as
asked, each named term equal to the difference of the two rows' own time terms, the named terms together
accounting for the gap in step time.
"""

import re

import pytest

from tests.layouts.test_uneven_pipeline import LLAMA_405B_META

A100_BF16_FLOPS = 312e12  # NVIDIA A100 datasheet: dense BF16 tensor core peak
H100_BF16_FLOPS = 989.4e12  # NVIDIA H100 SXM5 datasheet

# Narayanan et al. 2021, section 5.1, as the paper states it (module docstring); the unpublished micro-batch and
# model chunks as the corpus of bench/calibration assumes them (micro-batch 1) and the fewest interleaving (2)
NARAYANAN_GPT3_175B = {
    "model": {"preset": "gpt-3-175b"},
    "precision": "megatron",
    "arrangement": "ddp",
    "cluster": {"world_size": 1024, "gpus_per_node": 8, "gpu": "a100-80gb"},
    "training": {"micro_batch_size": 1, "sequence_length": 2048, "global_batch_size": 1536},
    "parallelism": {"tensor": 8, "pipeline": 16, "pipeline_schedule": "interleaved", "virtual_stages": 2},
    "levers": {"recompute": "full"},
}
META_405B_16K = LLAMA_405B_META | {"cluster": LLAMA_405B_META["cluster"] | {"world_size": 16384}}

# (case, the published job as asked, the best published MFU for the model's size and GPU generation, the peak)
CASES = [
    ("gpt-3-175b on 1,024 A100", NARAYANAN_GPT3_175B, 0.514, A100_BF16_FLOPS),
    ("llama-3.1-405b on 8,192 H100 at 8K", LLAMA_405B_META, 0.43, H100_BF16_FLOPS),
    ("llama-3.1-405b on 16,384 H100 at 8K", META_405B_16K, 0.43, H100_BF16_FLOPS),
]

# The why's names of the step's terms and the time fields they read (the data-parallel part is what the
# communication leaves after the model-parallel groups: the exposed communication less their sum)
TERMS = {
    "compute": "compute_s",
    "overlap slowdown": "overlap_slowdown_s",
    "pipeline bubble": "pipeline_bubble_s",
    "tensor-parallel": "tensor_parallel_s",
    "context-parallel": "context_parallel_s",
    "pipeline send/receive": "pipeline_p2p_s",
    "expert all-to-all": "expert_parallel_s",
    "optimizer step": "optimizer_s",
    "offload": "offload_s",
}
MODEL_PARALLEL = ("tensor_parallel_s", "context_parallel_s", "pipeline_p2p_s", "expert_parallel_s")


def term_seconds(time: dict, name: str) -> float:
    if name == "data-parallel (exposed)":
        return max(0.0, time["exposed_communication_s"] - sum(time[k] for k in MODEL_PARALLEL))
    return time[TERMS[name]]


def against_asked(why: str) -> tuple[float, list[tuple[str, float]]]:
    """The gap and the named terms (signed: more positive) of the why's contrast with the job as asked."""
    clause = why.split("against the job as asked (", 1)[1]
    head = clause.split("): ", 1)[1].split(";", 1)[0]
    gap = re.match(r"([\d.e+-]+) s (shorter|longer)", head)
    assert gap is not None, head
    signed_gap = float(gap.group(1)) * (-1 if gap.group(2) == "shorter" else 1)
    named = [
        (name, float(value) * (1 if sign == "more" else -1))
        for name, value, sign in re.findall(r"([a-z/() -]+?) ([\d.e+-]+) s (more|less)", head.split(": ", 1)[1])
    ]
    return signed_gap, [(name.strip(), value) for name, value in named]


def assert_names_the_mechanism(best: dict, asked: dict) -> None:
    """The best row's why contrasts it with the job as asked: its gap is the two steps' difference, each term it
    names the difference of that term in the two rows (to its three significant figures), and the named terms
    account for at least 90% of the gap."""
    assert "against the job as asked (" in best["why"], best["why"]
    gap, named = against_asked(best["why"])
    assert gap == pytest.approx(best["step_s"] - asked["step_s"], rel=5.01e-3)
    assert named, best["why"]
    for name, value in named:
        actual = term_seconds(best["time"], name) - term_seconds(asked["time"], name)
        assert value == pytest.approx(actual, rel=5.01e-3), (name, value, actual)
    assert sum(value for _, value in named) == pytest.approx(gap, rel=0.10)


_ANSWERS: dict[str, dict] = {}


def searched(client, body: dict) -> dict:
    """The search's answer over HTTP (one request per case in this module)."""
    key = repr(body)
    if key not in _ANSWERS:
        response = client.post("/v1/search", json=body | {"top_k": 3})
        assert response.status_code == 200, response.text
        _ANSWERS[key] = response.json()
    answer = _ANSWERS[key]
    assert answer["asked"] is not None and answer["layouts"]
    return answer


@pytest.mark.parametrize(("body", "published_mfu", "peak"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_no_best_row_above_the_published_mfu_unless_its_why_names_the_mechanism(client, body, published_mfu, peak):
    answer = searched(client, body)
    best = answer["layouts"][0]
    time = best["time"]
    # the MFU from its definition: the step's model FLOPs over the step, per GPU, over the datasheet peak
    mfu = time["model_flops_per_step"] / time["step_s"] / best["world_size"] / peak
    assert mfu == pytest.approx(best["mfu"], rel=1e-6)
    if mfu > 1.10 * published_mfu:
        assert_names_the_mechanism(best, answer["asked"])


@pytest.mark.parametrize("body", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_published_layout_is_near_the_best_or_the_why_names_the_mechanism(client, body):
    answer = searched(client, body)
    best, asked = answer["layouts"][0], answer["asked"]
    assert best["world_size"] == asked["world_size"] == body["cluster"]["world_size"]  # the same constraints
    assert best["step_s"] <= asked["step_s"] or not asked["fits"]
    if asked["step_s"] > 1.15 * best["step_s"]:
        assert_names_the_mechanism(best, asked)


@pytest.mark.parametrize("body", [LLAMA_405B_META, META_405B_16K], ids=["8,192 H100", "16,384 H100"])
def test_meta_405b_layout_is_within_15_percent_of_the_best(client, body):
    """Dubey et al.'s layout predicts a step within 15% of the search's best: the acceptance's first branch."""
    answer = searched(client, body)
    assert answer["asked"]["step_s"] <= 1.15 * answer["layouts"][0]["step_s"]


def test_the_gpt3_175b_best_row_names_recomputation_and_tensor_parallelism(client):
    """The best GPT-3 175B row is above Korthikanti et al.'s 51.4% by more than 10%: its why against Narayanan's
    layout names the compute (recompute none here, full there: the recomputed forward, a third of the layers'
    compute, gone) and the tensor-parallel time (fewer tensor-parallel ranks) as the larger terms."""
    answer = searched(client, NARAYANAN_GPT3_175B)
    best = answer["layouts"][0]
    assert best["mfu"] > 1.10 * 0.514
    assert "recompute full there" in best["why"]
    _, named = against_asked(best["why"])
    assert [name for name, _ in named][:2] == ["compute", "tensor-parallel"]
    assert all(value < 0 for _, value in named[:2])
