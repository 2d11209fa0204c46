"""Request parts shared by every planning operation: model, precision, cluster, arrangement."""

from collections.abc import Callable
from operator import itemgetter
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationInfo, field_validator, model_validator
from pydantic import Strict as PydanticStrict
from pydantic.json_schema import SkipJsonSchema

from models.architecture import MlaSpec, MoeSpec
from models.base import Strict as Strict  # re-exported: request models take their base from here
from models.base import StrictValue as StrictValue
from models.base import shared_default as shared_default
from models.enums import ArrangementName, MlpKind, Normalization
from models.presets import (
    GpuPresetName,
    LinkPresetName,
    LinkSpec,
    ModelPresetName,
    PrecisionPresetName,
    PrecisionSpec,
)
from models.resilience import Failures

MAX_PARAMETER_COUNT = 10**15
MAX_WORLD_SIZE = 1_000_000
MAX_GPUS_PER_NODE = 1024
MAX_GPU_MEMORY_BYTES = 10**15
# Float inputs are bounded so that every output is a finite number (no overflow to infinity, no
# division by an underflowed zero): the least compute time is FLOPs / (1 x 1e9 x 0.001).
MIN_PEAK_FLOPS_PER_S = 1e9
MAX_PEAK_FLOPS_PER_S = 1e18
MAX_HOST_MEMORY_BYTES = 10**16
# Two sockets of eight DDR5-4800 channels peak at 16 x 4800 MT/s x 8 B = 614.4 GB/s (JEDEC JESD79-5);
# an optimizer step that streams its state sustains about half of it: 300 GB/s, an assumption.
DEFAULT_HOST_MEMORY_BYTES_PER_S = 300e9

# Union members carry tags that start with "~": the error mapper drops them from JSON pointers.
NAME_TAG = "~name"
SPEC_TAG = "~spec"


def _name_or_object(value: Any) -> str | None:
    if isinstance(value, str):
        return NAME_TAG
    if isinstance(value, dict | BaseModel):
        return SPEC_TAG
    return None


ARCHITECTURE_FIELDS = ("layers", "hidden_size", "attention_heads", "ffn_hidden_size", "vocab_size")
_architecture_values = itemgetter(*ARCHITECTURE_FIELDS)  # of a model's __dict__, in C
_source_values = itemgetter("preset", "hf_config", "parameter_count", "head_dim", "kv_heads")  # the same
# Fields that refine an architecture; each overrides the preset's or the config's value when given.
OPTIONAL_ARCHITECTURE_FIELDS = (
    "kv_heads",
    "mlp",
    "linear_bias",
    "normalization",
    "tied_embeddings",
    "head_dim",
    "qkv_bias",
    "qk_norm",
    "sandwich_norm",
    "position_embeddings",
    "moe",
    "mla",
)
MAX_HF_CONFIG_KEYS = 1_000
# A config.json nests a few levels (rope_scaling, quantization_config, a multimodal model's text_config); deeper
# is not a config, and would cost the answer cache's key and a worker's pickling their recursion.
MAX_HF_CONFIG_DEPTH = 16


def nesting_depth(value: object, limit: int) -> int:
    """How many levels of objects and arrays ``value`` nests, counted up to ``limit + 1`` (iteratively)."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if not isinstance(node, dict | list):
            continue
        deepest = max(deepest, depth)
        if depth > limit:
            return deepest
        children = node.values() if isinstance(node, dict) else node
        pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


class ModelSpec(Strict):
    """The model: a preset, a Hugging Face config.json, a parameter count, or a transformer architecture.

    Architecture fields given beside a preset or an hf_config override theirs. Rules the schema
    cannot state: give a preset, an hf_config, a parameter_count or all five of layers,
    hidden_size, attention_heads, ffn_hidden_size and vocab_size; hidden_size is a multiple of
    attention_heads, and attention_heads a multiple of kv_heads."""

    preset: ModelPresetName | None = Field(default=None, description="A model preset; see GET /v1/presets.")
    hf_config: dict[str, Any] | None = Field(
        default=None,
        description="The contents of a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, Qwen3, "
        "Qwen3-MoE, Gemma 1/2/3, DeepSeek-V2/V3, Kimi K2, Llama 4 families, by model_type); the architecture is "
        "derived from it. Unknown keys are ignored; a missing key is a 422 naming /model/hf_config/<key>.",
        json_schema_extra={"maxProperties": MAX_HF_CONFIG_KEYS},
    )
    parameter_count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_PARAMETER_COUNT,
        description="Parameter count (elements, not bytes). Derived from the architecture when one is given; "
        "a given count that differs by more than 1% is reported as a warning.",
    )
    layers: int | None = Field(default=None, ge=1, le=10_000, description="Transformer layers (L).")
    hidden_size: int | None = Field(default=None, ge=1, le=1_000_000, description="Model width (h).")
    attention_heads: int | None = Field(default=None, ge=1, le=100_000, description="Attention heads (a).")
    kv_heads: int | None = Field(default=None, ge=1, le=100_000, description="Key/value heads; default a (MHA).")
    ffn_hidden_size: int | None = Field(
        default=None, ge=1, le=10_000_000, description="MLP inner width (of the dense layers in an MoE model)."
    )
    vocab_size: int | None = Field(default=None, ge=1, le=100_000_000, description="Vocabulary size (V).")
    mlp: MlpKind | None = Field(
        default=None, description="gelu (GPT-style, with biases), swiglu (Llama-style) or geglu (Gemma)."
    )
    linear_bias: bool | None = Field(
        default=None,
        description="Biases on every linear layer of attention and MLP (Megatron-LM's --add-bias-linear); "
        "default true for a gelu MLP, false for swiglu and geglu.",
    )
    normalization: Normalization | None = Field(
        default=None,
        description="layernorm (scale and bias) or rmsnorm (scale only); default layernorm for a gelu MLP, "
        "rmsnorm for swiglu and geglu.",
    )
    tied_embeddings: bool | None = Field(default=None, description="Output layer shares the embedding matrix.")
    head_dim: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="Width of one attention head; default hidden_size / attention_heads.",
    )
    qkv_bias: bool | None = Field(default=None, description="Biases on the q, k and v projections (Qwen2, Qwen2.5).")
    qk_norm: bool | None = Field(default=None, description="RMSNorm on each query and key head (Qwen3, Gemma 3).")
    sandwich_norm: bool | None = Field(
        default=None, description="Norms after attention and MLP too: four per layer (Gemma 2, Gemma 3)."
    )
    position_embeddings: int | None = Field(
        default=None, ge=0, le=100_000_000, description="Learned absolute positions (GPT-2/3); 0 for rotary."
    )
    moe: MoeSpec | None = Field(default=None, description="Mixture of experts; absent for a dense model.")
    mla: MlaSpec | None = Field(
        default=None, description="Multi-head latent attention (DeepSeek-V3) instead of MHA/GQA."
    )
    largest_unit_parameters: Annotated[int, PydanticStrict()] | None = Field(
        default=None,
        ge=1,
        le=MAX_PARAMETER_COUNT,
        description="Parameters of the largest FSDP/ZeRO-3 unit (a transformer block, the embedding or the output "
        "layer), for the working set when the architecture is unknown; derived from an architecture otherwise.",
    )

    @field_validator("hf_config")
    @classmethod
    def _config_shallow(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        if config is not None and nesting_depth(config, MAX_HF_CONFIG_DEPTH) > MAX_HF_CONFIG_DEPTH:
            raise ValueError(
                f"nests objects and arrays more than {MAX_HF_CONFIG_DEPTH} levels deep; a config.json nests a few"
            )
        return config

    @field_validator("largest_unit_parameters")
    @classmethod
    def _unit_within_model(cls, unit: int | None, info: ValidationInfo) -> int | None:
        count = info.data.get("parameter_count")
        if unit is not None and count is not None and unit > count:
            raise ValueError(
                f"model.largest_unit_parameters {unit:,} is larger than the model's model.parameter_count {count:,}"
            )
        return unit

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        fields = self.__dict__  # read in C: a field read through the model passes the model's __getattr__ hook
        architecture = _architecture_values(fields)
        layers, hidden_size, attention_heads = architecture[:3]
        preset, hf_config, parameter_count, head_dim, kv_heads = _source_values(fields)
        absent = architecture.count(None)
        base = preset is not None or hf_config is not None
        if preset is not None and hf_config is not None:
            raise ValueError("give model.preset or model.hf_config, not both")
        if not base and 0 < absent < len(ARCHITECTURE_FIELDS):
            missing = ", ".join(
                f"model.{n}" for n, v in zip(ARCHITECTURE_FIELDS, architecture, strict=True) if v is None
            )
            raise ValueError(
                f"an architecture needs {missing} too (or a model.preset or model.hf_config to complete it)"
            )
        if not base and parameter_count is None and absent == len(ARCHITECTURE_FIELDS):
            raise ValueError("give model.parameter_count, model.preset, model.hf_config or an architecture")
        if hidden_size is not None and attention_heads is not None and head_dim is None:
            if fields["mla"] is None and hidden_size % attention_heads:
                raise ValueError(
                    f"model.hidden_size {hidden_size} is not a multiple of model.attention_heads "
                    f"{attention_heads}; give model.head_dim"
                )
        if attention_heads is not None and kv_heads is not None:
            if attention_heads % kv_heads:
                raise ValueError(
                    f"model.attention_heads {attention_heads} is not a multiple of model.kv_heads {kv_heads}"
                )
        moe = fields["moe"]
        if moe is not None and layers is not None and moe.dense_layers > layers:
            raise ValueError(f"model.moe.dense_layers {moe.dense_layers} exceeds model.layers {layers}")
        return self


class ShardingFlags(StrictValue):
    """The three flags that describe every arrangement. They are monotone: shard_parameters needs
    shard_gradients, and shard_gradients needs shard_optimizer (the schema says so with if/then)."""

    model_config = ConfigDict(
        json_schema_extra={
            "allOf": [
                {
                    "if": {"properties": {"shard_parameters": {"const": True}}},
                    "then": {"properties": {"shard_gradients": {"const": True}}},
                },
                {
                    "if": {"properties": {"shard_gradients": {"const": True}}},
                    "then": {"properties": {"shard_optimizer": {"const": True}}},
                },
            ]
        }
    )

    shard_optimizer: bool
    shard_gradients: bool
    shard_parameters: bool

    @model_validator(mode="after")
    def _monotone(self) -> Self:
        if self.shard_parameters and not self.shard_gradients:
            raise ValueError(
                "shard_parameters=true needs shard_gradients=true: no framework shards parameters "
                "but keeps every gradient"
            )
        if self.shard_gradients and not self.shard_optimizer:
            raise ValueError(
                "shard_gradients=true needs shard_optimizer=true: no framework shards gradients "
                "but keeps every optimizer state"
            )
        return self


# Each name-or-object field is split in the contract: `arrangement` (a name) or `sharding` (the
# flags), `precision` or `precision_spec`, `cluster.links` or `cluster.link_spec`, so generated
# clients get plain classes. A request puts only a name in the name field (an object there is a
# 422 naming the spec field); after validation the name field holds the spec field's object when
# that was given, so the core reads one field (SkipJsonSchema keeps that member out of the spec).
Arrangement = Annotated[
    Annotated[ArrangementName, Tag(NAME_TAG)] | Annotated[SkipJsonSchema[ShardingFlags], Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_flags",
        custom_error_message="give an arrangement name or an object of the three sharding flags",
    ),
]

Precision = Annotated[
    Annotated[PrecisionPresetName, Tag(NAME_TAG)] | Annotated[SkipJsonSchema[PrecisionSpec], Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_spec",
        custom_error_message="give a precision preset name or an object of dtypes and optimizer",
    ),
]


Links = Annotated[
    Annotated[LinkPresetName, Tag(NAME_TAG)] | Annotated[SkipJsonSchema[LinkSpec], Tag(SPEC_TAG)],
    Discriminator(
        _name_or_object,
        custom_error_type="name_or_spec",
        custom_error_message="give a link preset name or an object of bandwidths and latencies",
    ),
]


SPLIT_PAIRS = (("arrangement", "sharding"), ("precision", "precision_spec"))
LINK_PAIR = (("links", "link_spec"),)


def as_request_json(request: BaseModel, exclude: set[str] | None = None, exclude_unset: bool = False) -> dict[str, Any]:
    """A validated request as JSON, written as a client writes it (nulls left out): after validation a
    name field holds its spec field's object when that was given; the object goes back to the spec
    field whole (its explicit nulls, such as master_dtype, are values). ``exclude_unset``: only the fields
    the request gave (defaults left to the reader, so a pair of exclusive fields never appears twice)."""
    body = request.model_dump(mode="json", exclude_none=True, exclude=exclude, exclude_unset=exclude_unset)
    cluster = getattr(request, "cluster", None)
    for holder, source, pairs in ((body, request, SPLIT_PAIRS), (body.get("cluster"), cluster, LINK_PAIR)):
        if not isinstance(holder, dict):
            continue
        for name, spec in pairs:
            holder.pop(spec, None)
            value = getattr(source, name, None)
            if isinstance(value, BaseModel):
                holder.pop(name, None)
                holder[spec] = value.model_dump(mode="json")
    return body


def _non_null(members: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in members if m.get("type") != "null"]


def plain_name(default: str | None = None, nullable: bool = False) -> Callable[[dict[str, Any]], None]:
    """json_schema_extra of a split field: its one documented member without a oneOf, its real default."""

    def edit(schema: dict[str, Any]) -> None:
        given = schema.pop("oneOf", None) or schema.pop("anyOf", None) or []
        null_member = nullable or len(_non_null(given)) < len(given)
        members = _non_null(given)
        while len(members) == 1 and "$ref" not in members[0] and ("oneOf" in members[0] or "anyOf" in members[0]):
            members = _non_null(members[0].get("oneOf") or members[0].get("anyOf") or [])
        if len(members) == 1:
            # null is a value here (the default), as the validator takes it: the spec says so too
            schema.update({"anyOf": [members[0], {"type": "null"}]} if null_member else members[0])
        schema.pop("default", None)
        # A nullable name states its default in words: as a schema default, generated clients would
        # send it beside the spec field's object.
        if default is not None and not null_member:
            schema["default"] = default

    return edit


def name_or_spec(spec_field: str, default: Any = None, required: bool = False) -> Callable[[Any, ValidationInfo], Any]:
    """A before-validator of the name field of a split pair: the spec field's object when given, else the name.

    Declare the spec field before the name field (pydantic validates fields in their order).
    """

    def pick(value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, dict):  # the spec documents a name here: the object has its own field
            raise ValueError(f"{info.field_name} takes a name; give the object in {spec_field}")
        spec = info.data.get(spec_field)
        if value is None:
            if spec is not None:
                return spec
            if required:
                raise ValueError(f"give {info.field_name} (a name) or {spec_field} (an object)")
            return default
        if spec is not None:
            raise ValueError(f"give {info.field_name} or {spec_field}, not both")
        return value

    return pick


PRECISION_SPEC_FIELD = Field(
    default=None,
    description="Explicit dtypes and optimizer instead of a `precision` preset name (e.g. fp16 parameters and "
    "gradients, no master copy and fp64 Adam moments: the textbook rough sketch, 20 B/weight).",
)
PRECISION_FIELD = Field(
    default=None,
    validate_default=True,
    description="A precision preset name (see GET /v1/presets); or give `precision_spec` instead. Omitted or "
    "null: mixed_bf16_adam.",
    json_schema_extra=plain_name(PrecisionPresetName.mixed_bf16_adam.value, nullable=True),
)


def precision_validator() -> Any:
    """For a request with precision_spec declared before precision: precision holds the one given."""
    return field_validator("precision", mode="before")(
        name_or_spec("precision_spec", PrecisionPresetName.mixed_bf16_adam)
    )


class Card(StrictValue):
    """The card and the node: exactly one of a GPU preset (gpu) and an explicit memory size
    (gpu_memory_bytes), and GPUs per node."""

    # Exactly one of gpu and gpu_memory_bytes: stated here rather than as a JSON Schema oneOf, which
    # turns the object into an anonymous union in generated clients (openapi-python-client).

    gpus_per_node: int = Field(default=8, ge=1, le=MAX_GPUS_PER_NODE, description="GPUs per node (G).")
    gpu: GpuPresetName | None = Field(default=None, description="A GPU preset; see GET /v1/presets.")
    gpu_memory_bytes: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPU_MEMORY_BYTES,
        description="Memory of one GPU, bytes; with no reserve unless cluster.reserve_bytes or "
        "cluster.fragmentation says otherwise.",
    )
    reserve_bytes: Annotated[int, PydanticStrict()] | None = Field(
        default=None,
        ge=0,
        le=MAX_GPU_MEMORY_BYTES,
        description="Bytes of each card a job cannot use: CUDA context and NCCL buffers. Default: the GPU "
        "preset's (see GET /v1/presets), 0 with gpu_memory_bytes.",
    )
    fragmentation: Annotated[float, PydanticStrict()] | None = Field(
        default=None,
        ge=0,
        lt=1,
        description="Fraction of the card the allocator cannot use (fragmentation). Default: the GPU preset's, "
        "0 with gpu_memory_bytes.",
    )
    peak_flops_per_s: float | None = Field(
        default=None,
        ge=MIN_PEAK_FLOPS_PER_S,
        le=MAX_PEAK_FLOPS_PER_S,
        description="Dense peak FLOP/s of one GPU, 1e9 to 1e18 (bounds that keep every time finite); "
        "default the GPU preset's.",
    )
    host_memory_bytes: int | None = Field(
        default=None,
        ge=0,
        le=MAX_HOST_MEMORY_BYTES,
        description="Host (CPU) memory of one node, bytes. When given, a plan whose offloaded state needs more "
        "per node does not fit; null: not checked.",
    )
    host_memory_bytes_per_s: float = Field(
        default=DEFAULT_HOST_MEMORY_BYTES_PER_S,
        ge=1e6,
        le=1e15,
        description="Host memory bandwidth of one node, bytes/s: the CPU optimizer step under offload streams its "
        "state through it. Default 300e9, an assumption: about half the 614.4 GB/s peak of two 8-channel "
        "DDR5-4800 sockets.",
    )
    link_spec: LinkSpec | None = Field(
        default=None, description="Explicit link bandwidths and latencies, instead of a `links` preset name."
    )
    links: Links | None = Field(
        default=None,
        validate_default=True,
        description="Link bandwidths and latencies: a preset name (see GET /v1/presets); or give `link_spec`. "
        "Default: the links of the GPU preset's generation (A100: nvlink3-ib200, H100/H200: nvlink4-ib400, "
        "B200/B300: nvlink5-ib800, others from the preset's own link figures); `seed` for seed-80gb or a card "
        "given by its memory.",
        json_schema_extra=plain_name(),
    )
    gpu_hour_price: float | None = Field(
        default=None,
        ge=0,
        le=1e6,
        description="Price of one GPU-hour, in cluster.currency; with training.total_tokens the answer's time "
        "holds the run's cost, failures and checkpoints included.",
    )
    currency: str = Field(
        default="USD",
        pattern="^[A-Z]{3}$",
        description="ISO 4217 code of the currency of gpu_hour_price and of the answer's cost.",
    )
    failures: Failures | None = Field(
        default=None,
        description="Interruptions of the job and the cost of a restart. Default: Llama 3 405B's published rate "
        "(Dubey et al. 2024, section 3.3.4) and a 600 s re-launch.",
    )

    pick_links = field_validator("links", mode="before")(name_or_spec("link_spec"))

    @model_validator(mode="after")
    def _one_card(self) -> Self:
        if (self.gpu is None) == (self.gpu_memory_bytes is None):
            raise ValueError("give exactly one of cluster.gpu and cluster.gpu_memory_bytes")
        return self


def check_world_size(world_size: int, gpus_per_node: int, field: str = "world_size") -> int:
    """A job is part of one node or a whole number of nodes (torchtitan ParallelDims style)."""
    if world_size > gpus_per_node and world_size % gpus_per_node:
        nodes, rest = divmod(world_size, gpus_per_node)
        raise ValueError(
            f"{field} {world_size} is not a whole number of nodes: {world_size} = "
            f"{nodes} x gpus_per_node {gpus_per_node} + {rest}; use at most {gpus_per_node} GPUs "
            f"or a multiple of {gpus_per_node}"
        )
    return world_size


class Cluster(Card):
    """A card, GPUs per node and the world size (N, the data-parallel GPU count)."""

    world_size: int = Field(
        ge=1,
        le=MAX_WORLD_SIZE,
        description="Data-parallel GPU count (N): at most gpus_per_node (part of one node) or a multiple of it "
        "(whole nodes).",
    )

    @field_validator("world_size")
    @classmethod
    def _whole_nodes(cls, world_size: int, info: Any) -> int:
        gpus_per_node = info.data.get("gpus_per_node")
        if gpus_per_node is None:
            return world_size
        return check_world_size(world_size, gpus_per_node)
