"""Runs Calculon's exhaustive layout search under a deadline and prints one JSON object.

This script runs inside the virtual environment that holds Calculon (bench/calculon.py makes
it); it imports nothing of zeroplan. Run it with ``python -I`` so that bench/calculon.py is not
imported in place of the calculon package.

What it runs is Calculon's own search, calculon/llm/optimal_execution.py (the
``llm-optimal-execution`` command, Isaev et al., SC'23, section 5): the outer loop of
``OptimalExecution.run_command`` (tensor, pipeline, data, pipeline interleaving, batch size,
recomputation, optimizer sharding, tensor-parallel communication type) is written out here, and
each of its items is handed unchanged to ``OptimalExecution.search``, which loops over the rest
(sequence-parallel all-gather redo, data- and tensor-parallel overlap, weight / activation /
optimizer offload, fused activation, micro-batch size, the network each dimension uses) and
evaluates every configuration with ``Llm.compile`` and ``Llm.run``. Only three things differ from
the command: the items go to the pool in a seeded random order, so a search stopped at its
deadline has sampled the whole space rather than its first tensor degrees; the pool is stopped
at the deadline; and every call of ``Llm.compile`` (made once per configuration the search tries,
its ``exe_count``) is counted, so configurations evaluated in an item that the deadline cut short
count too. A search that finishes reports the counter next to Calculon's own ``exe_count``.
``--restrict`` keeps only the outer-loop items whose knobs take the values given (for instance one
layout's degrees, to let Calculon choose the rest for it); without it the search is the command's.
"""

import argparse
import json
import multiprocessing as mp
import os
import random
import sys
import time

if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]  # bench/calculon.py must not shadow the calculon package

import calculon  # noqa: E402
import psutil  # noqa: E402
from calculon.llm import Llm  # noqa: E402
from calculon.llm.optimal_execution import OptimalExecution  # noqa: E402
from calculon.util import pick  # noqa: E402

_counter = None


def _count_compiles(counter) -> None:
    """Pool initializer: wrap Llm.compile so each configuration tried adds one to the counter."""
    global _counter
    _counter = counter
    original = Llm.compile

    def counted(self, *args, **kwargs):
        with _counter.get_lock():
            _counter.value += 1
        return original(self, *args, **kwargs)

    Llm.compile = counted


def _search(item):
    return OptimalExecution.search(*item)


def search_items(args, app, syst, restrict):
    """The outer loop of OptimalExecution.run_command, item for item, less the values restrict leaves out."""
    items = []
    for tp in Llm.get_all_tensor_parallelisms(args.num_procs, app.hidden, app.attn_heads):
        for pp in Llm.get_all_pipeline_parallelisms(args.num_procs, tp, app.num_blocks):
            dp = Llm.get_data_parallelism(args.num_procs, tp, pp)
            for ppint in Llm.get_valid_pipeline_interleavings(app.num_blocks, pp):
                batch_size = OptimalExecution.get_batch_size(dp, args.max_batch_size)
                if batch_size is None:
                    continue
                for activation_recompute in ["full", "attn_only", "none"]:
                    for optimizer_sharding in pick(dp > 1, [True, False], [False]):
                        for tensor_par_comm_type in ["ar", "p2p_rs_ag", "rs_ag"]:
                            knobs = {
                                "tensor_par": tp,
                                "pipeline_par": pp,
                                "data_par": dp,
                                "pipeline_interleaving": ppint,
                                "activation_recompute": activation_recompute,
                                "optimizer_sharding": optimizer_sharding,
                                "tensor_par_comm_type": tensor_par_comm_type,
                            }
                            if any(knobs[key] not in allowed for key, allowed in restrict.items()):
                                continue
                            items.append(
                                (
                                    False,  # debug: evaluate, do not just loop
                                    args.top_n,
                                    False,  # layers: no per-layer stats
                                    args.num_procs,
                                    args.max_batch_size,
                                    args.datatype,
                                    app,
                                    syst,
                                    tp,
                                    pp,
                                    dp,
                                    ppint,
                                    batch_size,
                                    activation_recompute,
                                    optimizer_sharding,
                                    tensor_par_comm_type,
                                    [True],  # fused activation: the command's default, 'true'
                                    args.mbs_break,
                                    True,  # tensor-parallel overlap allowed (no --no-tp-overlap)
                                    True,  # data-parallel overlap allowed (no --no-dp-overlap)
                                )
                            )
    return items


def configurations_in_item(item, app, syst) -> int:
    """How many configurations OptimalExecution.search tries for an item without the MBS break."""
    (_, _, _, _, _, _, _, _, tp, pp, dp, _, batch_size, recompute, _, comm_type, fused, _, tp_ov, dp_ov) = item
    has_mem2 = syst.mem2.capacity > 0
    nets = syst.num_networks
    redo = 2 if Llm.can_redo_ag(comm_type, recompute) else 1
    dp_overlap = 2 if dp > 1 and dp_ov else 1
    tp_overlap = 3 if tp > 1 and tp_ov else 1
    offload = 2 if has_mem2 else 1
    act_offload = 2 if has_mem2 and recompute != "full" else 1
    micro = len(list(Llm.get_valid_microbatch_sizes(app.seq_size, tp, dp, batch_size, pp)))
    networks = (nets if tp > 1 else 1) * (nets if pp > 1 else 1) * (nets if dp > 1 else 1)
    return redo * dp_overlap * tp_overlap * offload * act_offload * offload * len(fused) * micro * networks


def row(entry):
    sample_rate, execution, stats = entry
    keep = (
        "total_time",
        "sample_rate",
        "proc_mem_tier1_cap_req",
        "proc_mem_tier2_cap_req",
        "bubble_time",
        "tp_comm_exposed_time",
        "pp_comm_exposed_time",
        "dp_comm_exposed_time",
        "compute_efficiency",
        "system_efficiency",
        "total_efficiency",
    )
    return {"execution": execution, "stats": {key: stats[key] for key in keep}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_json")
    parser.add_argument("system_json")
    parser.add_argument("--num-procs", type=int, required=True)
    parser.add_argument("--max-batch-size", type=int, required=True)
    parser.add_argument("--sequence-length", type=int, required=True)
    parser.add_argument("--datatype", default="float16")
    parser.add_argument("--max-seconds", type=float, required=True)
    parser.add_argument("--cpus", type=int, default=None)
    parser.add_argument("--top-n", type=int, default=5)
    parser.add_argument("--mbs-break", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--restrict", type=json.loads, default={}, help="outer-loop knob: allowed values")
    args = parser.parse_args()

    app_cfg = calculon.io.read_json_file(args.model_json)
    app_cfg["seq_size"] = args.sequence_length
    app = Llm.Application(app_cfg)
    syst = calculon.System(calculon.io.read_json_file(args.system_json))
    cpus = args.cpus or psutil.cpu_count(logical=False) or 1  # the command's default for --cpus

    items = search_items(args, app, syst, args.restrict)
    random.Random(args.seed).shuffle(items)
    in_space = sum(configurations_in_item(item, app, syst) for item in items)

    counter = mp.Value("q", 0)
    best: list = []
    exe_count = good = bad = done = 0
    start = time.monotonic()
    deadline = start + args.max_seconds
    pool = mp.Pool(cpus, initializer=_count_compiles, initargs=(counter,))
    try:
        results = pool.imap_unordered(_search, items)
        while done < len(items):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                cbest, ec, gec, bec, _, _ = results.next(timeout=remaining)
            except mp.TimeoutError:
                break
            best = OptimalExecution.update_list(best, cbest, args.top_n)
            exe_count += ec
            good += gec
            bad += bec
            done += 1
        seconds = time.monotonic() - start
        evaluated = counter.value
    finally:
        pool.terminate()
        pool.join()

    json.dump(
        {
            "calculon_version": calculon.__version__,
            "restrict": args.restrict,
            "cpus": cpus,
            "complete": done == len(items),
            "items_total": len(items),
            "items_done": done,
            "configurations_in_space": in_space,
            "configurations_evaluated": evaluated,
            "calculon_exe_count": exe_count,
            "good": good,
            "bad": bad,
            "seconds": seconds,
            "best": [row(entry) for entry in best],
        },
        sys.stdout,
    )
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
