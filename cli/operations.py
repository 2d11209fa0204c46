"""One entry per planning subcommand: its HTTP operation, request model, core function and table.

A subcommand for a new endpoint (sweep, recommend, simulate) is one more entry in OPERATIONS.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from api.settings import Settings
from cli.render import render_fit, render_plan, render_presets, render_recommend
from models.fit import FitRequest, FitResponse
from models.plan import PlanRequest, PlanResponse
from models.presets import PresetsResponse
from models.recommend import RecommendRequest, RecommendResponse
from service import fitting, planner, recommend

# Flags shared by the planning requests: argparse dest -> dotted request field.
MODEL_FLAGS = {"model_preset": "model.preset", "parameter_count": "model.parameter_count", "precision": "precision"}
CARD_FLAGS = {
    "gpu": "cluster.gpu",
    "gpu_memory_bytes": "cluster.gpu_memory_bytes",
    "gpus_per_node": "cluster.gpus_per_node",
}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    request_model: type[BaseModel] | None
    response_model: type[BaseModel]
    core: Callable[[Any, Settings], BaseModel]
    render: Callable[[dict[str, Any]], str]
    flags: dict[str, str] = field(default_factory=dict)


OPERATIONS: dict[str, Operation] = {
    "plan": Operation(
        "POST",
        "/v1/plan",
        "per-GPU memory and traffic of one arrangement",
        PlanRequest,
        PlanResponse,
        lambda request, settings: planner.plan(request),
        render_plan,
        MODEL_FLAGS | CARD_FLAGS | {"world_size": "cluster.world_size", "arrangement": "arrangement"},
    ),
    "fit": Operation(
        "POST",
        "/v1/fit",
        "which arrangements fit the card, and from how many GPUs",
        FitRequest,
        FitResponse,
        lambda request, settings: fitting.fit(request, max_points=settings.max_fit_grid_points),
        render_fit,
        MODEL_FLAGS | CARD_FLAGS | {"gpu_count_grid": "gpu_count_grid", "max_gpus": "max_gpus"},
    ),
    "recommend": Operation(
        "POST",
        "/v1/recommend",
        "the levers to reach for, cheapest first, and the first that fits",
        RecommendRequest,
        RecommendResponse,
        lambda request, settings: recommend.recommend(request),
        render_recommend,
        MODEL_FLAGS | CARD_FLAGS | {"max_gpus": "max_gpus"},
    ),
    "presets": Operation(
        "GET",
        "/v1/presets",
        "GPU, precision and model presets with their sources",
        None,
        PresetsResponse,
        lambda request, settings: planner.presets(),
        render_presets,
    ),
}
