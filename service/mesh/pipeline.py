"""Pipeline schedules: which layers each stage holds, micro-batches in flight, and the bubble.

- Layers per stage: L / p; when p does not divide L the last L mod p stages take one more layer
  (the first stage already holds the input embedding and the most activations). The interleaved
  schedule (Narayanan et al. 2021, section 2.2.2) gives stage i the v chunks i, i + p, ... of
  L / (p v) layers each.
- Micro-batches in flight at the peak on stage i, counted in micro-batches of the stage's layers
  (Megatron-LM megatron/core/pipeline_parallel/schedules.py, the warm-up counts):
  1F1B (PipeDream-Flush, Narayanan et al. 2021, section 2.2.1) p - i; interleaved
  ((p - i - 1) x 2 + (v - 1) x p + 1) / v, on the first stage p (1 + (p - 1) / (p v)) as
  Korthikanti et al. 2022, section 4.2.3, state; GPipe (Huang et al. 2019) all m; zero bubble
  (ZB-H2, Qi et al. 2023, table 3) 2 (p - i) - 1, the memory price of its empty bubble. None holds
  more than the m micro-batches of a step.
- The bubble, idle time in units of the ideal compute time of a step: (p - 1) / (v m) for 1F1B
  and interleaved (Narayanan et al. 2021, sections 2.2.1-2.2.2), (p - 1) / m for GPipe, 0 for
  ZB-H2 (under the paper's assumption that forward, backward and weight-gradient passes take
  equal time). As a share of the step's compute-and-bubble time it is (p-1) / (v m + p - 1) < 1.
"""

from fractions import Fraction
from itertools import accumulate

from models.parallelism import PipelineSchedule
from service.numeric import IntLike, minimum, select


def stage_layer_indices(layers: int, pipeline: int, virtual_stages: int = 1) -> list[list[int]]:
    """Indices of the layers each stage holds, stage 0 first."""
    p, v = pipeline, virtual_stages
    if v > 1:
        chunk = layers // (p * v)
        return [[i for k in range(v) for i in range((k * p + s) * chunk, (k * p + s + 1) * chunk)] for s in range(p)]
    base, extra = divmod(layers, p)
    sizes = [base + (1 if s >= p - extra else 0) for s in range(p)]
    starts = [0, *accumulate(sizes)]  # running sums: linear in the stage count
    return [list(range(starts[s], starts[s] + sizes[s])) for s in range(p)]


def in_flight_ratio(
    schedule: PipelineSchedule, stage: IntLike, pipeline: IntLike, virtual_stages: IntLike, micro_batches: IntLike
) -> tuple[IntLike, IntLike]:
    """(numerator, denominator) of the micro-batches held at the peak on stage ``stage``: ints for one
    plan, int64 arrays for many layouts at once (service.engine.layout_grid)."""
    p, v, m, i = pipeline, virtual_stages, micro_batches, stage
    if schedule is PipelineSchedule.gpipe:
        return m + 0 * i, 1 + 0 * i
    if schedule is PipelineSchedule.zero_bubble:
        return minimum(2 * (p - i) - 1, m), 1 + 0 * i
    if schedule is PipelineSchedule.interleaved:  # with v = 1 the count falls to 1F1B's p - i
        chunks = (p - i - 1) * 2 + (v - 1) * p + 1
        interleaved = minimum(chunks, m * v)
        plain = minimum(p - i, m)
        return select(v > 1, interleaved, plain), select(v > 1, v, 1)
    return minimum(p - i, m), 1 + 0 * i


def in_flight(
    schedule: PipelineSchedule, stage: int, pipeline: int, virtual_stages: int, micro_batches: int
) -> Fraction:
    """Micro-batches of the stage's layers held at the peak on stage ``stage``."""
    numerator, denominator = in_flight_ratio(schedule, stage, pipeline, virtual_stages, micro_batches)
    return Fraction(int(numerator), int(denominator))


def bubble_ratio(
    schedule: PipelineSchedule, pipeline: IntLike, virtual_stages: IntLike, micro_batches: IntLike
) -> tuple[IntLike, IntLike]:
    """(numerator, denominator) of the idle time over the ideal compute time of a step."""
    p, v, m = pipeline, virtual_stages, micro_batches
    if schedule is PipelineSchedule.zero_bubble:
        return 0 * p, 1 + 0 * p
    if schedule is PipelineSchedule.gpipe:
        return p - 1, m
    return p - 1, v * m  # p = 1: no bubble, 0 / (v m)


def bubble_fraction(schedule: PipelineSchedule, pipeline: int, virtual_stages: int, micro_batches: int) -> Fraction:
    """Idle time over the ideal compute time of a step."""
    numerator, denominator = bubble_ratio(schedule, pipeline, virtual_stages, micro_batches)
    return Fraction(int(numerator), int(denominator))


def bubble_share(schedule: PipelineSchedule, pipeline: int, virtual_stages: int, micro_batches: int) -> Fraction:
    """The bubble as a share of compute plus bubble: in [0, 1)."""
    idle = bubble_fraction(schedule, pipeline, virtual_stages, micro_batches)
    return idle / (1 + idle)
