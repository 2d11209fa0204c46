"""Frozen dataclasses hashed once: the plan's memoised steps (functools.lru_cache) hash the same arrangement and
collectives several times a plan, and a dataclass's generated ``__hash__`` builds the tuple of its fields each time."""

from dataclasses import fields
from typing import Any, TypeVar

KEPT = "_hash"  # the instance's __dict__ key of its kept hash
T = TypeVar("T")


def keeps_hash(cls: type[T]) -> type[T]:
    """Give a frozen dataclass a hash of its fields computed once and kept in its ``__dict__`` (apply it above
    ``@dataclass``). Strings and string enums hash differently in every process, so the kept hash does not travel
    with a pickled copy (``__getstate__``); ``dataclasses.replace`` builds a new instance, whose hash is its own."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def __hash__(self: Any) -> int:
        kept: int | None = self.__dict__.get(KEPT)
        if kept is None:
            kept = self.__dict__[KEPT] = hash(tuple(getattr(self, name) for name in names))
        return kept

    def __getstate__(self: Any) -> dict[str, object]:
        return {key: value for key, value in self.__dict__.items() if key != KEPT}

    cls.__hash__ = __hash__  # type: ignore[method-assign]
    cls.__getstate__ = __getstate__  # type: ignore[method-assign]
    return cls
