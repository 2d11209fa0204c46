"""The answer to /v1/limits: the inverse questions, each an integer boundary found by bisection.

- The largest parameter count whose model states fit the usable bytes at this world size
  (Rajbhandari et al. 2020, ZeRO, table 2: the largest model per data-parallel degree).
- With a model: the largest micro-batch (at the request's sequence length) and the longest
  sequence (at its micro-batch size) whose per-GPU bytes (model states, working set and
  activations) fit.
Per-GPU bytes never fall as any of the three grows, so bisection over exact integers finds each
boundary to the byte; each costs at most log2 of its range in evaluations of the memory formulas
(about 50 for the parameter count, 17 and 24 for the others), a few hundred for a whole answer:
bounded by construction, so no cost is counted up front; the budget (a deadline, the caller still
there) is checked between arrangements.
"""

from collections.abc import Callable
from dataclasses import replace

from models.common import MAX_PARAMETER_COUNT, ModelSpec
from models.enums import ActivationModel, ArrangementName
from models.limits import ArrangementLimits, LimitsRequest, LimitsResponse
from models.training import MAX_MICRO_BATCH_SIZE, MAX_SEQUENCE_LENGTH
from service import resolve
from service.arrangements import CANONICAL, Sharding, canonical_name
from service.evaluate import Setup, gpu_bytes
from service.fit import largest_fitting
from service.memory import model_state_bytes
from service.numeric import GIB_BYTES, group_digits
from service.work_budget import WorkBudget

STAND_IN_MODEL = ModelSpec(parameter_count=1)  # the scenario needs one; without a model only P is asked


def limits(request: LimitsRequest, budget: WorkBudget | None = None) -> LimitsResponse:
    budget = budget or WorkBudget()
    training = request.training or resolve.DEFAULT_TRAINING
    # a shape is always given here, so a model with an architecture counts its activations by default
    scene = resolve.scenario(
        request.model or STAND_IN_MODEL,
        request.precision,
        training,
        request.activations,
        request.levers,
        request.cluster,
    )
    arrangements = (
        {canonical_name(resolve.sharding(request.arrangement)): resolve.sharding(request.arrangement)}
        if request.arrangement is not None
        else dict(CANONICAL)
    )
    n, g = request.cluster.world_size, request.cluster.gpus_per_node
    answers = []
    for name, sharding in arrangements.items():
        budget.check()
        answers.append(_arrangement_limits(scene, name, sharding, n, g, request.model is not None))
    return LimitsResponse(
        parameter_count=scene.model.parameter_count if request.model is not None else None,
        world_size=n,
        gpus_per_node=g,
        card_bytes=scene.card_bytes,
        usable_bytes=scene.usable_bytes,
        micro_batch_size=training.micro_batch_size,
        sequence_length=training.sequence_length,
        arrangements=answers,
        warnings=list(scene.warnings) if request.model is not None else [],
    )


def _arrangement_limits(
    scene: resolve.Scenario, name: ArrangementName, sharding: Sharding, n: int, g: int, has_model: bool
) -> ArrangementLimits:
    setup = resolve.setup_for(scene, sharding)
    usable = scene.usable_bytes

    def state_bytes_at(p: int) -> int:
        return int(model_state_bytes(p, n, setup.precision, sharding, g, setup.offload))

    largest_p = largest_fitting(state_bytes_at, usable, 1, MAX_PARAMETER_COUNT)
    p_words = _boundary_words("P", largest_p, state_bytes_at, usable, MAX_PARAMETER_COUNT, "model states at")
    batch = sequence = None
    batch_words = sequence_words = None
    if has_model:
        batch, batch_words = _shape_limit(scene, setup, n, g, "micro_batch_size", MAX_MICRO_BATCH_SIZE)
        sequence, sequence_words = _shape_limit(scene, setup, n, g, "sequence_length", MAX_SEQUENCE_LENGTH)
    return ArrangementLimits(
        arrangement=name,
        largest_parameter_count=largest_p,
        largest_parameter_count_arithmetic=p_words,
        largest_micro_batch_size=batch,
        largest_micro_batch_size_arithmetic=batch_words,
        longest_sequence_length=sequence,
        longest_sequence_length_arithmetic=sequence_words,
    )


def _shape_limit(scene: resolve.Scenario, setup: Setup, n: int, g: int, axis: str, top: int) -> tuple[int | None, str]:
    if setup.activations.model is ActivationModel.none:
        return None, (
            f"not answered: activations are not counted (the model has no architecture, or activations.model is "
            f"none), so {axis} does not change the per-GPU bytes"
        )
    base = resolve.inputs_for(scene, n, g)

    def bytes_at(value: int) -> int:
        return int(gpu_bytes(replace(base, **{axis: value}), setup))

    largest = largest_fitting(bytes_at, scene.usable_bytes, 1, top)
    symbol = {"micro_batch_size": "b", "sequence_length": "s"}[axis]
    return largest, _boundary_words(symbol, largest, bytes_at, scene.usable_bytes, top, "per-GPU bytes at")


def _boundary_words(
    symbol: str, largest: int | None, bytes_at: Callable[[int], int], usable: int, top: int, what: str
) -> str:
    room = f"{group_digits(usable)} B usable ({usable / GIB_BYTES:.1f} GiB)"
    if largest is None:
        return f"{what} {symbol} = 1: {group_digits(bytes_at(1))} B > {room}: not even the smallest fits"
    fit = f"{what} {symbol} = {group_digits(largest)}: {group_digits(bytes_at(largest))} B <= {room}"
    if largest == top:
        return f"{fit}; {group_digits(top)} is the largest value the service takes"
    return f"{fit}; at {symbol} = {group_digits(largest + 1)}: {group_digits(bytes_at(largest + 1))} B > usable"
