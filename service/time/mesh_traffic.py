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
  neighbours 2 x v x m times a step (v chunks in the interleaved schedule, two in ZB-V).
- context, ring (parallelism.context_attention "ring": ring attention, Liu et al. 2023; Megatron-Core's
  context parallelism, TransformerEngine's p2p ring in attn_forward_func_with_cp): per layer the
  K and V of the rank's chunk, 2 s' b w_kv / t elements (w_kv the key/value width per token), go
  round the c ranks in c - 1 steps in the forward; the backward passes K and V again and their
  gradients back: 2 (c - 1) steps of the same size. Each step's transfer can hide only behind that
  step's attention core (K and V of a layer do not exist before its QKV projection): the queries
  of the rank's chunk against one K/V chunk, 1 / c of the layer's attention core at the efficiency
  model's attention term (service.time.efficiency.attention_core_seconds; the backward moves two
  chunks a step behind twice the core, the same per transfer): ring_exposed_seconds.
- context, all-gather (parallelism.context_attention "all_gather": Llama 3's, Dubey et al. 2024,
  section 3.3.2): per layer the K and V of the whole sequence, c x the rank's chunk, are all-gathered
  before attention in the forward (again in a recomputed forward); the backward gathers them again
  and reduce-scatters their gradients. Not overlapped: every call is on the critical path.
- expert (Lepikhin et al. 2021, GShard; Megatron-Core's all-to-all token dispatcher): per MoE layer
  an all-to-all dispatches the rank's tokens x top_k of width h and one combines them, forward
  and backward: four all-to-alls of s' b top_k h / (t with sequence parallelism) elements, among
  the e ranks of the expert group, ETP apart on the experts' grid (service.mesh.degrees). With a latent
  width l (Megatron-LM's --moe-latent-size) the tokens are projected to l before the dispatch and
  back after the combine, so the all-to-alls move s' b top_k l (the dispatcher's hidden_dim is
  moe_latent_size, megatron/core/transformer/moe/token_dispatcher.py).
- expert tensor (Megatron-Core's MoEAlltoAllTokenDispatcher: the tokens an expert receives are
  gathered over its expert-tensor group before the experts and reduce-scattered after them): the
  pair of tensor-group calls a layer's MLP makes is counted in the tensor group while the expert
  tensor degree ETP is t; given apart from t, each MoE layer's MLP pair runs over the ETP ranks
  instead, on a buffer of ETP x the rank's s' b / t tokens (s' b without sequence parallelism,
  an all-reduce), forward and backward. With a latent width both carry the routed experts' tokens
  at width l: the MoE layer's pair in the tensor group is then a call of its own, s' b l, and its
  shared experts (tensor-parallel on h) make their own pair of s' b h.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from models.enums import CollectiveName, Dtype, Link
from models.parallelism import ContextAttention
from service.inputs.architecture import Architecture, head_dim, routed_expert_width
from service.mesh.degrees import Group, Mesh
from service.numeric import IntLike
from service.time.collectives import ring_bytes_sent, ring_hops
from service.time.traffic import Window

ACTIVATION_DTYPE = Dtype.bf16


@dataclass(frozen=True)
class GroupCall:
    """One collective of a model-parallel group, as many times a step as count_per_step says.

    For one plan the fields are Python numbers and ``link`` a Link; for many layouts at once
    (service.engine.layout_grid) they are int64 arrays, ``link`` a bool array (True: inter-node) and the count 0
    where the layout has no such group.
    """

    group: Group
    name: CollectiveName
    purpose: str
    elements: Any  # of the buffer of one call
    ranks: Any
    count_per_step: Any
    link: Any  # Link, or a bool array: crosses nodes
    window: Window = Window.none
    dtype: Dtype = ACTIVATION_DTYPE
    ring_step: bool = False  # ring attention's: each call hidden only behind one ring step's attention core

    @property
    def bytes_sent(self) -> Any:
        """Bytes each GPU sends for one call."""
        return _plain(ring_bytes_sent(self.name, self.elements, self.ranks, self.dtype))

    @property
    def hops(self) -> Any:
        return _plain(ring_hops(self.name, self.ranks))


def _plain(value: IntLike) -> Any:
    return value if isinstance(value, np.ndarray) else int(value)


def _link(inter_node: Any) -> Any:
    if isinstance(inter_node, np.ndarray):
        return inter_node
    return Link.inter_node if inter_node else Link.intra_node


def _absent(degree: IntLike) -> bool:
    """One plan's group of one rank has no calls; arrays keep the calls and count 0 where the degree is 1."""
    return not isinstance(degree, np.ndarray) and degree == 1


def _present(degree: IntLike) -> Any:
    return degree > 1 if isinstance(degree, np.ndarray) else 1


def group_link(mesh: Mesh, group: Group) -> Any:
    return _link(mesh.spans_nodes(group))


def pipeline_link(mesh: Mesh) -> Any:
    """Neighbouring stages sit t x c x d ranks apart: on another node once that reaches a node's GPUs."""
    return _link(mesh.stride(Group.pipeline) >= mesh.gpus_per_node)


def kv_elements_per_token(arch: Architecture) -> int:
    """Width of K and V per token: 2 x kv_heads x d; MLA passes the decompressed a (d_qk + d_v)."""
    if arch.mla is not None:
        mla = arch.mla
        return arch.attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim)
    return 2 * arch.kv_heads * head_dim(arch)


@dataclass(frozen=True)
class StageWork:
    """The busiest stage as the groups see it (ints, or int64 arrays over many layouts)."""

    layers: Any
    moe_layers: Any
    micro_batches: Any
    micro_batch_size: Any
    sequence_length: int
    full_recompute: bool = False


def _expert_tensor_apart(mesh: Mesh, work: StageWork) -> Any:
    """Whether MoE layers send their MLP's pair over an expert tensor group other than the tensor group: a
    given ETP unlike t (a bool; a bool array over layouts whose t or MoE layers are arrays)."""
    if mesh.expert_tensor is None:
        return False
    return (mesh.expert_tensor != mesh.tensor) & (work.moe_layers > 0)


def _one(flag: Any) -> bool:
    """A plan's flag that holds (arrays keep every call and count 0 where it does not)."""
    return not isinstance(flag, np.ndarray) and bool(flag)


def _pair_calls(
    group: Group,
    ranks: Any,
    buffer: Any,
    forward: Any,
    link: Any,
    mesh: Mesh,
    full_recompute: bool,
    words: tuple[str, str],
) -> list[GroupCall]:
    """A layer part's forward calls and as many backward: an all-reduce each, or with sequence parallelism an
    all-gather and a reduce-scatter of the same buffer; full recomputation repeats the forward's.
    words: (what the buffer holds, how many calls a layer makes)."""
    repeat = forward if full_recompute else 0
    again = " and again in the recomputed forward" if full_recompute else ""
    subject, counts = words
    if not mesh.sequence_parallel:
        purpose = f"layer outputs ({subject}), {counts}{again}, every micro-batch"
        return [GroupCall(group, CollectiveName.all_reduce, purpose, buffer, ranks, 2 * forward + repeat, link)]
    return [
        GroupCall(
            group,
            name,
            f"sequence-parallel {verb} of {subject}, {counts}{again}, every micro-batch",
            buffer,
            ranks,
            2 * forward + repeat,
            link,
        )
        for name, verb in ((CollectiveName.all_gather, "gathers"), (CollectiveName.reduce_scatter, "scatters"))
    ]


def tensor_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    t = mesh.tensor
    if _absent(t):
        return []
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size
    apart = _expert_tensor_apart(mesh, work)
    link = group_link(mesh, Group.tensor)
    if routed_expert_width(arch) == arch.hidden_size:
        pairs = 2 * work.layers - work.moe_layers * apart
        counts = (
            "2 per dense layer and 1 per MoE layer (its MLP's on the expert tensor group) forward, as many backward"
            if _one(apart)
            else "2 per layer forward and 2 backward"
        )
        forward = pairs * work.micro_batches * _present(t)
        return _pair_calls(
            Group.tensor, t, tokens * arch.hidden_size, forward, link, mesh, work.full_recompute, ("s'bh", counts)
        )
    # A latent mixture: the MoE layers' expert pair moves the routed tokens at width l, a call of its own; the
    # shared experts (Megatron-Core's SharedExpertMLP, tensor-parallel on h) keep theirs on h.
    shared = arch.moe is not None and arch.moe.shared_experts > 0
    forward = (2 * work.layers - (0 if shared else work.moe_layers)) * work.micro_batches * _present(t)
    counts = "2 per layer (a MoE layer's attention and shared experts') forward, as many backward"
    if not shared:
        counts = "2 per dense layer and 1 per MoE layer (its attention's) forward, as many backward"
    calls = _pair_calls(
        Group.tensor, t, tokens * arch.hidden_size, forward, link, mesh, work.full_recompute, ("s'bh", counts)
    )
    experts = (work.moe_layers - work.moe_layers * apart) * work.micro_batches * _present(t)
    if not isinstance(experts, np.ndarray) and not experts:
        return calls
    counts = "1 per MoE layer (its routed experts', on the latent width) forward and 1 backward"
    latent = tokens * routed_expert_width(arch)
    return calls + _pair_calls(Group.tensor, t, latent, experts, link, mesh, work.full_recompute, ("s'bl", counts))


def expert_tensor_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    """The MoE layers' MLP pair over the expert tensor group, when its degree is given apart from t."""
    etp = mesh.etp
    present = _expert_tensor_apart(mesh, work) & (etp > 1)
    if not isinstance(present, np.ndarray) and not present:
        return []
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size
    sequence_parallel = mesh.sequence_parallel
    width, w = routed_expert_width(arch), ("h" if routed_expert_width(arch) == arch.hidden_size else "l")
    buffer = (tokens * etp // mesh.tensor if sequence_parallel else tokens) * width
    # A grid's degrees are arrays: its calls are named by the symbol (formatting the array would cost seconds).
    named = etp if np.ndim(etp) == 0 else "ETP"
    subject = f"the experts' tokens, {named} x s'b/t x {w}" if sequence_parallel else f"the experts' s'b{w}"
    counts = f"1 per MoE layer forward and 1 backward over the {named} expert tensor ranks"
    inter_node = etp > mesh.gpus_per_node  # ETP consecutive ranks (service.mesh.degrees)
    link = np.broadcast_to(inter_node, present.shape) if isinstance(present, np.ndarray) else _link(inter_node)
    forward = work.moe_layers * work.micro_batches * present
    return _pair_calls(Group.expert, etp, buffer, forward, link, mesh, work.full_recompute, (subject, counts))


def pipeline_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    if _absent(mesh.pipeline):
        return []
    sp = mesh.tensor if mesh.sequence_parallel else 1
    buffer = (work.sequence_length // mesh.context) * work.micro_batch_size * arch.hidden_size // sp
    sends = mesh.chunks * work.micro_batches * _present(mesh.pipeline)
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
    if _absent(c):
        return []
    chunk = (work.sequence_length // c) * work.micro_batch_size * kv_elements_per_token(arch) // mesh.tensor
    layers = work.layers * work.micro_batches
    forwards = 2 if work.full_recompute else 1
    link = group_link(mesh, Group.context)
    again = " and again in the recomputed forward" if work.full_recompute else ""
    if mesh.context_attention is ContextAttention.all_gather:
        gathered = chunk * c
        return [
            GroupCall(
                Group.context,
                CollectiveName.all_gather,
                f"K and V of the whole sequence gathered before attention, 1 per layer{again}, every micro-batch",
                gathered,
                c,
                layers * forwards * _present(c),
                link,
            ),
            GroupCall(
                Group.context,
                CollectiveName.all_gather,
                "K and V gathered again for the backward, 1 per layer, every micro-batch",
                gathered,
                c,
                layers * _present(c),
                link,
            ),
            GroupCall(
                Group.context,
                CollectiveName.reduce_scatter,
                "K and V gradients reduce-scattered back to their ranks, 1 per layer, every micro-batch",
                gathered,
                c,
                layers * _present(c),
                link,
            ),
        ]
    per_layer = c - 1
    return [
        GroupCall(
            Group.context,
            CollectiveName.send_recv,
            f"K and V chunks round the ring in the forward, c - 1 steps per layer{again}, every micro-batch",
            chunk,
            c,
            per_layer * layers * forwards,
            link,
            Window.forward,
            ring_step=True,
        ),
        GroupCall(
            Group.context,
            CollectiveName.send_recv,
            "K and V again and their gradients in the backward, 2 (c - 1) steps per layer, every micro-batch",
            chunk,
            c,
            2 * per_layer * layers,
            link,
            Window.backward,
            ring_step=True,
        ),
    ]


def ring_exposed_seconds(calls: Any, transfer_s: Any, step_core_s: Any) -> Any:
    """Exposed seconds of ``calls`` ring-attention transfers of ``transfer_s`` each, every transfer hidden only
    behind one ring step's attention core ``step_core_s``: calls x max(0, T - A).

    TransformerEngine's p2p ring (AttnFuncWithCPAndKVP2P.forward, transformer_engine/pytorch/attention/
    dot_product_attention/context_parallel.py): step i waits for the chunk sent at step i - 1, sends it on and
    runs attention on it; step 0 runs on the rank's own chunk. So a layer's c - 1 transfers each overlap one step's
    attention core, never the projections, the MLP or another layer: exposed per layer sum over its c - 1 steps of
    max(0, T - A) >= (c - 1) T - c A, the exchange less the layer's attention core. The backward moves K/V and
    their gradients, two transfers a step behind twice the core: the same per transfer. Numbers, or arrays."""
    if isinstance(transfer_s, np.ndarray) or isinstance(step_core_s, np.ndarray) or isinstance(calls, np.ndarray):
        return calls * np.maximum(0.0, transfer_s - step_core_s)
    return float(calls * max(0.0, transfer_s - step_core_s))


def expert_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    e = mesh.expert
    if arch.moe is None or _absent(e) or (not isinstance(work.moe_layers, np.ndarray) and not work.moe_layers):
        return []
    sp = mesh.tensor if mesh.sequence_parallel else 1
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size // sp
    width = routed_expert_width(arch)
    buffer = tokens * arch.moe.top_k * width
    per_step = 2 * work.moe_layers * work.micro_batches * _present(e)
    link = group_link(mesh, Group.expert)
    w = "h" if width == arch.hidden_size else "l (the latent width)"
    return [
        GroupCall(
            Group.expert,
            CollectiveName.all_to_all,
            f"{what}: tokens x top_k x {w}, dispatch and combine per MoE layer, every micro-batch",
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
        + expert_tensor_calls(mesh, arch, work)
    )
