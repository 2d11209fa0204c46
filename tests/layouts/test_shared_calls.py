"""A grid's model-parallel calls of a set of rows, taken from those made over all the rows
(service.engine.layout_grid._SharedPrices.calls_at), are the calls made for that set alone."""

from typing import Any

import numpy as np
import pytest

from models.common import ModelSpec
from models.enums import MoeTokenDispatcher
from models.parallelism import PipelineSchedule
from models.presets import ModelPresetName as N
from service.engine.layout_grid import _SharedPrices
from service.inputs import resolve
from service.mesh.degrees import Mesh
from service.time.mesh_traffic import GroupCall, StageWork, model_parallel_calls, pipeline_calls


def same_call(made: GroupCall | None, taken: GroupCall | None) -> None:
    assert (made is None) == (taken is None)
    if made is None or taken is None:
        return
    for name in ("group", "name", "purpose", "window", "dtype", "ring_step"):
        assert getattr(made, name) == getattr(taken, name), name
    for name in ("elements", "ranks", "count_per_step", "link", "node_members"):
        a, b = getattr(made, name), getattr(taken, name)
        assert type(a) is type(b), name
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), name
        else:
            assert a == b, name
    same_call(made.beside, taken.beside)


def columns(rows: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)

    def pick(values: list[int]) -> np.ndarray:
        return rng.choice(np.array(values, dtype=np.int64), rows)

    t, p, c, e = pick([1, 2, 4, 8]), pick([1, 2, 4, 8]), pick([1, 2]), pick([1, 8, 16, 64])
    return {
        "n": t * p * c * pick([8, 16, 64]),
        "t": t,
        "p": p,
        "c": c,
        "e": e,
        "v": np.where(p > 1, pick([1, 2]), 1),
        "layers": pick([2, 4, 8]),
        "m": pick([8, 16, 32]),
        "b": pick([1, 2]),
    }


@pytest.mark.parametrize("preset", [N.deepseek_v3, N.mixtral_8x22b, N.gpt3_175b])
@pytest.mark.parametrize("sequence_parallel", [False, True])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("dispatcher", [MoeTokenDispatcher.alltoall, MoeTokenDispatcher.deepep])
def test_a_sets_calls_taken_from_all_rows_are_its_own(preset, sequence_parallel, full, dispatcher) -> None:  # type: ignore[no-untyped-def]
    arch = resolve.model(ModelSpec(preset=preset)).architecture
    assert arch is not None
    col = columns(64, seed=len(preset.value) + 2 * sequence_parallel + full)

    def made(rows: np.ndarray, schedule: PipelineSchedule) -> tuple[Mesh, StageWork]:
        degrees = {"tensor": col["t"][rows], "pipeline": col["p"][rows], "context": col["c"][rows]}
        mesh = Mesh(
            col["n"][rows],
            8,
            **degrees,
            expert=col["e"][rows],
            virtual_stages=col["v"][rows],
            sequence_parallel=sequence_parallel,
            schedule=schedule,
        )
        moe = col["layers"][rows] // 2 if arch.moe is not None else 0 * col["layers"][rows]
        work = StageWork(col["layers"][rows], moe, col["m"][rows], col["b"][rows], 4096, full, dispatcher=dispatcher)
        return mesh, work

    everything = np.arange(64)

    def build(_: bool) -> list[GroupCall]:  # every row under the interleaved schedule, whose sends differ
        mesh, work = made(everything, PipelineSchedule.interleaved)
        return model_parallel_calls(mesh, arch, work)

    shared = _SharedPrices(None, everything, build)  # type: ignore[arg-type]  # no call is priced here
    sets = [
        (PipelineSchedule.one_f_one_b, np.flatnonzero(everything % 3 == 0)),
        (PipelineSchedule.zero_bubble_v, np.flatnonzero(everything % 3 == 1)),
        (PipelineSchedule.one_f_one_b, everything),  # every row: the calls as made, the pipeline's its own
    ]
    for schedule, rows in sets:
        mesh, work = made(rows, schedule)
        taken = shared.calls_at(rows, full, pipeline_calls(mesh, arch, work))
        own = model_parallel_calls(mesh, arch, work)
        assert taken is not None
        assert len(taken) == len(own)
        for a, b in zip(own, taken, strict=True):
            same_call(a, b)
