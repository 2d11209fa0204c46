"""Closed vocabularies of the contract. Every one is a ``StrEnum`` so it serialises as its value."""

from enum import StrEnum


class Dtype(StrEnum):
    """Storage or wire format of one tensor element."""

    fp64 = "fp64"
    fp32 = "fp32"
    bf16 = "bf16"
    fp16 = "fp16"
    fp8 = "fp8"
    mxfp8 = "mxfp8"
    mxfp6_e2m3 = "mxfp6_e2m3"
    mxfp6_e3m2 = "mxfp6_e3m2"
    mxfp4_e2m1 = "mxfp4_e2m1"
    mxint8 = "mxint8"
    int8_blockwise = "int8_blockwise"
    int4_blockwise = "int4_blockwise"


class Mxfp8Recipe(StrEnum):
    """How the MXFP8 lever is applied: the textbook model, or as Transformer Engine or torchao do it."""

    seed = "seed"
    fp8_weights = "fp8_weights"
    torchao = "torchao"


class Fp8Recipe(StrEnum):
    """Per-tensor scaled FP8 training (Hopper and later; E4M3/E5M2, one scale per tensor), by the library that
    runs it."""

    none = "none"
    transformer_engine = "transformer_engine"  # delayed scaling: the scale from an amax history
    transformer_engine_current_scaling = "transformer_engine_current_scaling"  # the scale from the tensor's own amax
    torchao = "torchao"


class MoeTokenDispatcher(StrEnum):
    """How a mixture's tokens reach their experts and come back (Megatron-Core's --moe-token-dispatcher-type)."""

    alltoall = "alltoall"
    deepep = "deepep"


class OptimizerKind(StrEnum):
    """The optimizer, which decides how many state tensors each weight carries."""

    adam = "adam"
    adamw = "adamw"
    sgd_momentum = "sgd_momentum"
    sgd = "sgd"


class StateClass(StrEnum):
    """A class of per-weight training state, in the order a breakdown lists them, then the working set:
    what a step holds unsharded for a moment (gathered units and their gradients, reduction buckets)."""

    parameters = "parameters"
    compute_parameters = "compute_parameters"
    secondary_parameters = "secondary_parameters"
    gradients = "gradients"
    optimizer_gradients = "optimizer_gradients"
    master_weights = "master_weights"
    momentum = "momentum"
    variance = "variance"
    gathered_parameters = "gathered_parameters"
    unit_gradients = "unit_gradients"
    gradient_buckets = "gradient_buckets"


class ShardGroup(StrEnum):
    """Which of the three sharding flags decides whether a state class is sharded."""

    parameters = "parameters"
    gradients = "gradients"
    optimizer = "optimizer"


class ArrangementName(StrEnum):
    """Named arrangements. FSDP's names map to what FSDP does: no_shard is ddp, full_shard is zero3,
    and shard_grad_op is its own arrangement (parameters resharded after the backward pass and
    gathered again before every micro-batch's forward), not DeepSpeed's zero2."""

    ddp = "ddp"
    zero1 = "zero1"
    zero2 = "zero2"
    zero3 = "zero3"
    no_shard = "no_shard"
    shard_grad_op = "shard_grad_op"
    full_shard = "full_shard"
    hybrid = "hybrid"


class CollectiveName(StrEnum):
    """Collectives, named as NCCL names them."""

    all_reduce = "all_reduce"
    reduce_scatter = "reduce_scatter"
    all_gather = "all_gather"
    all_to_all = "all_to_all"
    send_recv = "send_recv"


class GpuCountGrid(StrEnum):
    """Named grids of GPU counts that /v1/fit tabulates."""

    powers_of_two = "powers_of_two"
    whole_nodes = "whole_nodes"


class ActivationModel(StrEnum):
    """How activation memory is estimated."""

    none = "none"
    fudge = "fudge"
    transformer = "transformer"


class CrossEntropy(StrEnum):
    """How the loss runs over the logits, which decides the loss's activation peak and its HBM traffic."""

    unfused = "unfused"
    fused = "fused"
    vocab_parallel = "vocab_parallel"


class Recompute(StrEnum):
    """Activation recomputation (Korthikanti et al. 2022)."""

    none = "none"
    selective = "selective"
    full = "full"


class MlpKind(StrEnum):
    """gelu: two matrices, by default with biases and LayerNorm (GPT); swiglu and geglu: three gated
    matrices, by default no biases and RMSNorm (Llama; Gemma). swiglu and geglu count the same parameters."""

    gelu = "gelu"
    swiglu = "swiglu"
    geglu = "geglu"


class Normalization(StrEnum):
    """layernorm: a scale and a bias per channel (Ba et al. 2016); rmsnorm: a scale only (Zhang and
    Sennrich 2019). Megatron-LM's --normalization."""

    layernorm = "layernorm"
    rmsnorm = "rmsnorm"


class AttentionBackend(StrEnum):
    """The attention kernel a run uses (service/time/attention_kernels.py names each framework's default)."""

    flash_attention_2 = "flash_attention_2"  # Dao 2023; PyTorch SDPA's flash kernel
    cudnn = "cudnn"  # cuDNN's fused attention, Transformer Engine's preference on Hopper
    flash_attention_3 = "flash_attention_3"  # Shah et al. 2024, flash-attn's Hopper build


class GpuGeneration(StrEnum):
    """The architecture a GPU belongs to: what decides its links, number formats and software."""

    volta = "volta"
    ampere = "ampere"
    ada = "ada"
    hopper = "hopper"
    blackwell = "blackwell"
    blackwell_ultra = "blackwell_ultra"
    cdna2 = "cdna2"
    cdna3 = "cdna3"
    cdna4 = "cdna4"


class ScaleUpLink(StrEnum):
    """The GPU-to-GPU link inside a node."""

    nvlink = "nvlink"
    infinity_fabric = "infinity_fabric"
    pcie = "pcie"


class StateLocation(StrEnum):
    gpu = "gpu"
    host = "host"


class Link(StrEnum):
    intra_node = "intra_node"
    inter_node = "inter_node"
    host = "host"
