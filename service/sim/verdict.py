"""One verdict for every simulation engine, with the checks it is made of.

``verdict`` means the same for the hand-written rings and for PyTorch's engines:
- ``confirmed``: every rank finished and every check below passed;
- ``refuted``: every rank finished and at least one check failed (its row says which and by how much);
- ``incomplete``: a rank failed, was dropped or the job ran out of time, so nothing was confirmed
  (a fault injected on purpose ends here: see the report's ``faults``).
A check is one comparison of a measurement with the plan's figure: ``passed`` is true or false, or
null where the engine cannot measure it (bytes on the wire under NCCL); a null check neither
confirms nor refutes.
"""

from typing import Any

CONFIRMED, REFUTED, INCOMPLETE = "confirmed", "refuted", "incomplete"


def check(arrangement: str, name: str, passed: bool | None, detail: str) -> dict[str, Any]:
    return {"arrangement": arrangement, "check": name, "passed": passed, "detail": detail}


def verdict(complete: bool, checks: list[dict[str, Any]]) -> str:
    if not complete:
        return INCOMPLETE
    return CONFIRMED if all(c["passed"] is not False for c in checks) else REFUTED
