"""zeroplan worker: run queued simulation jobs from the shared job store, without HTTP.

With ``ZEROPLAN_SIM_RUNNER=worker`` the API processes only queue jobs and these processes run
them; any number of them may share one database (``ZEROPLAN_DATABASE_URL``, PostgreSQL for
several machines), and the ``ZEROPLAN_SIM_*`` limits hold across all of them. SIGTERM or SIGINT
stops taking jobs, lets running ones end within ``ZEROPLAN_SIM_SHUTDOWN_GRACE_S`` and hands the
rest back to the queue.
"""

import argparse
import logging
import signal
import sys
import threading
from typing import Any

from api.jobs import job_limits
from api.logs import configure_logging
from api.settings import Settings
from service.sim import require_sim
from service.sim.db import DatabaseUnavailable, redact
from service.sim.errors import SimulationUnavailable
from service.sim.store import JobStore

log = logging.getLogger("zeroplan.jobs")


def add_worker_parser(commands: Any) -> None:
    sub = commands.add_parser("worker", help="run queued simulation jobs from the job store (no HTTP)")
    sub.add_argument("--log-level", help="critical, error, warning, info, debug (ZEROPLAN_LOG_LEVEL)")
    sub.set_defaults(handler=work)


def work(args: argparse.Namespace) -> int:
    from service.sim.runner import JobRunner

    settings = Settings()
    configure_logging(args.log_level or settings.log_level)
    try:
        require_sim()
        store = JobStore(settings.job_store_url)
    except (SimulationUnavailable, DatabaseUnavailable, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    runner = JobRunner(store, job_limits(settings))
    runner.start()
    log.info("worker started", extra={"fields": {"store": redact(settings.job_store_url), **runner.owner}})
    while not stop.wait(1.0):  # a timeout, so that the signal handler runs promptly
        pass
    log.info("worker stopping", extra={"fields": {"running": runner.local_ids()}})
    runner.shutdown()
    store.close()
    return 0
