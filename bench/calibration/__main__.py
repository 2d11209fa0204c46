"""Calibrate the efficiency model on published runs and report every row.

    python -m bench.calibration           # fit on the fit rows, print every row and the held-out summary
    python -m bench.calibration --no-fit  # the committed constants (service.time.efficiency.FITTED) as they are
    python -m bench.calibration --blackwell      # the Blackwell constants alone, the others as committed
    python -m bench.calibration --layout-groups  # published jobs measured in several layouts: pairs in order

The split is fixed and stated: within each source, in corpus order, the 1st, 3rd, 5th... evaluable
run is fitted and the 2nd, 4th, 6th... is held out. A run whose result depends on a field its source
does not publish (``Run.excluded`` says which) is printed but neither fitted nor summarised. The
free constants (the GEMM ceiling and the attention core's scale on its kernel's published speed
(service.time.attention_kernels) of each GPU generation, the
overlap slowdown and the memory-bound passes) are fitted by coordinate descent over grids,
minimising the mean squared log error of tokens per second
per GPU on the fit rows. Runs with tensor or pipeline parallelism go through service.engine.layout.
Blackwell's GEMM ceiling and attention scale move the B200 rows (bench.calibration.corpus_b200) alone: they are
fitted on the B200 fit rows after the rest (fit_blackwell), and FITTED's are fitted with every other constant as
committed (--blackwell).
"""

import argparse
import math
import statistics
from collections import defaultdict
from dataclasses import replace

from bench.calibration import layout_groups, layout_groups_h100, layout_groups_more, layout_groups_zoo
from bench.calibration.corpus import RUNS, Run, measured_tokens_per_s_per_gpu
from bench.calibration.corpus_b200 import B200_RUNS
from bench.calibration.model import predicted_tokens_per_s_per_gpu
from service.time.efficiency import FITTED, Calibration

TARGET_MEDIAN, TARGET_MAX = 0.10, 0.25
# The corpus: bench.calibration.corpus and its Blackwell rows (bench.calibration.corpus_b200)
CORPUS: list[Run] = RUNS + B200_RUNS
# Blackwell's two constants, fitted on the B200 fit rows alone with every other constant held (fit_blackwell)
BLACKWELL_START = {"blackwell": 0.6, "attention_blackwell": 1.0}
BLACKWELL_GRIDS: dict[str, list[float]] = {
    "blackwell": [round(0.45 + 0.01 * i, 2) for i in range(51)],
    "attention_blackwell": [round(0.30 + 0.02 * i, 2) for i in range(136)],
}


# Where the descent starts: round values, not the committed ones, so the fit reproduces them.
START = Calibration(
    gemm_ceiling={"ampere": 0.7, "hopper": 0.6, "blackwell": 0.6},
    attention_scale={"ampere": 1.0, "hopper": 1.0, "blackwell": 1.0},
    overlap_slowdown=0.2,
    elementwise_passes=1.0,
)
GRIDS: dict[str, list[float]] = {
    "ampere": [round(0.60 + 0.01 * i, 2) for i in range(36)],
    "hopper": [round(0.45 + 0.01 * i, 2) for i in range(41)],
    "attention_ampere": [round(0.30 + 0.02 * i, 2) for i in range(46)],
    "attention_hopper": [round(0.30 + 0.02 * i, 2) for i in range(46)],
    **BLACKWELL_GRIDS,
    "overlap_slowdown": [round(0.05 * i, 2) for i in range(11)],
    "elementwise_passes": [1.0 + 0.25 * i for i in range(13)],
}


def split(runs: list[Run]) -> tuple[list[Run], list[Run]]:
    """(fit, held out): alternate rows within each source, in corpus order."""
    seen: dict[str, int] = defaultdict(int)
    fit, held = [], []
    for run in runs:
        (fit if seen[run.source] % 2 == 0 else held).append(run)
        seen[run.source] += 1
    return fit, held


def with_value(cal: Calibration, name: str, value: float) -> Calibration:
    if name in ("ampere", "hopper", "blackwell"):
        return replace(cal, gemm_ceiling=cal.gemm_ceiling | {name: value})
    if name.startswith("attention_"):
        generation = name.removeprefix("attention_")
        return replace(cal, attention_scale=cal.attention_scale | {generation: value})
    return replace(cal, **{name: value})


def loss(runs: list[Run], cal: Calibration) -> float:
    return statistics.fmean(
        math.log(predicted_tokens_per_s_per_gpu(r, cal) / measured_tokens_per_s_per_gpu(r)) ** 2 for r in runs
    )


def fit(runs: list[Run], start: Calibration, rounds: int = 4) -> Calibration:
    cal = start
    for _ in range(rounds):
        for name, grid in GRIDS.items():
            cal = min((with_value(cal, name, v) for v in grid), key=lambda c: loss(runs, c))
    return cal


def fit_blackwell(runs: list[Run], held: Calibration, rounds: int = 50) -> Calibration:
    """The Blackwell GEMM ceiling and attention scale by coordinate descent on ``runs`` (the B200 fit rows; no other
    row depends on them), from BLACKWELL_START, every other constant as ``held`` has it, until a round changes
    nothing. Two rows and two constants that trade against each other: the descent walks along the valley, hence
    rounds until it stops rather than GRIDS' four."""
    cal = held
    for name, value in BLACKWELL_START.items():
        cal = with_value(cal, name, value)
    for _ in range(rounds):
        before = cal
        for name, grid in BLACKWELL_GRIDS.items():
            cal = min((with_value(cal, name, v) for v in grid), key=lambda c: loss(runs, c))
        if cal == before:
            break
    return cal


def error(run: Run, cal: Calibration) -> tuple[float, float, float]:
    measured = measured_tokens_per_s_per_gpu(run)
    predicted = predicted_tokens_per_s_per_gpu(run, cal)
    return measured, predicted, (predicted - measured) / measured


def report(runs: list[Run], held: list[Run], cal: Calibration) -> dict[str, float]:
    print(f"{'run':48s} {'split':8s} {'measured':>10s} {'predicted':>10s} {'error':>7s}  source, where")
    errors: dict[str, float] = {}
    for run in runs:
        measured, predicted, e = error(run, cal)
        errors[run.name] = e
        label = "excluded" if run.excluded else "held" if run in held else "fit"
        print(f"{run.name:48s} {label:8s} {measured:10.0f} {predicted:10.0f} {100 * e:+6.1f}%  {run.where}")
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-fit", action="store_true", help="report the committed constants without fitting")
    parser.add_argument(
        "--blackwell",
        action="store_true",
        help="fit the Blackwell constants alone on the B200 fit rows, every other constant as committed (how "
        "FITTED's Blackwell values are made), and report every row under them",
    )
    parser.add_argument(
        "--layout-groups",
        action="store_true",
        help="print each published group of one job in several layouts (bench.calibration.layout_groups): its "
        "measured and predicted order and the pairs in order, under the committed constants",
    )
    args = parser.parse_args()
    if args.layout_groups:
        layout_groups.report(
            layout_groups.GROUPS + layout_groups_more.GROUPS + layout_groups_zoo.GROUPS + layout_groups_h100.GROUPS
        )
        others = layout_groups_more.NEIGHBOUR_GROUPS + layout_groups_zoo.NEIGHBOUR_GROUPS
        layout_groups.report(others, "other cards: H800, A800, A100 and B200")
        return
    evaluable = [r for r in CORPUS if not r.excluded]
    fit_rows, held = split(evaluable)
    blackwell_fit = [r for r in fit_rows if r in B200_RUNS]
    if args.blackwell:
        cal = fit_blackwell(blackwell_fit, FITTED)
        print(
            f"Blackwell, the other constants as committed: gemm ceiling {cal.gemm_ceiling['blackwell']:.2f}, "
            f"attention scale {cal.attention_scale['blackwell']:.2f} (fitted on {len(blackwell_fit)} B200 rows)"
        )
    else:
        cal = FITTED if args.no_fit else fit_blackwell(blackwell_fit, fit(fit_rows, START))
    print(
        f"constants: gemm ceiling {cal.gemm_ceiling}, attention scale {cal.attention_scale}, overlap slowdown "
        f"{cal.overlap_slowdown:.2f}, memory-bound passes {cal.elementwise_passes:.2f}"
        + ("" if args.no_fit or args.blackwell else f" (fitted on {len(fit_rows)} rows; committed: {FITTED})")
    )
    errors = report(CORPUS, held, cal)
    held_errors = [abs(errors[r.name]) for r in held]
    fit_errors = [abs(errors[r.name]) for r in fit_rows]
    layouts = sum(r.needs_layouts for r in held)
    excluded = sum(bool(r.excluded) for r in CORPUS)
    print(
        f"\n{len(CORPUS)} runs: {len(fit_rows)} fitted, {len(held)} held out ({layouts} of them with tensor, pipeline, "
        f"context or expert parallelism), {excluded} excluded"
    )
    for r in CORPUS:
        if r.excluded:
            print(f"excluded: {r.name} ({100 * errors[r.name]:+.1f}%): {r.excluded}")
    print(f"fit rows:      median |error| {100 * statistics.median(fit_errors):.1f}%, max {100 * max(fit_errors):.1f}%")
    median, worst = statistics.median(held_errors), max(held_errors)
    print(
        f"held-out rows: median |error| {100 * median:.1f}% (target <= {100 * TARGET_MEDIAN:.0f}%), "
        f"max {100 * worst:.1f}% (target <= {100 * TARGET_MAX:.0f}%)"
    )
    blackwell = {r.name for r in B200_RUNS}
    for label, rows in (("fit", fit_rows), ("held-out", held)):
        b200 = [f"{r.name} {100 * errors[r.name]:+.1f}%" for r in rows if r.name in blackwell]
        print(f"B200 {label} rows: {', '.join(b200)}")
    misses = [r for r in evaluable if abs(errors[r.name]) > TARGET_MEDIAN]
    print(f"rows off by more than {100 * TARGET_MEDIAN:.0f}%:")
    for r in misses:
        print(f"  {r.name}: {100 * errors[r.name]:+.1f}%; unpublished: {', '.join(r.unpublished) or 'none'}")


if __name__ == "__main__":
    main()
