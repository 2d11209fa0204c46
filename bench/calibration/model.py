"""Predict a corpus run with the planning core, under a given calibration."""

from dataclasses import replace

from bench.calibration.corpus import Run, measured_tokens_per_s_per_gpu
from models.plan import PlanRequest
from service.engine.data_parallel import evaluate
from service.engine.evaluation import Evaluation
from service.engine.layout import evaluate_layout
from service.engine.setup import Setup
from service.inputs import resolve
from service.mesh.degrees import ModelLimits, requested_mesh, validated_mesh
from service.time.efficiency import FITTED, Calibration


def parallelism(run: Run) -> dict[str, object]:
    """The run's /v1/plan parallelism block: its degrees and the rest its source gives (schedule, split)."""
    degrees = {"tensor": run.tensor, "pipeline": run.pipeline, "context": run.context, "expert": run.expert}
    return degrees | {"sequence_parallel": run.sequence_parallel} | run.parallelism


def plan_request(run: Run) -> PlanRequest:
    """The /v1/plan request of a run: its model, cluster, arrangement, layout, shape and recomputation."""
    return PlanRequest.model_validate(
        {
            "model": run.model,
            "cluster": {"world_size": run.world_size, "gpus_per_node": run.gpus_per_node, "gpu": run.gpu} | run.cluster,
            "arrangement": run.arrangement,
            "training": {
                "micro_batch_size": run.micro_batch_size,
                "sequence_length": run.sequence_length,
                "gradient_accumulation_steps": run.accumulation_steps,
            },
            "levers": {"recompute": run.recompute} | run.levers,
            "activations": {"flash_attention": run.flash_attention}
            | ({"cross_entropy": run.cross_entropy} if run.cross_entropy else {}),
        }
        | ({"parallelism": parallelism(run)} if run.needs_layouts else {})
        | ({"precision": run.precision} if run.precision else {})
    )


def _scene_setup(run: Run, calibration: Calibration) -> tuple[PlanRequest, resolve.Scenario, Setup]:
    request = plan_request(run)
    scene = resolve.scenario(
        request.model, request.precision, request.training, request.activations, request.levers, request.cluster
    )
    setup = resolve.setup_for(scene, resolve.sharding(request.arrangement))
    assert setup.efficiency is not None
    return request, scene, replace(setup, efficiency=replace(setup.efficiency, calibration=calibration))


def layout_evaluation(run: Run, calibration: Calibration = FITTED) -> Evaluation:
    """The layout evaluation of a run with tensor, pipeline, context or expert parallelism: its step and the
    terms of it (compute, bubble, each group's exposed communication, overlap slowdown) as /v1/plan prices them."""
    assert run.needs_layouts, run.name
    request, scene, setup = _scene_setup(run, calibration)
    arch = scene.model.architecture
    assert arch is not None
    limits = ModelLimits.of(arch)
    # a layout /v1/plan refuses is refused here too, with its problems named
    mesh = validated_mesh(
        requested_mesh(request.parallelism, run.world_size, run.gpus_per_node),
        limits,
        run.micro_batch_size,
        run.sequence_length,
        None,
        run.accumulation_steps,
    )
    return evaluate_layout(arch, mesh, setup, run.accumulation_steps, run.micro_batch_size, run.sequence_length, True)


def predicted_tokens_per_s_per_gpu(run: Run, calibration: Calibration = FITTED) -> float:
    if run.needs_layouts:
        return layout_evaluation(run, calibration).tokens_per_s / run.world_size
    _, scene, setup = _scene_setup(run, calibration)
    result = evaluate(resolve.inputs_for(scene, run.world_size, run.gpus_per_node), setup)
    return float(result.tokens_per_s) / run.world_size


def relative_error(run: Run, calibration: Calibration = FITTED) -> float:
    """(predicted - measured) / measured, on tokens per second per GPU."""
    measured = measured_tokens_per_s_per_gpu(run)
    return (predicted_tokens_per_s_per_gpu(run, calibration) - measured) / measured
