"""Sharded checkpoints with a manifest (shape after torch.distributed.checkpoint's metadata file).

Each rank writes ``shard-<rank>.pt`` holding the state it really holds (its chunks when sharded).
The ranks then exchange (rank, file, bytes, sha256) and rank 0 writes ``manifest.json`` listing
the world size, the run and every shard that was written. Loading checks that every rank
0..N-1 has an entry, that its file exists and that its size and sha256 match; otherwise it is
refused with IncompleteCheckpoint naming every missing or corrupt shard.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from models.enums import StateClass
from service.sim.errors import IncompleteCheckpoint

MANIFEST = "manifest.json"


def shard_name(rank: int) -> str:
    return f"shard-{rank}.pt"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(trainer: Any, directory: str, write: bool = True) -> None:
    """Collective: every rank calls it; a rank with ``write=False`` skips its shard (a fault)."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    entry = None
    if write:
        path = root / shard_name(trainer.rank)
        state = {s.value: [t.clone() for t in ts] for s, ts in trainer.state.items()}
        torch.save({"step_count": trainer.step_count, "state": state}, path)
        entry = {"rank": trainer.rank, "file": path.name, "bytes": path.stat().st_size, "sha256": _sha256(path)}
    entries: list[Any] = [None] * trainer.n
    dist.all_gather_object(entries, entry)
    if trainer.rank == 0:
        manifest = {
            "world_size": trainer.n,
            "run": vars(trainer.run),
            "step_count": trainer.step_count,
            "shards": [e for e in entries if e is not None],
        }
        (root / MANIFEST).write_text(json.dumps(manifest, indent=1))
    dist.barrier()


def verify(directory: str, world_size: int) -> dict[str, Any]:
    """The manifest if every shard is there and intact; else IncompleteCheckpoint."""
    root = Path(directory)
    if not (root / MANIFEST).exists():
        raise IncompleteCheckpoint([MANIFEST])
    manifest: dict[str, Any] = json.loads((root / MANIFEST).read_text())
    listed = {e["rank"]: e for e in manifest["shards"]}
    problems = []
    for rank in range(world_size):
        entry, path = listed.get(rank), root / shard_name(rank)
        if entry is None or not path.exists():
            problems.append(f"{shard_name(rank)} (rank {rank}: missing)")
        elif path.stat().st_size != entry["bytes"] or _sha256(path) != entry["sha256"]:
            problems.append(f"{shard_name(rank)} (rank {rank}: checksum mismatch)")
    if problems:
        raise IncompleteCheckpoint(problems)
    return manifest


def load(trainer: Any, directory: str) -> None:
    """Restore this rank's state in place after verifying the whole checkpoint."""
    manifest = verify(directory, trainer.n)
    data = torch.load(Path(directory) / shard_name(trainer.rank), weights_only=True)
    for state, tensors in trainer.state.items():
        for held, saved in zip(tensors, data["state"][state.value], strict=True):
            held.copy_(saved)
    trainer.step_count = data["step_count"]
    assert manifest["step_count"] == trainer.step_count


def states_equal(a: dict[StateClass, list[torch.Tensor]], b: dict[StateClass, list[torch.Tensor]]) -> bool:
    return all(torch.equal(x, y) for s in a for x, y in zip(a[s], b[s], strict=True))
