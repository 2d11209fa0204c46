"""Traffic of the mesh's model-parallel groups, per GPU per optimizer step (the busiest stage's GPU).

With m micro-batches per step, L_s layers on the stage (L_e of them MoE), s' = s / c the rank's
share of the sequence, b the micro-batch and h the width, in 16-bit activations:
- tensor (Shoeybi et al. 2019, section 3; Korthikanti et al. 2022, section 4.2.2): per layer two
  all-reduces of s' b h in the forward and two in the backward (the f and g operators); with
  sequence parallelism each becomes an all-gather plus a reduce-scatter of the same buffer, the
  same bytes. Full recomputation repeats the forward's two. Vocabulary-parallel embedding and
  loss reductions are left out (one s' b h per micro-batch, not per layer).
- pipeline (Narayanan et al. 2021, section 2.2): each micro-batch crosses each stage boundary
  forward (activations) and backward (their gradients), s' b h elements, divided by t with
  sequence parallelism (Megatron-LM sends the sequence-parallel shard); a stage sends to its
  neighbours 2 x v x m times a step (v chunks in the interleaved schedule).
- context (ring attention, Liu et al. 2023; Megatron-Core's context parallelism): per layer the
  K and V of the rank's chunk, 2 s' b w_kv / t elements (w_kv the key/value width per token), go
  round the c ranks in c - 1 steps in the forward; the backward passes K and V again and their
  gradients back: 2 (c - 1) steps of the same size.
- expert (Lepikhin et al. 2021, GShard; Megatron-Core's all-to-all token dispatcher): per MoE layer
  an all-to-all dispatches the rank's tokens x top_k of width h and one combines them, forward
  and backward: four all-to-alls of s' b top_k h / (t with sequence parallelism) elements.
"""

from dataclasses import dataclass

from models.enums import CollectiveName, Dtype, Link
from service.architecture import Architecture, head_dim
from service.collectives import ring_bytes_sent, ring_hops
from service.mesh import Group, Mesh
from service.traffic import Window

ACTIVATION_DTYPE = Dtype.bf16


@dataclass(frozen=True)
class GroupCall:
    """One collective of a model-parallel group, as many times a step as count_per_step says."""

    group: Group
    name: CollectiveName
    purpose: str
    elements: int  # of the buffer of one call
    ranks: int
    count_per_step: int
    link: Link
    window: Window = Window.none
    dtype: Dtype = ACTIVATION_DTYPE

    @property
    def bytes_sent(self) -> int:
        """Bytes each GPU sends for one call."""
        return int(ring_bytes_sent(self.name, self.elements, self.ranks, self.dtype))

    @property
    def hops(self) -> int:
        return int(ring_hops(self.name, self.ranks))


def group_link(mesh: Mesh, group: Group) -> Link:
    return Link.inter_node if mesh.spans_nodes(group) else Link.intra_node


def pipeline_link(mesh: Mesh) -> Link:
    """Neighbouring stages sit t x c x d ranks apart: on another node once that reaches a node's GPUs."""
    return Link.inter_node if mesh.stride(Group.pipeline) >= mesh.gpus_per_node else Link.intra_node


def kv_elements_per_token(arch: Architecture) -> int:
    """Width of K and V per token: 2 x kv_heads x d; MLA passes the decompressed a (d_qk + d_v)."""
    if arch.mla is not None:
        mla = arch.mla
        return arch.attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim)
    return 2 * arch.kv_heads * head_dim(arch)


@dataclass(frozen=True)
class StageWork:
    """The busiest stage as the groups see it."""

    layers: int
    moe_layers: int
    micro_batches: int
    micro_batch_size: int
    sequence_length: int
    full_recompute: bool = False


def tensor_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    t = mesh.tensor
    if t == 1:
        return []
    buffer = (work.sequence_length // mesh.context) * work.micro_batch_size * arch.hidden_size
    forward = 2 * work.layers * work.micro_batches
    repeat = forward if work.full_recompute else 0
    link = group_link(mesh, Group.tensor)
    again = " and again in the recomputed forward" if repeat else ""
    if not mesh.sequence_parallel:
        return [
            GroupCall(
                Group.tensor,
                CollectiveName.all_reduce,
                f"layer outputs (s'bh), 2 per layer forward and 2 backward{again}, every micro-batch",
                buffer,
                t,
                2 * forward + repeat,
                link,
            )
        ]
    return [
        GroupCall(
            Group.tensor,
            name,
            f"sequence-parallel {verb} of s'bh, 2 per layer forward and 2 backward{again}, every micro-batch",
            buffer,
            t,
            2 * forward + repeat,
            link,
        )
        for name, verb in ((CollectiveName.all_gather, "gathers"), (CollectiveName.reduce_scatter, "scatters"))
    ]


def pipeline_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    if mesh.pipeline == 1:
        return []
    sp = mesh.tensor if mesh.sequence_parallel else 1
    buffer = (work.sequence_length // mesh.context) * work.micro_batch_size * arch.hidden_size // sp
    sends = mesh.virtual_stages * work.micro_batches
    link = pipeline_link(mesh)
    return [
        GroupCall(Group.pipeline, CollectiveName.send_recv, what, buffer, 2, sends, link)
        for what in (
            "activations to the next stage, every micro-batch (and chunk)",
            "activation gradients to the previous stage, every micro-batch (and chunk)",
        )
    ]


def context_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    c = mesh.context
    if c == 1:
        return []
    buffer = (work.sequence_length // c) * work.micro_batch_size * kv_elements_per_token(arch) // mesh.tensor
    per_step = (c - 1) * work.layers * work.micro_batches
    link = group_link(mesh, Group.context)
    return [
        GroupCall(
            Group.context,
            CollectiveName.send_recv,
            "K and V chunks round the ring in the forward, c - 1 steps per layer, every micro-batch",
            buffer,
            c,
            per_step * (2 if work.full_recompute else 1),
            link,
            Window.forward,
        ),
        GroupCall(
            Group.context,
            CollectiveName.send_recv,
            "K and V again and their gradients in the backward, 2 (c - 1) steps per layer, every micro-batch",
            buffer,
            c,
            2 * per_step,
            link,
            Window.backward,
        ),
    ]


def expert_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    e = mesh.expert
    if e == 1 or not work.moe_layers or arch.moe is None:
        return []
    sp = mesh.tensor if mesh.sequence_parallel else 1
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size // sp
    buffer = tokens * arch.moe.top_k * arch.hidden_size
    per_step = 2 * work.moe_layers * work.micro_batches
    link = group_link(mesh, Group.expert)
    return [
        GroupCall(
            Group.expert,
            CollectiveName.all_to_all,
            f"{what}: tokens x top_k x h, dispatch and combine per MoE layer, every micro-batch",
            buffer,
            e,
            per_step,
            link,
        )
        for what in ("forward", "backward")
    ]


def model_parallel_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    """The calls of every model-parallel group, tensor first."""
    return (
        tensor_calls(mesh, arch, work)
        + pipeline_calls(mesh, arch, work)
        + context_calls(mesh, arch, work)
        + expert_calls(mesh, arch, work)
    )
