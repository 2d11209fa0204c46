"""The time model's assumptions in words, as a plan's time reports them (service.answers.plan_report and
service.answers.layout_plan). They name settings only, never the model's size, so a setup words them once
(service.engine.setup.Setup.time_assumptions)."""

from functools import lru_cache

from models.enums import Recompute
from service.time.compute import FlopShape


def flops_words(shape: FlopShape, recompute: Recompute, measured: Recompute) -> str:
    if shape.counts_attention:
        model = (
            f"model FLOPs per token 6 x (P - {shape.embedding_parameters:,} input-embedding weights) + "
            f"12 x {shape.layers} layers x {shape.hidden_size} x s (PaLM appendix B); P the active parameters "
            "(a mixture of experts counts top_k of its routed experts)"
        )
    else:
        model = "model FLOPs per token 6 x P: without an architecture the attention FLOPs are not counted"
    repeated = {
        "full": "; full recomputation adds a forward pass",
        "selective": "; selective recomputation adds the attention core's forward"
        if not shape.flash_attention
        else "; selective recomputation with flash attention repeats nothing counted",
        "none": "",
    }[recompute.value]
    kept = (
        f"; the utilisation is the MFU with recompute {measured.value}, its hardware efficiency kept here"
        if measured is not recompute
        else ""
    )
    return model + repeated + kept


BUS_WORDS = (
    ", priced at NCCL's bus bandwidth (370/450 of NVLink, 96% of every NIC of a node for a ring across nodes), "
    "one call per FSDP unit or gradient bucket"
)


def compute_words(utilisation: float | None, peak_flops_per_s: float, ceiling: float, known: bool) -> str:
    """How compute time is found; ``ceiling``: the GEMM ceiling of the efficiency model, ``known``: whether it
    knows the model's kernels."""
    if utilisation is not None:
        return (
            f"utilisation (MFU) {utilisation:g} of a {peak_flops_per_s / 1e12:g} TFLOP/s peak (given in the "
            "request): it sets the compute's efficiency alone; communication, the optimizer step and the overlap "
            "slowdown are priced as without it"
        )
    return (
        f"efficiency model on a {peak_flops_per_s / 1e12:g} TFLOP/s peak: matrix multiplications at up to "
        f"{ceiling:g} of peak in waves of 128 x 128 tiles, or their bytes over HBM"
        + (", attention at flash attention's efficiency, memory-bound work over HBM" if known else "")
        + ", calibrated on published runs (python -m bench.calibration); give training.utilisation to override"
    )


# A setup built afresh (a resolution not kept, a layout's setup for another micro-batch count) words its settings
# again: the words of each distinct set are kept.
@lru_cache(maxsize=1024)
def worded_assumptions(
    compute: tuple[float | None, float, float, bool],
    flops: tuple[FlopShape, Recompute, Recompute],
    link_speeds: tuple[float, float, float],
    overlap: bool,
    bucket_bytes: int,
    host_memory_bytes_per_s: float,
) -> tuple[str, ...]:
    """compute: (utilisation, peak, GEMM ceiling, kernels known); flops: (shape, recompute, measured recompute);
    link_speeds: (in a node, across nodes, to the host) in bytes/s."""
    intra, inter, host = link_speeds
    return (
        compute_words(*compute),
        flops_words(*flops),
        f"alpha-beta links: {intra / 1e9:g} GB/s in a node, {inter / 1e9:g} GB/s across nodes, {host / 1e9:g} "
        "GB/s to the host" + BUS_WORDS,
        f"overlap {'on' if overlap else 'off'}: {bucket_bytes:,}-byte buckets, the last never hidden",
        "offload: PCIe transfers and the CPU optimizer step are not overlapped with compute; the CPU step "
        f"streams its state through {host_memory_bytes_per_s / 1e9:g} GB/s of host memory per node (an "
        "assumption: half the peak of two 8-channel DDR5-4800 sockets)",
    )
