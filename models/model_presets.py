"""Model presets as data: each architecture as its config.json or paper gives it, and its source.

``parameter_count`` (and ``active_parameter_count`` for a mixture of experts) is what the
architecture implies (service/inputs/architecture.py); tests/golden/test_model_presets.py checks that
each equals the count its publisher gives, exactly where a count is published to the unit.
"""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from models.architecture import MlaSpec, MoeSpec
from models.enums import MlpKind, Normalization


class ModelPresetName(StrEnum):
    seed_30b = "seed-30b"
    gpt3_175b = "gpt-3-175b"
    megatron_1_7b = "megatron-1.7b"
    megatron_3_6b = "megatron-3.6b"
    megatron_7_5b = "megatron-7.5b"
    megatron_18_4b = "megatron-18.4b"
    megatron_39_1b = "megatron-39.1b"
    megatron_76_1b = "megatron-76.1b"
    megatron_145_6b = "megatron-145.6b"
    megatron_310_1b = "megatron-310.1b"
    megatron_529_6b = "megatron-529.6b"
    megatron_1t = "megatron-1t"
    llama2_7b = "llama-2-7b"
    llama2_13b = "llama-2-13b"
    llama2_70b = "llama-2-70b"
    llama3_8b = "llama-3-8b"
    llama3_70b = "llama-3-70b"
    llama3_1_8b = "llama-3.1-8b"
    llama3_1_70b = "llama-3.1-70b"
    llama3_405b = "llama-3.1-405b"
    llama3_2_1b = "llama-3.2-1b"
    llama3_2_3b = "llama-3.2-3b"
    llama3_3_70b = "llama-3.3-70b"
    llama4_scout = "llama-4-scout"
    llama4_maverick = "llama-4-maverick"
    mistral_7b = "mistral-7b"
    mixtral_8x7b = "mixtral-8x7b"
    mixtral_8x22b = "mixtral-8x22b"
    qwen2_5_0_5b = "qwen2.5-0.5b"
    qwen2_5_1_5b = "qwen2.5-1.5b"
    qwen2_5_3b = "qwen2.5-3b"
    qwen2_5_7b = "qwen2.5-7b"
    qwen2_5_14b = "qwen2.5-14b"
    qwen2_5_32b = "qwen2.5-32b"
    qwen2_5_72b = "qwen2.5-72b"
    qwen3_0_6b = "qwen3-0.6b"
    qwen3_1_7b = "qwen3-1.7b"
    qwen3_4b = "qwen3-4b"
    qwen3_8b = "qwen3-8b"
    qwen3_14b = "qwen3-14b"
    qwen3_32b = "qwen3-32b"
    qwen3_30b_a3b = "qwen3-30b-a3b"
    qwen3_235b_a22b = "qwen3-235b-a22b"
    gemma2_2b = "gemma-2-2b"
    gemma2_9b = "gemma-2-9b"
    gemma2_27b = "gemma-2-27b"
    gemma3_1b = "gemma-3-1b"
    gemma3_4b = "gemma-3-4b"
    gemma3_12b = "gemma-3-12b"
    gemma3_27b = "gemma-3-27b"
    deepseek_v3 = "deepseek-v3"


class ModelPreset(BaseModel):
    """A published model: its parameter counts and, where published, its architecture."""

    model_config = ConfigDict(frozen=True)

    name: ModelPresetName
    description: str
    parameter_count: int = Field(description="Total parameters (elements): what memory holds.")
    active_parameter_count: int | None = Field(
        default=None, description="Parameters one token uses (mixture of experts); null when all are."
    )
    layers: int | None = None
    hidden_size: int | None = None
    attention_heads: int | None = None
    kv_heads: int | None = None
    ffn_hidden_size: int | None = None
    vocab_size: int | None = None
    mlp: MlpKind | None = None
    linear_bias: bool | None = None
    normalization: Normalization | None = None
    tied_embeddings: bool | None = None
    head_dim: int | None = None
    qkv_bias: bool | None = None
    qk_norm: bool | None = None
    sandwich_norm: bool | None = None
    position_embeddings: int | None = None
    moe: MoeSpec | None = None
    mla: MlaSpec | None = None
    source: str


def _hf(repo: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json"


def _model(
    name: ModelPresetName,
    description: str,
    counts: tuple[int, int | None],
    shape: tuple[int, int, int, int, int, int],
    source: str,
    **extra: Any,
) -> ModelPreset:
    """shape: layers, hidden_size, attention_heads, kv_heads, ffn_hidden_size, vocab_size."""
    layers, hidden, heads, kv_heads, ffn, vocab = shape
    fields: dict[str, Any] = {"mlp": MlpKind.swiglu, "tied_embeddings": False} | extra
    return ModelPreset(
        name=name,
        description=description,
        parameter_count=counts[0],
        active_parameter_count=counts[1],
        layers=layers,
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=kv_heads,
        ffn_hidden_size=ffn,
        vocab_size=vocab,
        source=source,
        **fields,
    )


_NARAYANAN = (
    "Narayanan et al. 2021, 'Efficient Large-Scale Language Model Training on GPU Clusters Using "
    "Megatron-LM', table 1 (heads, hidden size, layers; vocabulary 51,200 and sequence 2048 as in "
    "their parameter formula, section 5.1)"
)


def _megatron(name: ModelPresetName, size: str, count: int, heads: int, hidden: int, layers: int) -> ModelPreset:
    return _model(
        name,
        f"GPT {size} of Narayanan et al. 2021, table 1",
        (count, None),
        (layers, hidden, heads, heads, 4 * hidden, 51_200),
        _NARAYANAN,
        mlp=MlpKind.gelu,
        tied_embeddings=True,
        position_embeddings=2048,
    )


def _llama(name: ModelPresetName, description: str, count: int, shape: tuple[int, ...], repo: str, **extra: Any):  # type: ignore[no-untyped-def]
    return _model(name, description, (count, None), shape, _hf(repo) + "; count: the model card", **extra)  # type: ignore[arg-type]


_QWEN_INDEX = "; count: model.safetensors.index.json metadata.total_size / 2 (bf16 bytes)"


def _qwen2_5(name: ModelPresetName, size: str, count: int, shape: tuple[int, ...], tied: bool) -> ModelPreset:
    repo = f"Qwen/Qwen2.5-{size}"
    return _model(
        name,
        f"Qwen2.5 {size}",
        (count, None),
        shape,  # type: ignore[arg-type]
        _hf(repo) + _QWEN_INDEX + " or the model card",
        tied_embeddings=tied,
        qkv_bias=True,
    )


def _qwen3(
    name: ModelPresetName, size: str, counts: tuple[int, int | None], shape: tuple[int, ...], **extra: Any
) -> ModelPreset:
    fields: dict[str, Any] = {"head_dim": 128, "qk_norm": True} | extra
    return _model(
        name,
        f"Qwen3 {size}",
        counts,
        shape,  # type: ignore[arg-type]
        _hf(f"Qwen/Qwen3-{size}") + _QWEN_INDEX + " or the model card",
        **fields,
    )


_GEMMA2 = "Gemma Team 2024, 'Gemma 2: Improving Open Language Models at a Practical Size', tables 1 and 2"
_GEMMA3 = "Gemma Team 2025, 'Gemma 3 Technical Report', table 1 (text decoder; the 417M vision encoder is not modelled)"


def _gemma(
    name: ModelPresetName, description: str, count: int, shape: tuple[int, ...], head_dim: int, source: str, v3: bool
) -> ModelPreset:
    return _model(
        name,
        description,
        (count, None),
        shape,  # type: ignore[arg-type]
        source,
        mlp=MlpKind.geglu,
        tied_embeddings=True,
        head_dim=head_dim,
        sandwich_norm=True,
        qk_norm=v3,
    )


MODEL_PRESETS: dict[ModelPresetName, ModelPreset] = {
    p.name: p
    for p in (
        ModelPreset(
            name=ModelPresetName.seed_30b,
            description="The textbook model: 30 billion weights, no architecture",
            parameter_count=30_000_000_000,
            source="A round 30e9-parameter model for the textbook case: at 16 bytes per weight (Rajbhandari et al. "
            "2020, ZeRO, section 3.1) it needs 447 GiB, six 80 GB cards' worth, so no single card holds it",
        ),
        _model(
            ModelPresetName.gpt3_175b,
            "GPT-3 175B",
            (174_604_259_328, None),
            (96, 12288, 96, 96, 4 * 12288, 50257),
            "Brown et al. 2020, 'Language Models are Few-Shot Learners', table 2.1 (175.0B; 96 layers, "
            "d_model 12288, 96 heads, context 2048); GPT-2 vocabulary of 50,257 (Radford et al. 2019)",
            mlp=MlpKind.gelu,
            tied_embeddings=True,
            position_embeddings=2048,
        ),
        _megatron(ModelPresetName.megatron_1_7b, "1.7B", 1_652_230_656, 24, 2304, 24),
        _megatron(ModelPresetName.megatron_3_6b, "3.6B", 3_562_168_320, 32, 3072, 30),
        _megatron(ModelPresetName.megatron_7_5b, "7.5B", 7_467_786_240, 32, 4096, 36),
        _megatron(ModelPresetName.megatron_18_4b, "18.4B", 18_449_756_160, 48, 6144, 40),
        _megatron(ModelPresetName.megatron_39_1b, "39.1B", 39_096_041_472, 64, 8192, 48),
        _megatron(ModelPresetName.megatron_76_1b, "76.1B", 76_050_739_200, 80, 10240, 60),
        _megatron(ModelPresetName.megatron_145_6b, "145.6B", 145_622_261_760, 96, 12288, 80),
        _megatron(ModelPresetName.megatron_310_1b, "310.1B", 310_130_540_544, 128, 16384, 96),
        _megatron(ModelPresetName.megatron_529_6b, "529.6B", 529_600_819_200, 128, 20480, 105),
        _megatron(ModelPresetName.megatron_1t, "1008.0B (1T)", 1_008_038_758_400, 160, 25600, 128),
        _llama(
            ModelPresetName.llama2_7b,
            "Llama 2 7B",
            6_738_415_616,
            (32, 4096, 32, 32, 11008, 32000),
            "meta-llama/Llama-2-7b-hf",
        ),
        _llama(
            ModelPresetName.llama2_13b,
            "Llama 2 13B",
            13_015_864_320,
            (40, 5120, 40, 40, 13824, 32000),
            "meta-llama/Llama-2-13b-hf",
        ),
        _llama(
            ModelPresetName.llama2_70b,
            "Llama 2 70B",
            68_976_648_192,
            (80, 8192, 64, 8, 28672, 32000),
            "meta-llama/Llama-2-70b-hf",
        ),
        _llama(
            ModelPresetName.llama3_8b,
            "Llama 3 8B",
            8_030_261_248,
            (32, 4096, 32, 8, 14336, 128256),
            "meta-llama/Meta-Llama-3-8B",
        ),
        _llama(
            ModelPresetName.llama3_70b,
            "Llama 3 70B",
            70_553_706_496,
            (80, 8192, 64, 8, 28672, 128256),
            "meta-llama/Meta-Llama-3-70B",
        ),
        _llama(
            ModelPresetName.llama3_1_8b,
            "Llama 3.1 8B",
            8_030_261_248,
            (32, 4096, 32, 8, 14336, 128256),
            "meta-llama/Llama-3.1-8B",
        ),
        _llama(
            ModelPresetName.llama3_1_70b,
            "Llama 3.1 70B",
            70_553_706_496,
            (80, 8192, 64, 8, 28672, 128256),
            "meta-llama/Llama-3.1-70B",
        ),
        _llama(
            ModelPresetName.llama3_405b,
            "Llama 3.1 405B",
            405_853_388_800,
            (126, 16384, 128, 8, 53248, 128256),
            "meta-llama/Llama-3.1-405B",
        ),
        _llama(
            ModelPresetName.llama3_2_1b,
            "Llama 3.2 1B (tied embeddings)",
            1_235_814_400,
            (16, 2048, 32, 8, 8192, 128256),
            "meta-llama/Llama-3.2-1B",
            tied_embeddings=True,
        ),
        _llama(
            ModelPresetName.llama3_2_3b,
            "Llama 3.2 3B (tied embeddings)",
            3_212_749_824,
            (28, 3072, 24, 8, 8192, 128256),
            "meta-llama/Llama-3.2-3B",
            tied_embeddings=True,
        ),
        _llama(
            ModelPresetName.llama3_3_70b,
            "Llama 3.3 70B",
            70_553_706_496,
            (80, 8192, 64, 8, 28672, 128256),
            "meta-llama/Llama-3.3-70B-Instruct",
        ),
        _model(
            ModelPresetName.llama4_scout,
            "Llama 4 Scout 17B-16E: 16 routed experts (top 1) and one shared in every layer; text decoder",
            (107_769_861_120, 17_172_894_720),
            (48, 5120, 40, 8, 16384, 202048),
            _hf("meta-llama/Llama-4-Scout-17B-16E") + " (text_config); model card: 17B active, 109B total "
            "(the total includes the vision encoder, not modelled here)",
            head_dim=128,
            moe=MoeSpec(experts=16, top_k=1, expert_ffn_hidden_size=8192, shared_experts=1),
        ),
        _model(
            ModelPresetName.llama4_maverick,
            "Llama 4 Maverick 17B-128E: 128 routed experts (top 1) and one shared in every other layer; text decoder",
            (400_711_848_960, 17_184_691_200),
            (48, 5120, 40, 8, 16384, 202048),
            _hf("meta-llama/Llama-4-Maverick-17B-128E") + " (text_config: interleave_moe_layer_step 2, "
            "intermediate_size_mlp 16384 for the dense layers); model card: 17B active, 400B total",
            head_dim=128,
            moe=MoeSpec(experts=128, top_k=1, expert_ffn_hidden_size=8192, shared_experts=1, layer_interval=2),
        ),
        _model(
            ModelPresetName.mistral_7b,
            "Mistral 7B v0.1",
            (7_241_732_096, None),
            (32, 4096, 32, 8, 14336, 32000),
            _hf("mistralai/Mistral-7B-v0.1") + "; count: model.safetensors.index.json total_size / 2 (bf16)",
        ),
        _model(
            ModelPresetName.mixtral_8x7b,
            "Mixtral 8x7B: 8 experts, top 2",
            (46_702_792_704, 12_879_925_248),
            (32, 4096, 32, 8, 14336, 32000),
            _hf("mistralai/Mixtral-8x7B-v0.1") + "; Jiang et al. 2024, 'Mixtral of Experts': 47B total, 13B active "
            "(Mistral AI: 46.7B total, 12.9B active)",
            moe=MoeSpec(experts=8, top_k=2, expert_ffn_hidden_size=14336),
        ),
        _model(
            ModelPresetName.mixtral_8x22b,
            "Mixtral 8x22B v0.1: 8 experts, top 2",
            (140_620_634_112, 39_152_031_744),
            (56, 6144, 48, 8, 16384, 32000),
            _hf("mistralai/Mixtral-8x22B-v0.1") + "; Mistral AI, 'Cheaper, Better, Faster, Stronger' (2024): "
            "141B total, 39B active",
            moe=MoeSpec(experts=8, top_k=2, expert_ffn_hidden_size=16384),
        ),
        _qwen2_5(ModelPresetName.qwen2_5_0_5b, "0.5B", 494_032_768, (24, 896, 14, 2, 4864, 151936), True),
        _qwen2_5(ModelPresetName.qwen2_5_1_5b, "1.5B", 1_543_714_304, (28, 1536, 12, 2, 8960, 151936), True),
        _qwen2_5(ModelPresetName.qwen2_5_3b, "3B", 3_085_938_688, (36, 2048, 16, 2, 11008, 151936), True),
        _qwen2_5(ModelPresetName.qwen2_5_7b, "7B", 7_615_616_512, (28, 3584, 28, 4, 18944, 152064), False),
        _qwen2_5(ModelPresetName.qwen2_5_14b, "14B", 14_770_033_664, (48, 5120, 40, 8, 13824, 152064), False),
        _qwen2_5(ModelPresetName.qwen2_5_32b, "32B", 32_763_876_352, (64, 5120, 40, 8, 27648, 152064), False),
        _qwen2_5(ModelPresetName.qwen2_5_72b, "72B", 72_706_203_648, (80, 8192, 64, 8, 29568, 152064), False),
        _qwen3(
            ModelPresetName.qwen3_0_6b,
            "0.6B",
            (596_049_920, None),
            (28, 1024, 16, 8, 3072, 151936),
            tied_embeddings=True,
        ),
        _qwen3(
            ModelPresetName.qwen3_1_7b,
            "1.7B",
            (1_720_574_976, None),
            (28, 2048, 16, 8, 6144, 151936),
            tied_embeddings=True,
        ),
        _qwen3(
            ModelPresetName.qwen3_4b, "4B", (4_022_468_096, None), (36, 2560, 32, 8, 9728, 151936), tied_embeddings=True
        ),
        _qwen3(ModelPresetName.qwen3_8b, "8B", (8_190_735_360, None), (36, 4096, 32, 8, 12288, 151936)),
        _qwen3(ModelPresetName.qwen3_14b, "14B", (14_768_307_200, None), (40, 5120, 40, 8, 17408, 151936)),
        _qwen3(ModelPresetName.qwen3_32b, "32B", (32_762_123_264, None), (64, 5120, 64, 8, 25600, 151936)),
        _qwen3(
            ModelPresetName.qwen3_30b_a3b,
            "30B-A3B",
            (30_532_122_624, 3_353_032_704),
            (48, 2048, 32, 4, 6144, 151936),
            moe=MoeSpec(experts=128, top_k=8, expert_ffn_hidden_size=768),
        ),
        _qwen3(
            ModelPresetName.qwen3_235b_a22b,
            "235B-A22B",
            (235_093_634_560, 22_190_763_520),
            (94, 4096, 64, 4, 12288, 151936),
            moe=MoeSpec(experts=128, top_k=8, expert_ffn_hidden_size=1536),
        ),
        _gemma(
            ModelPresetName.gemma2_2b, "Gemma 2 2B", 2_614_341_888, (26, 2304, 8, 4, 9216, 256000), 256, _GEMMA2, False
        ),
        _gemma(
            ModelPresetName.gemma2_9b,
            "Gemma 2 9B",
            9_241_705_984,
            (42, 3584, 16, 8, 14336, 256000),
            256,
            _GEMMA2,
            False,
        ),
        _gemma(
            ModelPresetName.gemma2_27b,
            "Gemma 2 27B",
            27_227_128_320,
            (46, 4608, 32, 16, 36864, 256000),
            128,
            _GEMMA2,
            False,
        ),
        _gemma(
            ModelPresetName.gemma3_1b, "Gemma 3 1B", 999_885_952, (26, 1152, 4, 1, 6912, 262144), 256, _GEMMA3, True
        ),
        _gemma(
            ModelPresetName.gemma3_4b,
            "Gemma 3 4B (text decoder)",
            3_880_263_168,
            (34, 2560, 8, 4, 10240, 262208),
            256,
            _GEMMA3,
            True,
        ),
        _gemma(
            ModelPresetName.gemma3_12b,
            "Gemma 3 12B (text decoder)",
            11_766_034_176,
            (48, 3840, 16, 8, 15360, 262208),
            256,
            _GEMMA3,
            True,
        ),
        _gemma(
            ModelPresetName.gemma3_27b,
            "Gemma 3 27B (text decoder)",
            27_009_346_304,
            (62, 5376, 32, 16, 21504, 262208),
            128,
            _GEMMA3,
            True,
        ),
        _model(
            ModelPresetName.deepseek_v3,
            "DeepSeek-V3: MLA, 256 routed experts (top 8) and one shared; the first 3 layers dense; "
            "without the multi-token-prediction module",
            (671_026_419_200, 37_552_297_472),
            (61, 7168, 128, 128, 18432, 129280),
            _hf("deepseek-ai/DeepSeek-V3") + "; DeepSeek-AI 2024, 'DeepSeek-V3 Technical Report', section 4.2: "
            "671B total, 37B activated per token (the 685B on the Hub adds the 14B MTP module); section 2.1.2: "
            "node-limited routing, each token sent to at most 4 nodes",
            moe=MoeSpec(
                experts=256,
                top_k=8,
                expert_ffn_hidden_size=2048,
                shared_experts=1,
                dense_layers=3,
                router_bias=True,
                max_nodes_per_token=4,
            ),
            mla=MlaSpec(q_lora_rank=1536, kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128),
        ),
    )
}
