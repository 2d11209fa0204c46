"""Bytes of a tensor of n elements in a given dtype.

Block-scaled formats follow the OCP Microscaling Formats (MX) specification v1.0 (section 5):
k = 32 elements share one 8-bit E8M0 scale. MXFP8 (E4M3/E5M2) and MXINT8 store 8 bits per
element, MXFP6 (E2M3, E3M2) 6 and MXFP4 (E2M1) 4, packed: 33, 25 and 17 bytes per block of 32.
ZeRO++'s quantised collectives (Wang et al. 2023; DeepSpeed partition_parameters.py
``CUDAQuantizer``, comm/coalesced_collectives.py ``all_to_all_quant_reduce``) send symmetric int8
(qwZ) or int4 (qgZ) values with one fp32 scale per group; the group is modelled as 4096 values
(DeepSpeed targets about 4k for weights and uses one group per row of the smaller dimension for
gradients).
"""

from dataclasses import dataclass

from models.enums import Dtype
from service.numeric import IntLike, ceil_div

MX_BLOCK = 32
ZEROPP_GROUP = 4096


@dataclass(frozen=True)
class DtypeFormat:
    element_bits: int
    block_elements: int = 0  # 0: no shared scale
    scale_bytes: int = 0


DTYPE_FORMATS: dict[Dtype, DtypeFormat] = {
    Dtype.fp64: DtypeFormat(64),
    Dtype.fp32: DtypeFormat(32),
    Dtype.bf16: DtypeFormat(16),
    Dtype.fp16: DtypeFormat(16),
    Dtype.fp8: DtypeFormat(8),
    Dtype.mxfp8: DtypeFormat(8, block_elements=MX_BLOCK, scale_bytes=1),
    Dtype.mxfp6_e2m3: DtypeFormat(6, block_elements=MX_BLOCK, scale_bytes=1),
    Dtype.mxfp6_e3m2: DtypeFormat(6, block_elements=MX_BLOCK, scale_bytes=1),
    Dtype.mxfp4_e2m1: DtypeFormat(4, block_elements=MX_BLOCK, scale_bytes=1),
    Dtype.mxint8: DtypeFormat(8, block_elements=MX_BLOCK, scale_bytes=1),
    Dtype.int8_blockwise: DtypeFormat(8, block_elements=ZEROPP_GROUP, scale_bytes=4),
    Dtype.int4_blockwise: DtypeFormat(4, block_elements=ZEROPP_GROUP, scale_bytes=4),
}


# Whole bytes per value and no shared scale (fp32, bf16, fp8, ...): the formats most tensors are in, looked up first.
WHOLE_BYTES: dict[Dtype, int] = {
    dtype: fmt.element_bits // 8
    for dtype, fmt in DTYPE_FORMATS.items()
    if not fmt.element_bits % 8 and not fmt.block_elements
}


def tensor_bytes(elements: IntLike, dtype: Dtype) -> IntLike:
    """Exact bytes of ``elements`` values of ``dtype``; works on ints and numpy int64 arrays."""
    whole = WHOLE_BYTES.get(dtype)
    if whole is not None:
        return elements * whole
    fmt = DTYPE_FORMATS[dtype]
    if fmt.element_bits % 8:
        value_bytes = ceil_div(elements * fmt.element_bits, 8)  # packed sub-byte values
    else:
        value_bytes = elements * (fmt.element_bits // 8)
    if not fmt.block_elements:
        return value_bytes
    return value_bytes + ceil_div(elements, fmt.block_elements) * fmt.scale_bytes


def bytes_per_element(dtype: Dtype) -> float:
    """Average bytes per value on whole blocks (presentation: 2 x 1.03125 for MXFP8, ...)."""
    fmt = DTYPE_FORMATS[dtype]
    value = fmt.element_bits / 8
    if not fmt.block_elements:
        return value
    return value + fmt.scale_bytes / fmt.block_elements
