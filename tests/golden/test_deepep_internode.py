"""DeepEP's internode dispatch: a token crosses the network once to each node that holds one of its experts, then
is forwarded over NVLink to the node's ranks, whatever the routing.

DeepEP @567632dd, csrc/kernels/layout.cu get_dispatch_layout: num_tokens_per_rdma_rank counts a token once per RDMA
rank (a node of NUM_MAX_NVL_PEERS = 8 GPUs) holding any of its top_k experts, is_token_in_rank once per rank; the
README's 'Normal kernels with NVLink and RDMA forwarding' send to the node over RDMA and forward inside it.

Qwen3-30B-A3B (config.json: 48 layers, h 2,048, 128 experts, top 8), e = 32 over 4 nodes of 8, one micro-batch of
4,096 tokens. A node holds 32 of the 128 experts and none of a token's 8 with chance C(96, 8) / C(128, 8), so
4 x (1 - C(96, 8) / C(128, 8)) = 3.629 nodes receive each token; a rank holds 4 and 32 x (1 - C(124, 8) / C(128, 8))
= 7.359 ranks receive it.
"""

import math

from pytest import approx

from models.enums import CollectiveName, Link, MoeTokenDispatcher
from models.model_presets import ModelPresetName
from service.inputs.resolve import bare_preset
from service.mesh.degrees import Mesh
from service.time.mesh_traffic import StageWork, expert_calls

S, H, LAYERS = 4096, 2048, 48
NODES_PER_TOKEN = 4 * (1 - math.comb(96, 8) / math.comb(128, 8))
RANKS_PER_TOKEN = 32 * (1 - math.comb(124, 8) / math.comb(128, 8))


def _calls(expert: int, dispatcher: MoeTokenDispatcher) -> list:  # type: ignore[type-arg]
    arch = bare_preset(ModelPresetName("qwen3-30b-a3b")).architecture
    assert arch is not None
    mesh = Mesh(expert, 8, expert=expert)
    return expert_calls(mesh, arch, StageWork(LAYERS, LAYERS, 1, 1, S, False, dispatcher=dispatcher))


def test_deepep_crosses_the_network_once_per_node() -> None:
    assert round(NODES_PER_TOKEN, 3) == 3.629 and round(RANKS_PER_TOKEN, 3) == 7.359
    calls = _calls(32, MoeTokenDispatcher.deepep)
    across = [c for c in calls if c.beside is None]
    inside = [c for c in calls if c.beside is not None]
    assert len(across) == len(inside) == 2  # forward and backward, no call over the whole group
    for call in across:
        assert (call.name, call.ranks, call.link) == (CollectiveName.all_to_all, 4, Link.inter_node)
        assert call.elements == round(S * NODES_PER_TOKEN * H)
        assert call.count_per_step == 2 * LAYERS  # dispatch and combine per MoE layer, one micro-batch
    for call, beside in zip(inside, across, strict=True):
        assert (call.ranks, call.link, call.beside) == (8, Link.intra_node, beside)
        assert call.elements == round(S * RANKS_PER_TOKEN * H)
    # over the network each GPU sends 3 / 4 of its 3.629 node copies, 2.722 copies of h a token, where a call over
    # the whole group sends 24 / 32 of its 7.359 rank copies, 5.519: 0.493 of the bytes
    whole_group_network_bytes = (24 / 32) * S * RANKS_PER_TOKEN * H * 2
    assert across[0].bytes_sent / whole_group_network_bytes == approx(0.493, abs=1e-3)


def test_the_alltoall_dispatcher_and_one_node_are_unchanged() -> None:
    # alltoall: top_k copies over the whole group, NVLink to the node's 7 peers and the NIC to the other 24 at once
    (forward, backward) = _calls(32, MoeTokenDispatcher.alltoall)
    assert (forward.ranks, forward.node_members, forward.elements) == (32, 8, S * 8 * H)
    assert forward.beside is None and backward.beside is None
    # DeepEP on one node: the intranode kernel, one copy per destination rank over NVLink
    (forward, _) = _calls(8, MoeTokenDispatcher.deepep)
    assert (forward.ranks, forward.link, forward.beside) == (8, Link.intra_node, None)
    assert forward.elements == round(S * 8 * (1 - math.comb(112, 8) / math.comb(128, 8)) * H)
