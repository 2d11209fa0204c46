"""Why /v1/plan refuses a job under an arrangement that an answer chose for itself (/v1/fit, /v1/limits and
/v1/recommend set every arrangement side by side when the request names none).

The rules are the plan's own, asked here and nowhere else: a lever the arrangement cannot take
(models.plan.lever_refusals: levers.offload_parameters without sharded parameters, levers.zeropp outside
ZeRO-3), and on a model-parallel layout the plan's mesh rules (service.mesh.pipeline.mesh_plan_problems: hybrid
sharding is modelled over data parallelism alone, and DeepSpeed's pipeline engine runs ZeRO-1 at most). Each answer
leaves such an arrangement without a GPU count, a boundary or a step, and says why. (ZeRO++ on a layout is refused
for the whole request, whatever the arrangement: it is no arrangement's rule.)
"""

from models.common import ShardingFlags
from models.enums import ArrangementName
from models.parallelism import Parallelism
from models.plan import lever_refusals
from models.training import Levers
from service.inputs import resolve
from service.mesh.pipeline import deepspeed_convention, mesh_plan_problems

DATA_PARALLEL = Parallelism()  # every model-parallel degree 1


def plan_refusals(
    arrangement: ArrangementName | ShardingFlags, levers: Levers, precision: object, parallelism: Parallelism
) -> list[str]:
    """Why /v1/plan refuses the job under ``arrangement`` on ``parallelism``, each reason in words (none: it takes
    it), in the order the plan reports them."""
    refused = lever_refusals(arrangement, levers)
    if not parallelism.model_parallel:  # every mesh rule is about a model-parallel layout
        return refused
    sharding = resolve.sharding(arrangement)
    deepspeed = deepspeed_convention(precision)
    rules = mesh_plan_problems(True, sharding.hybrid, False, deepspeed, sharding.shard_gradients, parallelism.pipeline)
    return refused + [detail for detail, _, no in rules if no]


def left_out_words(left_out: dict[str, list[str]], what: str) -> list[str]:
    """One warning per reason: '<names> <what> left out: <why>'."""
    return [f"{', '.join(names)} {what} left out: {why}" for why, names in left_out.items()]
