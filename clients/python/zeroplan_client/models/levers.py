from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.attention_backend import AttentionBackend
from ..models.fp_8_recipe import Fp8Recipe
from ..models.moe_token_dispatcher import MoeTokenDispatcher
from ..models.mxfp_8_recipe import Mxfp8Recipe
from ..models.recompute import Recompute
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.zero_plus_plus import ZeroPlusPlus


T = TypeVar("T", bound="Levers")


@_attrs_define
class Levers:
    """The levers: offload (ZeRO-Offload), overlap, recomputation, MXFP8.

    Attributes:
        attention_backend (AttentionBackend | None | Unset): The flash-attention kernel the attention core runs, priced
            at its published speed (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608, section 4.1; Dao 2023,
            FlashAttention-2, arXiv 2307.08691, section 4.1). Default null: Transformer Engine's choice, as Megatron-Core
            and NeMo run it: cuDNN's fused attention on Hopper (get_attention_backend prefers it there), FlashAttention-2
            elsewhere. flash_attention_2: PyTorch's scaled_dot_product_attention (torchtitan) or the flash-attn package
            (llm-foundry's attn_impl flash); flash_attention_3: flash-attn's Hopper build. cudnn and flash_attention_3 have
            published tables on Hopper only; other GPUs run FlashAttention-2's. Ignored without flash attention.
        bucket_bytes (int | None | Unset): Bytes of one bucket of a data-parallel collective: each bucket one NCCL call,
            the last never hidden. Default null: the framework's own, which the arrangement and layout name: PyTorch DDP's
            25 MiB (bucket_cap_mb) for ddp; Megatron-Core's max(40M, 1M x dp) parameters for ddp and zero1 with model
            parallelism; DeepSpeed's reduce_bucket_size of 5e8 elements for zero1 and zero2; one call per FSDP unit where
            parameters are sharded. The working set holds two buckets of the given size (25 MiB when null).
        fp8 (Fp8Recipe | Unset): Per-tensor scaled FP8 training (Hopper and later; E4M3/E5M2, one scale per tensor), by
            the library that
            runs it.
        fp8_param_gather (bool | Unset): Megatron-LM's --fp8-param-gather (Megatron-Bridge's FP8 recipes set it): with a
            transformer_engine levers.fp8 recipe, the layers' weights are kept in FP8 alone, no 16-bit copy
            (TransformerConfig.fp8_param; the optimizer's fp32 master weights, quantised into them after each step, stay),
            on Hopper each beside its FP8 transpose; the ZeRO-1/2 distributed optimizer's all-gather of the updated
            parameters then sends FP8 (ZeRO-3/FSDP gathers FP8 either way). Needs a transformer_engine levers.fp8 recipe, a
            precision with master weights and an arrangement that shards the optimizer (Megatron-LM: 'only supported with
            distributed optimizer' or FSDP); not with zeropp or offload_parameters (DeepSpeed's and FSDP's). Under sharded
            parameters the shard is FP8 and the gathered copy as without it. Default: False.
        fsdp_prefetch (bool | Unset): FSDP's prefetch of the next unit's parameters (FSDP2's implicit forward and
            backward prefetch, FSDP1's backward_prefetch=BACKWARD_PRE; on by default) and DeepSpeed ZeRO-3's
            stage3_prefetch_bucket_size: off, every parameter all-gather is exposed. Default: True.
        moe_permute_fusion (bool | Unset): Megatron-Core's --moe-permute-fusion (default off; NeMo Automodel's DeepEP
            experts always fuse): the permutation and its inverse run as Transformer Engine's fused kernels, one pass over
            the bytes they move; off, as unfused PyTorch operations at the memory-bound work's passes. A dense model ignores
            it. Default: False.
        moe_token_dispatcher (MoeTokenDispatcher | Unset): How a mixture's tokens reach their experts and come back
            (Megatron-Core's --moe-token-dispatcher-type).
        mxfp8 (bool | Unset): MXFP8, applied as mxfp8_recipe says. Default: False.
        mxfp8_recipe (Mxfp8Recipe | Unset): How the MXFP8 lever is applied: the textbook model, or as Transformer Engine
            or torchao do it.
        offload_optimizer (bool | Unset): ZeRO-Offload: optimizer state in host memory. Default: False.
        offload_parameters (bool | Unset): Parameter shards in host memory (ZeRO-3 only). Default: False.
        overlap (bool | Unset): Overlap communication with compute, bucket by bucket: the switch over every overlap
            below (off: everything exposed). Default: True.
        overlap_grad_reduce (bool | None | Unset): Reduce the gradients bucket by bucket under the backward pass
            (Megatron-LM's --overlap-grad-reduce, DeepSpeed's overlap_comm; PyTorch DDP and FSDP always do). Default null:
            as overlap. Off: every gradient reduction is exposed.
        overlap_moe_expert_parallel_comm (bool | Unset): Expert all-to-all hidden under another micro-batch's compute:
            Megatron-LM's --overlap-moe-expert-parallel-comm (default off), the combined 1F1B of DeepSeek-V3's DualPipe. One
            micro-batch's forward runs beside another's backward, layer by layer: each dispatch and combine hidden behind
            the piece of the other it is paired with (the forward's dispatch behind the experts' backward, its combine
            behind the attention's backward, the backward's dispatch behind the experts' forward, its combine behind the
            attention's forward); what exceeds its piece, and the warmup's and cooldown's micro-batches, stay exposed. With
            DeepEP a piece runs on the SMs its kernels leave (112 of an H100's 132). Default: False.
        overlap_param_gather (bool | Unset): Megatron-LM's --overlap-param-gather (default off): the distributed
            optimizer's all-gather of updated parameters (zero1/zero2) runs bucket by bucket under the next step's forward
            pass instead of after the optimizer step. Default: False.
        recompute (Recompute | Unset): Activation recomputation (Korthikanti et al. 2022).
        tp_comm_overlap (bool | Unset): Megatron-LM's --tp-comm-overlap (Transformer Engine userbuffers; default off),
            PyTorch's AsyncTP (torchtitan's enable_async_tensor_parallel): each tensor-parallel all-gather and reduce-
            scatter of a dense layer hidden behind the GEMM it is paired with ((t - 1) / t of it, micro-pipelined over the t
            shards), of a mixture's layer behind its share of the stage's compute; what exceeds it stays exposed. Needs
            sequence parallelism in Megatron-LM. Default: False.
        zeropp (ZeroPlusPlus | Unset): ZeRO++ (Wang et al. 2023) on ZeRO-3; DeepSpeed's zero_quantized_weights,
            zero_hpz_partition_size and
            zero_quantized_gradients.
    """

    attention_backend: AttentionBackend | None | Unset = UNSET
    bucket_bytes: int | None | Unset = UNSET
    fp8: Fp8Recipe | Unset = UNSET
    fp8_param_gather: bool | Unset = False
    fsdp_prefetch: bool | Unset = True
    moe_permute_fusion: bool | Unset = False
    moe_token_dispatcher: MoeTokenDispatcher | Unset = UNSET
    mxfp8: bool | Unset = False
    mxfp8_recipe: Mxfp8Recipe | Unset = UNSET
    offload_optimizer: bool | Unset = False
    offload_parameters: bool | Unset = False
    overlap: bool | Unset = True
    overlap_grad_reduce: bool | None | Unset = UNSET
    overlap_moe_expert_parallel_comm: bool | Unset = False
    overlap_param_gather: bool | Unset = False
    recompute: Recompute | Unset = UNSET
    tp_comm_overlap: bool | Unset = False
    zeropp: ZeroPlusPlus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        attention_backend: None | str | Unset
        if isinstance(self.attention_backend, Unset):
            attention_backend = UNSET
        elif isinstance(self.attention_backend, AttentionBackend):
            attention_backend = self.attention_backend.value
        else:
            attention_backend = self.attention_backend

        bucket_bytes: int | None | Unset
        if isinstance(self.bucket_bytes, Unset):
            bucket_bytes = UNSET
        else:
            bucket_bytes = self.bucket_bytes

        fp8: str | Unset = UNSET
        if not isinstance(self.fp8, Unset):
            fp8 = self.fp8.value

        fp8_param_gather = self.fp8_param_gather

        fsdp_prefetch = self.fsdp_prefetch

        moe_permute_fusion = self.moe_permute_fusion

        moe_token_dispatcher: str | Unset = UNSET
        if not isinstance(self.moe_token_dispatcher, Unset):
            moe_token_dispatcher = self.moe_token_dispatcher.value

        mxfp8 = self.mxfp8

        mxfp8_recipe: str | Unset = UNSET
        if not isinstance(self.mxfp8_recipe, Unset):
            mxfp8_recipe = self.mxfp8_recipe.value

        offload_optimizer = self.offload_optimizer

        offload_parameters = self.offload_parameters

        overlap = self.overlap

        overlap_grad_reduce: bool | None | Unset
        if isinstance(self.overlap_grad_reduce, Unset):
            overlap_grad_reduce = UNSET
        else:
            overlap_grad_reduce = self.overlap_grad_reduce

        overlap_moe_expert_parallel_comm = self.overlap_moe_expert_parallel_comm

        overlap_param_gather = self.overlap_param_gather

        recompute: str | Unset = UNSET
        if not isinstance(self.recompute, Unset):
            recompute = self.recompute.value

        tp_comm_overlap = self.tp_comm_overlap

        zeropp: dict[str, Any] | Unset = UNSET
        if not isinstance(self.zeropp, Unset):
            zeropp = self.zeropp.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if attention_backend is not UNSET:
            field_dict["attention_backend"] = attention_backend
        if bucket_bytes is not UNSET:
            field_dict["bucket_bytes"] = bucket_bytes
        if fp8 is not UNSET:
            field_dict["fp8"] = fp8
        if fp8_param_gather is not UNSET:
            field_dict["fp8_param_gather"] = fp8_param_gather
        if fsdp_prefetch is not UNSET:
            field_dict["fsdp_prefetch"] = fsdp_prefetch
        if moe_permute_fusion is not UNSET:
            field_dict["moe_permute_fusion"] = moe_permute_fusion
        if moe_token_dispatcher is not UNSET:
            field_dict["moe_token_dispatcher"] = moe_token_dispatcher
        if mxfp8 is not UNSET:
            field_dict["mxfp8"] = mxfp8
        if mxfp8_recipe is not UNSET:
            field_dict["mxfp8_recipe"] = mxfp8_recipe
        if offload_optimizer is not UNSET:
            field_dict["offload_optimizer"] = offload_optimizer
        if offload_parameters is not UNSET:
            field_dict["offload_parameters"] = offload_parameters
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if overlap_grad_reduce is not UNSET:
            field_dict["overlap_grad_reduce"] = overlap_grad_reduce
        if overlap_moe_expert_parallel_comm is not UNSET:
            field_dict["overlap_moe_expert_parallel_comm"] = overlap_moe_expert_parallel_comm
        if overlap_param_gather is not UNSET:
            field_dict["overlap_param_gather"] = overlap_param_gather
        if recompute is not UNSET:
            field_dict["recompute"] = recompute
        if tp_comm_overlap is not UNSET:
            field_dict["tp_comm_overlap"] = tp_comm_overlap
        if zeropp is not UNSET:
            field_dict["zeropp"] = zeropp

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.zero_plus_plus import ZeroPlusPlus  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_attention_backend(data: object) -> AttentionBackend | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                attention_backend_type_0 = AttentionBackend(data)

                return attention_backend_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AttentionBackend | None | Unset, data)

        attention_backend = _parse_attention_backend(d.pop("attention_backend", UNSET))

        def _parse_bucket_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bucket_bytes = _parse_bucket_bytes(d.pop("bucket_bytes", UNSET))

        _fp8 = d.pop("fp8", UNSET)
        fp8: Fp8Recipe | Unset
        if isinstance(_fp8, Unset):
            fp8 = UNSET
        else:
            fp8 = Fp8Recipe(_fp8)

        fp8_param_gather = d.pop("fp8_param_gather", UNSET)

        fsdp_prefetch = d.pop("fsdp_prefetch", UNSET)

        moe_permute_fusion = d.pop("moe_permute_fusion", UNSET)

        _moe_token_dispatcher = d.pop("moe_token_dispatcher", UNSET)
        moe_token_dispatcher: MoeTokenDispatcher | Unset
        if isinstance(_moe_token_dispatcher, Unset):
            moe_token_dispatcher = UNSET
        else:
            moe_token_dispatcher = MoeTokenDispatcher(_moe_token_dispatcher)

        mxfp8 = d.pop("mxfp8", UNSET)

        _mxfp8_recipe = d.pop("mxfp8_recipe", UNSET)
        mxfp8_recipe: Mxfp8Recipe | Unset
        if isinstance(_mxfp8_recipe, Unset):
            mxfp8_recipe = UNSET
        else:
            mxfp8_recipe = Mxfp8Recipe(_mxfp8_recipe)

        offload_optimizer = d.pop("offload_optimizer", UNSET)

        offload_parameters = d.pop("offload_parameters", UNSET)

        overlap = d.pop("overlap", UNSET)

        def _parse_overlap_grad_reduce(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        overlap_grad_reduce = _parse_overlap_grad_reduce(d.pop("overlap_grad_reduce", UNSET))

        overlap_moe_expert_parallel_comm = d.pop("overlap_moe_expert_parallel_comm", UNSET)

        overlap_param_gather = d.pop("overlap_param_gather", UNSET)

        _recompute = d.pop("recompute", UNSET)
        recompute: Recompute | Unset
        if isinstance(_recompute, Unset):
            recompute = UNSET
        else:
            recompute = Recompute(_recompute)

        tp_comm_overlap = d.pop("tp_comm_overlap", UNSET)

        _zeropp = d.pop("zeropp", UNSET)
        zeropp: ZeroPlusPlus | Unset
        if isinstance(_zeropp, Unset):
            zeropp = UNSET
        else:
            zeropp = ZeroPlusPlus.from_dict(_zeropp)

        levers = cls(
            attention_backend=attention_backend,
            bucket_bytes=bucket_bytes,
            fp8=fp8,
            fp8_param_gather=fp8_param_gather,
            fsdp_prefetch=fsdp_prefetch,
            moe_permute_fusion=moe_permute_fusion,
            moe_token_dispatcher=moe_token_dispatcher,
            mxfp8=mxfp8,
            mxfp8_recipe=mxfp8_recipe,
            offload_optimizer=offload_optimizer,
            offload_parameters=offload_parameters,
            overlap=overlap,
            overlap_grad_reduce=overlap_grad_reduce,
            overlap_moe_expert_parallel_comm=overlap_moe_expert_parallel_comm,
            overlap_param_gather=overlap_param_gather,
            recompute=recompute,
            tp_comm_overlap=tp_comm_overlap,
            zeropp=zeropp,
        )

        return levers
