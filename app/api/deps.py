"""Request dependencies: the unit of work (the edge owns the transaction), the raw JSON body, the submitter.

The trivial ones are ``async``: FastAPI would run a plain ``def`` dependency in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import difflib
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import metrics
from app.api.problems import PayloadTooLarge, ReplicaUnavailable, RequestTimeout, UnsupportedMediaType
from app.config import Settings
from app.store.db import UNAVAILABLE, Database, DatabaseTimeout
from app.store.pg import PgRounds
from app.store.replica import Replica
from app.usecases import rounds as round_cases
from app.usecases.errors import ServiceError

T = TypeVar("T")

READ_FROM: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("read_from", default=None)
"""Where a request's reads that a standby may serve were served: a dict made per request by the outermost layer
(app.api.observability), filled in by :meth:`UnitOfWork.look` (in its worker thread: the dict is shared, the
context copied), sent back as ``X-Bjaudit-Read-From``."""


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


class UnitOfWork:
    """The edge owns the transaction: ``await uow.run(use_case, *args)`` calls ``use_case(session, *args)`` in a
    worker thread, commits there if it returns and rolls back if it raises; services below only flush.

    One thread hop per request (database I/O and the audit are blocking work), and at most as many requests in
    the database at once as the pool has connections: the others wait in the event loop, not in threads.
    """

    def __init__(
        self,
        db: Database,
        limiter: CapacityLimiter,
        timeout: float = 10.0,
        *,
        replica: tuple[Database, Replica] | None = None,
        fallback: Literal["primary", "unavailable"] = "primary",
    ) -> None:
        self.db = db
        self.limiter = limiter
        self.timeout = timeout
        self.replica = replica
        """The standby's database and its state (BJAUDIT_DATABASE_READ_URL), or None: every read on ``db``."""
        self.fallback = fallback
        self._busy = 0
        self._lock = threading.Lock()

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        with self._working(), self.db.session() as session:
            return fn(session, *args)

    def _read(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        with self._working(), self.db.reading() as session:
            return fn(session, *args)

    def _look(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        if self.replica is None:
            return self._read(fn, args)
        standby, replica = self.replica
        state = replica.state()
        metrics.replica_lag.set(-1 if state.lag_seconds is None else state.lag_seconds)
        if state.usable:
            try:
                with self._working(), standby.reading() as session:
                    result = fn(session, *args)
            except UNAVAILABLE as exc:
                # Down, or a query cancelled by a recovery conflict: not used again until a check finds it well;
                # this read is served as the fallback says. A use case's own errors (422) are answers.
                replica.failed(exc)
                state = replica.state()
            except ServiceError as exc:
                if exc.status != 404:
                    raise
                # Not there yet, maybe (a shoe dealt a second ago): the primary has the last word.
                return self._on_primary(fn, args)
            else:
                _served("replica")
                return result
        if self.fallback == "unavailable":
            _served("refused")
            raise ReplicaUnavailable(
                f"This read is served by the read replica, which cannot serve it now: {state.reason}. "
                "BJAUDIT_READ_FALLBACK=unavailable keeps it off the primary; retry after Retry-After seconds.",
                headers={"Retry-After": "1"},
            )
        return self._on_primary(fn, args)

    def _on_primary(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        result = self._read(fn, args)
        _served("primary")
        return result

    @contextlib.contextmanager
    def _working(self) -> Iterator[None]:
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1

    async def drain(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) for every thread still in the database, those of requests answered
        503 at their deadline included, so that the pool is disposed with every connection back in it; whether
        they all came back."""
        deadline = time.monotonic() + timeout
        while self._busy and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return not self._busy

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """A use case that writes: one transaction, committed here."""
        return await self._in_thread(self._run, fn, args)

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """A use case that only reads, with single-statement reads: no transaction needed."""
        return await self._in_thread(self._read, fn, args)

    async def look(self, fn: Callable[..., T], *args: Any) -> T:
        """A read the standby may serve (searches, reports, shoes, the workbench's pages): on the read replica
        when one is configured and current (:mod:`app.store.replica`), else as BJAUDIT_READ_FALLBACK says; on the
        primary when there is none. Never for what a client reads back after writing it (a round's lookup, a
        batch's progress, keys, alerts): a standby may not have it yet."""
        return await self._in_thread(self._look, fn, args)

    async def _in_thread(self, target: Callable[..., T], fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        # A hung database (or a lock held too long) must not hang the request: past the deadline it is answered
        # 503 and the thread is left to finish, or fail, on its own.
        try:
            with anyio.fail_after(self.timeout):
                return await anyio.to_thread.run_sync(
                    target, fn, args, limiter=self.limiter, abandon_on_cancel=True
                )
        except TimeoutError:
            raise DatabaseTimeout(f"the database did not answer within {self.timeout:g} s") from None


def _served(by: str) -> None:
    metrics.replica_reads.labels(by).inc()
    box = READ_FROM.get()
    if box is not None and by != "refused":
        box["served_by"] = by


async def get_unit_of_work(request: Request) -> UnitOfWork:
    uow: UnitOfWork = request.app.state.unit_of_work
    return uow


UnitOfWorkDep = Annotated[UnitOfWork, Depends(get_unit_of_work)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


class SingleRounds:
    """Submitting and looking up one round, the two hot routes: on PostgreSQL straight on psycopg's async
    connections (:mod:`app.store.pg`: no worker thread, no ORM, one statement each), elsewhere (SQLite) the
    unit of work. The same use cases and answers either way."""

    def __init__(self, uow: UnitOfWork, pg: PgRounds | None) -> None:
        self.uow = uow
        self.pg = pg

    async def submit(
        self, record: bytes, source: str, key_id: str | None = None, received_at: datetime | None = None
    ) -> round_cases.Submitted:
        """``key_id``: an API key let through without a lookup (PostgreSQL only: the statement checks it);
        ``received_at``: when the service received the record (a round played more than 5 minutes later is
        refused)."""
        if self.pg is not None:
            return await round_cases.submit_round_pg(self.pg, record, source, key_id, received_at)
        return await self.uow.run(round_cases.submit_round, record, source, received_at)

    async def lookup(self, round_id: str, source: str | None, jurisdiction: str | None) -> bytes:
        if self.pg is not None:
            return await round_cases.lookup_round_pg(self.pg, round_id, source, jurisdiction)
        return await self.uow.read(round_cases.lookup_round, round_id, source, jurisdiction)


async def get_single_rounds(request: Request) -> SingleRounds:
    rounds: SingleRounds = request.app.state.single_rounds
    return rounds


SingleRoundsDep = Annotated[SingleRounds, Depends(get_single_rounds)]


def _is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/<x>+json``, in UTF-8 if a charset is named.

    >>> _is_json("application/json"), _is_json("application/json; charset=UTF-8"), _is_json("text/plain")
    (True, True, False)
    >>> _is_json("application/json; charset=latin-1"), _is_json(None)
    (False, False)
    """
    if not content_type:
        return False
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    if media != "application/json" and not (media.startswith("application/") and media.endswith("+json")):
        return False
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


async def json_body(request: Request) -> bytes:
    """The request body, byte for byte, after checking its type and size. The body is streamed and reading stops
    at ``max_body_bytes + 1``: an oversized body is never held in memory."""
    limit = get_settings(request).max_body_bytes
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        raise UnsupportedMediaType(
            f"Send the body as 'Content-Type: application/json' (UTF-8); got {content_type or 'no content type'!r}."
        )
    too_large = PayloadTooLarge(
        f"The body is over the limit of {limit} bytes.",
        extra={"max_body_bytes": limit},
        headers={"Connection": "close"},
    )
    declared = request.headers.get("content-length")
    timeout = get_settings(request).body_timeout_seconds
    # An oversized body is answered at once when it is too big to drain or not sent yet (the client waits for
    # "100 Continue"); otherwise it is read (and dropped) below, like one without a Content-Length.
    waits = "100-continue" in request.headers.get("expect", "").lower()
    if declared is not None and declared.isdigit() and int(declared) > (limit if waits else DRAIN_BYTES):
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        # asyncio's own timeout: anyio's cancel scope cost ≈ 30 µs a request here (paired, in process), 5% of a
        # submission's CPU.
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > DRAIN_BYTES:
                    raise too_large
                if size > limit:
                    chunks.clear()  # read on (and drop) to the end, or DRAIN_BYTES: see there
                else:
                    chunks.append(chunk)
    except TimeoutError:
        if size > limit:
            raise too_large from None
        raise RequestTimeout(
            f"The body did not arrive within {timeout:g} s ({size} bytes came); send it whole, at once.",
            headers={"Connection": "close"},
        ) from None
    if size > limit:
        raise too_large
    return b"".join(chunks)


DRAIN_BYTES = 64 << 20
"""An oversized body up to this size is read (and dropped) before the 413 is sent: a server that closes a connection
with unread data resets it, and a client still sending may never read the answer. Beyond it, the answer goes at
once and the connection is closed."""


JsonBody = Annotated[bytes, Depends(json_body)]

_Model = TypeVar("_Model", bound=BaseModel)


def model_body(raw: bytes, model: type[_Model]) -> _Model:
    """A body read by :data:`JsonBody` as FastAPI would have read it into ``model`` (json.loads, then the model),
    with the same answers to what is not: FastAPI would read a model's body whole before any dependency (the key's
    check, the bounded reader), for anyone."""
    try:
        doc = json.loads(raw)
    except (UnicodeDecodeError, RecursionError) as exc:  # answered as every body that is not JSON text
        raise StarletteHTTPException(400) from exc
    except json.JSONDecodeError as exc:
        error = {"type": "json_invalid", "loc": ("body", exc.pos), "msg": "JSON decode error", "input": {}}
        raise RequestValidationError([{**error, "ctx": {"error": exc.msg}}]) from None
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None


# --- unknown query parameters ------------------------------------------------------------------------------------

_DECLARED: dict[int, frozenset[str]] = {}


def _declared(dependant: Dependant) -> frozenset[str]:
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _declared(sub)
    return frozenset(names)


async def known_query_parameters(request: Request) -> None:
    """A query parameter the route does not take is a 422 naming it (with the nearest it does take), never silently
    ignored: ``?table_id=BJ12`` on a search would otherwise answer every table's rounds."""
    query = request.query_params
    if not query:
        return
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    known = _DECLARED.get(id(route))
    if known is None:
        known = _DECLARED[id(route)] = _declared(route.dependant)
    unknown = [name for name in dict.fromkeys(query.keys()) if name not in known]
    if not unknown:
        return
    takes = ", ".join(sorted(known)) if known else "no query parameters"
    errors = []
    for name in unknown:
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}? " if near else ""
        errors.append(
            {
                "loc": ("query", name),
                "msg": f"unknown parameter; {hint}{request.method} {route.path_format} takes {takes}",
                "type": "extra_forbidden",
            }
        )
    raise RequestValidationError(errors)
