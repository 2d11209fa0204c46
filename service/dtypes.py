"""Bytes of a tensor of n elements in a given dtype.

Block-scaled formats follow the OCP Microscaling (MX) specification v1.0: MXFP8 stores one
8-bit element per value and one shared 8-bit (E8M0) scale per block of 32, so 33/32 bytes per
value on whole blocks.
"""

from dataclasses import dataclass

from models.enums import Dtype
from service.numeric import IntLike, ceil_div


@dataclass(frozen=True)
class DtypeFormat:
    element_bytes: int
    block_elements: int = 0  # 0: no shared scale
    scale_bytes: int = 0


DTYPE_FORMATS: dict[Dtype, DtypeFormat] = {
    Dtype.fp64: DtypeFormat(8),
    Dtype.fp32: DtypeFormat(4),
    Dtype.bf16: DtypeFormat(2),
    Dtype.fp16: DtypeFormat(2),
    Dtype.fp8: DtypeFormat(1),
    Dtype.mxfp8: DtypeFormat(1, block_elements=32, scale_bytes=1),
}


def tensor_bytes(elements: IntLike, dtype: Dtype) -> IntLike:
    """Exact bytes of ``elements`` values of ``dtype``; works on ints and numpy int64 arrays."""
    fmt = DTYPE_FORMATS[dtype]
    value_bytes = elements * fmt.element_bytes
    if not fmt.block_elements:
        return value_bytes
    return value_bytes + ceil_div(elements, fmt.block_elements) * fmt.scale_bytes


def bytes_per_element(dtype: Dtype) -> float:
    """Average bytes per value on whole blocks (presentation: 2 x 1.03125 for MXFP8, ...)."""
    fmt = DTYPE_FORMATS[dtype]
    if not fmt.block_elements:
        return float(fmt.element_bytes)
    return fmt.element_bytes + fmt.scale_bytes / fmt.block_elements
