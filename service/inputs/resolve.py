"""Turn the contract's names and presets into the plain values the formulas take."""

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from models.architecture import MlaSpec, MoeSpec
from models.common import (
    ARCHITECTURE_FIELDS,
    DEFAULT_HOST_MEMORY_BYTES_PER_S,
    OPTIONAL_ARCHITECTURE_FIELDS,
    Card,
    ModelSpec,
    ShardingFlags,
)
from models.enums import ActivationModel, ArrangementName, Fp8Recipe, MlpKind
from models.presets import (
    GENERATION_LINKS,
    GPU_PRESETS,
    LINK_PRESETS,
    MODEL_PRESETS,
    PRECISION_PRESETS,
    GpuPresetName,
    LinkPresetName,
    LinkSpec,
    ModelPresetName,
    PrecisionPresetName,
    PrecisionSpec,
)
from models.training import Activations, Levers, Training
from service.engine.data_parallel import with_mxfp8
from service.engine.setup import ActivationSetup, Inputs, Setup
from service.errors import InvalidClusterShape, InvalidLayout, InvalidModel, MissingArchitecture, OutOfRange
from service.inputs import model_limits
from service.inputs.architecture import (
    Architecture,
    Mla,
    Moe,
    active_parameter_count,
    attention_width,
    head_dim,
    input_lookup_parameters,
    moe_layer_count,
    shared_expert_width,
)
from service.inputs.architecture import parameter_count as architecture_parameters
from service.inputs.arrangements import COMPARED, Sharding, ZeroPlusPlus, canonical_name, sharding_for
from service.inputs.hf_config import architecture_fields
from service.memory.activations import TransformerShape, transformer_shape
from service.memory.fp8 import with_fp8
from service.memory.model_states import Offload
from service.memory.reserve import CardMemory
from service.memory.working_set import Units, given_units, transformer_units
from service.time.buckets import PYTORCH_DDP_BUCKET_BYTES as DEFAULT_BUCKET_BYTES
from service.time.compute import FlopShape
from service.time.efficiency import MULTIPROCESSORS, Device, Efficiency, KernelShape
from service.time.fp8 import MXFP8_ELEMENT_BYTES, MXFP8_GEMM_PEAK_SHARE, fp8_casts, mxfp8_casts
from service.time.overlaps import DEFAULT_OVERLAPS, Overlaps

# Peak assumed for a card given only by its memory (H100 SXM dense bf16, NVIDIA datasheet).
DEFAULT_PEAK_FLOPS_PER_S = 989.4e12
MISMATCH_TOLERANCE = 0.01
DEFAULT_TRAINING = Training()


# Not frozen: one or two are built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass(slots=True)
class ResolvedModel:
    parameter_count: int
    architecture: Architecture | None
    warnings: list[str]
    active_parameter_count: int = 0  # 0: the same as parameter_count (dense, or no architecture)
    units: Units | None = None  # FSDP/ZeRO-3 units, for the working set; None when unknown

    @property
    def active(self) -> int:
        """Parameters one token uses: what compute counts (all of them in a dense model)."""
        return self.active_parameter_count or self.parameter_count


FIELD_NAMES = ARCHITECTURE_FIELDS + OPTIONAL_ARCHITECTURE_FIELDS
UNITS_UNKNOWN = (
    "the working set (ZeRO-3/FSDP's gathered units and unsharded unit gradients, DDP and ZeRO-1/2's "
    "gradient buckets) is not counted: the model's units are unknown; give model.largest_unit_parameters, "
    "an architecture or a model.preset that has one"
)


def model(spec: ModelSpec) -> ResolvedModel:
    """The model with its units: given, derived from the architecture, or unknown (then said in a warning)."""
    given = spec.model_fields_set
    if spec.preset is not None and given == {"preset"}:
        found = bare_preset(spec.preset)
        return ResolvedModel(
            found.parameter_count, found.architecture, list(found.warnings), found.active_parameter_count, found.units
        )
    if spec.parameter_count is not None and given == {"parameter_count"}:
        return ResolvedModel(spec.parameter_count, None, [UNITS_UNKNOWN])  # a bare count: no architecture, no units
    return _model(spec)


@lru_cache(maxsize=len(MODEL_PRESETS))
def bare_preset(preset: ModelPresetName) -> ResolvedModel:
    """A preset given alone, resolved once: its architecture, counts and units never change."""
    return _model(ModelSpec(preset=preset))


def _model(spec: ModelSpec) -> ResolvedModel:
    resolved = _count_and_architecture(spec)
    count, arch = resolved.parameter_count, resolved.architecture
    if spec.largest_unit_parameters is not None:
        if spec.largest_unit_parameters > count:
            raise InvalidModel(
                f"model.largest_unit_parameters {spec.largest_unit_parameters:,} is larger than the model's "
                f"{count:,} parameters",
                pointer="/model/largest_unit_parameters",
            )
        units: Units | None = given_units(spec.largest_unit_parameters)
    else:
        units = transformer_units(arch) if arch is not None else None
    warnings = list(resolved.warnings)
    if units is None:
        warnings.append(UNITS_UNKNOWN)
    return ResolvedModel(count, arch, warnings, resolved.active_parameter_count, units)


def _count_and_architecture(spec: ModelSpec) -> ResolvedModel:
    """Parameter counts and, where known, architecture; a given count that disagrees is a warning."""
    preset = MODEL_PRESETS[spec.preset] if spec.preset is not None else None
    base: dict[str, Any] = {}
    if preset is not None:
        base = {name: getattr(preset, name) for name in FIELD_NAMES}
    elif spec.hf_config is not None:
        base = architecture_fields(spec.hf_config)
    fields = {name: getattr(spec, name) if getattr(spec, name) is not None else base.get(name) for name in FIELD_NAMES}
    if base and all(fields[name] is not None for name in ARCHITECTURE_FIELDS):
        model_limits.check_fields(fields, spec.hf_config if preset is None else None)
    architecture = _architecture(fields)
    warnings: list[str] = []
    if architecture is None:
        count = spec.parameter_count if spec.parameter_count is not None else preset.parameter_count  # type: ignore[union-attr]
        given = [f"model.{name}" for name in FIELD_NAMES if getattr(spec, name) is not None]
        if given:  # fields that would shape an architecture, with none to shape: said, not silently dropped
            warnings.append(
                f"{', '.join(given)} not used: the model is a parameter count alone ({count:,}), with no architecture "
                f"to apply {'it' if len(given) == 1 else 'them'} to; give all of "
                f"{', '.join(f'model.{name}' for name in ARCHITECTURE_FIELDS)} (or a preset or config that has them)"
            )
        return ResolvedModel(count, None, warnings)
    derived = architecture_parameters(architecture)
    model_limits.check_parameter_count(derived, spec.hf_config if preset is None else None)
    if spec.parameter_count is not None and abs(spec.parameter_count - derived) > MISMATCH_TOLERANCE * derived:
        warnings.append(
            f"model.parameter_count {spec.parameter_count:,} differs from the {derived:,} the architecture "
            f"implies by more than 1%; the architecture's count is used"
        )
    return ResolvedModel(derived, architecture, warnings, active_parameter_count(architecture))


def _architecture(fields: dict[str, Any]) -> Architecture | None:
    if any(fields[name] is None for name in ARCHITECTURE_FIELDS):
        return None
    moe, mla = fields["moe"], fields["mla"]
    if isinstance(moe, dict):
        moe = MoeSpec(**moe)
    if isinstance(mla, dict):
        mla = MlaSpec(**mla)
    return Architecture(
        layers=fields["layers"],
        hidden_size=fields["hidden_size"],
        attention_heads=fields["attention_heads"],
        kv_heads=fields["kv_heads"] or fields["attention_heads"],
        ffn_hidden_size=fields["ffn_hidden_size"],
        vocab_size=fields["vocab_size"],
        mlp=fields["mlp"] or MlpKind.gelu,
        tied_embeddings=bool(fields["tied_embeddings"]),
        head_dim=fields["head_dim"],
        qkv_bias=bool(fields["qkv_bias"]),
        qk_norm=bool(fields["qk_norm"]),
        sandwich_norm=bool(fields["sandwich_norm"]),
        position_embeddings=fields["position_embeddings"] or 0,
        moe=Moe(**moe.model_dump()) if moe is not None else None,
        mla=Mla(**mla.model_dump()) if mla is not None else None,
        linear_bias=fields["linear_bias"],
        normalization=fields["normalization"],
    )


def precision_spec(
    precision: PrecisionPresetName | PrecisionSpec, arrangement: Sharding | None = None
) -> PrecisionSpec:
    """The layout of a preset at an arrangement (a stage-aware preset may differ by stage)."""
    if isinstance(precision, PrecisionSpec):
        return precision
    preset = PRECISION_PRESETS[precision]
    if arrangement is not None:
        stage = canonical_name(arrangement)
        if stage in preset.stages:
            return preset.stages[stage]
    return preset.spec


def card_bytes(card: Card) -> int:
    if card.gpu_memory_bytes is not None:
        return card.gpu_memory_bytes
    assert card.gpu is not None  # the model validator guarantees one of the two
    return GPU_PRESETS[card.gpu].memory_bytes


@lru_cache(maxsize=1024)
def shared_card_memory(card_bytes: int, reserve_bytes: int, fragmentation: float) -> CardMemory:
    """One CardMemory per distinct card, so that its derived figures are computed once."""
    return CardMemory(card_bytes, reserve_bytes, fragmentation)


def card_memory(card: Card) -> CardMemory:
    """The card, its reserve and fragmentation: the request's, else the preset's, else none for a bare size."""
    reserve, fragmentation = GPU_PRESETS[card.gpu].reserve() if card.gpu is not None else (0, 0.0)
    memory = shared_card_memory(
        card_bytes(card),
        reserve if card.reserve_bytes is None else card.reserve_bytes,
        fragmentation if card.fragmentation is None else card.fragmentation,
    )
    if memory.usable_bytes < 1:
        blame_fragmentation = card.fragmentation is not None and memory.reserve_bytes < memory.card_bytes
        field = "fragmentation" if blame_fragmentation else "reserve_bytes"
        raise InvalidClusterShape(
            f"cluster.{field}: the reserve ({memory.reserve_bytes:,} B) and fragmentation "
            f"({memory.fragmentation_bytes:,} B) leave nothing of the {memory.card_bytes:,}-byte card",
            pointer=f"/cluster/{field}",
        )
    return memory


def peak_flops_per_s(card: Card) -> float:
    if card.peak_flops_per_s is not None:
        return card.peak_flops_per_s
    if card.gpu is not None:
        gpu = GPU_PRESETS[card.gpu]
        # A card without bf16 tensor cores (V100) trains in fp16: its fp16 peak is the 16-bit peak.
        peak = gpu.peak_bf16_flops if gpu.peak_bf16_flops is not None else gpu.peak_fp16_flops
        if peak is not None:
            return peak
    return DEFAULT_PEAK_FLOPS_PER_S


def blackwell_class(card: Card) -> bool:
    return card.gpu is not None and GPU_PRESETS[card.gpu].blackwell_class


def links(card: Card) -> LinkSpec:
    """The links asked for; else those of the GPU preset's generation (models.presets.GENERATION_LINKS), else
    the preset's own scale-up and NIC figures; the textbook links for a card without a generation."""
    if isinstance(card.links, LinkSpec):
        return card.links
    if card.links is not None:
        return LINK_PRESETS[card.links].spec
    preset = GPU_PRESETS[card.gpu] if card.gpu is not None else None
    if preset is None or preset.generation is None:
        return LINK_PRESETS[LinkPresetName.seed].spec
    named = GENERATION_LINKS.get(preset.generation)
    if named is not None:
        return LINK_PRESETS[named].spec
    if preset.scale_up_bytes_per_s and preset.nic_bytes_per_s:
        return LinkSpec(
            intra_node_bytes_per_s=preset.scale_up_bytes_per_s, inter_node_bytes_per_s=preset.nic_bytes_per_s
        )
    return LINK_PRESETS[LinkPresetName.seed].spec


def sharding(arrangement: ArrangementName | ShardingFlags) -> Sharding:
    if isinstance(arrangement, ShardingFlags):
        return Sharding(arrangement.shard_optimizer, arrangement.shard_gradients, arrangement.shard_parameters)
    return sharding_for(arrangement)


def compared(arrangement: ArrangementName | ShardingFlags | None) -> list[tuple[ArrangementName, Sharding]]:
    """The arrangement a request names (by the name it gives, or its flags' canonical name), else every
    arrangement /v1/fit and the figures set side by side."""
    if arrangement is None:
        return list(COMPARED.items())
    flags = sharding(arrangement)
    return [(arrangement if isinstance(arrangement, ArrangementName) else canonical_name(flags), flags)]


def activation_model(activations: Activations, architecture: Architecture | None) -> ActivationModel:
    """The model asked for; by default transformer when the architecture is known, else none.

    An omitted training block means the default shape (1 x 2048 tokens), exactly as an empty one: the
    shape the step time is computed at is the shape whose activations are counted.
    """
    if activations.model is not None:
        if activations.model is not ActivationModel.none and architecture is None:
            raise MissingArchitecture(
                f"activations.model {activations.model.value} needs the architecture: give model.layers, "
                "model.hidden_size, model.attention_heads, model.ffn_hidden_size and model.vocab_size, "
                "or a model.preset that has them",
                pointer="/activations/model",
            )
        return activations.model
    if architecture is not None:
        return ActivationModel.transformer
    return ActivationModel.none


# Not frozen: one is built for every plan, and a frozen dataclass's __init__ costs several times more.
@dataclass
class Scenario:
    """Everything but the arrangement and the GPU count, resolved once."""

    model: ResolvedModel
    precision: PrecisionPresetName | PrecisionSpec  # as asked: a stage-aware preset resolves per arrangement
    training: Training
    activations: ActivationSetup
    levers: Levers
    card: CardMemory
    peak_flops_per_s: float
    links: LinkSpec
    blackwell_class: bool
    warnings: list[str]
    flop_shape: FlopShape
    efficiency: Efficiency | None = None
    host_memory_bytes: int | None = None
    host_memory_bytes_per_s: float = DEFAULT_HOST_MEMORY_BYTES_PER_S

    @property
    def card_bytes(self) -> int:
        return self.card.card_bytes

    @property
    def usable_bytes(self) -> int:
        return self.card.usable_bytes


def scenario(
    model_spec: ModelSpec,
    precision: PrecisionPresetName | PrecisionSpec,
    training: Training | None,
    activations: Activations,
    levers: Levers,
    card: Card,
    resolved: ResolvedModel | None = None,
) -> Scenario:
    """``resolved``: the model of ``model_spec`` when the caller has resolved it already."""
    if training is not None and training.global_batch_size is not None:
        raise InvalidLayout(
            [
                (
                    "training.global_batch_size needs a fixed data-parallel degree: POST /v1/plan takes it; "
                    "give training.gradient_accumulation_steps here",
                    "/training/global_batch_size",
                )
            ]
        )
    resolved = resolved or model(model_spec)
    arch = resolved.architecture
    shapes = model_shapes(arch, activations.flash_attention)
    activation_setup = ActivationSetup(
        model=activation_model(activations, arch),
        fudge=activations.fudge,
        bytes_per_value=activations.bytes_per_value,
        flash_attention=activations.flash_attention,
        shape=shapes.activations,
        cross_entropy=activations.cross_entropy,
    )
    warnings = resolved.warnings + activation_warnings(activations, activation_setup.model) + fp8_warnings(levers, card)
    return Scenario(
        model=resolved,
        precision=precision,
        training=training or DEFAULT_TRAINING,
        activations=activation_setup,
        levers=levers,
        card=card_memory(card),
        peak_flops_per_s=peak_flops_per_s(card),
        links=links(card),
        blackwell_class=blackwell_class(card),
        warnings=warnings,
        flop_shape=shapes.flops,
        efficiency=Efficiency(
            device(card),
            shapes.kernels,
            cross_entropy=activations.cross_entropy,
            # Megatron-LM's convention: weight gradients accumulated into its fp32 gradient buffer inside the GEMM
            wgrad_fp32_accumulation=precision == PrecisionPresetName.megatron,
        ),
        host_memory_bytes=card.host_memory_bytes,
        host_memory_bytes_per_s=card.host_memory_bytes_per_s,
    )


@dataclass(frozen=True)
class ModelShapes:
    """What the activation, FLOP and kernel models read of an architecture."""

    activations: TransformerShape | None
    flops: FlopShape
    kernels: KernelShape | None


@lru_cache(maxsize=1024)  # a pure function of frozen values: a preset's shapes are derived once
def model_shapes(arch: Architecture | None, flash_attention: bool) -> ModelShapes:
    return ModelShapes(
        transformer_shape(arch) if arch is not None else None,
        flop_shape(arch, flash_attention),
        kernel_shape(arch, flash_attention),
    )


def flop_shape(arch: Architecture | None, flash_attention: bool) -> FlopShape:
    """The FLOP count's view of the model: 6P alone without an architecture."""
    if arch is None:
        return FlopShape(flash_attention=flash_attention)
    # The attention term's width is the heads' (a x d), which is h only when the heads split h.
    return FlopShape(input_lookup_parameters(arch), arch.layers, attention_width(arch), flash_attention)


def device(card: Card) -> Device:
    """The GPU as the efficiency model sees it: the preset's HBM, multiprocessors and generation."""
    return preset_device(peak_flops_per_s(card), card.gpu)


@lru_cache(maxsize=1024)  # a pure function of a peak and a preset name
def preset_device(peak: float, gpu: GpuPresetName | None) -> Device:
    preset = GPU_PRESETS[gpu] if gpu is not None else None
    if preset is None or preset.hbm_bytes_per_s is None:
        return Device(peak)
    return Device(
        peak,
        preset.hbm_bytes_per_s,
        MULTIPROCESSORS.get(preset.name.value, 132),
        preset.generation,
        preset.peak_fp8_flops,
    )


def kernel_shape(arch: Architecture | None, flash_attention: bool = True) -> KernelShape | None:
    """The matrices of a layer; a mixture of experts runs top_k routed and the shared experts per token, the
    routed ones on the latent width when the mixture has one."""
    if arch is None:
        return None
    ffn, latent, latent_ffn = arch.ffn_hidden_size, 0, 0
    if arch.moe is not None:
        moe = arch.moe
        routed = moe.expert_ffn_hidden_size * moe.top_k
        ffn = shared_expert_width(moe) * moe.shared_experts
        if moe.latent_size is not None:
            latent, latent_ffn = moe.latent_size, routed
        else:
            ffn += routed
    return KernelShape(
        layers=arch.layers,
        hidden_size=arch.hidden_size,
        attention_width=attention_width(arch),
        kv_width=arch.kv_heads * head_dim(arch),
        ffn_hidden_size=ffn,
        gated=arch.mlp is not MlpKind.gelu,
        vocab_size=arch.vocab_size,
        attention_heads=arch.attention_heads,
        flash_attention=flash_attention,
        latent_size=latent,
        latent_ffn_hidden_size=latent_ffn,
        experts=arch.moe.experts if arch.moe is not None else 0,
        top_k=arch.moe.top_k if arch.moe is not None else 0,
        expert_ffn_hidden_size=arch.moe.expert_ffn_hidden_size if arch.moe is not None else 0,
        moe_layers=moe_layer_count(arch),
        dense_ffn_hidden_size=arch.ffn_hidden_size,
        **latent_attention_shape(arch),
    )


def latent_attention_shape(arch: Architecture) -> dict[str, int]:
    """Multi-head latent attention's widths for the kernel shape (none without it)."""
    mla = arch.mla
    if mla is None:
        return {}
    return {
        "q_lora_rank": mla.q_lora_rank,
        "kv_lora_rank": mla.kv_lora_rank,
        "qk_head_dim": mla.qk_nope_head_dim + mla.qk_rope_head_dim,
        "qk_rope_head_dim": mla.qk_rope_head_dim,
        "v_head_dim": mla.v_head_dim,
    }


def fp8_warnings(levers: Levers, card: Card) -> list[str]:
    """Say so when levers.fp8 is asked of a card without a known FP8 tensor-core peak: its GEMMs stay at the
    16-bit peak (the cached weights and 8-bit gathers are still counted)."""
    if levers.fp8 is Fp8Recipe.none:
        return []
    preset = GPU_PRESETS[card.gpu] if card.gpu is not None else None
    if preset is not None and preset.peak_fp8_flops is not None and preset.hbm_bytes_per_s is not None:
        return []
    return [
        f"levers.fp8 {levers.fp8.value} needs FP8 tensor cores (Hopper, Ada, Blackwell, MI300); the card has no "
        "known FP8 peak (give cluster.gpu as such a preset), so its GEMMs are priced at the 16-bit peak"
    ]


def activation_warnings(activations: Activations, counted: ActivationModel) -> list[str]:
    """Say so when per-GPU bytes leave the activations out, unless the caller asked for exactly that."""
    if counted is not ActivationModel.none or activations.model is ActivationModel.none:
        return []
    return [
        "activations are not counted: the model has no architecture; give model.layers, model.hidden_size, "
        "model.attention_heads, model.ffn_hidden_size and model.vocab_size, or a model.preset that has them"
    ]


def with_zeropp(arrangement: Sharding, levers: Levers) -> Sharding:
    """The ZeRO++ levers on a ZeRO-3 arrangement; other arrangements are left as they are."""
    asked = levers.zeropp
    if not asked.asked:
        return arrangement
    zeropp = ZeroPlusPlus(asked.qwz, asked.hpz, asked.qgz)
    plain_zero3 = arrangement.shard_parameters and arrangement.reshard_after_forward and not arrangement.hybrid
    return replace(arrangement, zeropp=zeropp) if zeropp.any and plain_zero3 else arrangement


def setup_precision(scene: Scenario, arrangement: Sharding, levers: Levers) -> PrecisionSpec:
    """What each state class is stored and sent as under the arrangement and the 8-bit levers: the precision's own
    layout (precision_spec), Transformer Engine's or torchao's FP8 (service.memory.fp8), MXFP8 (with_mxfp8)."""
    layout = precision_spec(scene.precision, arrangement)
    if levers.fp8 is not Fp8Recipe.none:
        efficiency = scene.efficiency
        generation = efficiency.device.generation if efficiency is not None else None
        if levers.fp8_param_gather and layout.master_dtype is None:
            raise OutOfRange(
                "levers.fp8_param_gather keeps the weights in FP8 beside the optimizer's master weights; the "
                "precision keeps none",
                pointer="/levers/fp8_param_gather",
            )
        layout = with_fp8(layout, levers.fp8, arrangement.shard_parameters, generation, levers.fp8_param_gather)
    return with_mxfp8(layout, levers.mxfp8_recipe) if levers.mxfp8 else layout


def setup_for(scene: Scenario, arrangement: Sharding, levers: Levers | None = None) -> Setup:
    """The evaluation setup of one arrangement (and optionally other levers) in a scenario.

    A given utilisation (MFU) holds for the recomputation it was measured with: training.utilisation_recompute,
    else the levers' own; another recomputation keeps its hardware efficiency (service.engine.step).
    """
    chosen = levers or scene.levers
    precision = setup_precision(scene, arrangement, chosen)
    arrangement = with_zeropp(arrangement, chosen)
    efficiency = scene.efficiency
    if chosen.fp8 is not Fp8Recipe.none and efficiency is not None:
        casts = fp8_casts(chosen.fp8, efficiency.device.generation)
        efficiency = replace(efficiency, fp8=True, fp8_casts=casts)
    mx_casts = mxfp8_casts(chosen.mxfp8_recipe) if chosen.mxfp8 and scene.blackwell_class else None
    if mx_casts is not None and efficiency is not None and efficiency.device.fp8_flops_per_s is not None:
        # MXFP8 GEMMs on the block-scaled FP8 tensor cores (service.time.fp8, "MXFP8")
        efficiency = replace(
            efficiency,
            fp8=True,
            fp8_casts=mx_casts,
            fp8_operand_bytes=MXFP8_ELEMENT_BYTES,
            fp8_peak_share=MXFP8_GEMM_PEAK_SHARE,
        )
    if efficiency is not None and (
        chosen.moe_token_dispatcher,
        chosen.moe_permute_fusion,
        chosen.attention_backend,
    ) != (efficiency.dispatcher, efficiency.permute_fusion, efficiency.attention_backend):
        efficiency = replace(
            efficiency,
            dispatcher=chosen.moe_token_dispatcher,
            permute_fusion=chosen.moe_permute_fusion,
            attention_backend=chosen.attention_backend,
        )
    return Setup(
        precision=precision,
        sharding=arrangement,
        usable_bytes=scene.usable_bytes,
        links=scene.links,
        peak_flops_per_s=scene.peak_flops_per_s,
        utilisation=scene.training.utilisation,
        efficiency=efficiency,
        micro_batches=scene.training.gradient_accumulation_steps,
        offload=Offload(
            optimizer=chosen.offload_optimizer,
            parameters=chosen.offload_parameters and arrangement.shard_parameters and arrangement.reshard_after_forward,
        ),
        recompute=chosen.recompute,
        overlap=chosen.overlap,
        bucket_bytes=chosen.bucket_bytes or DEFAULT_BUCKET_BYTES,
        given_bucket_bytes=chosen.bucket_bytes,
        overlaps=overlaps_of(chosen),
        activations=scene.activations,
        flop_shape=scene.flop_shape,
        units=scene.model.units,
        measured_recompute=scene.training.utilisation_recompute or chosen.recompute,
        host_memory_bytes=scene.host_memory_bytes,
        host_memory_bytes_per_s=scene.host_memory_bytes_per_s,
    )


def overlaps_of(levers: Levers) -> Overlaps:
    """The overlap levers, each at its framework's default where not given (service.time.overlaps)."""
    grad = levers.overlap_grad_reduce
    found = Overlaps(
        grad_reduce=True if grad is None else grad,
        param_gather=levers.overlap_param_gather,
        fsdp_prefetch=levers.fsdp_prefetch,
        tp_comm=levers.tp_comm_overlap,
        expert_comm=levers.overlap_moe_expert_parallel_comm,
    )
    return DEFAULT_OVERLAPS if found == DEFAULT_OVERLAPS else found  # the defaults' one instance, known by identity


def inputs_for(scene: Scenario, world_size: int, gpus_per_node: int) -> Inputs:
    return Inputs(
        parameter_count=scene.model.parameter_count,
        active_parameter_count=scene.model.active,
        world_size=world_size,
        gpus_per_node=gpus_per_node,
        micro_batch_size=scene.training.micro_batch_size,
        sequence_length=scene.training.sequence_length,
    )
