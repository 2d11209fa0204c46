"""Human numbers for the command line and request files: 70B, 7e9, 1.5T, 30_000, 80GB, 80GiB.

Counts take the short-scale suffixes K, M, B (billion) and T; byte fields take SI and IEC units
(kB, MB, GB, TB; KiB, MiB, GiB, TiB). A bare "B" on a byte field would read as either a
billion or a byte, so it is refused there. Results are exact: 1.5T is 1,500,000,000,000.
"""

import re
from decimal import Decimal, InvalidOperation

COUNT_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
BYTE_UNITS = {
    "": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
NUMBER = re.compile(r"\s*(?P<number>[+-]?(\d[\d_]*)?(\.\d+)?([eE][+-]?\d+)?)\s*(?P<suffix>[A-Za-z]*)\s*")


class NotANumber(ValueError):
    pass


def _split(text: str) -> tuple[Decimal, str]:
    match = NUMBER.fullmatch(text)
    if not match or not any(ch.isdigit() for ch in match["number"]):
        raise NotANumber(f"{text!r} is not a number")
    try:
        return Decimal(match["number"].replace("_", "")), match["suffix"].lower()
    except InvalidOperation:
        raise NotANumber(f"{text!r} is not a number") from None


def _whole(value: Decimal, text: str) -> int:
    if value != value.to_integral_value():
        raise NotANumber(f"{text!r} is not a whole number")
    return int(value)


def parse_count(text: str) -> int:
    """'70B' -> 70_000_000_000, '7e9' -> 7_000_000_000, '1.5T', '30_000', '8'."""
    value, suffix = _split(text)
    if suffix not in COUNT_SUFFIXES:
        raise NotANumber(f"{text!r}: unknown suffix {suffix!r}; use K, M, B (billion) or T")
    return _whole(value * COUNT_SUFFIXES[suffix], text)


def parse_bytes(text: str) -> int:
    """'80GB' -> 80_000_000_000, '80GiB' -> 85_899_345_920, '25MiB', '80e9'."""
    value, unit = _split(text)
    if unit == "b":
        raise NotANumber(f"{text!r}: write bytes as a number or with a unit (GB, GiB, ...), not a bare B")
    if unit not in BYTE_UNITS:
        raise NotANumber(f"{text!r}: unknown unit {unit!r}; use kB, MB, GB, TB, KiB, MiB, GiB or TiB")
    return _whole(value * BYTE_UNITS[unit], text)


def parse_float(text: str) -> float:
    """'989e12', '0.4', '1.5T' (a count suffix scales a rate or a price as it scales a count)."""
    value, suffix = _split(text)
    if suffix not in COUNT_SUFFIXES:
        raise NotANumber(f"{text!r}: unknown suffix {suffix!r}; use K, M, B (billion) or T")
    return float(value * COUNT_SUFFIXES[suffix])
