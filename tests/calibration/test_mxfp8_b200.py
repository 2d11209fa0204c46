"""MXFP8 against the published B200 runs that measured it beside another precision (bench.calibration.
layout_groups_zoo): the plan prices MXFP8's GEMMs on the FP8 tensor cores (service/time/fp8.py, "MXFP8"), so its
ratio to per-tensor FP8 and to bf16 follows the published ones.

- torchao's B200 table (pytorch/ao docs/source/workflows/training.md @36027d82, lines 313-315): Llama3-8b under
  torchtitan's FSDP2, 8,307.5 tokens/s/GPU in bf16, 10,417.0 with float8 tensorwise, 9,969.0 with mxfp8_cublas.
- Megatron-Bridge 25.11 on DGX-B200 (docs/performance-summary-archive.md @067f987d, lines 578 and 579): FP8 current
  scaling against MXFP8, Llama 3 8B 30,624 and 29,521, Llama 3.1 405B 661 and 624 tokens/s/GPU.

Tolerance: the torchao ratios (one library, one layout, the lever alone changed) within 4%, MXFP8 over bf16 within
7% (the cards ran power-limited, the limit unpublished: bench.calibration.corpus_b200 leaves them out of the fit),
every ratio of MXFP8 to per-tensor FP8 within 6%. The model's MXFP8 is slower than per-tensor FP8 by its GEMMs
(Transformer Engine's pre-quantised GEMM benchmark on B300: 7.161 ms a layer against 6.812, service/time/fp8.py), its
scales and its casts, against Megatron-Bridge's current scaling by the GEMMs less current scaling's amax passes: 2.4%
(8B) and 5.9% (405B, whose FP8-CS run now gathers its ZeRO-1 parameters in FP8 as the MXFP8 run does)
where the published runs are 3.6% and 5.6% slower; the rest is left unpriced rather than fitted.
"""

import pytest

from bench.calibration.layout_groups_zoo import NEIGHBOUR_GROUPS
from bench.calibration.model import predicted_tokens_per_s_per_gpu

TORCHAO, BRIDGE_8B, BRIDGE_405B = NEIGHBOUR_GROUPS


def test_torchaos_mxfp8_row_against_bf16_and_float8():
    bf16, float8, mxfp8 = (predicted_tokens_per_s_per_gpu(run) for run in TORCHAO.runs)
    # published +20.0%, predicted +27.8%: the power-limited cards (limit unpublished) against the Blackwell fit's
    # attention (scale 2.32), which leaves the GEMMs a larger share of the bf16 step than on those cards
    assert mxfp8 / bf16 == pytest.approx(9969.0 / 8307.5, rel=0.07)
    assert mxfp8 / float8 == pytest.approx(9969.0 / 10417.0, rel=0.04)  # 0.957
    assert bf16 < mxfp8 < float8  # the published order


@pytest.mark.parametrize(
    ("group", "published"), [(TORCHAO, 9969.0 / 10417.0), (BRIDGE_8B, 29521 / 30624), (BRIDGE_405B, 624 / 661)]
)
def test_mxfp8_against_per_tensor_fp8(group, published):
    per_tensor, mxfp8 = (predicted_tokens_per_s_per_gpu(run) for run in group.runs[-2:])
    assert mxfp8 / per_tensor == pytest.approx(published, rel=0.06)
    assert mxfp8 < per_tensor  # MXFP8 measured slower in every group
