"""The four figures for the seeds' 30B case (DESIGN.md golden table): decodable, sized, deterministic, named."""

import struct
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO

import matplotlib.image
import pytest

from models.enums import ArrangementName
from models.figures import ARRANGEMENT_FIGURES, DRAWN_ARRANGEMENTS, FigureFormat, FigureName, FigureRequest
from service.answers.figures import LABELS, collective_split, draw, resolve_case
from tests.figures.conftest import SEED_30B_BODY

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_NS = "{http://www.w3.org/2000/svg}"


def seed_request(**extra: object) -> FigureRequest:
    return FigureRequest.model_validate(SEED_30B_BODY | extra)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk (PNG spec, section 11.2.2)."""
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def svg_text(data: bytes) -> str:
    """Every text element's content, joined: with svg.fonttype none the labels stay text."""
    root = ET.fromstring(data)
    return "\n".join("".join(node.itertext()) for node in root.iter(f"{SVG_NS}text"))


@pytest.mark.parametrize("name", list(FigureName))
def test_png_decodes_at_the_requested_size(name):
    data = draw(name, seed_request(width_px=801, height_px=479), FigureFormat.png)
    assert png_size(data) == (801, 479)
    pixels = matplotlib.image.imread(BytesIO(data), format="png")
    assert pixels.shape[:2] == (479, 801)
    assert pixels.std() > 0  # something is drawn


def test_the_smallest_image_keeps_its_size_and_thins_the_gpu_labels():
    request = seed_request(width_px=640, height_px=400, max_gpus=1_000_000)
    assert png_size(draw(FigureName.memory_vs_gpus, request, FigureFormat.png)) == (640, 400)
    labels = set(svg_text(draw(FigureName.memory_vs_gpus, request, FigureFormat.svg)).split("\n"))
    assert "1" in labels and "2" not in labels  # 20 powers of two do not all fit in 640 px


@pytest.mark.parametrize("name", ARRANGEMENT_FIGURES)
def test_svg_is_deterministic_and_names_every_arrangement_and_the_card(name):
    request = seed_request()
    first, second = draw(name, request, FigureFormat.svg), draw(name, request, FigureFormat.svg)
    assert first == second
    text = svg_text(first)
    words = " ".join(text.split())  # a tick label may take one word a line
    for arrangement in DRAWN_ARRANGEMENTS:
        assert LABELS[arrangement] in words, (name, arrangement)
    assert "seed-80gb: 80 GB = 74.5 GiB" in text
    assert "30,000,000,000 weights" in text


def test_axes_carry_units():
    texts = {name: svg_text(draw(name, seed_request(), FigureFormat.svg)) for name in FigureName}
    assert "GiB = 2^30 bytes" in texts[FigureName.memory_vs_gpus]
    assert "log2" in texts[FigureName.memory_vs_gpus]
    assert "bytes per weight" in texts[FigureName.bytes_per_weight]
    assert "GB = 1e9 bytes" in texts[FigureName.traffic]
    assert "seconds per optimizer step (s)" in texts[FigureName.step_time]


def test_the_memory_curve_spans_the_powers_of_two_up_to_max_gpus():
    text = svg_text(draw(FigureName.memory_vs_gpus, seed_request(max_gpus=16), FigureFormat.svg)).split("\n")
    assert {"1", "2", "4", "8", "16"} <= set(text) and "32" not in text
    for arrangement in DRAWN_ARRANGEMENTS:
        assert f"{LABELS[arrangement]} replicated floor" in "\n".join(text)


def test_the_seed_case_numbers_drawn_are_the_golden_ones():
    """DESIGN.md golden table at P = 30e9, N = 8: 447.0 / 153.7 / 104.8 / 55.9 GiB; traffic 2P, 2P, 2P, 3P.

    Beside them FSDP's SHARD_GRAD_OP: a 2 B/weight shard + the 2 B gathered copy + 14/8 = 4.00 B/weight,
    120e9 B = 111.8 GiB; one gather and one reduce-scatter per micro-batch, 2P (105.0 GB) with one.
    """
    text = svg_text(draw(FigureName.bytes_per_weight, seed_request(), FigureFormat.svg))
    for bytes_per_weight, gib in (
        ("16.00", "447.0"),
        ("5.50", "153.7"),
        ("3.75", "104.8"),
        ("2.00", "55.9"),
        ("4.00", "111.8"),
    ):
        assert f"{bytes_per_weight} B/weight" in text and f"{gib} GiB" in text
    traffic = svg_text(draw(FigureName.traffic, seed_request(), FigureFormat.svg))
    assert traffic.count("105.0 GB") == 4 and "157.5 GB" in traffic and "3P" in traffic


def test_the_traffic_split_with_four_micro_batches():
    # one model-sized bf16 buffer at ring cost on 8 GPUs: 7/8 x 30e9 x 2 B = 52.5e9 B
    p_bytes = 7 * 30_000_000_000 * 2 // 8
    case = resolve_case(seed_request(training={"gradient_accumulation_steps": 4}))
    split = {name: {c.value: b for c, b in collective_split(case, name).items() if b} for name in DRAWN_ARRANGEMENTS}
    assert split[ArrangementName.ddp] == {"all_reduce": 2 * p_bytes}  # once per step
    assert split[ArrangementName.zero1] == {"reduce_scatter": p_bytes, "all_gather": p_bytes}
    assert split[ArrangementName.zero2] == {"reduce_scatter": 4 * p_bytes, "all_gather": p_bytes}
    assert split[ArrangementName.zero3] == {"reduce_scatter": 4 * p_bytes, "all_gather": 8 * p_bytes}
    assert split[ArrangementName.shard_grad_op] == {"reduce_scatter": 4 * p_bytes, "all_gather": 4 * p_bytes}


def test_measured_bars_are_drawn_beside_the_formula():
    measured = [{"arrangement": "zero3", "collective": "all_gather", "bytes_per_gpu": 105_000_000_000}]
    plain = draw(FigureName.traffic, seed_request(), FigureFormat.svg)
    beside = draw(FigureName.traffic, seed_request(measured=measured), FigureFormat.svg)
    assert "measured" not in svg_text(plain)
    assert "measured" in svg_text(beside) and "formula (ring cost)" in svg_text(beside)


def test_levers_and_an_architecture_draw_offload_and_activations():
    request = FigureRequest.model_validate(
        {
            "model": {"preset": "llama-3-8b"},
            "training": {"micro_batch_size": 1, "sequence_length": 4096},
            "cluster": {"world_size": 16, "gpus_per_node": 8, "gpu": "h100-80gb"},
            "levers": {"offload_optimizer": True, "offload_parameters": True, "recompute": "selective"},
        }
    )
    assert "activations (per GPU, / P)" in svg_text(draw(FigureName.bytes_per_weight, request, FigureFormat.svg))
    case = resolve_case(request)
    assert all(float(result.offload_s) > 0 for result in case.results.values())  # type: ignore[arg-type]
    assert png_size(draw(FigureName.step_time, request, FigureFormat.png)) == (960, 600)


def test_concurrent_svg_renders_stay_identical():
    request = seed_request()
    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = list(pool.map(lambda _: draw(FigureName.traffic, request, FigureFormat.svg), range(4)))
    assert len(set(outputs)) == 1
