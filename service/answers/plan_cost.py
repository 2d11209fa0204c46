"""Whether a plan is light enough to compute on the event loop.

A data-parallel plan costs a fraction of a millisecond whatever the model. A plan on a mesh walks
its stages and, for some layouts, its layers (about 30 us per pipeline stage and 2 us per layer
here): 10,000 stages of a 10,000-layer model take about half a second, which on the event loop would
stall every other request, /healthz included. A plan past these bounds is heavy work (api.work):
off the event loop, under the deadline, cancellation and concurrency limit of the heavy endpoints.
"""

from models.plan import PlanRequest
from service.inputs import resolve

# Up to these, a mesh plan takes a few milliseconds at most (bench: 64 stages of 64 layers 2 ms).
LIGHT_STAGES = 64
LIGHT_LAYERS = 512


def light_plan(request: PlanRequest) -> bool:
    """True when the plan may be computed where the request arrives (the event loop)."""
    mesh = request.parallelism
    if mesh.tensor == mesh.pipeline == mesh.context == mesh.expert == 1 and (mesh.expert_tensor or 1) == 1:
        return True
    if mesh.pipeline * mesh.virtual_stages > LIGHT_STAGES:
        return False
    try:
        arch = resolve.model(request.model).architecture
    except Exception:
        return True  # the plan itself reports the model's error, at once
    return arch is None or arch.layers <= LIGHT_LAYERS
