"""What each GPU of a pipeline stage holds: its share of the parameters.

A stage holds its layers (service.mesh.pipeline), the first also the input embedding and the last the
final norm and output layer; with tied embeddings and more than one stage the last stage keeps its
own copy of the shared matrix (Megatron-LM's shared embedding, all-reduced between the two stages),
with one stage the matrix is held once. Inside a stage (Shoeybi et al. 2019, section 3; Megatron-LM
megatron/training/theoretical_memory_usage.py):
- divided by the tensor degree t: the attention projections, the dense MLP and the shared experts
  (column- and row-parallel), the column-parallel biases, and the vocabulary-parallel embedding and
  output layer (ceil(V / t) rows each, V padded to a multiple of t);
- whole on every tensor rank: the norms, the row-parallel output biases (added after the
  all-reduce), the per-head q/k norms, multi-head latent attention's query and key/value down-projections
  and their norms (``parallel_mode="duplicated"``), the router, the latent projections of a mixture of experts
  with a latent width (Megatron-LM's fc1_latent_proj and fc2_latent_proj, ``parallel_mode=
  "duplicated"``; "replicated" params in theoretical_memory_usage.py) and learned positions;
- the routed experts over ETP x e: each rank holds experts / e of them, each divided by the expert
  tensor degree ETP (Megatron's --expert-tensor-parallel-size, whose default is t).
The dense part's model states shard over d x c ranks, the experts' over the expert-data-parallel
group, world / (p x ETP x e) ranks (service.mesh.degrees).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from service.inputs.architecture import (
    Architecture,
    attention_parameters,
    has_linear_bias,
    head_dim,
    latent_projection_parameters,
    layer_parameters,
    mlp_parameters,
    norm_width,
    routed_expert_parameters,
    router_parameters,
    shared_expert_width,
)
from service.mesh.pipeline import chunk_layers, chunk_stages, held_layers, stage_chunks


def _ceil(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def is_moe_layer(arch: Architecture, index: int) -> bool:
    """After the dense_layers, every layer_interval-th layer (service.inputs.architecture.moe_layer_count)."""
    moe = arch.moe
    if moe is None or index < moe.dense_layers:
        return False
    return (index - moe.dense_layers + 1) % moe.layer_interval == 0


@dataclass(frozen=True)
class Split:
    """Parameters of one part: divided by t, whole on every tensor rank, and routed experts (over ETP x e)."""

    tensor: int = 0
    replicated: int = 0
    experts: int = 0  # routed experts' parameters, all of them
    expert_count: int = 0  # routed experts in the part (0 without)

    def __add__(self, other: "Split") -> "Split":
        return Split(
            self.tensor + other.tensor,
            self.replicated + other.replicated,
            self.experts + other.experts,
            self.expert_count + other.expert_count,
        )

    def times(self, count: int) -> "Split":
        """``count`` copies of this part added together."""
        return Split(self.tensor * count, self.replicated * count, self.experts * count, self.expert_count * count)


def _attention_replicated(arch: Architecture) -> int:
    """Of the attention: the row-parallel output bias and the per-head q/k norms, kept whole; of multi-head latent
    attention, the query and key/value down-projections and their two RMSNorms (Megatron-Core's MLASelfAttention
    builds both down-projections as TELinear with ``parallel_mode="duplicated"``: NVIDIA/Megatron-LM
    megatron/core/transformer/multi_latent_attention.py@d98e8a64, lines 527 and 574; without a query LoRA rank the
    query projection is column parallel)."""
    mla = arch.mla
    if mla is not None:
        h = arch.hidden_size
        q_down = h * mla.q_lora_rank  # 0 without a query down-projection
        kv_down = h * (mla.kv_lora_rank + mla.qk_rope_head_dim)
        return q_down + kv_down + mla.q_lora_rank + mla.kv_lora_rank
    output_bias = arch.hidden_size if has_linear_bias(arch) else 0
    return output_bias + (2 * head_dim(arch) if arch.qk_norm else 0)


def _mlp_replicated(arch: Architecture) -> int:
    return arch.hidden_size if has_linear_bias(arch) else 0  # the second linear's bias


def layer_split(arch: Architecture, index: int) -> Split:
    norms = layer_parameters(arch) - attention_parameters(arch) - mlp_parameters(arch, arch.ffn_hidden_size)
    attention = attention_parameters(arch)
    replicated = norms + _attention_replicated(arch)
    tensor = attention - _attention_replicated(arch)
    if not is_moe_layer(arch, index):
        mlp = mlp_parameters(arch, arch.ffn_hidden_size)
        return Split(tensor + mlp - _mlp_replicated(arch), replicated + _mlp_replicated(arch))
    moe = arch.moe
    assert moe is not None
    expert = routed_expert_parameters(arch)
    router = router_parameters(arch) + latent_projection_parameters(arch)
    shared = moe.shared_experts * mlp_parameters(arch, shared_expert_width(moe))
    shared_replicated = moe.shared_experts * _mlp_replicated(arch)
    return Split(
        tensor + shared - shared_replicated,
        replicated + router + shared_replicated,
        moe.experts * expert,
        moe.experts,
    )


@dataclass(frozen=True)
class StageShare:
    """One GPU of a stage: its layers and the parameters it holds."""

    stage: int
    layers: int
    moe_layers: int
    dense_parameters: int  # sharded over d x c
    expert_parameters: int  # sharded over the expert-data-parallel group
    first: bool
    last: bool
    chunk_layers: tuple[int, ...] = ()  # the layers of each of its model chunks, in order (v of them)

    @property
    def parameters(self) -> int:
        return self.dense_parameters + self.expert_parameters


def rank_parameters(split: Split, tensor: int, expert: int, expert_tensor: int | None = None) -> tuple[int, int]:
    """(dense, expert) parameters one GPU holds of a part; expert_tensor None is t."""
    dense = _ceil(split.tensor, tensor) + split.replicated
    if not split.expert_count:
        return dense, 0
    one_expert = split.experts // split.expert_count
    return dense, (split.expert_count // expert) * _ceil(one_expert, tensor if expert_tensor is None else expert_tensor)


def embedding_split(arch: Architecture, tensor: int) -> Split:
    """The input embedding on the first stage: vocabulary-parallel rows, whole learned positions."""
    rows = _ceil(arch.vocab_size, tensor) * tensor
    return Split(rows * arch.hidden_size, arch.position_embeddings * arch.hidden_size)


def output_split(arch: Architecture, tensor: int, pipeline: int) -> Split:
    """The final norm and, unless tied to a matrix on the same stage, the output layer."""
    final_norm = norm_width(arch) * arch.hidden_size
    held = not arch.tied_embeddings or pipeline > 1
    rows = _ceil(arch.vocab_size, tensor) * tensor if held else 0
    return Split(rows * arch.hidden_size, final_norm)


def stage_shares(
    arch: Architecture,
    tensor: int,
    pipeline: int,
    expert: int,
    virtual_stages: int = 1,
    expert_tensor: int | None = None,
    *,
    pipeline_layers: Sequence[int] | None = None,
    embedding_layers: int = 0,
    loss_layers: int = 0,
    v_shape: bool = False,
) -> list[StageShare]:
    """Each stage's layers and the parameters one of its GPUs holds (expert_tensor None: t); the layers split as
    service.mesh.pipeline.chunk_layers says (the request's own split, or the even one)."""
    layout = (pipeline, stage_chunks(v_shape, virtual_stages), pipeline_layers, embedding_layers, loss_layers, v_shape)
    if pipeline_layers is not None:
        layout = (*layout[:2], tuple(pipeline_layers), *layout[3:])
    try:
        stages, apart = _stage_layers(arch, *layout)
    except TypeError:  # an architecture that does not hash: its stages computed here
        stages, apart = _stage_layers.__wrapped__(arch, *layout)
    shares = []
    for stage, (layers, moe_layers, split, first, last, held) in enumerate(stages):
        dense, experts = rank_parameters(split, tensor, expert, expert_tensor)
        if first:
            dense += rank_parameters(embedding_split(arch, tensor), tensor, expert)[0]
        if last:
            dense += rank_parameters(output_split(arch, tensor, apart), tensor, expert)[0]
        shares.append(StageShare(stage, layers, moe_layers, dense, experts, first, last, held))
    return shares


StageLayers = tuple[int, int, Split, bool, bool, tuple[int, ...]]  # layers, MoE layers, their split, ends, chunks


@lru_cache(maxsize=4096)
def _stage_layers(
    arch: Architecture,
    pipeline: int,
    chunks: int,
    pipeline_layers: tuple[int, ...] | None,
    embedding_layers: int,
    loss_layers: int,
    v_shape: bool,
) -> tuple[list[StageLayers], int]:
    """What stage_shares reads of each stage whatever the tensor and expert degrees: its layers, its MoE layers,
    their split summed, whether it holds the first and the last chunk, its chunks' layers; and the stages apart for
    a tied embedding (1 when one stage has both ends). Kept for the structures of a search, which differ in t and e
    on the same pipeline."""
    kinds: dict[bool, Split] = {}  # a layer's split depends on whether it is a mixture-of-experts layer alone
    sizes = chunk_layers(arch.layers, pipeline, chunks, pipeline_layers, embedding_layers, loss_layers, v_shape)
    owners = chunk_stages(pipeline, chunks, v_shape)
    split_layers = held_layers(sizes, owners, pipeline)  # stage_layer_indices, its chunks computed once
    apart = 1 if owners[0] == owners[-1] else pipeline
    moe_flags = [is_moe_layer(arch, index) for index in range(max(arch.layers, sum(sizes)))]
    stages = []
    for stage, indices in enumerate(split_layers):
        # a stage's split is the sum of its layers' (exact integers): each kind's split times its count
        moe_layers = sum(moe_flags[index] for index in indices)
        split = Split()
        for kind, count in ((False, len(indices) - moe_layers), (True, moe_layers)):
            if count:
                if kind not in kinds:
                    kinds[kind] = layer_split(arch, next(i for i in indices if moe_flags[i] == kind))
                split = split + kinds[kind].times(count)
        first, last = stage == owners[0], stage == owners[-1]  # ZB-V's V: both on stage 0
        held = tuple(size for size, owner in zip(sizes, owners, strict=True) if owner == stage)
        stages.append((len(indices), moe_layers, split, first, last, held))
    return stages, apart
