"""Calculon's exhaustive layout search, installed in the benchmark's own environment and timed.

    python -m bench.calculon --calculon-source PATH            # prints Calculon's figures alone
    ZEROPLAN_BENCH_CALCULON_SOURCE=PATH python -m bench.calculon --seconds 300

Calculon (Isaev et al., "Calculon: a methodology and tool for high-level co-design of systems and
large language models", SC'23; github.com/calculon-ai/calculon) is not on PyPI: the PyPI name
``calculon`` belongs to an unrelated producer-consumer library. So the source is a checkout
(``git clone https://github.com/calculon-ai/calculon``) or an archive of one, given by
``--calculon-source`` or ``ZEROPLAN_BENCH_CALCULON_SOURCE``. It is pip-installed into a virtual
environment of its own, ``.bench/calculon-venv`` (reused while the source is unchanged), with
psutil and pandas, which Calculon imports but does not declare. Its model and system files are
read from the checkout's ``models/`` and ``systems/``.

The search is Calculon's ``llm-optimal-execution`` (calculon/llm/optimal_execution.py) driven by
bench/calculon_driver.py in that environment, on every CPU core unless told otherwise, with a
deadline: a search that does not finish reports the configurations it evaluated by then and the
best among them. What is counted is every configuration the search evaluates (compiles and runs
through Calculon's model: its ``exe_count``, fitting or not). Calculon ranks by samples per second
and sets the batch to the largest multiple of the data-parallel degree not above the batch given.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "gpt3-175B"
DEFAULT_SYSTEM = "a100_80g"
DEFAULT_NUM_PROCS = 4096
DEFAULT_GLOBAL_BATCH_SIZE = 1536
DEFAULT_SEQUENCE_LENGTH = 2048
DEFAULT_SECONDS = 120.0
SOURCE_ENV = "ZEROPLAN_BENCH_CALCULON_SOURCE"
REPOSITORY = "https://github.com/calculon-ai/calculon"
# Imported by calculon (llm/optimal_execution.py, llm/all_executions.py), absent from its setup.py.
UNDECLARED_REQUIREMENTS = ("psutil", "pandas")
DATATYPE = "float16"  # the only datatype Calculon's a100_80g system describes

ROOT = Path(__file__).resolve().parent.parent
WORK_DIR = ROOT / ".bench"
DRIVER = Path(__file__).resolve().parent / "calculon_driver.py"
INSTALL_TIMEOUT_S = 900.0
# Starting the environment and the pool, and enumerating the space, on top of the search's deadline.
STARTUP_ALLOWANCE_S = 300.0
# The knobs of Calculon's outer search loop, by its execution field names; restrict takes these.
RESTRICTABLE = (
    "tensor_par",
    "pipeline_par",
    "data_par",
    "pipeline_interleaving",
    "activation_recompute",
    "optimizer_sharding",
    "tensor_par_comm_type",
)
COUNTED = (
    "configurations evaluated by Calculon's llm-optimal-execution search: calls of Llm.compile, "
    "one per configuration it tries (its exe_count), fitting in memory or not"
)


class SetupError(Exception):
    """Calculon could not be prepared or run; the message says why."""


def run_calculon_search(
    model: str = DEFAULT_MODEL,
    system: str = DEFAULT_SYSTEM,
    num_procs: int = DEFAULT_NUM_PROCS,
    global_batch_size: int = DEFAULT_GLOBAL_BATCH_SIZE,
    sequence_length: int = DEFAULT_SEQUENCE_LENGTH,
    max_seconds: float = DEFAULT_SECONDS,
    *,
    source: str | None = None,
    cpus: int | None = None,
    top_n: int = 5,
    mbs_break: bool = True,
    restrict: Mapping[str, Sequence[Any]] | None = None,
    work_dir: Path = WORK_DIR,
) -> dict[str, Any]:
    """Install Calculon from ``source`` (or $ZEROPLAN_BENCH_CALCULON_SOURCE) and time its search.

    model and system are Calculon's names (``gpt3-175B``, ``a100_80g``) or paths to its JSON
    files. ``mbs_break`` is the command's ``-m`` (stop raising the micro-batch once none fits),
    as in Calculon's README example. ``restrict`` maps knobs of RESTRICTABLE to the values
    allowed (``{"tensor_par": [8], "pipeline_par": [4]}``); without it the whole space is
    searched. Never raises for a missing or broken Calculon: the result says ``installed`` and
    ``reason``.
    """
    restrict = {key: list(values) for key, values in (restrict or {}).items()}
    unknown = sorted(set(restrict) - set(RESTRICTABLE))
    if unknown:
        raise ValueError(f"cannot restrict {', '.join(unknown)}: Calculon's outer loop has {', '.join(RESTRICTABLE)}")
    source = source or os.environ.get(SOURCE_ENV) or None
    if source is None:
        return not_run(
            False,
            f"no Calculon source given: Calculon is not on PyPI (the PyPI name 'calculon' is an unrelated "
            f"package); clone {REPOSITORY} and pass --calculon-source PATH or set {SOURCE_ENV}",
        )
    try:
        checkout = prepare_checkout(Path(source).expanduser(), work_dir)
    except SetupError as error:
        return not_run(False, str(error))
    try:
        python = ensure_environment(checkout, work_dir / "calculon-venv")
    except SetupError as error:
        return not_run(False, str(error))
    try:
        model_json = calculon_file(checkout, "models", model)
        system_json = calculon_file(checkout, "systems", system)
        command = driver_command(
            python,
            model_json,
            system_json,
            num_procs=num_procs,
            global_batch_size=global_batch_size,
            sequence_length=sequence_length,
            max_seconds=max_seconds,
            cpus=cpus,
            top_n=top_n,
            mbs_break=mbs_break,
            restrict=restrict,
        )
        stdout = run_driver(command, max_seconds + STARTUP_ALLOWANCE_S)
        result = parse_driver_output(stdout)
    except SetupError as error:
        return not_run(True, str(error))
    result["commit"] = checkout_commit(checkout)
    result["search"] = {
        "model": model,
        "system": system,
        "num_procs": num_procs,
        "max_batch_size": global_batch_size,
        "sequence_length": sequence_length,
        "datatype": DATATYPE,
        "mbs_break": mbs_break,
        "max_seconds": max_seconds,
        "restrict": restrict,
    }
    return result


def not_run(installed: bool, reason: str) -> dict[str, Any]:
    return {
        "installed": installed,
        "reason": reason,
        "layouts_evaluated": 0,
        "seconds": 0.0,
        "layouts_per_s": 0.0,
        "best": [],
    }


def prepare_checkout(source: Path, work_dir: Path) -> Path:
    """The Calculon source tree: the directory given, or an archive unpacked under work_dir."""
    if not source.exists():
        raise SetupError(f"Calculon source {source} does not exist (clone {REPOSITORY})")
    if source.is_file():
        source = unpack(source, work_dir / "calculon-src")
    tree = find_tree(source)
    if tree is None:
        raise SetupError(
            f"{source} is not a Calculon checkout: no calculon/llm/optimal_execution.py in it or in a "
            f"folder directly under it (clone {REPOSITORY})"
        )
    return tree


def find_tree(folder: Path) -> Path | None:
    for candidate in (folder, *sorted(p for p in folder.iterdir() if p.is_dir())):
        if (candidate / "calculon" / "llm" / "optimal_execution.py").is_file():
            return candidate
    return None


def unpack(archive: Path, into: Path) -> Path:
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = into / digest
    if target.is_dir():
        return target
    staging = into / f"{digest}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(staging)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tarred:
                if hasattr(tarfile, "data_filter"):
                    tarred.extractall(staging, filter="data")
                else:  # Python before 3.11.4: no extraction filters
                    tarred.extractall(staging)
        else:
            raise SetupError(f"{archive} is neither a folder nor a zip or tar archive")
    except (OSError, tarfile.TarError, zipfile.BadZipFile) as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise SetupError(f"could not unpack {archive}: {error}") from error
    staging.rename(target)
    return target


def source_fingerprint(checkout: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted([*checkout.joinpath("calculon").rglob("*.py"), checkout / "setup.py"]):
        if path.is_file():
            digest.update(str(path.relative_to(checkout)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_environment(checkout: Path, venv: Path) -> Path:
    """A virtual environment with Calculon from checkout installed; reused while the source is unchanged."""
    python = venv / "bin" / "python"
    marker = venv / "calculon-source.json"
    wanted = {"fingerprint": source_fingerprint(checkout), "requirements": list(UNDECLARED_REQUIREMENTS)}
    if python.exists() and marker.exists():
        try:
            if json.loads(marker.read_text()) == wanted:
                return python
        except ValueError:
            pass
    run_setup([sys.executable, "-m", "venv", "--clear", str(venv)], "creating the virtual environment")
    run_setup(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(checkout),
            *UNDECLARED_REQUIREMENTS,
        ],
        f"pip install {checkout} {' '.join(UNDECLARED_REQUIREMENTS)}",
    )
    run_setup([str(python), "-c", "import calculon.llm.optimal_execution"], "importing calculon")
    marker.write_text(json.dumps(wanted))
    return python


def run_setup(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SetupError(f"{what} failed: {error}") from error
    if done.returncode != 0:
        raise SetupError(f"{what} failed (exit {done.returncode}): {tail(done.stderr or done.stdout)}")


def tail(text: str, lines: int = 5) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])


def calculon_file(checkout: Path, folder: str, name: str) -> Path:
    """Calculon's model or system file by its name (models/gpt3-175B.json) or a JSON file's path."""
    given = Path(name).expanduser()
    if given.suffix == ".json" and given.is_file():
        return given
    path = checkout / folder / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in (checkout / folder).glob("*.json"))
        raise SetupError(f"no {folder[:-1]} {name!r} in Calculon's {folder}/ (it has: {', '.join(known)})")
    return path


def driver_command(
    python: Path,
    model_json: Path,
    system_json: Path,
    *,
    num_procs: int,
    global_batch_size: int,
    sequence_length: int,
    max_seconds: float,
    cpus: int | None,
    top_n: int,
    mbs_break: bool,
    restrict: Mapping[str, Sequence[Any]],
) -> list[str]:
    # -I keeps bench/ off sys.path, where this module would shadow the calculon package.
    command = [
        str(python),
        "-I",
        str(DRIVER),
        str(model_json),
        str(system_json),
        f"--num-procs={num_procs}",
        f"--max-batch-size={global_batch_size}",
        f"--sequence-length={sequence_length}",
        f"--datatype={DATATYPE}",
        f"--max-seconds={max_seconds}",
        f"--top-n={top_n}",
    ]
    if cpus:
        command.append(f"--cpus={cpus}")
    if mbs_break:
        command.append("--mbs-break")
    if restrict:
        command.append(f"--restrict={json.dumps(restrict)}")
    return command


def run_driver(command: list[str], timeout_s: float) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        raise SetupError(f"Calculon's search gave no answer within {timeout_s:.0f} s") from error
    except OSError as error:
        raise SetupError(f"could not start Calculon's search: {error}") from error
    if done.returncode != 0:
        raise SetupError(f"Calculon's search failed (exit {done.returncode}): {tail(done.stderr)}")
    return done.stdout


def parse_driver_output(stdout: str) -> dict[str, Any]:
    """The driver's JSON line as this module's result (layouts_per_s and rows in zeroplan's words)."""
    try:
        raw = json.loads(stdout.strip().splitlines()[-1])
        evaluated = int(raw["configurations_evaluated"])
        seconds = float(raw["seconds"])
        best = [layout_row(entry) for entry in raw["best"]]
        result = {
            "installed": True,
            "reason": None,
            "version": raw["calculon_version"],
            "complete": bool(raw["complete"]),
            "layouts_evaluated": evaluated,
            "layouts_in_space": int(raw["configurations_in_space"]),
            "seconds": seconds,
            "layouts_per_s": evaluated / seconds if seconds > 0 else 0.0,
            "cpus": int(raw["cpus"]),
            "items_done": int(raw["items_done"]),
            "items_total": int(raw["items_total"]),
            "calculon_exe_count": int(raw["calculon_exe_count"]),
            "fitting": int(raw["good"]),
            "counted": COUNTED,
            "best": best,
        }
    except (IndexError, ValueError, KeyError, TypeError) as error:
        raise SetupError(f"unreadable output from Calculon's search ({error!r}): {stdout[-300:]!r}") from error
    return result


def layout_row(entry: dict[str, Any]) -> dict[str, Any]:
    """One of Calculon's best executions with its figures, in zeroplan's words."""
    exe, stats = entry["execution"], entry["stats"]
    return {
        "tensor": exe["tensor_par"],
        "pipeline": exe["pipeline_par"],
        "data": exe["data_par"],
        "pipeline_interleaving": exe["pipeline_interleaving"],
        "global_batch_size": exe["batch_size"],
        "micro_batch_size": exe["microbatch_size"],
        # full, attn_only (selective: attention recomputed), none
        "recompute": exe["activation_recompute"],
        # Calculon's optimizer sharding: Adam moments, fp32 master weights and gradients across the
        # data-parallel group (ZeRO stage 2; weights stay whole)
        "optimizer_sharding": exe["optimizer_sharding"],
        # ar: all-reduce (Megatron tensor parallelism); rs_ag, p2p_rs_ag: with sequence parallelism
        "tensor_par_comm_type": exe["tensor_par_comm_type"],
        "tensor_par_overlap": exe["tensor_par_overlap"],
        "data_par_overlap": exe["data_par_overlap"],
        "seq_par_ag_redo": exe["seq_par_ag_redo"],
        "weight_offload": exe["weight_offload"],
        "activations_offload": exe["activations_offload"],
        "optimizer_offload": exe["optimizer_offload"],
        "networks": {"tensor": exe["tensor_par_net"], "pipeline": exe["pipeline_par_net"], "data": exe["data_par_net"]},
        "step_s": stats["total_time"],
        "samples_per_s": stats["sample_rate"],
        "memory_bytes_per_gpu": int(stats["proc_mem_tier1_cap_req"]),
        "offload_bytes_per_gpu": int(stats["proc_mem_tier2_cap_req"]),
        "bubble_s": stats["bubble_time"],
        "total_efficiency": stats["total_efficiency"],
    }


def checkout_commit(checkout: Path) -> str | None:
    if not (checkout / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def format_report(result: dict[str, Any]) -> str:
    """Calculon's figures as text: the rate, then its best layouts one a line."""
    if not result["installed"] or result["reason"]:
        state = "installed" if result["installed"] else "not installed"
        return f"Calculon: {state}, not run: {result['reason']}"
    search = result.get("search", {})
    version = result.get("version")
    commit = result.get("commit")
    lines = [
        f"Calculon {version}{f' ({commit[:12]})' if commit else ''} llm-optimal-execution: "
        f"{search.get('model')} on {search.get('system')}, {search.get('num_procs')} GPUs, batch <= "
        f"{search.get('max_batch_size')}, sequence {search.get('sequence_length')}, {search.get('datatype')}, "
        f"{result['cpus']} processes",
        f"  {result['layouts_evaluated']:,} configurations evaluated in {result['seconds']:.1f} s: "
        f"{result['layouts_per_s']:,.1f} layouts/s ({result['fitting']:,} fitting, in finished items)",
    ]
    if search.get("restrict"):
        lines.append("  restricted to " + ", ".join(f"{k} in {v}" for k, v in search["restrict"].items()))
    if result["complete"]:
        lines.append(f"  search complete: {result['items_total']:,} items; best layouts:")
    else:
        share = result["layouts_evaluated"] / result["layouts_in_space"] if result["layouts_in_space"] else 0.0
        lines.append(
            f"  stopped at its deadline: {result['items_done']:,} of {result['items_total']:,} items finished, "
            f"{share:.3%} of the {result['layouts_in_space']:,} configurations in its space; best among them:"
        )
    lines.append(
        "  rank  tp  pp    dp  vpp  mbs  batch  recompute  opt-shard  tp-comm    offload(w/a/o)  "
        "step_s  samples/s  GiB/GPU"
    )
    for rank, row in enumerate(result["best"], 1):
        offload = "/".join(
            "y" if row[k] else "n" for k in ("weight_offload", "activations_offload", "optimizer_offload")
        )
        lines.append(
            f"  {rank:>4}  {row['tensor']:>2}  {row['pipeline']:>2}  {row['data']:>4}"
            f"  {row['pipeline_interleaving']:>3}"
            f"  {row['micro_batch_size']:>3}  {row['global_batch_size']:>5}  {row['recompute']:<9}"
            f"  {str(row['optimizer_sharding']):<9}  {row['tensor_par_comm_type']:<9}  {offload:<14}"
            f"  {row['step_s']:>6.3f}  {row['samples_per_s']:>9.1f}  {row['memory_bytes_per_gpu'] / 2**30:>7.1f}"
        )
    return "\n".join(lines)


def parse_restriction(text: str) -> tuple[str, list[Any]]:
    """``tensor_par=4,8`` as ("tensor_par", [4, 8]); true/false become booleans, digits integers."""
    key, sep, values = text.partition("=")
    if not sep or key not in RESTRICTABLE or not values:
        raise argparse.ArgumentTypeError(f"expected KNOB=V1,V2 with KNOB one of {', '.join(RESTRICTABLE)}: {text!r}")

    def value(word: str) -> Any:
        if word in ("true", "false"):
            return word == "true"
        return int(word) if word.isdigit() else word

    return key, [value(word) for word in values.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time Calculon's exhaustive layout search.")
    parser.add_argument("--calculon-source", help=f"a Calculon checkout or archive (default: ${SOURCE_ENV})")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="Calculon's model name or JSON file")
    parser.add_argument("--system", default=DEFAULT_SYSTEM, help="Calculon's system name or JSON file")
    parser.add_argument("--num-procs", type=int, default=DEFAULT_NUM_PROCS)
    parser.add_argument("--global-batch-size", type=int, default=DEFAULT_GLOBAL_BATCH_SIZE)
    parser.add_argument("--sequence-length", type=int, default=DEFAULT_SEQUENCE_LENGTH)
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="the search's deadline")
    parser.add_argument("--cpus", type=int, default=None, help="worker processes (default: physical cores)")
    parser.add_argument("--top-n", type=int, default=5)
    parser.add_argument("--no-mbs-break", action="store_true", help="try every micro-batch size (no -m)")
    parser.add_argument(
        "--restrict",
        type=parse_restriction,
        action="append",
        default=[],
        metavar="KNOB=V1,V2",
        help=f"search only these values of an outer-loop knob ({', '.join(RESTRICTABLE)})",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = run_calculon_search(
        args.model,
        args.system,
        args.num_procs,
        args.global_batch_size,
        args.sequence_length,
        args.seconds,
        source=args.calculon_source,
        cpus=args.cpus,
        top_n=args.top_n,
        mbs_break=not args.no_mbs_break,
        restrict=dict(args.restrict),
    )
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0 if result["reason"] is None else 1


if __name__ == "__main__":
    sys.exit(main())
