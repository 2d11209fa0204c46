"""The job store's two databases behind one small interface: SQLite (embedded) and PostgreSQL.

``open_database(url)`` takes ``sqlite:///relative/path``, ``sqlite:////absolute/path`` or a libpq
URI (``postgresql://user@host:port/dbname``). Statements are written once with ``?`` placeholders
and ``{now}`` for the database's clock in Unix seconds (leases are measured on the database's
clock, so replicas on hosts whose clocks differ still agree on when a lease expires).

``transaction(exclusive=True)`` serialises the short critical sections that count and then write
(admission, claims): SQLite's ``BEGIN IMMEDIATE`` takes the database's write lock; PostgreSQL
takes a transaction-scoped advisory lock (``pg_advisory_xact_lock``, released at commit).
Every transaction has a time limit: SQLite's busy timeout, PostgreSQL's ``statement_timeout``.

psycopg 3 (with psycopg_pool) is imported only for a PostgreSQL URL: the ``postgres`` extra.
"""

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, Protocol

POSTGRES_EXTRA_HINT = "pip install 'zeroplan[postgres]'"
ADVISORY_LOCK_KEY = 0x7A65_726F  # one application-wide key: "zero"
SQLITE_NOW = "((julianday('now') - 2440587.5) * 86400.0)"
POSTGRES_NOW = "(EXTRACT(EPOCH FROM clock_timestamp())::double precision)"


class DatabaseUnavailable(Exception):
    """The database cannot be reached, is locked past its timeout, or is not a database."""


class Cursor(Protocol):
    def run(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    @property
    def rowcount(self) -> int: ...


class Database(Protocol):
    dialect: str
    url: str

    def transaction(
        self, exclusive: bool = False, timeout_s: float | None = None
    ) -> AbstractContextManager[Cursor]: ...

    def close(self) -> None: ...


def open_database(url: str, timeout_s: float = 10.0) -> Database:
    if url.startswith("sqlite:///"):
        return SqliteDatabase(url.removeprefix("sqlite:///"), timeout_s)
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(url, timeout_s)
    raise ValueError(f"database URL {redact(url)!r}: expected sqlite:///PATH or postgresql://...")


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, at, host = rest.rpartition("@")
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in credentials else f"{scheme}://{user}@{host}"


class _SqliteCursor:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db, self._rowcount = db, 0

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self._db.execute(sql.format(now=SQLITE_NOW), tuple(params))
        self._rowcount = cur.rowcount
        return [dict(row) for row in cur.fetchall()]

    @property
    def rowcount(self) -> int:
        return self._rowcount


class SqliteDatabase:
    """One connection per transaction (threads never share one); WAL so readers do not wait on writers."""

    dialect = "sqlite"

    def __init__(self, path: str, timeout_s: float) -> None:
        self.path, self.timeout_s, self.url = path, timeout_s, f"sqlite:///{path}"
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        try:
            with closing(sqlite3.connect(path, timeout=timeout_s, isolation_level=None)) as db:
                db.execute("PRAGMA journal_mode=WAL")  # outside any transaction, as SQLite requires
        except sqlite3.Error as exc:
            raise DatabaseUnavailable(f"{path}: {exc}") from exc

    @contextmanager
    def transaction(self, exclusive: bool = False, timeout_s: float | None = None) -> Iterator[_SqliteCursor]:
        try:
            db = sqlite3.connect(self.path, timeout=timeout_s or self.timeout_s, isolation_level=None)
        except sqlite3.Error as exc:
            raise DatabaseUnavailable(f"{self.path}: {exc}") from exc
        db.row_factory = sqlite3.Row
        try:
            db.execute("BEGIN IMMEDIATE" if exclusive else "BEGIN")
            yield _SqliteCursor(db)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise DatabaseUnavailable(f"{self.path}: {exc}") from exc
        finally:
            if db.in_transaction:
                db.rollback()
            db.close()

    def close(self) -> None:
        pass


class _PostgresCursor:
    def __init__(self, cur: Any) -> None:
        self._cur = cur

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        self._cur.execute(sql.format(now=POSTGRES_NOW).replace("?", "%s"), tuple(params))
        return list(self._cur.fetchall()) if self._cur.description else []

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)


class PostgresDatabase:
    """A small connection pool; each transaction sets its own statement timeout."""

    dialect = "postgresql"

    def __init__(self, url: str, timeout_s: float) -> None:
        try:
            import psycopg
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise DatabaseUnavailable(f"a PostgreSQL URL needs psycopg 3: {POSTGRES_EXTRA_HINT}") from exc
        self.url, self.timeout_s, self._errors = url, timeout_s, (psycopg.Error, TimeoutError)
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=4,
            kwargs={"row_factory": dict_row, "connect_timeout": max(1, int(timeout_s))},
            check=ConnectionPool.check_connection,
            open=False,
            name="zeroplan-jobs",
        )
        try:
            self._pool.open(wait=True, timeout=timeout_s)
        except Exception as exc:
            self._pool.close()
            raise DatabaseUnavailable(f"{redact(url)}: {exc}") from exc

    @contextmanager
    def transaction(self, exclusive: bool = False, timeout_s: float | None = None) -> Iterator[_PostgresCursor]:
        limit_s = timeout_s or self.timeout_s
        try:
            with self._pool.connection(timeout=limit_s) as conn, conn.transaction(), conn.cursor() as cur:
                cur.execute(f"SET LOCAL statement_timeout = {int(limit_s * 1000)}")
                if exclusive:
                    cur.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK_KEY,))
                yield _PostgresCursor(cur)
        except self._errors as exc:
            raise DatabaseUnavailable(f"{redact(self.url)}: {exc}") from exc

    def close(self) -> None:
        self._pool.close()
