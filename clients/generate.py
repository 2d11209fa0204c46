"""Generate the Python client in clients/python/ from openapi/openapi.json (openapi-python-client).

``make openapi`` runs it after writing the spec, so the committed client always matches the
committed spec; tests/api/test_client.py regenerates it into a temporary folder and compares.
The generator formats its output with ruff from the same environment, so the result depends only
on the spec and the pinned generator. One setting: the figures' image types (valid OpenAPI,
`type: string, format: binary`) are read as application/octet-stream, the binary type the
generator knows.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
CLIENT_DIR = ROOT / "clients" / "python"
PACKAGE = "zeroplan_client"
CONFIG = {
    "project_name_override": "zeroplan-client",
    "package_name_override": PACKAGE,
    "content_type_overrides": {"image/png": "application/octet-stream", "image/svg+xml": "application/octet-stream"},
}
TIMEOUT_S = 300

# The generator's README is its template (an example service, `MyDataModel`); this one is the service's.
CLIENT_README = """\
# zeroplan-client

A Python client for the zeroplan planning service (memory, traffic and step time of distributed
training), generated from the service's `openapi/openapi.json` by openapi-python-client: attrs
models, httpx, a sync and an async call per endpoint. Regenerate it with `make openapi` in the
service's repository; do not edit it by hand.

    pip install ./clients/python

## A worked example: does Llama 3 70B fit 64 H100s under ZeRO-3?

```python
from zeroplan_client import Client
from zeroplan_client.api.planning import plan
from zeroplan_client.models import PlanRequest

body = {
    "model": {"preset": "llama-3-70b"},
    "training": {"micro_batch_size": 1, "sequence_length": 8192},
    "cluster": {"world_size": 64, "gpus_per_node": 8, "gpu": "h100-80gb"},
    "arrangement": "zero3",
    "levers": {"recompute": "full"},
}
with Client(base_url="http://127.0.0.1:8000") as client:
    answer = plan.sync(client=client, body=PlanRequest.from_dict(body))
    memory = answer.memory
    # per GPU = model states + working set + activations; it fits when at most the usable bytes
    print(memory.model_state_bytes, memory.working_set_bytes, memory.activations_bytes, memory.per_gpu_bytes)
    print(memory.usable_bytes, memory.fits, answer.time.step_s, answer.time.mfu)
```

With `ZEROPLAN_API_TOKEN` set on the service, use
`AuthenticatedClient(base_url="http://127.0.0.1:8000", token="...")`. A refused request answers a
`Problem` (RFC 9457: `code`, `detail`, `errors` with JSON pointers) instead of the answer model.

## Endpoints

`zeroplan_client.api.planning`: `plan`, `fit`, `recommend`, `limits`, `list_presets`;
`zeroplan_client.api.sweep`: `sweep`; `zeroplan_client.api.search`: `search`;
`zeroplan_client.api.figures`: `draw_figure`, `get_figure`;
`zeroplan_client.api.simulations`: `create_simulation`, `get_simulation`, `cancel_simulation`;
`zeroplan_client.api.health`: `healthz`, `readyz`. Each module has `sync`, `sync_detailed`,
`asyncio` and `asyncio_detailed`.

## A sweep as CSV

`/v1/sweep` answers CSV when asked with `Accept: text/csv`; `zeroplan_client.sweep_csv.sweep_csv` asks
so through the same client (its base URL, token and timeouts) and returns the text:

```python
from zeroplan_client import Client
from zeroplan_client.sweep_csv import sweep_csv

body = {
    "base": {
        "model": {"preset": "llama-3-8b"},
        "cluster": {"world_size": 8, "gpu": "h100-80gb"},
        "arrangement": "zero3",
    },
    "axes": {"world_size": [8, 16, 32, 64], "arrangement": ["zero2", "zero3"]},
}
with Client(base_url="http://127.0.0.1:8000") as client:
    print(sweep_csv(client, body))  # a header line, then one row per cell
```
"""

# One module the generator does not write: the CSV form of /v1/sweep, which its JSON-only parser cannot read.
CSV_MODULE = '''"""The CSV form of POST /v1/sweep (`Accept: text/csv`), through a generated client."""

from typing import Any

from .client import AuthenticatedClient, Client
from .errors import UnexpectedStatus
from .models.sweep_request import SweepRequest


def sweep_csv(client: AuthenticatedClient | Client, body: SweepRequest | dict[str, Any]) -> str:
    """The sweep's rows as CSV text; a refused request raises UnexpectedStatus with its problem body."""
    json_body = body.to_dict() if isinstance(body, SweepRequest) else body
    response = client.get_httpx_client().post("/v1/sweep", json=json_body, headers={"Accept": "text/csv"})
    if response.status_code != 200:
        raise UnexpectedStatus(response.status_code, response.content)
    return response.text
'''


def generate(out: Path, spec: Path = SPEC) -> str:
    """Write the client package (with its setup.py) to `out`, replacing it; returns the generator's report."""
    bin_dir = Path(sys.executable).parent
    generator = bin_dir / "openapi-python-client"
    if not generator.exists():
        raise SystemExit("openapi-python-client is missing: pip install -e '.[dev]'")
    env = os.environ | {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "config.json"
        config.write_text(json.dumps(CONFIG))
        target = Path(work) / "client"
        command = [str(generator), "generate", "--path", str(spec), "--meta", "setup", "--config", str(config)]
        command += ["--output-path", str(target)]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S, cwd=work)
        report = result.stdout + result.stderr
        if result.returncode != 0:
            raise SystemExit(f"openapi-python-client failed:\n{report}")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(target, out, ignore=shutil.ignore_patterns(".ruff_cache", "__pycache__"))
    (out / "README.md").write_text(CLIENT_README)
    (out / PACKAGE / "sweep_csv.py").write_text(CSV_MODULE)
    return report


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else CLIENT_DIR
    generate(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
