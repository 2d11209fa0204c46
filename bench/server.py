"""Run one app under uvicorn on 127.0.0.1 until a deadline or until the parent process goes away.

python -m bench.server {zeroplan|trivial} PORT DEADLINE_S
"""

import os
import sys
import threading
import time

import uvicorn

from api.settings import Settings
from cli.serve import http_protocol

APPS = {"zeroplan": "api.app:create_app", "trivial": "bench.trivial:create_app"}
WATCH_INTERVAL_S = 0.5


def watchdog(server: uvicorn.Server, parent_pid: int, deadline_s: float) -> None:
    stop_at = time.monotonic() + deadline_s
    while not server.should_exit:
        if os.getppid() != parent_pid or time.monotonic() > stop_at:
            server.should_exit = True
        time.sleep(WATCH_INTERVAL_S)


def main() -> None:
    name, port, deadline_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    config = uvicorn.Config(
        APPS[name],
        factory=True,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        **(http_protocol(Settings()) if name == "zeroplan" else {}),
    )
    server = uvicorn.Server(config)
    threading.Thread(target=watchdog, args=(server, os.getppid(), deadline_s), daemon=True).start()
    server.run()


if __name__ == "__main__":
    main()
