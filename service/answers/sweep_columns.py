"""The result columns of a sweep row, named once for the data-parallel cells (service.answers.sweep) and the
layout cells (service.answers.sweep_layouts)."""

RESULT_COLUMNS = (
    "model_state_bytes",
    "activations_bytes",
    "per_gpu_bytes",
    "fits",
    "headroom_bytes",
    "replicated_floor_bytes",
    "host_bytes",
    "bytes_sent_per_gpu",
    "pcie_bytes_per_gpu",
    "tokens_per_step",
    "compute_s",
    "communication_s",
    "exposed_communication_s",
    "offload_s",
    "pipeline_bubble_s",
    "step_s",
)
