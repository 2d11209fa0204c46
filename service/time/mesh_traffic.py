"""Traffic of the mesh's model-parallel groups, per GPU per optimizer step (the busiest stage's GPU).

With m micro-batches per step, L_s layers on the stage (L_e of them MoE), s' = s / c the rank's
share of the sequence, b the micro-batch and h the width, in 16-bit activations:
- tensor (Shoeybi et al. 2019, section 3; Korthikanti et al. 2022, section 4.2.2): per layer two
  all-reduces of s' b h in the forward and two in the backward (the f and g operators); with
  sequence parallelism each becomes an all-gather plus a reduce-scatter of the same buffer, the
  same bytes, and the backward gathers each column-parallel input (q/k/v, the MLP's first matrix)
  once more for its weight gradient: Megatron-LM saves only the rank's shard
  (LinearWithGradAccumulationAndAsyncCommunication, megatron/core/tensor_parallel/layers.py
  @d98e8a64), 5 calls per pair instead of 4. Full recomputation repeats the forward's two.
  Vocabulary-parallel embedding and loss reductions are left out (one s' b h per micro-batch, not
  per layer). A MoE layer's routed experts make a pair of their own (expert tensor below); its
  shared experts (Megatron-Core's SharedExpertMLP) a pair of s' b h like a dense MLP.
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
  chunks a step, each behind half of that step's backward core): ring_exposed_seconds.
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
  moe_latent_size, megatron/core/transformer/moe/token_dispatcher.py). Node-limited routing
  (model.moe.max_nodes_per_token M; DeepSeek-V3 report, sections 2.1.2 and 3.2.2: each token goes to
  at most M nodes, crosses InfiniBand once per target node to the GPU of the same in-node index and
  is forwarded over NVLink to its experts there) splits each all-to-all of a group that spans nodes
  in two: across the group's n nodes, s' b min(M, top_k) w elements among n ranks, and inside the
  node, the s' b top_k w copies among the group's members on the node. DeepEP's dispatcher
  (levers.moe_token_dispatcher deepep; get_dispatch_layout's is_token_in_rank) sends a token once to
  each rank that holds one of its experts, e (1 - C(E - E/e, k) / C(E, k)) ranks under uniform routing
  (service.time.efficiency.destination_ranks_per_token), not its top_k copies. A layer recomputed in
  full dispatches and combines again in its recomputed forward.
- expert tensor (Megatron-Core's MoEAlltoAllTokenDispatcher, megatron/core/transformer/moe/
  token_dispatcher.py @d98e8a64: after the all-to-all the routed copies a rank received are
  all-gathered over its expert tensor group, dispatch_postprocess, and reduce-scattered before the
  combine, combine_preprocess): per MoE layer an all-gather and a reduce-scatter forward and the
  same backward, with or without sequence parallelism, of ETP x s' b / t x top_k x (h or l)
  elements (s' b without sequence parallelism): the copies, not the tokens. While ETP is t the pair
  runs in the tensor group (ETP x s' b / t = s' b); given apart from t, over the ETP ranks.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.enums import CollectiveName, Dtype, Link, MoeTokenDispatcher
from models.parallelism import ContextAttention
from service.inputs.architecture import Architecture, head_dim, routed_expert_width
from service.memory.dtypes import tensor_bytes
from service.mesh.degrees import Group, Mesh
from service.numeric import IntLike, nearest_int, select
from service.time.collectives import ring_bytes_sent, ring_hops
from service.time.efficiency import LinkSpeeds, destination_ranks_per_token
from service.time.nccl import NcclCall, NcclSystem, call_time
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
    # An all-to-all's ranks on one node (its peers there are reached over NVLink, the others through the NIC, at
    # once: all_to_all_seconds); None: every peer over ``link``.
    node_members: Any = None
    # The call this one runs beside, on the other link (node-limited routing's forwarding inside the node, overlapped
    # with the network sends): only what it takes beyond that call is on the critical path (group_call_seconds).
    beside: "GroupCall | None" = None

    @property
    def bytes_sent(self) -> Any:
        """Bytes each GPU sends for one call."""
        return _plain(ring_bytes_sent(self.name, self.elements, self.ranks, self.dtype))

    @property
    def hops(self) -> Any:
        return _plain(ring_hops(self.name, self.ranks))


NCCL_PRICED = (CollectiveName.all_reduce, CollectiveName.all_gather, CollectiveName.reduce_scatter)


def group_call_price(call: GroupCall, links: LinkSpeeds, system: NcclSystem) -> NcclCall | None:
    """One call of a model-parallel group as NCCL's tuning model prices it (service.time.nccl): an all-reduce,
    all-gather or reduce-scatter of the group's buffer over its ranks, inside one node, or across nodes with one
    of the group's GPUs on each (the GPU's own NIC, as ``links`` prices it); None for a send/receive or an
    all-to-all (point-to-point calls, which NCCL's tuning model does not price)."""
    if call.name not in NCCL_PRICED:
        return None
    inter_node = call.link if isinstance(call.link, np.ndarray) else call.link is Link.inter_node
    nodes = select(inter_node, call.ranks, 1)
    bus = select(inter_node, links.inter_node_bytes_per_s, links.intra_node_bytes_per_s)
    elements = tensor_bytes(call.elements, call.dtype)
    return call_time(call.name, elements, call.ranks, nodes, bus, system, links.intra_node_bytes_per_s)


def all_to_all_seconds(call: GroupCall, links: LinkSpeeds) -> Any:
    """One all-to-all of a group with ``node_members`` of its N ranks on each node, as NCCL runs it: one grouped
    send and receive per peer (``ncclGroupStart``; src/enqueue.cc schedules each peer's transfer on its own
    channel), the P2P transport over NVLink for the m - 1 peers on the node and the network transport for the
    N - m on other nodes, all in flight together. The chunks for other nodes, (N - m) / (N - 1) of the bytes a GPU
    sends, leave through the GPU's NIC while the (m - 1) / (N - 1) for its own node cross NVLink: the call takes
    the longer of the two, after its N - 1 steps of latency (the network's once the group leaves the node). With
    the whole group on one node (m = N) this is the alpha-beta price of the intra-node link. Numbers, or arrays."""
    n, m, sent = call.ranks, call.node_members, call.bytes_sent
    peers = np.maximum(n - 1, 1) if isinstance(n, np.ndarray) else max(n - 1, 1)
    across = m < n
    latency = call.hops * select(across, links.inter_node_latency_s, links.intra_node_latency_s)
    inter_s = sent * (n - m) / peers / links.inter_node_bytes_per_s
    intra_s = sent * (m - 1) / peers / links.intra_node_bytes_per_s
    seconds = latency + np.maximum(inter_s, intra_s)
    return seconds if isinstance(seconds, np.ndarray) else float(seconds)


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


def pipeline_across_nodes(mesh: Mesh) -> Any:
    """Neighbouring stages sit t x c x d ranks apart: on another node once that reaches a node's GPUs (a bool, or a
    bool array for many layouts)."""
    return mesh.stride(Group.pipeline) >= mesh.gpus_per_node


def pipeline_link(mesh: Mesh) -> Any:
    return _link(pipeline_across_nodes(mesh))


def links_alone(mesh: Mesh) -> dict[Group, tuple[Any, Any]]:
    """Per model-parallel group, (whether its calls cross NVLink alone, whether they cross the NIC alone): a group
    whose ranks sit on one node runs over NVLink only; a pipeline's neighbours on different nodes send through the
    NIC only (one peer each); a tensor, context or expert group that spans nodes uses both (its in-node peers over
    NVLink, the others through the NIC). Bools for one layout, bool arrays for many (service.engine.layout_grid)."""
    alone: dict[Group, tuple[Any, Any]] = {}
    for group in (Group.tensor, Group.context, Group.expert):
        spans = mesh.spans_nodes(group)
        alone[group] = (~spans if isinstance(spans, np.ndarray) else not spans, spans & False)
    across = pipeline_across_nodes(mesh)
    alone[Group.pipeline] = (~across if isinstance(across, np.ndarray) else not across, across)
    return alone


def beside_data_seconds(exposed_s: Mapping[Group, Any], alone: Mapping[Group, tuple[Any, Any]]) -> tuple[Any, Any]:
    """(exposed model-parallel seconds a step spends on NVLink alone, on the NIC alone): what the compute stream
    waits on while the other link is free (links_alone), for service.time.communication.data_windows."""
    nvlink: Any = 0.0
    nic: Any = 0.0
    for group, seconds in exposed_s.items():
        if group not in alone:
            continue
        on_nvlink, on_nic = alone[group]
        nvlink = nvlink + select(on_nvlink, seconds, 0.0 * seconds)
        nic = nic + select(on_nic, seconds, 0.0 * seconds)
    return nvlink, nic


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
    dispatcher: MoeTokenDispatcher = MoeTokenDispatcher.alltoall  # levers.moe_token_dispatcher
    # The layers' GEMMs in per-tensor scaled FP8 (levers.fp8): the dense layers' sequence-parallel all-gathers carry
    # FP8 elements (tensor_calls).
    fp8_gathers: bool = False


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
    gathered: bool | None = None,
    regathered: bool = False,
    gather_dtype: Dtype = ACTIVATION_DTYPE,
) -> list[GroupCall]:
    """A layer part's forward calls and as many backward: an all-reduce each, or with sequence parallelism an
    all-gather and a reduce-scatter of the same buffer; full recomputation repeats the forward's.
    words: (what the buffer holds, how many calls a layer makes). gathered: all-gather and reduce-scatter whatever
    the mesh's sequence parallelism (a token dispatcher's pair); None: as the mesh says. regathered: each pair's
    column-parallel input is gathered once more in the backward for its weight gradient (Megatron-LM's
    LinearWithGradAccumulationAndAsyncCommunication.backward, megatron/core/tensor_parallel/layers.py @d98e8a64:
    with sequence_parallel it saves the rank's shard and all-gathers it again before grad_weight). gather_dtype: the
    elements the all-gathers carry (the reduce-scatters stay in the activations' dtype)."""
    repeat = forward if full_recompute else 0
    again = " and again in the recomputed forward" if full_recompute else ""
    subject, counts = words
    if not (mesh.sequence_parallel if gathered is None else gathered):
        purpose = f"layer outputs ({subject}), {counts}{again}, every micro-batch"
        return [GroupCall(group, CollectiveName.all_reduce, purpose, buffer, ranks, 2 * forward + repeat, link)]
    backward_gathers = 2 * forward if regathered else forward
    regather = ", and each column-parallel input gathered again in the backward for its weight gradient"
    return [
        GroupCall(
            group,
            CollectiveName.all_gather,
            f"sequence-parallel gathers of {subject}, {counts}{again}{regather if regathered else ''}, "
            "every micro-batch",
            buffer,
            ranks,
            forward + backward_gathers + repeat,
            link,
            dtype=gather_dtype,
        ),
        GroupCall(
            group,
            CollectiveName.reduce_scatter,
            f"sequence-parallel scatters of {subject}, {counts}{again}, every micro-batch",
            buffer,
            ranks,
            2 * forward + repeat,
            link,
        ),
    ]


def _moe_tokens(mesh: Mesh, work: StageWork) -> Any:
    """Tokens a rank routes in a MoE layer: its sequence-parallel shard s'b / t, or s'b without sequence parallelism."""
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size
    return tokens // mesh.tensor if mesh.sequence_parallel else tokens


def _routed_buffer(mesh: Mesh, arch: Architecture, work: StageWork) -> Any:
    """The expert tensor group's gathered buffer: ETP ranks' routed copies, ETP x tokens x top_k of the routed width
    (Megatron-Core's MoEAlltoAllTokenDispatcher gathers after the all-to-all, so every copy a token was routed to)."""
    assert arch.moe is not None
    return mesh.etp * _moe_tokens(mesh, work) * arch.moe.top_k * routed_expert_width(arch)


def tensor_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    """Pairs of s'bh: 2 per dense layer (attention, MLP); per MoE layer the attention's and, with shared experts,
    theirs (Megatron-Core's SharedExpertMLP is tensor-parallel on h). While the expert tensor degree is t the
    routed experts' pair is a call of its own on the routed copies (_routed_buffer); with sequence parallelism
    each pair's column-parallel input is gathered again in the backward (_pair_calls). Under per-tensor scaled FP8
    the dense pairs' all-gathers carry FP8: the inputs are cast before they are gathered and the output gradients
    before theirs (torchao @eab345c2 torchao/float8/float8_tensor_parallel.py: PrepareFloat8ModuleInput "ensure the
    float8 cast happens before the all-gather", Float8RowwiseParallel's NoopFwToFloat8BwDynamic after the
    redistribute; Transformer Engine's userbuffers: "AllGather buffers use fp8 when using fp8 recipe",
    transformer_engine/pytorch/module/base.py initialize_ub); the reduce-scatters of partial sums stay in bf16."""
    t = mesh.tensor
    if _absent(t):
        return []
    tokens = (work.sequence_length // mesh.context) * work.micro_batch_size
    apart = _expert_tensor_apart(mesh, work)
    link = group_link(mesh, Group.tensor)
    moe = arch.moe
    shared = moe is not None and moe.shared_experts > 0
    dense = work.layers - work.moe_layers
    forward = (2 * dense + (2 if shared else 1) * work.moe_layers) * work.micro_batches * _present(t)
    if moe is None:
        counts = "2 per layer forward and 2 backward"
    elif shared:
        counts = "2 per dense layer and 2 per MoE layer (attention, shared experts) forward, as many backward"
    else:
        counts = "2 per dense layer and 1 per MoE layer (its attention's) forward, as many backward"
    calls = _pair_calls(
        Group.tensor,
        t,
        tokens * arch.hidden_size,
        forward,
        link,
        mesh,
        work.full_recompute,
        ("s'bh", counts),
        regathered=True,
        gather_dtype=Dtype.fp8 if work.fp8_gathers else ACTIVATION_DTYPE,
    )
    if moe is None:
        return calls
    experts = (work.moe_layers - work.moe_layers * apart) * work.micro_batches * _present(t)
    if not isinstance(experts, np.ndarray) and not experts:
        return calls
    w = "h" if routed_expert_width(arch) == arch.hidden_size else "l"
    counts = "1 per MoE layer (its routed experts') forward and 1 backward"
    subject = f"the routed copies, t x s'b/t x top_k x {w}" if mesh.sequence_parallel else f"t x s'b x top_k x {w}"
    buffer = _routed_buffer(mesh, arch, work)
    return calls + _pair_calls(
        Group.tensor, t, buffer, experts, link, mesh, work.full_recompute, (subject, counts), gathered=True
    )


def expert_tensor_calls(mesh: Mesh, arch: Architecture, work: StageWork) -> list[GroupCall]:
    """The MoE layers' routed pair over the expert tensor group, when its degree is given apart from t: an
    all-gather of the routed copies after the dispatch and a reduce-scatter before the combine, with or without
    sequence parallelism (token_dispatcher.py @d98e8a64, dispatch_postprocess and combine_preprocess)."""
    etp = mesh.etp
    if arch.moe is None:
        return []
    present = _expert_tensor_apart(mesh, work) & (etp > 1)
    if not isinstance(present, np.ndarray) and not present:
        return []
    w = "h" if routed_expert_width(arch) == arch.hidden_size else "l"
    share = "s'b/t" if mesh.sequence_parallel else "s'b"
    # A grid's degrees are arrays: its calls are named by the symbol (formatting the array would cost seconds).
    named = etp if np.ndim(etp) == 0 else "ETP"
    subject = f"the routed copies, {named} x {share} x top_k x {w}"
    counts = f"1 per MoE layer forward and 1 backward over the {named} expert tensor ranks"
    inter_node = etp > mesh.gpus_per_node  # ETP consecutive ranks (service.mesh.degrees)
    link = np.broadcast_to(inter_node, present.shape) if isinstance(present, np.ndarray) else _link(inter_node)
    forward = work.moe_layers * work.micro_batches * present
    buffer = _routed_buffer(mesh, arch, work)
    return _pair_calls(
        Group.expert, etp, buffer, forward, link, mesh, work.full_recompute, (subject, counts), gathered=True
    )


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
    their gradients, two transfers a step beside one backward kernel: each behind half of it
    (service.engine.model_parallel.ring_transfer_window_s). Numbers, or arrays."""
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
    deepep = work.dispatcher is MoeTokenDispatcher.deepep
    # DeepEP sends a token once to each rank that holds one of its experts; the alltoall dispatcher its top_k copies
    copies = destination_ranks_per_token(arch.moe.experts, arch.moe.top_k, e) if deepep else arch.moe.top_k
    buffer = tokens * copies * width
    if deepep:  # whole elements
        buffer = nearest_int(buffer)
    per_step = 2 * work.moe_layers * work.micro_batches * _present(e)
    forwards = 2 if work.full_recompute else 1  # a recomputed layer dispatches and combines again
    again = " and again in the recomputed forward" if work.full_recompute else ""
    sent = "tokens x destination ranks" if deepep else "tokens x top_k"
    link = group_link(mesh, Group.expert)
    w = "h" if width == arch.hidden_size else "l (the latent width)"
    limit = arch.moe.max_nodes_per_token
    node_limited = limit is not None and limit < arch.moe.top_k
    # Sent once per target node, then forwarded inside it: node-limited routing, and DeepEP's internode dispatch
    # whatever the routing (DeepEP @567632dd csrc/kernels/layout.cu get_dispatch_layout counts a token once per RDMA
    # rank, the node, that holds any of its experts; the internode kernels send it there once and forward it over
    # NVLink to the node's ranks: README 'Normal kernels with NVLink and RDMA forwarding')
    limited = mesh.spans_nodes(Group.expert) & (node_limited or deepep)
    whole = per_step * ~limited if isinstance(limited, np.ndarray) else (0 if limited else per_step)
    calls = []
    if isinstance(limited, np.ndarray) or not limited:
        calls = [
            GroupCall(
                Group.expert,
                CollectiveName.all_to_all,
                f"{what}: {sent} x {w}, dispatch and combine per MoE layer, every micro-batch{extra} (the "
                "copies for the node's own ranks over NVLink while those for other nodes leave through the NIC)",
                buffer,
                e,
                whole * repeat,
                link,
                node_members=mesh.members_per_node(Group.expert),
            )
            for what, repeat, extra in (("forward", forwards, again), ("backward", 1, ""))
        ]
    if not (node_limited or deepep) or not (isinstance(limited, np.ndarray) or limited):
        return calls
    members = mesh.members_per_node(Group.expert)
    nodes = np.maximum(e // members, 1) if isinstance(members, np.ndarray) else max(e // members, 1)
    split = per_step * limited
    if node_limited:
        assert limit is not None
        across_elements = tokens * min(limit, arch.moe.top_k) * width
        across_sent = "tokens x min(max_nodes_per_token, top_k)"
        across_why = "node-limited routing: one copy per target node"
    else:  # DeepEP, routing over every node: the nodes holding one of a token's top_k, in expectation
        node_copies = destination_ranks_per_token(arch.moe.experts, arch.moe.top_k, nodes)
        across_elements = nearest_int(tokens * node_copies * width)
        across_sent = "tokens x destination nodes"
        across_why = "DeepEP's internode dispatch: one copy per node holding one of the token's experts"
    for what, repeat, extra in (("forward", forwards, again), ("backward", 1, "")):
        across = GroupCall(
            Group.expert,
            CollectiveName.all_to_all,
            f"{what}: {across_sent} x {w} across the group's nodes ({across_why}), dispatch and combine per MoE "
            f"layer, every micro-batch{extra}",
            across_elements,
            nodes,
            split * repeat,
            _link(np.broadcast_to(True, np.shape(limited)) if isinstance(limited, np.ndarray) else True),
        )
        # DeepSeek-V3 report, section 3.2.2: the forwarding over NVLink is overlapped with the network sends ("IB
        # and NVLink communications are fully overlapped"), as DeepEP's internode kernels run them.
        inside = GroupCall(
            Group.expert,
            CollectiveName.all_to_all,
            f"{what}: {sent} x {w} forwarded inside the node to their experts "
            f"({'node-limited routing' if node_limited else 'DeepEP'}), "
            f"dispatch and combine per MoE layer, every micro-batch{extra}, beside the sends across nodes (only what "
            "it takes beyond them counts)",
            buffer,
            members,
            split * repeat,
            _link(np.broadcast_to(False, np.shape(limited)) if isinstance(limited, np.ndarray) else False),
            beside=across,
        )
        calls += [across, inside]
    return calls


def model_parallel_calls(
    mesh: Mesh, arch: Architecture, work: StageWork, groups: tuple[Group, ...] | None = None
) -> list[GroupCall]:
    """The calls of every model-parallel group, tensor first; ``groups``: of those groups alone (None: all)."""
    found: list[GroupCall] = []
    for group, calls_of in _GROUP_CALLS:
        if groups is None or group in groups:
            found += calls_of(mesh, arch, work)
    return found


# Each model-parallel group's calls, in the order a step lists them (the experts' tensor-parallel calls are the
# expert group's).
_GROUP_CALLS: tuple[tuple[Group, Callable[[Mesh, Architecture, StageWork], list[GroupCall]]], ...] = (
    (Group.tensor, tensor_calls),
    (Group.pipeline, pipeline_calls),
    (Group.context, context_calls),
    (Group.expert, expert_calls),
    (Group.expert, expert_tensor_calls),
)
