"""A real single-node Slurm for the tests: Debian's munged, slurmctld and slurmd in the foreground,
on free ports, in a temporary folder, stopped by their PIDs.

Facts of this set-up (Slurm 22.05): GPUs declared by count alone leave the node invalid, so
gres.conf names device files (fake character devices made in the folder); every client command
needs SLURM_CONF; a syntax error in job_submit.lua stops slurmctld at start.
"""

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "scontrol", "squeue")
GPUS = 8
SEARCH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def missing() -> str | None:
    """Why a Slurm cannot be started here, or None."""
    if os.geteuid() != 0:
        return "the Slurm tests start munged, slurmctld and slurmd as root; run them as root (make test)"
    paths = {name: shutil.which(name, path=SEARCH_PATH) for name in (*DAEMONS, *CLIENTS, "curl")}
    absent = [name for name, path in paths.items() if path is None]
    if absent:
        return f"{', '.join(absent)} not installed (apt-get install slurmctld slurmd slurm-client munge; make slurm)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Slurm:
    root: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        path = os.environ.get("PATH", "") + ":" + SEARCH_PATH  # the daemons live in /usr/sbin
        return {**os.environ, "PATH": path, "SLURM_CONF": str(self.root / "slurm.conf")}

    def run(self, *args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=timeout, check=False)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def log(self, name: str) -> str:
        path = self.root / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _write_config(root: Path, host: str) -> None:
    devices = root / "dev"
    devices.mkdir()
    for i in range(GPUS):
        os.mknod(devices / f"nvidia{i}", 0o600 | 0o020000, os.makedev(195, i))  # character devices
    (root / "gres.conf").write_text(f"NodeName={host} Name=gpu File={devices}/nvidia[0-{GPUS - 1}]\n")
    for sub in ("state", "spool"):
        (root / sub).mkdir()
    (root / "slurm.conf").write_text(
        f"""ClusterName=zeroplan-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={root}/munge.socket
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobSubmitPlugins=lua
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:{GPUS} State=UNKNOWN
PartitionName=gpu Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
    )


def start(root: Path, lua_files: dict[str, str], deadline_s: float = 30) -> Slurm:
    """munged, slurmctld and slurmd on free ports under root; lua_files: name -> text beside slurm.conf."""
    host = socket.gethostname().split(".")[0]
    _write_config(root, host)
    for name, text in lua_files.items():
        (root / name).write_text(text)
    key = root / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    slurm = Slurm(root)
    commands = [
        [
            "munged",
            "-F",
            "-f",
            f"--socket={root}/munge.socket",
            f"--key-file={key}",
            f"--log-file={root}/munged.log",
            f"--pid-file={root}/munged.pid",
            f"--seed-file={root}/munged.seed",
        ],
        ["slurmctld", "-D", "-i", "-f", str(root / "slurm.conf")],
        ["slurmd", "-D", "-f", str(root / "slurm.conf"), "-N", host],
    ]
    try:
        for command in commands:
            out = (root / f"{command[0]}.out").open("wb")
            command[0] = shutil.which(command[0], path=SEARCH_PATH) or command[0]
            slurm.processes.append(
                subprocess.Popen(command, env=slurm.env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
            )
            _wait_for(slurm, Path(command[0]).name, deadline_s)
    except BaseException:
        slurm.stop()
        raise
    return slurm


def _wait_for(slurm: Slurm, name: str, deadline_s: float) -> None:
    stop_at = time.monotonic() + deadline_s
    process = slurm.processes[-1]
    while time.monotonic() < stop_at:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited {process.returncode}: {_tail(slurm, name)}")
        if name == "munged" and (slurm.root / "munge.socket").exists():
            return
        if name == "slurmctld" and slurm.run("scontrol", "ping", timeout=5).stdout.find("UP") >= 0:
            return
        if name == "slurmd":
            state = slurm.run("sinfo", "-h", "-o", "%t", timeout=5).stdout.strip()
            if state in ("idle", "mix", "alloc"):
                return
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not come up in {deadline_s:g} s: {_tail(slurm, name)}")


def _tail(slurm: Slurm, name: str) -> str:
    text = slurm.log(name) + (slurm.root / f"{name}.out").read_text(errors="replace")
    return text[-2000:]
