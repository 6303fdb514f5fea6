"""The PostgreSQL hot path of single rounds: psycopg 3 async, no ORM, no worker thread.

``POST /v1/rounds`` and ``GET /v1/rounds/{id}`` on PostgreSQL come here (SQLite, and every other route, go through
SQLAlchemy sessions in :mod:`app.store.rounds`). Each request takes one connection from a small pool of
autocommit connections and runs prepared statements on it:

- a submission is one statement (:data:`INSERT_ROUND`): the round and its findings in a data-modifying CTE, atomic
  without BEGIN/COMMIT round trips; the stored submission is read only when the round_id was already taken. The
  statements of submissions that arrive together are sent together, in one pipeline and one transaction
  (:meth:`PgRounds._grouped`): one round trip and one commit for the group, each request answered as if alone;
- a lookup is one statement.

The pool is deliberately small and plain: no reset round trip when a connection comes back (an autocommit
connection that is idle needs none), a broken connection is dropped, and a database that cannot be reached fails
the request at once (``psycopg.OperationalError``, answered 503) instead of waiting for a background reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import orjson
import psycopg
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import namedtuple_row
from sqlalchemy.dialects import postgresql

from app.store import chain
from app.store import keys as keys_repo
from app.store import rounds as rounds_repo
from app.store.db import DatabaseTimeout
from app.store.models import api_keys_table as K
from app.store.models import findings_table as F
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.store.rounds import Stored

T = TypeVar("T")


class PoolTimeout(psycopg.OperationalError):
    """No connection became free within the pool timeout (answered 503, database-unavailable, saying so)."""


class KeyRevoked(Exception):
    """The API key a submission was let through on was revoked before its statement ran: nothing was stored."""


_ROUND_COLUMNS = [c.name for c in R.c if c.name != "id"]
_ROUND_OF_FINDING = ("source", "jurisdiction", "table_id", "played_at")
_FINDING_COLUMNS = [c for c in F.c if c.name not in ("round_pk", *_ROUND_OF_FINDING)]
_PG_TYPES = {
    "seq": "int",
    "event_index": "int",
    "amount_delta": "bigint",
    "audit_no": "int",
    "corrected_by": "int",
    "corrected_actual": "bigint",
}
_FINDING_RECORD = ", ".join(f"{c.name} {_PG_TYPES.get(c.name, 'text')}" for c in _FINDING_COLUMNS)

_KEY_COLUMNS = ("round_id", "source", "jurisdiction", "played_at")

# Parameters in a SELECT list need their types; no length (an explicit cast to varchar(n) would truncate where the
# insert refuses a value too long).
_PG = postgresql.dialect()  # type: ignore[no-untyped-call]
_PG_COLUMN_TYPES = {c.name: re.sub(r"\(\d+\)", "", c.type.compile(dialect=_PG)) for c in R.c}


def _typed(columns: Sequence[str]) -> str:
    return ", ".join(f"%({c})s::{_PG_COLUMN_TYPES[c]}" for c in columns)


INSERT_ROUND = (
    f"WITH k AS (INSERT INTO {RK.name} ({', '.join(_KEY_COLUMNS)}) "
    f"VALUES ({', '.join(f'%({c})s' for c in _KEY_COLUMNS)}) "
    "ON CONFLICT (round_id, source, jurisdiction) DO NOTHING RETURNING id), "
    f"r AS (INSERT INTO {R.name} (id, {', '.join(_ROUND_COLUMNS)}) "
    f"SELECT k.id, {_typed(_ROUND_COLUMNS)} FROM k "
    f"RETURNING id, {', '.join(_ROUND_OF_FINDING)}), "
    f"f AS (INSERT INTO {F.name} (round_pk, {', '.join(_ROUND_OF_FINDING)}, "
    f"{', '.join(c.name for c in _FINDING_COLUMNS)}) "
    f"SELECT r.id, {', '.join('r.' + c for c in _ROUND_OF_FINDING)}, {', '.join('x.' + c.name for c in _FINDING_COLUMNS)} "
    f"FROM r CROSS JOIN json_to_recordset(%(findings)s::json) AS x("
    f"{_FINDING_RECORD})), "
    f"{chain.PG_APPEND_CTES} "
    "SELECT id FROM r"
)
"""The round's key (``round_keys``, whose unique constraint decides: a concurrent insert of the same key waits for
the other transaction, then does nothing if it committed), the round under the key's new id (only when the key was
inserted), its findings (a JSON array of :func:`app.store.rounds.finding_rows`; the round's own columns are taken
from the inserted round) and its entry in its source's hash chain (:data:`app.store.chain.PG_APPEND_CTES`) in one
statement; the new round's id, or no row when its key is taken (then nothing is written)."""


def _replaced_once(sql: str, old: str, new: str) -> str:
    """``sql`` with ``old`` (which must be there exactly once) replaced: a reworded :data:`INSERT_ROUND` fails at
    import rather than leaving the keyed statement without its key check."""
    if sql.count(old) != 1:
        raise RuntimeError(f"INSERT_ROUND_KEYED: {old[:40]!r}... is not in INSERT_ROUND exactly once")
    return sql.replace(old, new)


INSERT_ROUND_KEYED = _replaced_once(
    _replaced_once(
        INSERT_ROUND,
        f"VALUES ({', '.join(f'%({c})s' for c in _KEY_COLUMNS)}) ",
        f"SELECT {_typed(_KEY_COLUMNS)} "
        f"WHERE EXISTS (SELECT 1 FROM {K.name} WHERE key_id = %(api_key_id)s AND revoked_at IS NULL) ",
    ),
    "SELECT id FROM r",
    "SELECT (SELECT id FROM r), EXISTS (SELECT 1 FROM r) OR EXISTS (SELECT 1 FROM "
    f"{K.name} WHERE key_id = %(api_key_id)s AND revoked_at IS NULL)",
)
""":data:`INSERT_ROUND` for a request whose API key was not looked up (:mod:`app.api.auth`, the submitter's known
keys): the round's key (and so the round) is inserted only if the API key is not revoked, in the statement's own
snapshot, so that a revocation committed before it takes effect at once; one row: the new round's id (NULL when
nothing was inserted) and whether the API key is still in force."""

_KEYED_ROUND = f"{RK.name} k JOIN {R.name} r ON r.id = k.id AND r.played_at = k.played_at"
"""A round found by its key: the key's ``played_at`` prunes ``rounds`` to one partition."""
_STORED = (
    f"SELECT r.id, r.record_sha256, r.audit FROM {_KEYED_ROUND} "
    "WHERE k.round_id = %s AND k.source = %s AND k.jurisdiction = %s"
)
_LOOKUP_COLUMNS = (
    "r.id, r.round_id, r.source, r.jurisdiction, r.table_id, r.played_at, r.received_at, r.record, "
    "r.record_sha256, r.ruleset, r.audit, e.seq AS chain_seq, e.hash AS chain_hash, "
    "(SELECT max(a.audit_no) FROM audits a WHERE a.round_pk = r.id) AS latest_no"
)
_AUDITS = (
    "SELECT a.audit_no, a.created_at, a.reaudit_id, a.audit, e.seq AS chain_seq FROM audits a "
    "LEFT JOIN chain_entries e ON e.kind = 'audit' AND e.ref_id = a.id WHERE a.round_pk = %s ORDER BY a.audit_no"
)
_IN_FORCE = (
    "SELECT id, rules FROM table_elections e WHERE source = %s AND jurisdiction = %s AND table_id = %s "
    "AND effective_from <= %s AND NOT EXISTS (SELECT 1 FROM table_elections s WHERE s.supersedes_id = e.id) "
    "ORDER BY effective_from DESC LIMIT 1"
)


def _lookup_statement(by_source: bool, by_jurisdiction: bool) -> str:
    where = "k.round_id = %(round_id)s"
    if by_source:
        where += " AND k.source = %(source)s"
    if by_jurisdiction:
        where += " AND k.jurisdiction = %(jurisdiction)s"
    return (
        f"SELECT {_LOOKUP_COLUMNS} FROM {_KEYED_ROUND} "
        "LEFT JOIN chain_entries e ON e.kind = 'round' AND e.ref_id = r.id "
        f"WHERE {where} ORDER BY k.source, k.jurisdiction LIMIT 10"
    )


_LOOKUP = {(s, j): _lookup_statement(s, j) for s in (False, True) for j in (False, True)}


_Waiting = tuple[str, dict[str, Any], "asyncio.Future[Any]", float]
"""A storing statement waiting for its group: the SQL, its parameters, its request's answer, and the loop time by
which the request must be answered."""


class PgRounds:
    """Single rounds on PostgreSQL, on at most ``size`` autocommit connections opened on demand. Each operation has
    ``deadline`` seconds (a hung database answers :class:`DatabaseTimeout`, 503), and one that fails on a connection
    kept from before a database restart drops the kept ones and runs once more on a new connection."""

    def __init__(
        self, conninfo: str, *, size: int, timeout: float, connect_timeout: int, deadline: float = 10.0
    ) -> None:
        self.conninfo = conninfo
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.deadline = deadline
        self._slots = asyncio.Semaphore(size)
        self._idle: list[AsyncConnection[Any]] = []
        self._waiting: list[_Waiting] = []
        self._storers = 0
        self._max_storers = size
        self._storing: set[asyncio.Future[None]] = set()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        if self._slots.locked():
            try:
                await asyncio.wait_for(self._slots.acquire(), self.timeout)
            except TimeoutError:
                raise PoolTimeout(f"no database connection became free within {self.timeout:g} s") from None
        else:  # a free slot: taken at once, without wait_for's task and timer
            await self._slots.acquire()
        conn: AsyncConnection[Any] | None = None
        try:
            conn = self._idle.pop() if self._idle else await self._connect()
            yield conn
        finally:
            if conn is not None:
                if conn.broken or conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
                    await conn.close()
                else:
                    self._idle.append(conn)
            self._slots.release()

    async def _do(
        self, work: Callable[[AsyncConnection[Any]], Awaitable[T]], within: float | None = None
    ) -> T:
        """``work`` on a connection, in ``within`` seconds (default: the deadline)."""
        task = asyncio.ensure_future(self._attempt(work))
        try:
            done, _ = await asyncio.wait({task}, timeout=self.deadline if within is None else within)
            if task in done:
                return task.result()
            raise self._timeout()
        finally:
            # Past the deadline (or the request gone): interrupt the query. psycopg then asks the server to cancel
            # it, which a hung server never answers; interrupted again, psycopg closes the connection.
            for _ in range(3):
                if task.done():
                    break
                task.cancel()
                await asyncio.wait({task}, timeout=0.05)

    def _timeout(self) -> DatabaseTimeout:
        return DatabaseTimeout(f"the database did not answer within {self.deadline:g} s")

    async def _attempt(self, work: Callable[[AsyncConnection[Any]], Awaitable[T]]) -> T:
        try:
            reused = bool(self._idle)
            async with self.connection() as conn:
                return await work(conn)
        except psycopg.OperationalError as exc:
            if not reused or isinstance(exc, PoolTimeout) or not _connection_lost(exc):
                raise
            # A kept connection died (a database restart): so did the others kept with it.
            await self._drop_idle()
            async with self.connection() as conn:
                return await work(conn)

    async def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _connect(self) -> AsyncConnection[Any]:
        return await AsyncConnection.connect(
            self.conninfo,
            autocommit=True,
            prepare_threshold=0,  # the few statements here are prepared on first use
            connect_timeout=self.connect_timeout,
            application_name="bjaudit",
        )

    async def close(self) -> None:
        storing = list(self._storing)
        for (
            task
        ) in storing:  # their requests are answered 503 (_store_waiting), their connections closed below
            task.cancel()
        await asyncio.gather(*storing, return_exceptions=True)
        # (a storing task cancelled before it ever ran answered nobody and counted itself out of nothing)
        for _, _, future, _ in self._waiting:
            _settle(future, exc=DatabaseTimeout("the service is stopping"))
        self._waiting, self._storers = [], 0
        idle, self._idle = self._idle, []
        for conn in idle:
            await conn.close()

    async def insert_round(
        self, values: Mapping[str, Any], findings: Sequence[Mapping[str, Any]], key_id: str | None = None
    ) -> int | None:
        """Insert a round and its findings, and append it to its source's chain; the round's primary key, or
        ``None`` when (round_id, source, jurisdiction) is already taken (nothing is inserted then). Race-safe: the
        unique constraint decides. ``key_id``: the API key the request was let through on without a lookup; if it
        is revoked nothing is inserted and :class:`KeyRevoked` is raised.

        Rounds submitted at the same time are stored together (:meth:`_grouped`): answered only once stored, each
        exactly as if alone."""
        params = {
            **values,
            "findings": orjson.dumps(findings).decode(),
            **chain.pg_append_params(chain.round_content(values)),
        }
        if key_id is not None:
            params["api_key_id"] = key_id
        row = await self._grouped(INSERT_ROUND if key_id is None else INSERT_ROUND_KEYED, params)
        if key_id is not None:
            if not row[1]:
                raise KeyRevoked(key_id)
            return None if row[0] is None else int(row[0])
        return None if row is None else int(row[0])

    # --- statements that store, grouped ---------------------------------------------------------------------------
    #
    # A round trip costs this process far more CPU than the statement's own work (≈ 80 µs for a bare SELECT 1 on the
    # pool; more inside a request: the syscalls and wake-ups cool the caches the rest of the request then warms
    # again). So the storing statements of concurrent submissions go to the server together: one pipeline, one
    # transaction, one commit, one WAL flush. A statement waits for no timer: it joins the group of the next free
    # connection, which takes everything waiting when it starts.
    #
    # Each request is answered as if alone. All or nothing per group (an explicit transaction, rolled back on any
    # error, the client's included): if the group fails on a statement's error, nothing of it was stored, and each
    # statement runs again alone, so that each request gets its own answer (its error, or its round stored). A
    # failure of the connection or the database fails the group's requests as it would have failed each alone
    # (503). Each request waits for its answer until its own deadline, counted from when it asked.
    #
    # Locks. A statement locks its round's key (the unique index) and then its source's chain head, which the group
    # holds until it commits; the batch path takes them in the same order (its rounds, then the head). A group's
    # second statement of a source could wait for a round key another transaction holds (the same round in a batch
    # chunk, or in another group, at that very moment) while the group holds that source's head, which the other
    # transaction then waits for: a deadlock. So a group waits for no lock longer than GROUP_LOCK_TIMEOUT: past it,
    # the group is undone and each statement runs alone, in the order of locks that cannot deadlock. Groups take
    # the heads of their sources in one order (sorted by source).

    async def _grouped(self, sql: str, params: dict[str, Any]) -> Any:
        """The row of one storing statement (``sql`` with ``params``), run in a group of those waiting now; past the
        request's deadline, :class:`DatabaseTimeout` (its statement may still be stored, as a single one may)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        until = loop.time() + self.deadline
        self._waiting.append((sql, params, future, until))
        if self._storers < self._max_storers:
            self._storers += 1
            task = asyncio.ensure_future(self._store_waiting())
            self._storing.add(task)  # (the loop keeps only a weak reference to a task)
            task.add_done_callback(self._storing.discard)
        try:
            async with asyncio.timeout_at(until):
                return await future
        except TimeoutError:
            raise self._timeout() from None

    async def _store_waiting(self) -> None:
        """Run the waiting statements, a group at a time, until none wait. A group runs until the last of its
        requests' deadlines; a request whose deadline passed before its group started is dropped unrun (it was
        answered 503)."""
        loop = asyncio.get_running_loop()
        group: list[_Waiting] = []
        try:
            while self._waiting:
                now = loop.time()
                group = [item for item in self._waiting if not item[2].done() and item[3] > now]
                self._waiting = []
                if not group:
                    continue
                group.sort(key=lambda item: str(item[1]["source"]))  # the chain heads in one order
                try:
                    rows = await self._do(partial(_pipelined, group=group), max(i[3] for i in group) - now)
                except (psycopg.Error, DatabaseTimeout) as exc:
                    if _gave_way(exc) or (len(group) > 1 and _statement_error(exc)):  # each alone says
                        for sql, params, future, until in group:
                            try:
                                row = await self._do(
                                    partial(_one, sql=sql, params=params), until - loop.time()
                                )
                                _settle(future, row=row)
                            except Exception as each:
                                _settle(future, exc=each)
                    else:  # its own error, or the database's (unreachable, hung): each request's answer
                        for item in group:
                            _settle(item[2], exc=exc)
                    continue
                for item, row in zip(group, rows, strict=True):
                    _settle(item[2], row=row)
        except BaseException as exc:  # cancelled (the service stopping): no request waits for nothing
            for _, _, future, _ in [*group, *self._waiting]:
                _settle(
                    future,
                    exc=exc if isinstance(exc, Exception) else DatabaseTimeout("the service is stopping"),
                )
            self._waiting = []
            raise
        finally:
            self._storers -= 1

    async def stored_submission(self, round_id: str, source: str, jurisdiction: str) -> Stored | None:
        async def work(conn: AsyncConnection[Any]) -> Any:
            return await (await conn.execute(_STORED, (round_id, source, jurisdiction))).fetchone()

        row = await self._do(work)
        return None if row is None else Stored(int(row[0]), row[1], row[2])

    async def find_rounds(self, round_id: str, source: str | None, jurisdiction: str | None) -> list[Any]:
        """As :func:`app.store.rounds.find_rounds`: rows with the lookup's columns as attributes."""
        params = {"round_id": round_id, "source": source, "jurisdiction": jurisdiction}

        async def work(conn: AsyncConnection[Any]) -> list[Any]:
            cur = conn.cursor(row_factory=namedtuple_row)
            await cur.execute(_LOOKUP[(source is not None, jurisdiction is not None)], params)
            return await cur.fetchall()

        return await self._do(work)

    async def archived(self, round_id: str, source: str | None, jurisdiction: str | None) -> Any:
        """As :func:`app.store.rounds.archived`."""
        params = {"round_id": round_id, "source": source, "jurisdiction": jurisdiction}

        async def work(conn: AsyncConnection[Any]) -> Any:
            cur = conn.cursor(row_factory=namedtuple_row)
            await cur.execute(rounds_repo.ARCHIVED_SQL, params)
            return await cur.fetchone()

        return await self._do(work)

    async def audits_of(self, round_pk: int) -> list[Any]:
        """As :func:`app.store.rounds.audits_of`."""

        async def work(conn: AsyncConnection[Any]) -> list[Any]:
            cur = conn.cursor(row_factory=namedtuple_row)
            await cur.execute(_AUDITS, (round_pk,))
            return await cur.fetchall()

        return await self._do(work)

    async def elections_in_force(
        self, source: str, jurisdiction: str, table_id: str, played_at: datetime
    ) -> tuple[int, str] | None:
        """As :func:`app.store.elections.in_force`."""

        async def work(conn: AsyncConnection[Any]) -> Any:
            return await (
                await conn.execute(_IN_FORCE, (source, jurisdiction, table_id, played_at))
            ).fetchone()

        row = await self._do(work)
        return None if row is None else (int(row[0]), str(row[1]))

    async def find_key(self, key_id: str) -> Any:
        """As :func:`app.store.keys.find` (the columns the key check needs)."""

        async def work(conn: AsyncConnection[Any]) -> Any:
            cur = conn.cursor(row_factory=namedtuple_row)
            await cur.execute(keys_repo.FIND_SQL, (key_id,))
            return await cur.fetchone()

        return await self._do(work)


GROUP_LOCK_TIMEOUT = "200ms"
"""The longest a group waits for a lock (``SET LOCAL lock_timeout`` in its transaction; a statement run alone, and
every other query, waits as long as its deadline): a head another group or a batch chunk holds is free within
milliseconds; a wait this long is a group's statement waiting for a round key that another transaction holds,
perhaps while that transaction waits for this group (the comment above :meth:`PgRounds._grouped`). Below
PostgreSQL's ``deadlock_timeout`` (1 s), so the group gives way first, never the batch chunk."""


async def _pipelined(conn: AsyncConnection[Any], group: Sequence[_Waiting]) -> list[Any]:
    """Each statement's first row (or None), all sent at once in one pipeline, in one transaction: all or nothing. An
    error on the server rolls it back; one in the client (a parameter that cannot be sent, the deadline) leaves it
    open, uncommitted, and the pool closes the connection (:meth:`PgRounds.connection`), which rolls it back."""
    cursors = []
    async with conn.pipeline():
        await conn.execute("BEGIN")
        await conn.execute(f"SET LOCAL lock_timeout = '{GROUP_LOCK_TIMEOUT}'")
        for sql, params, _, _ in group:
            cursor = conn.cursor()
            await cursor.execute(sql, params)
            cursors.append(cursor)
        await conn.execute("COMMIT")
    return [await cursor.fetchone() for cursor in cursors]


async def _one(conn: AsyncConnection[Any], sql: str, params: dict[str, Any]) -> Any:
    """A storing statement alone (autocommit): it waits for its locks as long as its deadline; the order of its locks,
    its round's key then its source's head, is the batch path's, so it cannot deadlock with it."""
    return await (await conn.execute(sql, params)).fetchone()


def _connection_lost(exc: psycopg.OperationalError) -> bool:
    """An error of the connection (none from the server, a connection exception, or the server shutting down or
    restarting), not of a statement the server ran (a lock timeout, a deadlock broken, a statement cancelled)."""
    return exc.sqlstate is None or exc.sqlstate[:2] == "08" or exc.sqlstate in ("57P01", "57P02", "57P03")


def _gave_way(exc: BaseException) -> bool:
    """The group gave way on a lock (:data:`GROUP_LOCK_TIMEOUT`, or a deadlock PostgreSQL broke): nothing of it was
    stored, and its statements, alone, wait for their locks without risk (even a group of one: its request must not
    fail for a wait that alone it may make)."""
    return isinstance(exc, psycopg.errors.LockNotAvailable | psycopg.errors.DeadlockDetected)


def _statement_error(exc: BaseException) -> bool:
    """A statement's own error (the group was rolled back): which one, each statement alone says. Not a database or
    connection that failed, nor a deadline: alone they would fail the same way, each after a wait."""
    return isinstance(exc, psycopg.Error) and not isinstance(exc, psycopg.OperationalError)


def _settle(future: asyncio.Future[Any], *, row: Any = None, exc: BaseException | None = None) -> None:
    if future.done():  # the request is gone (its deadline, or cancelled): what was stored stays stored
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(row)
