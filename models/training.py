"""Request parts for step time and the levers: training shape, activations, levers, links."""

from typing import Self

from pydantic import Field, StrictBool, ValidationInfo, field_validator, model_validator

from models.common import StrictValue, shared_default
from models.enums import (
    ActivationModel,
    AttentionBackend,
    CrossEntropy,
    Fp8Recipe,
    MoeTokenDispatcher,
    Mxfp8Recipe,
    Recompute,
)
from models.resilience import Checkpoint

MIB_BYTES = 2**20
MAX_MICRO_BATCH_SIZE = 100_000
MAX_GLOBAL_BATCH_SIZE = 100_000_000  # sequences per optimizer step a request states
MAX_SEQUENCE_LENGTH = 10_000_000
MIN_UTILISATION = 0.001  # with the peak's lower bound, keeps compute time finite


def measured_with_a_utilisation(cls: type, recompute: Recompute | None, info: ValidationInfo) -> Recompute | None:
    """training.utilisation_recompute states how a given utilisation was measured: alone it says nothing."""
    # a utilisation that failed its own check is absent from info.data: that error alone is reported
    if recompute is not None and "utilisation" in info.data and info.data["utilisation"] is None:
        raise ValueError("training.utilisation_recompute says how training.utilisation was measured: give both")
    return recompute


UTILISATION_RECOMPUTE_DESCRIPTION = (
    "The recomputation the run that measured training.utilisation ran with. Omitted: this request's "
    "levers.recompute. Another recomputation here keeps that run's hardware efficiency (HFU): full recomputation "
    "repeats the forward at the same efficiency, so its MFU is lower than the one given. Needs training.utilisation."
)


class Training(StrictValue):
    """The training shape. Tokens per optimizer step = N x micro_batch_size x sequence_length x steps."""

    micro_batch_size: int = Field(
        default=1, ge=1, le=MAX_MICRO_BATCH_SIZE, description="Sequences per GPU per micro-batch (b)."
    )
    sequence_length: int = Field(default=2048, ge=1, le=MAX_SEQUENCE_LENGTH, description="Tokens per sequence (s).")
    gradient_accumulation_steps: int = Field(
        default=1,
        ge=1,
        le=1_000_000,
        description="Micro-batches per step (k); or give global_batch_size (POST /v1/plan), not both.",
    )
    global_batch_size: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GLOBAL_BATCH_SIZE,
        description="Sequences per optimizer step, across the data-parallel group (POST /v1/plan only): the "
        "micro-batches per step are m = global_batch_size / (micro_batch_size x d), d the data-parallel degree, "
        "and must be whole. Instead of gradient_accumulation_steps.",
    )
    utilisation: float | None = Field(
        default=None,
        ge=MIN_UTILISATION,
        le=1,
        description="Model FLOPs utilisation (MFU) of the compute, 0.001 to 1: model FLOPs (6 x N + 12 x L x h x s per "
        "token, PaLM appendix B) over compute time x N x peak, as the run measures it with the requested "
        "recomputation. Give it to override the compute's efficiency, and nothing else: communication, the "
        "optimizer step and the overlap slowdown are priced as without it. Default null: the efficiency model "
        "prices every matrix multiplication, attention, memory-bound operation and the optimizer step on the "
        "GPU, calibrated on published runs (README, 'Calibration').",
    )
    utilisation_recompute: Recompute | None = Field(default=None, description=UTILISATION_RECOMPUTE_DESCRIPTION)
    total_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10**16,
        description="Tokens of the whole run, a token budget (Llama 3 was trained on 15e12). Given, the answer's "
        "time holds training_steps, training_days and gpu_hours.",
    )
    checkpoint: Checkpoint | None = Field(
        default=None,
        description="Checkpoints: interval, storage and save mode. Default: interval auto (Daly 2006), "
        "llama3-tectonic storage, synchronous save. With cluster.failures they give time.goodput.",
    )

    check_utilisation_recompute = field_validator("utilisation_recompute")(measured_with_a_utilisation)

    @model_validator(mode="after")
    def _one_batch_size(self) -> Self:
        if self.global_batch_size is not None and "gradient_accumulation_steps" in self.model_fields_set:
            raise ValueError("give training.global_batch_size or training.gradient_accumulation_steps, not both")
        return self


class Activations(StrictValue):
    """Activation memory: replicated on every GPU; sharding never touches it."""

    model: ActivationModel | None = Field(
        default=None,
        description="none (model states only), fudge (the textbook line, a fudge factor) or transformer "
        "(Korthikanti et al. 2022). Default: transformer when the architecture is known, else none; an omitted "
        "training block is the default shape (1 x 2048 tokens), the shape the step time is computed at.",
    )
    fudge: float = Field(
        default=17.0,
        ge=0.001,
        le=10_000,
        description="A fudge factor, labelled as one (0.001 to 10,000): "
        "activation bytes = b x s x h x layers x bytes x fudge. "
        "17 with 2-byte values gives 34sbh per layer, Korthikanti's count without attention scores.",
    )
    flash_attention: StrictBool = Field(default=True, description="Flash attention keeps no s x s attention scores.")
    bytes_per_value: int = Field(default=2, ge=1, le=8, description="Bytes of one stored activation value.")
    cross_entropy: CrossEntropy = Field(
        default=CrossEntropy.unfused,
        description="The loss over the logits, which sets its activation peak on the last stage. unfused: PyTorch's "
        "cross_entropy on logits.float() (torchtitan): the bf16 logits, the fp32 log-softmax and its fp32 gradient "
        "live together, 10 bytes per token and vocabulary entry. fused: Megatron-LM's vocabulary-parallel cross "
        "entropy (--cross-entropy-loss-fusion): one fp32 copy of the logits becomes the softmax in place and then "
        "the gradient in place, beside the bf16 logits, 6 bytes. vocab_parallel: the same cross entropy without "
        "--cross-entropy-loss-fusion (megatron/core/tensor_parallel/cross_entropy.py), the same 6 bytes, each step "
        "its own kernel over the fp32 copy: 52 bytes of HBM traffic per token and vocabulary entry where the others "
        "are priced at 12. All / t over the tensor group.",
    )


class ZeroPlusPlus(StrictValue):
    """ZeRO++ (Wang et al. 2023) on ZeRO-3; DeepSpeed's zero_quantized_weights, zero_hpz_partition_size and
    zero_quantized_gradients."""

    qwz: StrictBool = Field(
        default=False, description="Quantised weight all-gather: int8 with one fp32 scale per group."
    )
    hpz: StrictBool = Field(
        default=False,
        description="Hierarchical partitioning: a secondary copy of the parameters sharded over the GPUs of a "
        "node, so the backward all-gather stays inside the node (memory: 16-bit parameters / G per GPU).",
    )
    qgz: StrictBool = Field(
        default=False,
        description="Quantised gradients: int4 all-to-all reduce-scatter inside the node, then across nodes.",
    )

    @property
    def asked(self) -> bool:
        """Whether any of ZeRO++'s three changes is asked for."""
        return self.qwz or self.hpz or self.qgz


TRANSFORMER_ENGINE_FP8 = (Fp8Recipe.transformer_engine, Fp8Recipe.transformer_engine_current_scaling)


def fp8_parameters_conflict(fp8: Fp8Recipe, fp8_param_gather: bool) -> str | None:
    """Why levers.fp8_param_gather cannot be asked (None: it can): Megatron-LM keeps Transformer Engine's FP8
    weights only under an FP8 recipe (TransformerConfig.fp8_param: 'must be used together with fp8 mode')."""
    if fp8_param_gather and fp8 not in TRANSFORMER_ENGINE_FP8:
        return (
            "levers.fp8_param_gather keeps Transformer Engine's FP8 weights: it needs levers.fp8 transformer_engine "
            "or transformer_engine_current_scaling"
        )
    return None


def eight_bit_conflict(fp8: Fp8Recipe, mxfp8: bool) -> str | None:
    """Why levers.fp8 and levers.mxfp8 cannot go together (None: they can): two 8-bit recipes for the same
    matrices. The plan's validator and /v1/recommend's MXFP8 steps read it."""
    if fp8 is not Fp8Recipe.none and mxfp8:
        return f"levers.fp8 {fp8.value} and levers.mxfp8 are two 8-bit recipes for the same matrices; choose one"
    return None


def levers_conflict(levers: "Levers") -> str | None:
    """Why the levers cannot go together (None: they can): the Levers validator's rules, for levers built without
    it (a sweep's or a recommendation's cells, model_copy of the request's)."""
    return eight_bit_conflict(levers.fp8, levers.mxfp8) or fp8_parameters_conflict(levers.fp8, levers.fp8_param_gather)


class Levers(StrictValue):
    """The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8."""

    recompute: Recompute = Recompute.none
    offload_optimizer: StrictBool = Field(default=False, description="ZeRO-Offload: optimizer state in host memory.")
    offload_parameters: StrictBool = Field(default=False, description="Parameter shards in host memory (ZeRO-3 only).")
    overlap: StrictBool = Field(
        default=True,
        description="Overlap communication with compute, bucket by bucket: the switch over every overlap below "
        "(off: everything exposed).",
    )
    bucket_bytes: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="Bytes of one bucket of a data-parallel collective: each bucket one NCCL call, the last never "
        "hidden. Default null: the framework's own, which the arrangement and layout name: PyTorch DDP's 25 MiB "
        "(bucket_cap_mb) for ddp; Megatron-Core's max(40M, 1M x dp) parameters for ddp and zero1 with model "
        "parallelism; DeepSpeed's reduce_bucket_size of 5e8 elements for zero1 and zero2; one call per FSDP unit "
        "where parameters are sharded. The working set holds two buckets of the given size (25 MiB when null).",
    )
    overlap_grad_reduce: StrictBool | None = Field(
        default=None,
        description="Reduce the gradients bucket by bucket under the backward pass (Megatron-LM's "
        "--overlap-grad-reduce, DeepSpeed's overlap_comm; PyTorch DDP and FSDP always do). Default null: as "
        "overlap. Off: every gradient reduction is exposed.",
    )
    overlap_param_gather: StrictBool = Field(
        default=False,
        description="Megatron-LM's --overlap-param-gather (default off): the distributed optimizer's all-gather "
        "of updated parameters (zero1/zero2) runs bucket by bucket under the next step's forward pass instead of "
        "after the optimizer step.",
    )
    tp_comm_overlap: StrictBool = Field(
        default=False,
        description="Megatron-LM's --tp-comm-overlap (Transformer Engine userbuffers; default off), PyTorch's "
        "AsyncTP (torchtitan's enable_async_tensor_parallel): each tensor-parallel all-gather and reduce-scatter of "
        "a dense layer hidden behind the GEMM it is paired with ((t - 1) / t of it, micro-pipelined over the t "
        "shards), of a mixture's layer behind its share of the stage's compute; what exceeds it stays exposed. "
        "Needs sequence parallelism in Megatron-LM.",
    )
    overlap_moe_expert_parallel_comm: StrictBool = Field(
        default=False,
        description="Expert all-to-all hidden under another micro-batch's compute: Megatron-LM's "
        "--overlap-moe-expert-parallel-comm (default off), the combined 1F1B of DeepSeek-V3's DualPipe. One "
        "micro-batch's forward runs beside another's backward, layer by layer: each dispatch and combine hidden "
        "behind the piece of the other it is paired with (the forward's dispatch behind the experts' backward, its "
        "combine behind the attention's backward, the backward's dispatch behind the experts' forward, its combine "
        "behind the attention's forward); what exceeds its piece, and the warmup's and cooldown's micro-batches, "
        "stay exposed. With DeepEP a piece runs on the SMs its kernels leave (112 of an H100's 132).",
    )
    fsdp_prefetch: StrictBool = Field(
        default=True,
        description="FSDP's prefetch of the next unit's parameters (FSDP2's implicit forward and backward "
        "prefetch, FSDP1's backward_prefetch=BACKWARD_PRE; on by default) and DeepSpeed ZeRO-3's "
        "stage3_prefetch_bucket_size: off, every parameter all-gather is exposed.",
    )
    zeropp: ZeroPlusPlus = Field(
        default_factory=shared_default(ZeroPlusPlus), description="ZeRO++ levers; zero3/full_shard only (not hybrid)."
    )
    mxfp8: StrictBool = Field(default=False, description="MXFP8, applied as mxfp8_recipe says.")
    mxfp8_recipe: Mxfp8Recipe = Field(
        default=Mxfp8Recipe.seed,
        description="seed: the textbook model, parameters and gradients stored and reduced in MXFP8 (no "
        "collective library reduces MX data); its GEMMs stay priced in bf16 (no library's casts to source). "
        "fp8_weights: as Transformer Engine practises it (Megatron-Core's --fp8-recipe mxfp8 with fp8_param_gather): "
        "bf16/fp32 state unchanged, cached MXFP8 weight copies (rowwise and columnwise), parameter all-gathers in 8 "
        "bits, gradients reduced in their own dtype (bf16); each input and output gradient quantised once for both "
        "layouts. torchao: torchao's MX linear (torchtitan's mx converter): bf16/fp32 state unchanged and gathered "
        "in bf16, nothing cached; each input, weight and output gradient cast to MXFP8 along each dimension every "
        "micro-batch. On a Blackwell-class card fp8_weights and torchao run the layers' GEMMs on the block-scaled "
        "FP8 tensor cores, at 0.80 of the bf16 GEMMs' share of the card's FP8 peak (levers.fp8's 0.84 times "
        "6.812 / 7.161, Transformer Engine's per-layer GEMM times on B300 with per-tensor FP8 and MXFP8), with "
        "their casts at HBM bandwidth; attention, the logits and the optimizer stay in 16/32 bits.",
    )
    fp8: Fp8Recipe = Field(
        default=Fp8Recipe.none,
        description="Per-tensor scaled FP8 GEMMs (Hopper and later), as a library runs them: the layers' matrix "
        "multiplications at 0.84 of the bf16 GEMMs' share of the card's FP8 peak (torchao's published float8 linear "
        "speedup less its casts), each input and output gradient cast to FP8 with its transpose; attention, the "
        "logits and the optimizer stay in 16/32 bits. transformer_engine (Transformer Engine's delayed scaling, "
        "Megatron-LM --fp8-recipe delayed): an FP8 copy of every weight and its transpose cached for the step (one "
        "copy on Blackwell, whose FP8 GEMMs take any layout, and no transposed casts); under ZeRO-3/FSDP the sharded "
        "parameters gathered as that FP8 copy (--fp8-param-gather); the ZeRO-1/2 parameter all-gather stays in 16 "
        "bits unless levers.fp8_param_gather. "
        "transformer_engine_current_scaling (Float8CurrentScaling, Megatron-LM --fp8-recipe tensorwise, "
        "Megatron-Bridge's FP8-CS): the same, with an abs-max pass before each cast except where the norm fused "
        "into the linear takes the amax. torchao (torchtitan's "
        "float8 converter, tensorwise): an abs-max pass before each cast, no cached copy, FSDP2 all-gathers the "
        "weights in FP8 (enable_fsdp_float8_all_gather) and the backward copies each transposed. Not with mxfp8.",
    )
    fp8_param_gather: StrictBool = Field(
        default=False,
        description="Megatron-LM's --fp8-param-gather (Megatron-Bridge's FP8 recipes set it): with a "
        "transformer_engine levers.fp8 recipe, the layers' weights are kept in FP8 alone, no 16-bit copy "
        "(TransformerConfig.fp8_param; the optimizer's fp32 master weights, quantised into them after each step, "
        "stay), on Hopper each beside its FP8 transpose; the ZeRO-1/2 distributed optimizer's all-gather of the "
        "updated parameters then sends FP8 (ZeRO-3/FSDP gathers FP8 either way). Needs a transformer_engine "
        "levers.fp8 recipe, a precision with master weights and an arrangement that shards the optimizer (Megatron-LM: "
        "'only supported with distributed optimizer' or FSDP); not with zeropp or offload_parameters (DeepSpeed's "
        "and FSDP's). Under sharded parameters the shard is FP8 and the gathered copy as without it.",
    )
    moe_token_dispatcher: MoeTokenDispatcher = Field(
        default=MoeTokenDispatcher.alltoall,
        description="How a mixture's tokens reach their experts. alltoall (Megatron-Core's "
        "MoEAlltoAllTokenDispatcher, --moe-token-dispatcher-type alltoall): each token permuted into top_k "
        "copies before the all-to-all, the copies a rank receives sorted by local expert after it, and the "
        "reverse on the way back. deepep (Megatron-Core's flex dispatcher with --moe-enable-deepep, NeMo "
        "Automodel's dispatcher: deepep): DeepEP's dispatch writes one row per token and destination rank, which "
        "a permutation then copies to the rank's experts. A dense model ignores it.",
    )
    moe_permute_fusion: StrictBool = Field(
        default=False,
        description="Megatron-Core's --moe-permute-fusion (default off; NeMo Automodel's DeepEP experts always "
        "fuse): the permutation and its inverse run as Transformer Engine's fused kernels, one pass over the "
        "bytes they move; off, as unfused PyTorch operations at the memory-bound work's passes. A dense model "
        "ignores it.",
    )
    attention_backend: AttentionBackend | None = Field(
        default=None,
        description="The flash-attention kernel the attention core runs, priced at its published speed (Shah et "
        "al. 2024, FlashAttention-3, arXiv 2407.08608, section 4.1; Dao 2023, FlashAttention-2, arXiv "
        "2307.08691, section 4.1). Default null: Transformer Engine's choice, as Megatron-Core and NeMo run it: "
        "cuDNN's fused attention on Hopper (get_attention_backend prefers it there), FlashAttention-2 elsewhere. "
        "flash_attention_2: PyTorch's scaled_dot_product_attention (torchtitan) or the flash-attn package "
        "(llm-foundry's attn_impl flash); flash_attention_3: flash-attn's Hopper build. cudnn and "
        "flash_attention_3 have published tables on Hopper only; other GPUs run FlashAttention-2's. Ignored "
        "without flash attention.",
    )

    @model_validator(mode="after")
    def _one_eight_bit_recipe(self) -> Self:
        conflict = levers_conflict(self)
        if conflict is not None:
            raise ValueError(conflict)
        return self
