"""torch.distributed.pipelining's per-micro-batch buffers (service.memory.activations.pipelining_buffer_bytes),
read off a real PipelineStage after one Schedule1F1B step: two gloo ranks on 127.0.0.1, one stage each, m = 4
micro-batches of b x s x h = 2 x 8 x 16 fp32 between them. The first stage keeps one output-gradient receive buffer
a micro-batch, the last one input receive buffer a micro-batch and every micro-batch's output, until the next step.
"""

import json
import socket
from fractions import Fraction
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from service.memory.activations import StageLayers, pipelining_buffer_bytes  # noqa: E402

pytestmark = [pytest.mark.sim, pytest.mark.sim_timeout(120)]

M, B, S, H = 4, 2, 8, 16
BOUNDARY = B * S * H * 4  # fp32


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_rank(rank: int, port: int, out: str) -> None:
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    try:
        torch.manual_seed(0)
        module = torch.nn.Linear(H, H)
        stage = PipelineStage(module, rank, 2, torch.device("cpu"))
        schedule = Schedule1F1B(stage, M, loss_fn=lambda output, target: output.float().pow(2).mean())
        batch = torch.randn(M * B, S, H)
        if rank == 0:
            schedule.step(batch)
        else:
            schedule.step(target=torch.zeros(M * B, S, H))

        def storages(infos) -> int:  # type: ignore[no-untyped-def]
            found = {}
            for info in infos:
                buffer = getattr(info, "buffer", None)
                if buffer is not None:
                    found[buffer.untyped_storage().data_ptr()] = buffer.untyped_storage().nbytes()
            return sum(found.values())

        report = {
            "input_buffers": sum(storages(infos) for infos in stage.args_recv_info.values()),
            "gradient_buffers": sum(storages(infos) for infos in stage.grad_recv_info.values()),
            "outputs": sum(output.untyped_storage().nbytes() for output in stage.output_chunks),
        }
        Path(out, f"{rank}.json").write_text(json.dumps(report))
    finally:
        dist.destroy_process_group()


def test_a_stage_keeps_a_buffer_a_micro_batch_and_the_last_its_outputs(tmp_path):
    torch.multiprocessing.spawn(run_rank, args=(free_port(), str(tmp_path)), nprocs=2, join=True)
    first, last = (json.loads((tmp_path / f"{rank}.json").read_text()) for rank in (0, 1))
    assert first == {"input_buffers": 0, "gradient_buffers": M * BOUNDARY, "outputs": 0}
    assert last == {"input_buffers": M * BOUNDARY, "gradient_buffers": 0, "outputs": M * BOUNDARY}
    # the count: the buffers m x boundary on each stage; the first stage's outputs in flight (gone after the step);
    # the last's in-flight input (its first layer's, counted there) and its m - 1 kept outputs beside the loss's one
    at_first = StageLayers(1, 0, True, False, Fraction(2), micro_batches=M)
    assert pipelining_buffer_bytes(at_first, BOUNDARY, BOUNDARY, Fraction(2), Fraction(2)) == (M + 2) * BOUNDARY
    at_last = StageLayers(1, 0, False, True, Fraction(1), micro_batches=M)
    counted = pipelining_buffer_bytes(at_last, BOUNDARY, BOUNDARY, Fraction(1), Fraction(1))
    assert counted == last["input_buffers"] - BOUNDARY + last["outputs"] - BOUNDARY
