"""Issue 13, on a GPU: the same torch-engine job with NCCL, the caching allocator's peaks per rank
against the predicted model state. Skipped where CUDA is absent (the reason says so)."""

import os

import pytest

os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # the ranks are forked: no CUDA init here
torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.sim,
    pytest.mark.sim_timeout(120),
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: the NCCL run needs a GPU"),
]


def test_nccl_peaks_cover_the_predicted_model_state() -> None:
    from service.sim.engines.torch_config import TorchSimConfig
    from service.sim.engines.torch_run import simulate

    world = torch.cuda.device_count()  # NCCL needs one device per rank
    names = ("ddp", "zero1", "shard_grad_op", "zero3") + (("hybrid",) if world >= 4 and world % 2 == 0 else ())
    report = simulate(TorchSimConfig(world_size=world, arrangements=names, backend="nccl"), deadline_s=110)
    assert report["succeeded"], report["faults"]
    for a in report["arrangements"]:
        assert a["memory_matches"], a["memory"]
        cuda = a["cuda"]
        for allocated, predicted in zip(
            cuda["max_memory_allocated_bytes"], cuda["predicted_model_state_bytes"], strict=True
        ):
            assert allocated >= predicted
        assert all(
            r >= a for r, a in zip(cuda["max_memory_reserved_bytes"], cuda["max_memory_allocated_bytes"], strict=True)
        )
