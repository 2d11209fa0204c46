"""The layout figures: each stage's memory and each group's traffic, as /v1/plan counts them."""

from models.figures import FigureFormat, FigureName, FigureRequest
from service.answers.figures import draw, layout_plan
from tests.figures.test_render import png_size, svg_text

LLAMA_LAYOUT = {
    "model": {"preset": "llama-3-70b"},
    "precision": "megatron",
    "layout_arrangement": "zero1",
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "training": {"micro_batch_size": 1, "sequence_length": 4096, "gradient_accumulation_steps": 16},
    "parallelism": {"tensor": 8, "pipeline": 4, "sequence_parallel": True},
}


def test_the_stages_memory_figure_names_each_stage_and_the_card():
    request = FigureRequest.model_validate(LLAMA_LAYOUT)
    text = svg_text(draw(FigureName.layout_memory, request, FigureFormat.svg))
    for stage in range(4):
        assert f"stage {stage}" in text
    assert "20 layers" in text
    assert "GiB = 2^30 bytes" in text
    assert "tensor 8 x context 1 x data 2 x pipeline 4" in text
    assert png_size(draw(FigureName.layout_memory, request, FigureFormat.png)) == (960, 600)


def test_the_traffic_figure_draws_every_group_the_plan_has():
    request = FigureRequest.model_validate(LLAMA_LAYOUT)
    text = svg_text(draw(FigureName.layout_traffic, request, FigureFormat.svg))
    answer = layout_plan(request)
    for group in ("data", "tensor", "pipeline"):
        assert group in text
    tensor = sum(c.count_per_step * c.bytes_sent_per_gpu for c in answer.traffic.collectives if c.group == "tensor")
    assert f"{tensor / 1e9:.3g} GB" in text
    assert "intra-node" in text and "inter-node" in text
