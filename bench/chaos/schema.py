"""schemathesis with every check and every phase (examples, coverage, fuzzing, stateful) against
a running service: prints the failures found (the figure: 0).

positive_data_acceptance is configured to accept a 422 besides 2xx: JSON Schema cannot state
every rule of the contract (world_size a whole number of nodes, an architecture's heads dividing
its width), so a schema-valid body may break one and get its documented 422; 404 and 429 for a
simulation id that does not exist and a limit reached. negative_data_rejection also takes a 413: an invalid
body fuzzed past ZEROPLAN_MAX_BODY_BYTES is refused unread. The server runs no simulations, so a valid
createSimulation is its documented 503 simulation_unavailable. Every other check runs as shipped.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.chaos.load import ROOT, free_port

CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "404", "422", "429"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]

# the server runs no simulations (ZEROPLAN_SIM_MAX_CONCURRENT_JOBS 0): a valid start is its documented 503
[[operations]]
include-operation-id = "createSimulation"
checks.not_a_server_error.expected-statuses = ["2xx", "4xx", "503"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "422", "503"]
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--schema-examples", type=int, default=30, help="schema section: examples per operation")


def run(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    env = os.environ | {"ZEROPLAN_ACCESS_LOG": "false", "ZEROPLAN_SIM_MAX_CONCURRENT_JOBS": "0"}
    command = [sys.executable, "-m", "bench.server", "zeroplan", str(port), "3600"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        with tempfile.TemporaryDirectory() as tmp:
            config = Path(tmp) / "schemathesis.toml"
            config.write_text(CONFIG)
            st = [str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config), "run"]
            st += [f"{url}/openapi.json", "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful"]
            st += ["--max-examples", str(args.schema_examples), "--seed", "6", "--request-timeout", "60"]
            done = subprocess.run(st, cwd=tmp, capture_output=True, text=True, timeout=3000)
    finally:
        server.terminate()
        server.wait(timeout=30)
    output = done.stdout + done.stderr
    print(output[-6000:], flush=True)
    found = re.findall(r"(\d+) failures?", output)
    failures = sum(int(n) for n in found) if found else (0 if done.returncode == 0 else -1)
    figures = {"schemathesis_exit": done.returncode, "failures": failures}
    figures["checks"] = {"schemathesis: 0 failures": done.returncode == 0}
    print(f"schemathesis exit code {done.returncode}", flush=True)
    return figures
