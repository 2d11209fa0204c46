"""Why /v1/plan refuses a job under an arrangement that an answer chose for itself (/v1/fit, /v1/limits and
/v1/recommend set every arrangement side by side when the request names none).

The rules are the plan's own, asked here and nowhere else: a lever the arrangement cannot take
(models.plan.lever_refusals: levers.offload_parameters without sharded parameters, levers.zeropp outside
ZeRO-3) and an arrangement the job's framework cannot pipeline (service.mesh.pipeline.framework_pipeline_problems:
DeepSpeed's pipeline engine runs ZeRO-1 at most). Each answer leaves such an arrangement without a GPU count, a
boundary or a step, and says why.
"""

from models.common import ShardingFlags
from models.enums import ArrangementName
from models.plan import lever_refusals
from models.training import Levers
from service.inputs import resolve
from service.mesh.pipeline import deepspeed_convention, framework_pipeline_problems


def plan_refusals(
    arrangement: ArrangementName | ShardingFlags, levers: Levers, precision: object, pipeline: int
) -> list[str]:
    """Why /v1/plan refuses the job under ``arrangement``, each reason in words (none: it takes it)."""
    refused = lever_refusals(arrangement, levers)
    shard_gradients = resolve.sharding(arrangement).shard_gradients
    pipelined = framework_pipeline_problems(deepspeed_convention(precision), shard_gradients, pipeline)
    return refused + [detail for detail, _, no in pipelined if no]


def left_out_words(left_out: dict[str, list[str]], what: str) -> list[str]:
    """One warning per reason: '<names> <what> left out: <why>'."""
    return [f"{', '.join(names)} {what} left out: {why}" for why, names in left_out.items()]
