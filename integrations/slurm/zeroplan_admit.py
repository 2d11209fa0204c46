#!/usr/bin/env python3
"""zeroplan's admission check for Slurm: the decision behind job_submit.lua and cli_filter.lua.

The Lua plugin writes what the job asked for to a temporary file and runs this script with that file
on standard input: nothing a user writes reaches a command line. Fields arrive as netstrings of
``name length\\n<bytes>\\n``. The script answers on standard output, one ``key value`` per line:

    decision accept|reject|skip
    time_limit <minutes>        (accept, when the job has no limit of its own)
    admin_comment <one line>    (accept)
    message <one line>          (shown to the user)

It takes the plan from ``--comment=zeroplan:<JSON plan>`` or ``zeroplan:<preset>`` (a file
``<preset>.json`` in the admin's preset folder), else from the job's ZEROPLAN_PLAN environment
variable; the GPUs come from the job's own request (``--nodes``, ``--gres=gpu:N``,
``--gpus-per-node``, ``--gpus``), never from the plan. It asks POST /v1/plan and, for a job that does
not fit, POST /v1/fit for the smallest whole-node GPU count that would. Only the Python standard
library is used, so it runs with the controller's system python3.

Configuration: a JSON file given as the first argument (see zeroplan.json). ``on_error`` is the
failure policy when the planner is down, slow or broken: ``accept`` (fail-open: the job goes through
unchecked and the reason is logged) or ``reject`` (fail-closed).
"""

import json
import math
import os
import re
import stat
import sys
import time
import urllib.error
import urllib.request
from typing import Any

PREFIX = "zeroplan:"
ENV_VAR = "ZEROPLAN_PLAN"
PRESET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
NO_VAL = 4294967294  # Slurm's NO_VAL (32 bits): the job left the field unset
MAX_GRID_POINTS = 4096  # /v1/fit's largest grid: whole nodes up to 4,096 x GPUs per node
DEFAULTS: dict[str, Any] = {
    "url": "http://127.0.0.1:8000",
    "token_file": "/etc/slurm/zeroplan.token",
    "preset_dir": "/etc/slurm/zeroplan-presets",
    "timeout_s": 4.0,
    "margin": 1.25,
    "on_error": "accept",
    "max_gpus": 32768,
}


class Refusal(Exception):
    """The job is refused, with a message for the user."""


class Unavailable(Exception):
    """The planner could not answer: the failure policy decides."""


def read_fields(stream: Any) -> dict[str, str]:
    """Netstring-like fields: ``name length\\n`` then length bytes and a newline."""
    data = stream.read()
    fields: dict[str, str] = {}
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        name, length = data[at:end].decode().split(" ")
        start = end + 1
        value = data[start : start + int(length)]
        fields[name] = value.decode("utf-8", errors="replace")
        at = start + int(length) + 1
    return fields


def plan_text(fields: dict[str, str]) -> tuple[str, str] | None:
    """(where it came from, the text after zeroplan:), or None when the job names no plan."""
    comment = fields.get("comment", "").strip()
    if comment.startswith(PREFIX):
        return "--comment", comment[len(PREFIX) :].strip()
    for line in fields.get("environment", "").split("\n"):
        if line.startswith(ENV_VAR + "="):
            value = line[len(ENV_VAR) + 1 :].strip()
            return ENV_VAR, value[len(PREFIX) :].strip() if value.startswith(PREFIX) else value
    return None


def load_plan(source: str, text: str, preset_dir: str) -> dict[str, Any]:
    if text.startswith("{"):
        try:
            plan = json.loads(text)
        except json.JSONDecodeError as error:
            raise Refusal(
                f"{source} is not a plan: its JSON does not parse ({error.msg} at character {error.pos}); write "
                f"{PREFIX}{{...a /v1/plan request...}} or {PREFIX}<preset name>"
            ) from None
        except (RecursionError, ValueError):  # nested past the parser's recursion, or a number of thousands of digits
            raise Refusal(
                f"{source} is not a plan: its JSON does not parse (nested too deeply, or a number too long); write "
                f"{PREFIX}{{...a /v1/plan request...}} or {PREFIX}<preset name>"
            ) from None
        if not isinstance(plan, dict):
            raise Refusal(f"{source} is not a plan: a /v1/plan request is a JSON object")
        return plan
    if not PRESET_NAME.match(text):
        raise Refusal(
            f"{source} is not a plan: {text[:60]!r} is neither a JSON object nor a preset name "
            "(letters, digits, '.', '_' and '-')"
        )
    path = os.path.join(preset_dir, text + ".json")
    if not os.path.isfile(path):
        known = (
            sorted(n[:-5] for n in os.listdir(preset_dir) if n.endswith(".json")) if os.path.isdir(preset_dir) else []
        )
        raise Refusal(f"unknown zeroplan preset {text!r} in {source}; this site has: {', '.join(known) or 'none'}")
    with open(path, encoding="utf-8") as file:
        return dict(json.load(file))


def _count(value: str) -> int | None:
    return int(value) if value.isdigit() and int(value) < NO_VAL else None


def gpus_in(tres: str) -> int | None:
    """GPUs in a TRES string as Slurm 22.05 keeps it: 'gres:gpu:8', 'gres/gpu:h100:8', 'gpu:8', lists. A type
    without a count is one GPU (Slurm's default count); a plan is for one kind of card, so a job asking GPUs
    twice (two types) is refused, as is a count written other than in digits ('1k')."""
    found = [item.strip() for item in tres.split(",") if "gpu" in re.split(r"[:/]", item.strip())]
    if not found:
        return None
    if len(found) > 1:
        asked = ", ".join(found)
        raise Refusal(f"the job asks for GPUs {len(found)} times ({asked}); a zeroplan plan is for one GPU type")
    last = re.split(r"[:/]", found[0])[-1]
    if last.isdigit():
        return int(last)
    if last[:1].isdigit():
        raise Refusal(f"GPU count {last!r} in {found[0]!r}: give the count in digits for a zeroplan plan")
    return 1


def allocation(fields: dict[str, str]) -> tuple[int, int]:
    """(world size, GPUs per node) from the job's own request."""
    given_nodes = _count(fields.get("min_nodes", ""))
    nodes = given_nodes or 1
    per_node = gpus_in(fields.get("tres_per_node", ""))
    per_job = gpus_in(fields.get("tres_per_job", ""))
    if per_node is None and per_job is not None and not given_nodes:
        # Slurm places --gpus=N over the nodes it picks: the GPUs of a node, which the plan needs, are unknown
        raise Refusal(
            f"--gpus={per_job} without --nodes: give --nodes (or --gpus-per-node) so the plan knows the nodes"
        )
    if per_node is None and per_job is not None:
        if per_job % nodes:
            raise Refusal(f"--gpus={per_job} does not split evenly over {nodes} nodes; use --gpus-per-node")
        per_node = per_job // nodes
    if not per_node:
        raise Refusal("the job asks for no GPUs; a zeroplan plan needs --gres=gpu:N, --gpus-per-node=N or --gpus=N")
    return nodes * per_node, per_node


def same_count(given: Any, value: int) -> bool:
    """Whether a plan's count is the allocation's, written as the service reads a count: a whole number, also as
    a float (16.0) or a string of digits ("16")."""
    if isinstance(given, bool):
        return False
    if isinstance(given, str):
        given = given.strip()
        return given.isdigit() and int(given) == value
    return isinstance(given, (int, float)) and given == value


def with_allocation(plan: dict[str, Any], world: int, per_node: int) -> dict[str, Any]:
    cluster = plan.get("cluster")
    if cluster is None:
        cluster = plan["cluster"] = {}
    if not isinstance(cluster, dict):
        raise Refusal("cluster in the plan must be an object")
    nodes = world // per_node
    for name, value in (("world_size", world), ("gpus_per_node", per_node)):
        given = cluster.get(name)
        if given is not None and not same_count(given, value):
            raise Refusal(
                f"cluster.{name} {given!r} in the plan disagrees with the job's allocation: {nodes} node(s) x "
                f"{per_node} GPUs = {world} GPUs; drop it from the plan or change --nodes/--gres"
            )
        cluster[name] = value
    return plan


class Planner:
    def __init__(self, config: dict[str, Any]) -> None:
        self.url = str(config["url"]).rstrip("/")
        self.timeout_s = float(config["timeout_s"])
        self.stop_at = time.monotonic() + self.timeout_s
        self.token = _token(str(config["token_file"]))

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        left = self.stop_at - time.monotonic()
        if left <= 0:
            raise Unavailable(f"no answer within {self.timeout_s:g} s")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=left) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            if error.code >= 500 or error.code in (401, 403, 429):
                raise Unavailable(f"{path} answered {error.code}") from None
            try:
                return error.code, json.load(error)
            except ValueError:
                raise Unavailable(f"{path} answered {error.code} without a problem body") from None
        except (OSError, ValueError) as error:  # refused, reset, timed out, not JSON
            raise Unavailable(f"{path}: {error}") from None


def _token(path: str) -> str:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return ""
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise Unavailable(f"{path} is readable by others than its owner; chmod 600 it")
    with open(path, encoding="utf-8") as file:
        return file.read().strip()


def problem_words(problem: dict[str, Any]) -> str:
    """Each field error once, by its field: the service's details already start with the field's name."""
    words = []
    for error in problem.get("errors") or []:
        field = error.get("pointer", "").lstrip("/").replace("/", ".") or "body"
        detail = str(error.get("detail"))
        words.append(detail if detail.startswith(field) else f"{field}: {detail}")
    return "; ".join(words) or str(problem.get("detail") or problem.get("title") or "refused")


def gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def shortfall(memory: dict[str, Any], arrangement: str, world: int) -> str:
    """What does not fit: the GPU's bytes, or a node's host memory for the offloaded states."""
    if memory["per_gpu_bytes"] <= memory["usable_bytes"] and memory.get("host_fits") is False:
        return (
            f"a node's host memory holds {gib(memory['host_memory_bytes'])}, its GPUs offload "
            f"{gib(memory['host_bytes'])} ({arrangement}, {world} GPUs)"
        )
    return (
        f"{gib(memory['per_gpu_bytes'])} per GPU needed ({arrangement}, {world} GPUs), "
        f"{gib(memory['usable_bytes'])} usable"
    )


def smallest_fit(planner: Planner, plan: dict[str, Any], answer: dict[str, Any], max_gpus: int) -> str:
    """The smallest whole-node GPU count that fits, for the plan's arrangement and the best of the others."""
    keep = ("model", "precision", "precision_spec", "training", "activations", "levers", "parallelism")
    body: dict[str, Any] = {k: plan[k] for k in keep if k in plan}
    body["cluster"] = {k: v for k, v in plan["cluster"].items() if k not in ("world_size", "failures")}
    body["gpu_count_grid"] = "whole_nodes"
    max_gpus = min(max_gpus, MAX_GRID_POINTS * int(plan["cluster"]["gpus_per_node"]))
    body["max_gpus"] = max_gpus
    if isinstance(body.get("training"), dict):
        body["training"] = {k: v for k, v in body["training"].items() if k not in ("total_tokens", "checkpoint")}
    status, fit = planner.post("/v1/fit", body)
    if status != 200:
        return ""
    mine = answer.get("arrangement", {}).get("name")
    rows = [a for a in fit.get("arrangements", []) if a.get("min_gpus_whole_nodes")]
    same = [a for a in rows if a.get("arrangement") == mine]
    words = []
    if same:
        words.append(f"it fits from {same[0]['min_gpus_whole_nodes']} GPUs with {mine}")
    elif mine:
        words.append(f"{mine} never fits up to {max_gpus} GPUs")
    others = sorted((a for a in rows if a.get("arrangement") != mine), key=lambda a: a["min_gpus_whole_nodes"])
    if others:
        best = others[0]
        words.append(f"{best['arrangement']} fits from {best['min_gpus_whole_nodes']} GPUs")
    return "; ".join(words)


def decide(fields: dict[str, str], config: dict[str, Any]) -> dict[str, str]:
    found = plan_text(fields)
    if found is None:
        return {"decision": "skip"}
    source, text = found
    plan = load_plan(source, text, str(config["preset_dir"]))
    world, per_node = allocation(fields)
    plan = with_allocation(plan, world, per_node)
    planner = Planner(config)
    status, answer = planner.post("/v1/plan", plan)
    if status != 200:
        raise Refusal(f"the plan in {source} is refused by the planner: {problem_words(answer)}")
    memory, timing = answer["memory"], answer["time"]
    arrangement = answer.get("arrangement", {}).get("name", "")
    if not memory["fits"]:
        try:
            hint = smallest_fit(planner, plan, answer, int(config["max_gpus"]))
        except Unavailable:  # the plan has judged the job: a hint the planner cannot give now is left out
            hint = ""
        raise Refusal(f"the job does not fit: {shortfall(memory, arrangement, world)}" + (f"; {hint}" if hint else ""))
    words = (
        f"fits {gib(memory['per_gpu_bytes'])} of {gib(memory['usable_bytes'])} per GPU, step {timing['step_s']:.3g} s"
    )
    out = {"decision": "accept"}
    days = timing.get("training_days")
    if days is not None:
        minutes = math.ceil(days * 1440 * float(config["margin"]))
        words += f", predicted {days * 24:.4g} h at goodput {timing['goodput']:.3f}"
        raw = fields.get("time_limit", "").strip()
        limit = _count(raw)
        if raw in ("", str(NO_VAL)) and minutes >= NO_VAL:  # past a uint32 of minutes below NO_VAL and INFINITE
            words += ", no time limit set (the prediction is past the largest Slurm takes)"
        elif raw in ("", str(NO_VAL)):  # the job set no limit of its own
            out["time_limit"] = str(minutes)
            words += f", time limit {minutes} min (x{float(config['margin']):g} margin)"
        elif limit is not None and limit < days * 1440:
            words += f"; the job's own limit of {limit} min is shorter than the prediction"
    out["admin_comment"] = "zeroplan: " + words
    out["message"] = "zeroplan: " + words
    return out


def main() -> int:
    config = dict(DEFAULTS)
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as file:
            config |= json.load(file)
    try:
        fields = read_fields(sys.stdin.buffer)
        out = decide(fields, config)
    except Refusal as refusal:
        out = {"decision": "reject", "message": f"zeroplan: {refusal}"}
    except Unavailable as error:
        if config["on_error"] == "reject":
            out = {
                "decision": "reject",
                "message": f"zeroplan: the planner is unavailable ({error}); refused by site policy",
            }
        else:
            out = {
                "decision": "accept",
                "message": f"zeroplan: the planner is unavailable ({error}); accepted unchecked",
                "admin_comment": f"zeroplan: unchecked, the planner was unavailable ({error})",
            }
    for key, value in out.items():
        sys.stdout.write(f"{key} {' '.join(value.split())}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
