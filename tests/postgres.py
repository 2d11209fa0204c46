"""A throwaway PostgreSQL cluster for the tests and the chaos benchmark (Debian's `postgresql`).

``initdb`` a fresh cluster in a temporary directory, start it with ``pg_ctl`` on a free loopback
port (no fsync: nothing here needs to survive), hand out one fresh database per caller, and stop
and remove it all at the end. PostgreSQL refuses to run as root, so as root the cluster runs as
the ``postgres`` user that Debian's package creates (``runuser``). When the binaries, that user
or psycopg are missing, ``ClusterUnavailable`` says which; the tests skip with that reason.
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

START_TIMEOUT_S = 30


class ClusterUnavailable(Exception):
    pass


def _bindir() -> Path:
    for initdb in [shutil.which("initdb"), *sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)]:
        if initdb and Path(initdb).resolve().with_name("pg_ctl").exists():
            return Path(initdb).resolve().parent
    raise ClusterUnavailable("PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)")


def _runner() -> tuple[list[str], str | None]:
    """The command prefix that runs a server binary, and the user that owns the cluster's files."""
    if os.geteuid() != 0:
        return [], None
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise ClusterUnavailable("running as root and there is no postgres user to run the server") from exc
    if not shutil.which("runuser"):
        raise ClusterUnavailable("running as root and runuser is missing")
    return ["runuser", "-u", "postgres", "--"], "postgres"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a cluster; yield the URL of its ``postgres`` database as superuser ``zeroplan``."""
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise ClusterUnavailable("psycopg is not installed (pip install 'zeroplan[postgres]')") from exc
    bindir = _bindir()
    prefix, user = _runner()
    base = Path(tempfile.mkdtemp(prefix="zeroplan-pg-"))
    if user:
        shutil.chown(base, user)
    data, port = base / "data", _free_port()
    try:
        _run(
            [*prefix, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "zeroplan", "-E", "UTF8"]
            + ["--no-sync", "--no-instructions"]
        )
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        _run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log")]
            + ["-w", "-t", str(START_TIMEOUT_S), "start"]
        )
        try:
            yield f"postgresql://zeroplan@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=START_TIMEOUT_S,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def fresh_database(url: str) -> str:
    """Create an empty database on the cluster at ``url``; answer its URL."""
    import psycopg

    name = f"jobs_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + f"/{name}"


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        program = next(Path(part).name for part in command if "/" in part)
        raise ClusterUnavailable(f"{program} failed: {result.stderr.strip()[-500:]}")
