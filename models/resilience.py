"""Request parts for time to train as it really goes: checkpoints (training.checkpoint) and failures
(cluster.failures), with their defaults as data and their sources.

The default failure rate is the one Meta published for Llama 3 405B (Dubey et al. 2024, "The Llama 3
Herd of Models", section 3.3.4): 466 job interruptions in a 54-day snapshot of pre-training on up to
16,384 H100 GPUs, with higher than 90% effective training time. The default storage is that run's
(section 3.3.1): Tectonic, a sustained 2 TB/s shared by its 2,048 nodes.
"""

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import Field, model_validator

from models.base import StrictValue

# Dubey et al. 2024, section 3.3.4: 466 interruptions in 54 days on 16,384 GPUs.
LLAMA3_INTERRUPTIONS = 466
LLAMA3_SNAPSHOT_DAYS = 54
LLAMA3_GPUS = 16_384
LLAMA3_INTERRUPTIONS_PER_GPU_HOUR = LLAMA3_INTERRUPTIONS / (LLAMA3_SNAPSHOT_DAYS * 24 * LLAMA3_GPUS)
LLAMA3_SOURCE = (
    "Dubey et al. 2024 (The Llama 3 Herd of Models), section 3.3.4: 466 interruptions in 54 days of 405B "
    "pre-training on up to 16,384 H100 GPUs, higher than 90% effective training time"
)
# An assumption, labelled as one: re-queueing the job, starting its processes and initialising NCCL
# before the checkpoint is read (the read itself is priced from the storage).
DEFAULT_RESTART_S = 600.0
MAX_INTERVAL_STEPS = 10**9


class StoragePresetName(StrEnum):
    llama3_tectonic = "llama3-tectonic"
    nvme_local = "nvme-local"


# Bytes per second one node writes (and reads) a checkpoint at, and where the figure comes from.
STORAGE_PRESETS: dict[StoragePresetName, tuple[float, str]] = {
    StoragePresetName.llama3_tectonic: (
        2e12 / 2048,
        "Dubey et al. 2024, section 3.3.1: Tectonic sustains 2 TB/s for the 405B run's 2,048 nodes of 8 H100, "
        "976.6 MB/s per node",
    ),
    StoragePresetName.nvme_local: (
        6.8e9,
        "one PCIe Gen4 NVMe drive per node at its sequential write rate (Samsung PM9A3 data sheet, 6.8 GB/s "
        "read, 4.0 GB/s write for 3.84 TB; the read rate taken for both, an assumption)",
    ),
}


class CheckpointSave(StrEnum):
    synchronous = "synchronous"
    asynchronous = "asynchronous"


class Checkpoint(StrictValue):
    """How often the run saves, where and how; the bytes come from the model states the plan counts."""

    interval_steps: Annotated[int, Field(ge=1, le=MAX_INTERVAL_STEPS)] | Literal["auto"] = Field(
        default="auto",
        description="Optimizer steps between checkpoints, 1 to 1e9, or auto: the optimum of Daly 2006 (a "
        "higher-order Young 1974) for the stall per checkpoint and the job's mean time between failures, "
        "rounded to whole steps.",
    )
    storage: StoragePresetName | None = Field(
        default=None,
        description="Where checkpoints go, a preset: llama3-tectonic (the default, 976.6 MB/s per node) or "
        "nvme-local (6.8 GB/s per node). Or give storage_bytes_per_s_per_node.",
    )
    storage_bytes_per_s_per_node: float | None = Field(
        default=None,
        ge=1e6,
        le=1e13,
        description="Bytes per second one node writes and reads checkpoints at, 1e6 to 1e13, instead of a "
        "storage preset.",
    )
    save: CheckpointSave = Field(
        default=CheckpointSave.synchronous,
        description="synchronous: training stops while each node writes its share of the checkpoint. "
        "asynchronous (PyTorch DCP async_save): training stops only while each GPU copies its checkpointed "
        "states to host memory over the host link; the write must end before the next checkpoint begins.",
    )

    @model_validator(mode="after")
    def _one_storage(self) -> Self:
        if self.storage is not None and self.storage_bytes_per_s_per_node is not None:
            raise ValueError(
                "give training.checkpoint.storage or training.checkpoint.storage_bytes_per_s_per_node, not both"
            )
        return self

    def storage_bytes_per_s(self) -> tuple[float, str]:
        """The node's storage bandwidth and its source."""
        if self.storage_bytes_per_s_per_node is not None:
            return self.storage_bytes_per_s_per_node, "given: training.checkpoint.storage_bytes_per_s_per_node"
        return STORAGE_PRESETS[self.storage or StoragePresetName.llama3_tectonic]


class Failures(StrictValue):
    """How often the job is interrupted and what a restart costs besides the checkpoint it reloads."""

    interruptions_per_gpu_hour: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Job interruptions per GPU-hour (0 to 1; 0: no failures). Default 466 / (54 x 24 x 16,384) = "
        "2.195e-5, Llama 3 405B's (Dubey et al. 2024, section 3.3.4). Or give node_mtbf_hours.",
    )
    node_mtbf_hours: float | None = Field(
        default=None,
        ge=0.001,
        le=1e9,
        description="Mean time between failures of one node, hours (0.001 to 1e9), instead of "
        "interruptions_per_gpu_hour: a rate of 1 / (node_mtbf_hours x gpus_per_node) per GPU-hour.",
    )
    restart_s: float = Field(
        default=DEFAULT_RESTART_S,
        ge=0,
        le=1e7,
        description="Seconds to re-launch after an interruption before the checkpoint is read (re-queue, process "
        "start, NCCL initialisation); the read and the work lost since the last checkpoint are added to it. "
        "Default 600, an assumption.",
    )

    @model_validator(mode="after")
    def _one_rate(self) -> Self:
        if self.interruptions_per_gpu_hour is not None and self.node_mtbf_hours is not None:
            raise ValueError(
                "give cluster.failures.interruptions_per_gpu_hour or cluster.failures.node_mtbf_hours, not both"
            )
        return self

    def rate_per_gpu_hour(self, gpus_per_node: Any) -> tuple[Any, str]:
        """Interruptions per GPU-hour and where the figure comes from; gpus_per_node an int, or an array of them
        in a sweep (then the rate is one)."""
        if self.interruptions_per_gpu_hour is not None:
            return self.interruptions_per_gpu_hour, "given: cluster.failures.interruptions_per_gpu_hour"
        if self.node_mtbf_hours is not None:
            return 1 / (self.node_mtbf_hours * gpus_per_node), "given: cluster.failures.node_mtbf_hours"
        return LLAMA3_INTERRUPTIONS_PER_GPU_HOUR, LLAMA3_SOURCE
