"""Processes of simulation jobs on this machine (Linux /proc): who we are, what runs, what to kill.

- A runner's identity (``owner``): host name, pid, the pid's start time and a random token. On
  the same node another process can tell a dead owner from a live one by the pid and its start
  time, so a restart after ``kill -9`` takes over at once instead of waiting for the lease.
- A node is what shares processes and files: the boot id and the pid and mount namespaces. Only a
  runner on the job's node can see its processes and its directory.
- A job's processes are found by their command line, which names the job's directory
  (``zeroplan-job-<id>``): the launcher and the ranks it forks share it, and it survives the
  death of the process that started them.
- A simulation process gets only the environment it needs: no ``ZEROPLAN_*`` setting, no token.
"""

import os
import secrets
import signal
import socket
import time
from pathlib import Path

JOB_DIR_PREFIX = "zeroplan-job-"
GROUP_EXIT_WAIT_S = 5.0
# What a simulation process may inherit: the interpreter's search path, locale, thread counts and
# gloo's interface choice. Everything else (tokens, database URLs, cloud credentials) stays out.
INHERITED_ENV = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LD_LIBRARY_PATH",
    "VIRTUAL_ENV",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "GLOO_SOCKET_IFNAME",
    "TP_SOCKET_IFNAME",
)


def node_id() -> str:
    parts = [Path("/proc/sys/kernel/random/boot_id").read_text().strip()]
    parts += [os.readlink(f"/proc/self/ns/{ns}") for ns in ("pid", "mnt")]
    return "/".join(parts)


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), None when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def new_owner() -> dict[str, str]:
    pid = os.getpid()
    host = socket.gethostname()
    return {"id": f"{host}:{pid}:{start_ticks(pid)}:{secrets.token_hex(4)}", "node": node_id(), "host": host}


def owner_dead(owner_id: str) -> bool:
    """For an owner on this node: its process is gone (or its pid now names another process)."""
    try:
        _, pid, ticks, _ = owner_id.rsplit(":", 3)
        return start_ticks(int(pid)) != int(ticks)
    except ValueError:
        return False


def job_dir(root: Path, job_id: str) -> Path:
    return root / f"{JOB_DIR_PREFIX}{job_id}"


def job_processes(job_id: str) -> list[int]:
    """Live processes whose command line names this job's directory."""
    marker = f"{JOB_DIR_PREFIX}{job_id}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker in (entry / "cmdline").read_bytes() and start_ticks(int(entry.name)) is not None:
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def kill_job(job_id: str, pgid: int | None) -> bool:
    """SIGKILL the job's process group and every process naming its directory; wait (briefly) until
    none is left. True when none is.

    A process on its way out has already dropped its command line while /proc still lists it as
    running, so the group (when it is still this job's) is waited for by its members, not names."""
    group = pgid if pgid and any(_pgid(pid) == pgid for pid in job_processes(job_id)) else None
    if group is not None:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + GROUP_EXIT_WAIT_S
    while True:
        pids = job_processes(job_id) + (group_members(group) if group is not None else [])
        if not pids or time.monotonic() > deadline:
            return not pids
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)


def group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that have not exited (zombies count as gone)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _pgid(int(entry.name)) == pgid and start_ticks(int(entry.name)) is not None:
            members.append(int(entry.name))
    return members


def _pgid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return None


def job_env(extra: dict[str, str]) -> dict[str, str]:
    env = {name: os.environ[name] for name in INHERITED_ENV if name in os.environ}
    return {**env, **extra}
