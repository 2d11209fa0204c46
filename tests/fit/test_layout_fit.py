"""POST /v1/fit with a layout: the smallest GPU count a layout runs on and fits.

The valid world sizes are written out here from the layout's rules (service.mesh.degrees: t x p x c x d,
part of a node or whole nodes, the expert degree dividing d x c, the global batch in whole
micro-batches, m >= p for 1F1B); that the minimum is the boundary is checked against /v1/plan.
"""

import pytest

from models.parallelism import Parallelism
from service.answers.layout_fit import LayoutCase, data_degrees
from service.mesh.degrees import ModelLimits

LLAMA3_70B = ModelLimits(layers=80, attention_heads=64, kv_heads=8)
MIXTRAL = ModelLimits(layers=32, attention_heads=32, kv_heads=8, experts=8)


def case(parallelism: dict, global_batch: int | None, limits: ModelLimits, accumulation: int = 1) -> LayoutCase:
    return LayoutCase(Parallelism(**parallelism), 8, global_batch, accumulation, 1, 8192, limits)


def test_the_degrees_a_global_batch_allows():
    # t 8 x p 4 = 32 GPUs a replica (whole nodes); 48 sequences: d divides 48 and m = 48 / d >= 4
    degrees = data_degrees(case({"tensor": 8, "pipeline": 4}, 48, LLAMA3_70B))
    assert list(degrees) == [1, 2, 3, 4, 6, 8, 12]
    # interleaved: m also a multiple of p = 4: 48 / d in {48, 24, 16, 12, 8, 4} (6 at d = 8 is not)
    interleaved = {"tensor": 8, "pipeline": 4, "pipeline_schedule": "interleaved", "virtual_stages": 2}
    assert list(data_degrees(case(interleaved, 48, LLAMA3_70B))) == [1, 2, 3, 4, 6, 12]
    # GPipe has no m >= p rule: every divisor of 48
    assert list(data_degrees(case({"tensor": 8, "pipeline": 4, "pipeline_schedule": "gpipe"}, 48, LLAMA3_70B))) == [
        1,
        2,
        3,
        4,
        6,
        8,
        12,
        16,
        24,
        48,
    ]


def test_the_degrees_without_a_global_batch_repeat_past_a_node():
    # t 2 of a node of 8; experts over e 4 carved out of d: inside the node 2d <= 8 with 4 | d gives d = 4;
    # past it 2d a multiple of 8 (4 | d) and 4 | d: every fourth d, up to 1,000,000 GPUs
    degrees = data_degrees(case({"tensor": 2, "expert": 4, "sequence_parallel": True}, None, MIXTRAL))
    assert list(degrees[:4]) == [4, 8, 12, 16]
    assert degrees[-1] == 1_000_000 // 2 // 4 * 4
    assert len(degrees) == 1_000_000 // 2 // 4
    # t 3 of a node of 8 (not a divisor): 3d <= 8 for d in 1, 2; past the node 3d a multiple of 8
    odd = data_degrees(case({"tensor": 3}, None, ModelLimits(layers=2, attention_heads=3, kv_heads=3)))
    assert list(odd[:4]) == [1, 2, 8, 16]


def layout_fit_body(**extra) -> dict:
    return {
        "model": {"preset": "llama-3-70b"},
        "precision": "megatron",
        "training": {"micro_batch_size": 1, "sequence_length": 8192, "global_batch_size": 512},
        "cluster": {"gpus_per_node": 8, "gpu": "h100-80gb"},
        "parallelism": {"tensor": 4, "pipeline": 4, "sequence_parallel": True},
        "max_gpus": 1024,
    } | extra


def plan_at(client, body: dict, arrangement: str, world_size: int) -> dict:
    plan = {k: v for k, v in body.items() if k not in ("max_gpus", "gpu_count_grid")}
    plan["cluster"] = body["cluster"] | {"world_size": world_size}
    plan["arrangement"] = arrangement
    response = client.post("/v1/plan", json=plan)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_minimum_is_where_the_plan_starts_to_fit(client):
    body = layout_fit_body()
    response = client.post("/v1/fit", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    found = [a for a in answer["arrangements"] if a["min_gpus_exact"] is not None]
    assert {a["arrangement"] for a in found} >= {"zero2", "zero3"}
    for a in found:
        n = a["min_gpus_exact"]
        # 512 sequences: d a power of two from 1 to 128 (m = 512 / d >= 4), world sizes 16 d
        assert n % 16 == 0 and 512 % (n // 16) == 0
        assert a["parallelism"]["data"] == n // 16
        assert a["parallelism"]["micro_batches"] == 512 // (n // 16)
        assert plan_at(client, body, a["arrangement"], n)["memory"]["fits"]
        if n > 16:
            assert not plan_at(client, body, a["arrangement"], n // 2)["memory"]["fits"]
        for cell in a["table"]:  # every tabulated count is the plan's busiest GPU
            assert (
                cell["per_gpu_bytes"]
                == plan_at(client, body, a["arrangement"], cell["world_size"])["memory"]["per_gpu_bytes"]
            )
    # the data-parallel copy of the whole state never fits 80 GB of H100 at t 4 x p 4
    ddp = next(a for a in answer["arrangements"] if a["arrangement"] == "ddp")
    assert ddp["never_fits"] and ddp["parallelism"] is None and "never on this layout" in ddp["reason"]


def test_the_table_skips_counts_the_layout_cannot_run(client):
    body = layout_fit_body(gpu_count_grid=[8, 16, 24, 48, 64])
    answer = client.post("/v1/fit", json=body).json()
    # 16 d: 8 is less than a replica, 24 and 48 give d = 1.5 and 3 (3 does not divide 512)
    assert [c["world_size"] for c in answer["arrangements"][0]["table"]] == [16, 64]


def test_without_a_layout_the_fit_is_data_parallel(client):
    body = {"model": {"parameter_count": 30_000_000_000}, "cluster": {"gpu": "seed-80gb"}, "max_gpus": 64}
    answer = client.post("/v1/fit", json=body).json()
    assert all(a["parallelism"] is None for a in answer["arrangements"])


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"parallelism": {"tensor": 3}}, "/parallelism/tensor"),  # 64 heads
        (
            {"training": {"micro_batch_size": 1, "sequence_length": 8192, "global_batch_size": 3}},
            "/training/global_batch_size",
        ),
        ({"model": {"parameter_count": 70_000_000_000}}, "/parallelism/tensor"),  # no architecture
        ({"levers": {"zeropp": {"hpz": True}}}, "/levers/zeropp"),
    ],
)
def test_a_layout_it_cannot_run_is_a_422(client, change, pointer):
    response = client.post("/v1/fit", json=layout_fit_body(**change))
    assert response.status_code == 422, response.text
    assert pointer in [e["pointer"] for e in response.json()["errors"]]
