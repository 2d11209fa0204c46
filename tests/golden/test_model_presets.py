"""Every model preset's architecture reproduces its publisher's parameter count.

Exact counts: ``metadata.total_size`` of a checkpoint's ``model.safetensors.index.json`` on the
Hugging Face Hub, in bytes, halved (the checkpoints are bf16, two bytes a parameter, with no
other tensor stored), or a count printed to the unit in a paper or model card. Rounded counts
(model cards, papers) are checked within their rounding, as each row states.
"""

import pytest

from models.common import ModelSpec
from models.presets import MODEL_PRESETS, ModelPresetName
from service.inputs import resolve
from service.inputs.architecture import (
    active_parameter_count,
    embedding_parameters,
    non_embedding_parameter_count,
    parameter_count,
)

N = ModelPresetName


def resolved(name: ModelPresetName) -> resolve.ResolvedModel:
    return resolve.model(ModelSpec(preset=name))


def architecture(name: ModelPresetName):  # type: ignore[no-untyped-def]
    arch = resolved(name).architecture
    assert arch is not None
    return arch


# (preset, safetensors index total_size in bytes, repo the index belongs to)
INDEX_TOTAL_SIZE = [
    (N.llama3_2_3b, 6_425_499_648, "meta-llama/Llama-3.2-3B"),
    (N.mistral_7b, 14_483_464_192, "mistralai/Mistral-7B-v0.1"),
    (N.mixtral_8x7b, 93_405_585_408, "mistralai/Mixtral-8x7B-v0.1"),
    (N.mixtral_8x22b, 281_241_268_224, "mistralai/Mixtral-8x22B-v0.1"),
    (N.qwen2_5_3b, 6_171_877_376, "Qwen/Qwen2.5-3B-Instruct"),
    (N.qwen2_5_7b, 15_231_233_024, "Qwen/Qwen2.5-7B-Instruct"),
    (N.qwen2_5_14b, 29_540_067_328, "Qwen/Qwen2.5-14B-Instruct"),
    (N.qwen2_5_32b, 65_527_752_704, "Qwen/Qwen2.5-32B-Instruct"),
    (N.qwen2_5_72b, 145_412_407_296, "Qwen/Qwen2.5-72B-Instruct"),
    (N.qwen3_4b, 8_044_936_192, "Qwen/Qwen3-4B"),
    (N.qwen3_8b, 16_381_470_720, "Qwen/Qwen3-8B"),
    (N.qwen3_14b, 29_536_614_400, "Qwen/Qwen3-14B"),
    (N.qwen3_32b, 65_524_246_528, "Qwen/Qwen3-32B"),
    (N.qwen3_30b_a3b, 61_064_245_248, "Qwen/Qwen3-30B-A3B-Instruct-2507"),
    (N.qwen3_235b_a22b, 470_187_269_120, "Qwen/Qwen3-235B-A22B"),
    (N.gemma2_2b, 5_228_683_776, "google/gemma-2-2b-it"),
    (N.gemma2_9b, 18_483_411_968, "google/gemma-2-9b"),
]


@pytest.mark.parametrize(("name", "total_size_bytes", "repo"), INDEX_TOTAL_SIZE)
def test_count_equals_the_checkpoint_index(name, total_size_bytes, repo):
    assert resolved(name).parameter_count == total_size_bytes // 2


# Counts published to the unit on the model cards (Meta's, as their "Params" tables and the Hub
# print them).
@pytest.mark.parametrize(
    ("name", "published"),
    [
        (N.llama2_7b, 6_738_415_616),
        (N.llama2_13b, 13_015_864_320),
        (N.llama2_70b, 68_976_648_192),
        (N.llama3_8b, 8_030_261_248),
        (N.llama3_70b, 70_553_706_496),
        (N.llama3_1_8b, 8_030_261_248),
        (N.llama3_1_70b, 70_553_706_496),
        (N.llama3_405b, 405_853_388_800),
        (N.llama3_2_1b, 1_235_814_400),
        (N.llama3_3_70b, 70_553_706_496),
    ],
)
def test_count_equals_the_model_card(name, published):
    assert resolved(name).parameter_count == published


@pytest.mark.parametrize(
    ("name", "non_embedding", "embedding_rows"),
    [
        # Gemma 2 report, table 2 (to the unit): non-embedding parameters exact; the embedding
        # column counts 256,128 rows (590,118,912 / 2304), the released checkpoints 256,000.
        (N.gemma2_2b, 2_024_517_888, 590_118_912 // 2304),
        (N.gemma2_9b, 8_324_201_984, 917_962_752 // 3584),
        (N.gemma2_27b, 26_047_480_320, 1_180_237_824 // 4608),
    ],
)
def test_gemma2_report_table(name, non_embedding, embedding_rows):
    arch = architecture(name)
    assert non_embedding_parameter_count(arch) == non_embedding
    assert embedding_rows == 256_128 and embedding_parameters(arch) == 256_000 * arch.hidden_size


@pytest.mark.parametrize(
    ("name", "non_embedding_millions"),
    # Gemma 3 report, table 1: non-embedding parameters in millions (text decoder; the vision
    # encoder, 417M, is another column).
    [(N.gemma3_1b, 698), (N.gemma3_4b, 3_209), (N.gemma3_12b, 10_759), (N.gemma3_27b, 25_600)],
)
def test_gemma3_report_table(name, non_embedding_millions):
    assert round(non_embedding_parameter_count(architecture(name)) / 1e6) == non_embedding_millions


@pytest.mark.parametrize(
    ("name", "total", "non_embedding", "unit"),
    [
        # Qwen2.5 and Qwen3 model cards: "Number of Parameters" and "(Non-Embedding)", to the digit
        # shown; checked within one unit of that digit (the cards round some and truncate others).
        (N.qwen2_5_0_5b, 0.49e9, 0.36e9, 0.01e9),
        (N.qwen2_5_1_5b, 1.54e9, 1.31e9, 0.01e9),
        (N.qwen3_0_6b, 0.6e9, 0.44e9, 0.01e9),
        (N.qwen3_1_7b, 1.7e9, 1.4e9, 0.1e9),
    ],
)
def test_small_qwen_model_cards(name, total, non_embedding, unit):
    arch = architecture(name)
    assert abs(parameter_count(arch) - total) < unit
    assert abs(non_embedding_parameter_count(arch) - non_embedding) < unit


def test_mixtral_8x7b_total_and_active():
    # Mistral AI, "Mixtral of experts" (2023-12-11): 46.7B total, 12.9B used per token.
    model = resolved(N.mixtral_8x7b)
    assert model.parameter_count == 46_702_792_704  # the checkpoint index, above
    assert round(model.parameter_count / 1e9, 1) == 46.7
    assert round(model.active / 1e9, 1) == 12.9
    # Written out: 32 layers of attention 4096 x (4096 + 1024 + 1024 + 4096), two of the eight
    # 3 x 4096 x 14336 experts, a 8 x 4096 router, two 4096 norms; embeddings 2 x 32000 x 4096; final norm.
    layer = 4096 * (4096 + 1024 + 1024 + 4096) + 2 * 3 * 4096 * 14336 + 8 * 4096 + 2 * 4096
    assert model.active == 32 * layer + 2 * 32000 * 4096 + 4096


def test_mixtral_8x22b_total_and_active():
    # Mistral AI, "Cheaper, Better, Faster, Stronger" (2024-04-17): 141B total, 39B active.
    model = resolved(N.mixtral_8x22b)
    assert round(model.parameter_count / 1e9) == 141
    assert round(model.active / 1e9) == 39


def test_deepseek_v3_total_and_active():
    # DeepSeek-V3 technical report, abstract and section 4.2: 671B total, 37B activated per token.
    model = resolved(N.deepseek_v3)
    assert round(model.parameter_count / 1e9) == 671
    # 37.55e9 by the architecture with both embedding matrices; without the input embedding (a
    # lookup, as FLOPs count it) 36.63e9. The report prints whole billions: 37 either way, truncated
    # or rounded.
    assert 37e9 <= model.active < 38e9
    assert round((model.active - 129280 * 7168) / 1e9) == 37
    # Written out from config.json: MLA per layer (q_a, q_a_norm, q_b, kv_a, kv_a_norm, kv_b, o).
    mla = 7168 * 1536 + 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 + 512 * 128 * 256 + 128 * 128 * 7168
    expert = 3 * 7168 * 2048
    dense_layer = mla + 3 * 7168 * 18432 + 2 * 7168
    moe_layer = mla + 256 * 7168 + 256 + (256 + 1) * expert + 2 * 7168
    total = 3 * dense_layer + 58 * moe_layer + 2 * 129280 * 7168 + 7168
    assert model.parameter_count == total
    assert model.active == total - 58 * (256 - 8) * expert


@pytest.mark.parametrize(
    ("name", "total_billions", "active_billions"),
    # Qwen3 model cards: 30.5B total, 3.3B activated; 235B total, 22B activated (truncated: the
    # architecture gives 3.35B and 22.19B).
    [(N.qwen3_30b_a3b, 30.5, 3.3), (N.qwen3_235b_a22b, 235, 22)],
)
def test_qwen3_moe_total_and_active(name, total_billions, active_billions):
    model = resolved(name)
    unit = 0.1 if total_billions < 100 else 1
    assert abs(model.parameter_count / 1e9 - total_billions) < unit
    assert 0 <= model.active / 1e9 - active_billions < unit


@pytest.mark.parametrize(
    ("name", "total_with_vision_billions"),
    # Llama 4 model cards: 17B active for both; 109B and 400B total, with the vision encoder
    # (about 1B) the preset does not model. The text decoder is checked within 1.5% below.
    [(N.llama4_scout, 109), (N.llama4_maverick, 400)],
)
def test_llama4_total_and_active(name, total_with_vision_billions):
    model = resolved(name)
    assert round(model.active / 1e9) == 17
    assert abs(model.parameter_count / 1e9 - total_with_vision_billions) < 0.015 * total_with_vision_billions


def test_gpt3_175b():
    # Brown et al. 2020, table 2.1, prints 175.0B; its own shape (96 x 12288, GPT-2 vocabulary,
    # 2048 positions) gives 174.6B, the figure usually quoted as the exact size. Within 0.3%.
    count = resolved(N.gpt3_175b).parameter_count
    assert count == 96 * (12 * 12288**2 + 13 * 12288) + (50257 + 2048) * 12288 + 2 * 12288
    assert abs(count - 175.0e9) < 0.003 * 175.0e9


@pytest.mark.parametrize(
    ("name", "billions", "heads", "hidden", "layers"),
    [
        (N.megatron_1_7b, 1.7, 24, 2304, 24),
        (N.megatron_3_6b, 3.6, 32, 3072, 30),
        (N.megatron_7_5b, 7.5, 32, 4096, 36),
        (N.megatron_18_4b, 18.4, 48, 6144, 40),
        (N.megatron_39_1b, 39.1, 64, 8192, 48),
        (N.megatron_76_1b, 76.1, 80, 10240, 60),
        (N.megatron_145_6b, 145.6, 96, 12288, 80),
        (N.megatron_310_1b, 310.1, 128, 16384, 96),
        (N.megatron_529_6b, 529.6, 128, 20480, 105),
        (N.megatron_1t, 1008.0, 160, 25600, 128),
    ],
)
def test_narayanan_table_1(name, billions, heads, hidden, layers):
    """Narayanan et al. 2021, section 5.1: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), V = 51,200,
    s = 2048; table 1 prints P in billions to one decimal. The formula leaves out the final LayerNorm (2h)."""
    arch = architecture(name)
    assert (arch.attention_heads, arch.hidden_size, arch.layers) == (heads, hidden, layers)
    formula = 12 * layers * hidden**2 + 13 * layers * hidden + (51_200 + 2048) * hidden
    count = parameter_count(arch)
    assert count == formula + 2 * hidden
    assert round(count / 1e9, 1) == billions


@pytest.mark.parametrize("name", [n for n, p in MODEL_PRESETS.items() if p.layers is not None])
def test_preset_counts_are_the_architectures(name):
    """The counts a preset lists (GET /v1/presets) are the ones its architecture gives."""
    preset = MODEL_PRESETS[name]
    arch = architecture(name)
    assert preset.parameter_count == parameter_count(arch)
    expected_active = active_parameter_count(arch) if preset.moe is not None else None
    assert preset.active_parameter_count == expected_active


def test_a_dense_model_is_all_active():
    model = resolved(N.llama3_8b)
    assert model.active == model.parameter_count == 8_030_261_248


@pytest.mark.parametrize("name", [n for n, p in MODEL_PRESETS.items() if p.moe is not None])
def test_every_expert_active_is_the_total(name):
    """With top_k = experts a token uses every parameter; with fewer, the difference is whole experts."""
    from dataclasses import replace

    arch = architecture(name)
    assert arch.moe is not None
    everything = replace(arch, moe=replace(arch.moe, top_k=arch.moe.experts))
    assert active_parameter_count(everything) == parameter_count(everything) == parameter_count(arch)
    assert active_parameter_count(arch) < parameter_count(arch)


def test_dense_layers_beyond_the_depth_leave_a_dense_model():
    arch = architecture(N.deepseek_v3)
    from dataclasses import replace

    shallow = replace(arch, layers=2)
    assert active_parameter_count(shallow) == parameter_count(shallow)


def test_architecture_fields_on_a_count_alone_are_said_not_used(client):
    """seed-30b is a parameter count (30,000,000,000) without an architecture: a model.layers given beside it cannot
    shape one, so the plan keeps the count, and says the field is not used (it was dropped without a word: 30e9
    parameters at any depth)."""
    for extra, named in (({"layers": 1}, "model.layers"), ({"hidden_size": 1024, "kv_heads": 8}, "model.hidden_size")):
        body = {
            "model": {"preset": "seed-30b"} | extra,
            "cluster": {"world_size": 8, "gpus_per_node": 8, "gpu": "h100-80gb"},
            "arrangement": "zero3",
        }
        response = client.post("/v1/plan", json=body)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["parameter_count"] == 30_000_000_000
        (warning,) = [w for w in answer["warnings"] if "not used" in w]
        assert warning.startswith(named) and "parameter count alone" in warning
    plain = {"model": {"preset": "seed-30b"}, "cluster": body["cluster"], "arrangement": "zero3"}
    assert not [w for w in client.post("/v1/plan", json=plain).json()["warnings"] if "not used" in w]
