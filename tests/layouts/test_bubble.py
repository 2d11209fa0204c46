"""The pipeline bubble of each schedule through POST /v1/plan, from the published formulas.

- Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM"), section 2.2.1: with p stages and m micro-batches a batch idles (p - 1) x (t_f + t_b)
  on each stage, so the bubble time fraction t_pb / t_id = (p - 1) / m, the same for GPipe and for
  PipeDream-Flush (1F1B), which only limits the micro-batches in flight to p; section 2.2.2: the
  interleaved schedule with v model chunks per stage divides it by v: (p - 1) / (v m).
- Huang et al. 2019 (GPipe), section 2.3: the bubble overhead is (K - 1) / (M + K - 1) of the step, K
  partitions and M micro-batches: the same idle time as a share of compute plus bubble.
- Qi et al. 2023 ("Zero Bubble Pipeline Parallelism"), table 2: with equal forward, input-gradient and
  weight-gradient pass times T, ZB-H1 idles (p - 1) T, a third of 1F1B's (p - 1) 3T, and ZB-H2 none, at the
  price of 2p - 1 micro-batches in flight on the first stage where 1F1B holds p; section 4: only with
  optimizer post-validation. This file once credited ZB-H2 with no bubble whatever the pass times and the
  optimizer step: table 2's ZB-H2 bubble is (p - 1)(T_F + T_B - 2 T_W), zero only at equal times, and
  section 4 shows the optimizer step's synchronisation brings the warm-up skew back. The published cases
  below therefore give training.utilisation, at which a pass's time is its FLOPs' share (forward 2, input
  gradients 2, weight gradients 2 of 6 per weight and token: PaLM, appendix B), so T_F = T_B = T_W.
- Qi et al. 2024 ("Pipeline Parallelism with Controllable Memory"): ZB-V holds 1F1B's p micro-batches on
  every device and has no bubble at equal pass times; its chunks are half a stage, so the barrier without
  post-validation costs (p - 1) T_F / 2.
"""

from fractions import Fraction

import pytest

from models.presets import ModelPresetName

P, M, T, LAYERS = 4, 16, 8, 80
S, B, H = 4096, 1, 8192


def plan(
    client, schedule: str, virtual_stages: int = 1, utilisation: float | None = None, validated: bool = False
) -> dict:
    # Llama 3 70B on 64 A100s: t 8 (a node), p 4, d 2; m = 32 / (1 x 2) = 16 micro-batches
    training = {"micro_batch_size": B, "sequence_length": S, "global_batch_size": 32}
    body = {
        "model": {"preset": ModelPresetName.llama3_70b},
        "precision": "megatron",
        "arrangement": "zero1",
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": training | ({} if utilisation is None else {"utilisation": utilisation}),
        "parallelism": {
            "tensor": T,
            "pipeline": P,
            "sequence_parallel": True,
            "pipeline_schedule": schedule,
            "virtual_stages": virtual_stages,
            "optimizer_post_validation": validated,
        },
    }
    response = client.post("/v1/plan", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["parallelism"]["micro_batches"] == M
    return answer


@pytest.mark.parametrize(
    ("schedule", "v", "idle"),
    [
        ("1f1b", 1, Fraction(P - 1, M)),  # 3/16
        ("gpipe", 1, Fraction(P - 1, M)),  # 3/16
        ("interleaved", 2, Fraction(P - 1, 2 * M)),  # 3/32
        ("interleaved", 5, Fraction(P - 1, 5 * M)),  # 3/80
    ],
)
def test_the_bubble_of_each_schedule(client, schedule, v, idle):
    time = plan(client, schedule, v)["time"]
    assert time["pipeline_bubble_s"] == pytest.approx(time["compute_s"] * float(idle), rel=1e-12, abs=0)
    assert time["pipeline_bubble_fraction"] == pytest.approx(float(idle / (1 + idle)), rel=1e-12, abs=0)


@pytest.mark.parametrize(
    ("schedule", "validated", "idle"),
    [
        # a step computes m (T_F + T_B + T_W) = 3 m T; table 2's bubbles over that
        ("1f1b", False, Fraction((P - 1) * 3, 3 * M)),  # 3/16
        ("zb_h1", False, Fraction(P - 1, 3 * M)),  # 1/16: a third of 1F1B's
        ("zb_h1", True, Fraction(P - 1, 3 * M)),  # ZB-H1 has no parallelogram to keep
        ("zero_bubble", True, Fraction(0)),  # ZB-H2 at equal times with post-validation
        ("zero_bubble", False, Fraction(P - 1, 3 * M)),  # the skew (p - 1) T_F back
        ("zb_v", True, Fraction(0)),
        ("zb_v", False, Fraction(P - 1, 2 * 3 * M)),  # (p - 1) T_F / 2
    ],
)
def test_the_zero_bubble_schedules_at_equal_pass_times(client, schedule, validated, idle):
    answer = plan(client, schedule, utilisation=0.4, validated=validated)
    time = answer["time"]
    assert time["pipeline_bubble_s"] == pytest.approx(time["compute_s"] * float(idle), rel=1e-9, abs=1e-12)
    assert time["schedule_source"] and answer["parallelism"]["optimizer_post_validation"] is validated


def test_the_zero_bubble_schedules_from_the_efficiency_models_pass_times(client):
    # Without a utilisation the passes come from the efficiency model: a bubble between none and 1F1B's,
    # ZB-H1's below 1F1B's, and ZB-H2's and ZB-V's below ZB-H1's.
    bubble = {s: plan(client, s)["time"]["pipeline_bubble_s"] for s in ("1f1b", "zb_h1", "zero_bubble", "zb_v")}
    assert 0 < bubble["zb_v"] <= bubble["zero_bubble"] <= bubble["zb_h1"] < bubble["1f1b"]


def test_gpipe_bubble_overhead_is_its_papers_share():
    # K = 4 partitions, M = 16 micro-batches: (K - 1) / (M + K - 1) = 3/19 of the step
    idle = Fraction(P - 1, M)
    assert idle / (1 + idle) == Fraction(P - 1, M + P - 1) == Fraction(3, 19)


def test_zero_bubble_pays_in_activation_memory(client):
    one_f_one_b, gpipe, zero_bubble = (plan(client, s) for s in ("1f1b", "gpipe", "zero_bubble"))
    in_flight = {
        name: [s["in_flight_micro_batches"] for s in answer["memory"]["stages"]]
        for name, answer in (("1f1b", one_f_one_b), ("gpipe", gpipe), ("zero_bubble", zero_bubble))
    }
    assert in_flight["1f1b"] == [P - i for i in range(P)] == [4, 3, 2, 1]
    assert in_flight["zero_bubble"] == [2 * (P - i) - 1 for i in range(P)] == [7, 5, 3, 1]
    assert in_flight["gpipe"] == [M] * P
    # the first stage: 20 layers of 34 s b h / t (sequence parallelism, flash attention) and the embedding's
    # dropout mask s b h / t, per micro-batch in flight (Korthikanti et al. 2022, table 2 and section 4.3)
    per_micro_batch = S * B * H * (LAYERS // P * 34 + 1) // T
    first = {
        name: answer["memory"]["stages"][0]["activations_bytes"]
        for name, answer in (("1f1b", one_f_one_b), ("gpipe", gpipe), ("zero_bubble", zero_bubble))
    }
    assert first == {"1f1b": 4 * per_micro_batch, "zero_bubble": 7 * per_micro_batch, "gpipe": 16 * per_micro_batch}
    assert 0 < zero_bubble["time"]["pipeline_bubble_s"] < one_f_one_b["time"]["pipeline_bubble_s"]
    zb_v = plan(client, "zb_v")  # ZB-V: 1F1B's p on every device
    assert [s["in_flight_micro_batches"] for s in zb_v["memory"]["stages"]] == [P] * P
    # its V puts the first and the last chunk on device 0: the output layer's inputs (4 s b h / t) and the loss's
    # peak (bf16 logits, fp32 log-softmax and its gradient: 2 + 4 + 4 = 10 s b V / t, PyTorch's cross_entropy;
    # Llama 3's V = 128,256) join the first stage's, p micro-batches of each
    vocab = 128_256
    output = 4 * S * B * H // T + 10 * S * B * vocab // T
    assert zb_v["memory"]["stages"][0]["activations_bytes"] == first["1f1b"] + P * output


@pytest.mark.parametrize(("global_batch", "accepted"), [(12, False), (14, True)])
def test_zero_bubble_needs_its_warm_up_micro_batches(client, global_batch, accepted):
    # ZB-H2 runs 2p - 1 = 7 forward passes on the first stage before its first backward (Qi et al.
    # 2023, section 2.2): with d = 2 a global batch of 12 gives m = 6 < 7, one of 14 gives m = 7.
    body = {
        "model": {"preset": ModelPresetName.llama3_70b},
        "arrangement": "zero1",
        "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "a100-80gb"},
        "training": {"micro_batch_size": 1, "sequence_length": S, "global_batch_size": global_batch},
        "parallelism": {"tensor": T, "pipeline": P, "pipeline_schedule": "zero_bubble"},
    }
    response = client.post("/v1/plan", json=body)
    if accepted:
        assert response.status_code == 200, response.text
        assert response.json()["parallelism"]["micro_batches"] == 2 * P - 1
        return
    assert response.status_code == 422
    pointers = [error["pointer"] for error in response.json()["errors"]]
    assert pointers == ["/training/global_batch_size"]


def test_zb_v_sends_each_micro_batch_through_two_chunks(client):
    # ZB-V's V: two chunks per stage (torch.distributed.pipelining ScheduleZBVZeroBubble), so each micro-batch
    # crosses every stage boundary twice each way, as interleaving with v = 2 does (Qi et al. 2024: 2x 1F1B's
    # pipeline communication)
    one_f_one_b, zb_v = plan(client, "1f1b"), plan(client, "zb_v")
    interleaved = plan(client, "interleaved", 2)
    assert zb_v["time"]["pipeline_p2p_s"] == pytest.approx(2 * one_f_one_b["time"]["pipeline_p2p_s"], rel=1e-12)
    assert zb_v["time"]["pipeline_p2p_s"] == pytest.approx(interleaved["time"]["pipeline_p2p_s"], rel=1e-12)
