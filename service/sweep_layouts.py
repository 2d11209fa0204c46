"""Sweep cells with a model-parallel layout: each cell is the /v1/plan answer for it.

A layout changes which formulas apply stage by stage (the layers each stage holds, the groups
that exist, which of them cross nodes), so cells whose tensor, pipeline, context or expert
degree is above 1 are not pushed through numpy arrays: each is built as the plan request it
stands for, validated as /v1/plan validates it, and answered by ``service.planner.plan``. A cell
is therefore its plan by construction; a cell whose layout does not divide its model, batch or
world size is skipped with the reason's field. They are bounded by ``MAX_LAYOUT_CELLS``.
"""

from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from models.common import ModelSpec, as_request_json
from models.enums import StateClass, StateLocation
from models.plan import PlanRequest, PlanResponse
from service.errors import DomainError, SweepTooLarge

LAYOUT_AXES = ("tensor", "pipeline", "context", "expert", "virtual_stages")
MAX_LAYOUT_CELLS = 4096
# Sweep columns read off the plan's answer: column -> (section, field).
PLAN_COLUMNS = {
    "model_state_bytes": ("memory", "model_state_bytes"),
    "activations_bytes": ("memory", "activations_bytes"),
    "per_gpu_bytes": ("memory", "per_gpu_bytes"),
    "fits": ("memory", "fits"),
    "headroom_bytes": ("memory", "headroom_bytes"),
    "replicated_floor_bytes": ("memory", "replicated_floor_bytes"),
    "host_bytes": ("memory", "host_bytes"),
    "bytes_sent_per_gpu": ("traffic", "bytes_sent_per_gpu"),
    "pcie_bytes_per_gpu": ("traffic", "pcie_bytes_per_gpu"),
    "tokens_per_step": ("time", "tokens_per_step"),
    "compute_s": ("time", "compute_s"),
    "communication_s": ("time", "communication_s"),
    "exposed_communication_s": ("time", "exposed_communication_s"),
    "offload_s": ("time", "offload_s"),
    "pipeline_bubble_s": ("time", "pipeline_bubble_s"),
    "step_s": ("time", "step_s"),
}


def trivial(layout: dict[str, int]) -> bool:
    return all(layout[axis] == 1 for axis in LAYOUT_AXES if axis != "virtual_stages") and (
        layout["virtual_stages"] == 1
    )


def check_layout_cells(count: int) -> None:
    if count > MAX_LAYOUT_CELLS:
        raise SweepTooLarge(
            f"the axes ask for {count:,} cells with a model-parallel layout, each planned on its own; the limit "
            f"is {MAX_LAYOUT_CELLS:,}",
            pointer="/axes",
        )


def _base_body(base: PlanRequest) -> dict[str, Any]:
    """The base request as JSON, each split pair (name or object) written once, where the name goes."""
    return as_request_json(base)


def cell_body(
    base: PlanRequest, spec: ModelSpec, group: dict[str, Any], layout: dict[str, int], cell: dict[str, int]
) -> dict[str, Any]:
    body = _base_body(base)
    body["model"] = spec.model_dump(mode="json", exclude_none=True)
    arrangement = group["arrangement"]  # a name, or the base's sharding flags
    body.pop("sharding", None)
    body.pop("arrangement", None)
    if isinstance(arrangement, BaseModel):
        body["sharding"] = arrangement.model_dump(mode="json")
    else:
        body["arrangement"] = getattr(arrangement, "value", arrangement)
    body["cluster"] |= {"world_size": cell["world_size"], "gpus_per_node": cell["gpus_per_node"]}
    training = body.get("training", {})
    training |= {
        "micro_batch_size": cell["micro_batch_size"],
        "sequence_length": cell["sequence_length"],
        "gradient_accumulation_steps": cell["gradient_accumulation_steps"],
    }
    body["training"] = training
    body["levers"] = body.get("levers", {}) | {
        "recompute": group["recompute"].value,
        "offload_optimizer": group["offload_optimizer"],
        "mxfp8": group["mxfp8"],
    }
    body["parallelism"] = body.get("parallelism", {}) | layout
    return body


def _row(answer: PlanResponse) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for column, (section, field) in PLAN_COLUMNS.items():
        row[column] = getattr(getattr(answer, section), field)
    held = {state: 0 for state in StateClass}
    for entry in answer.memory.breakdown:
        if entry.location is StateLocation.gpu:
            held[entry.state] += entry.bytes
    for state, value in held.items():
        row[f"{state.value}_bytes"] = value
    row["arrangement"] = answer.arrangement.name.value
    row["parameter_count"] = answer.parameter_count
    return row


def layout_part(
    base: PlanRequest,
    spec: ModelSpec,
    group: dict[str, Any],
    layout: dict[str, int],
    numeric: dict[str, np.ndarray],
    skipped: dict[str, int],
) -> list[dict[str, Any]]:
    """The rows of one layout over every numeric cell: each its plan's answer, or a skipped cell."""
    from service.planner import plan

    rows = []
    for i in range(len(numeric["world_size"])):
        cell = {axis: int(values[i]) for axis, values in numeric.items()}
        try:
            answer = plan(PlanRequest.model_validate(cell_body(base, spec, group, layout, cell)))
        except ValidationError as error:
            where = "/".join(str(part) for part in error.errors()[0]["loc"][:2])
            reason = f"not a valid plan request (/{where})"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        except DomainError as error:
            pointers = ", ".join(sorted({pointer for _, pointer in error.field_errors()})) or error.code
            reason = f"the layout does not fit the cell ({pointers})"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        row = cell | _row(answer) | layout
        for axis in ("recompute", "offload_optimizer", "mxfp8"):
            value = group[axis]
            row[axis] = value.value if hasattr(value, "value") else value
        rows.append(row)
    return rows
