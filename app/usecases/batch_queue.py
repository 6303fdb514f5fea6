"""The batch job queue on PostgreSQL: procrastinate (https://procrastinate.readthedocs.io, 3.x).

One job per chunk (task ``bjaudit.audit_chunk``, queue ``batches``). ``bjaudit worker`` runs a worker process;
start as many as there are cores, on one machine or several: they share every batch. The queue's tables live in
the PostgreSQL schema ``procrastinate`` (created by the Alembic migration), reached through the connection's
``search_path``.

Exactly once does not rest on the queue: :func:`app.usecases.batches.process_chunk` locks the chunk row and skips a chunk
already done, and stores everything of a chunk in one transaction. So a job run twice is harmless, and a job lost
(its worker killed, or failed by a database restart) is found again: every worker, when it starts and then every
few seconds, defers the undone chunks of committed batches whose jobs are not waiting or running on a live worker
(procrastinate's heartbeats tell).

A worker outlives its database (:func:`run_worker`): it waits, logging what for, until the database answers with
its schema at the migrations' head; when procrastinate's worker stops by itself (a lost connection ends its
listener) or cannot start, it starts again after a backoff. It ends only when asked (SIGINT, SIGTERM: exit 0) or
on an error that is not the database's (exit 1).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import sys
from typing import Any

import procrastinate
import psycopg
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException
from procrastinate.types import JSONValue
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app.config import Settings, sqlalchemy_url
from app.store import migrate, partitions
from app.store.db import Database, database_missing, explain_connect_error
from app.usecases import batches, reaudits, transparency
from app.usecases.rollups import keep_rolling

log = logging.getLogger("bjaudit.batch_queue")

QUEUE_SCHEMA = "procrastinate"
QUEUE = "batches"
TASK = "bjaudit.audit_chunk"
REAUDIT_TASK = "bjaudit.reaudit_chunk"

_worker_db: Database | None = None


def conninfo(database_url: str) -> str:
    return (
        make_url(sqlalchemy_url(database_url))
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def make_app(settings: Settings) -> procrastinate.App:
    connector = procrastinate.PsycopgConnector(
        conninfo=conninfo(settings.database_url),
        kwargs={
            "options": f"-c search_path={QUEUE_SCHEMA}",
            "application_name": "bjaudit-queue",
            "connect_timeout": settings.db_connect_timeout,
        },
        min_size=1,
        max_size=2,
        # A database away longer than this fails the queue's calls (procrastinate's worker then stops, and
        # `supervise` waits for the database and starts it again) instead of hanging in the pool.
        timeout=settings.db_pool_timeout,
    )
    app = procrastinate.App(connector=connector)

    @app.task(name=TASK, queue=QUEUE, pass_context=False)
    def audit_chunk(batch_id: str, chunk_no: int) -> None:
        assert _worker_db is not None, "audit_chunk runs in `bjaudit worker`"
        batches.process_chunk(_worker_db, batch_id, chunk_no)

    @app.task(name=REAUDIT_TASK, queue=QUEUE, pass_context=False)
    def reaudit_chunk(reaudit_id: str, chunk_no: int) -> None:
        assert _worker_db is not None, "reaudit_chunk runs in `bjaudit worker`"
        reaudits.process_chunk(_worker_db, reaudit_id, chunk_no)

    return app


def defer_chunks(app: procrastinate.App, refs: list[tuple[str, int]]) -> None:
    """Queue one job per chunk (synchronous; the app must be open)."""
    if refs:
        jobs: list[dict[str, Any]] = [{"batch_id": b, "chunk_no": c} for b, c in refs]
        app.tasks[TASK].batch_defer(*jobs)


def defer_reaudit_chunks(app: procrastinate.App, refs: list[tuple[str, int]]) -> None:
    """Queue one job per chunk of a re-audit (synchronous; the app must be open)."""
    if refs:
        jobs: list[dict[str, Any]] = [{"reaudit_id": r, "chunk_no": c} for r, c in refs]
        app.tasks[REAUDIT_TASK].batch_defer(*jobs)


def live_workers(session: Session, stalled_seconds: float) -> int:
    """Batch workers whose heartbeat is younger than ``stalled_seconds`` (separate processes and the service's own)."""
    return int(
        session.connection()
        .exec_driver_sql(
            f"SELECT count(*) FROM {QUEUE_SCHEMA}.procrastinate_workers "
            "WHERE last_heartbeat > now() - make_interval(secs => %(stalled)s)",
            {"stalled": stalled_seconds},
        )
        .scalar_one()
    )


def lost_chunks(db: Database, stalled_seconds: float, task: str = TASK) -> list[tuple[str, int]]:
    """Undone chunks of committed batches (``task`` :data:`TASK`) or of re-audits (:data:`REAUDIT_TASK`) that no
    job covers: none waiting, none running on a live worker."""
    pending, key = (
        (batches.pending_chunks, "batch_id") if task == TASK else (reaudits.pending_chunks, "reaudit_id")
    )
    with db.reading() as s:
        todo = pending(s)
        if not todo:
            return []
        rows = (
            s.connection()
            .exec_driver_sql(
                f"SELECT j.args->>'{key}', (j.args->>'chunk_no')::int FROM {QUEUE_SCHEMA}.procrastinate_jobs j "
                f"LEFT JOIN {QUEUE_SCHEMA}.procrastinate_workers w ON w.id = j.worker_id "
                "WHERE j.task_name = %(task)s AND (j.status = 'todo' OR (j.status = 'doing' AND w.id IS NOT NULL "
                "AND w.last_heartbeat > now() - make_interval(secs => %(stalled)s)))",
                {"task": task, "stalled": stalled_seconds},
            )
            .all()
        )
    busy = {(r[0], r[1]) for r in rows}
    return [ref for ref in todo if ref not in busy]


async def requeue_lost(app: procrastinate.App, db: Database, stalled_seconds: float) -> int:
    """Defer a job for every lost chunk, of batches and of re-audits (the app must be open). Returns how many."""
    n = 0
    for task, key in ((TASK, "batch_id"), (REAUDIT_TASK, "reaudit_id")):
        lost = await asyncio.to_thread(lost_chunks, db, stalled_seconds, task)
        for ref, chunk_no in lost:
            job: dict[str, JSONValue] = {key: ref, "chunk_no": chunk_no}
            with contextlib.suppress(AlreadyEnqueued):
                await app.tasks[task].configure(queueing_lock=f"{ref}:{chunk_no}").defer_async(**job)
        n += len(lost)
    if n:
        log.warning("requeued %d chunk(s) left undone", n)
    return n


# What a database that is away, restarting or not yet migrated raises: wait and start again, never exit.
TRANSIENT = (ConnectorException, psycopg.Error, DBAPIError, OSError)


class Backoff:
    """Delays between attempts: doubling from ``first`` up to ``most`` seconds; ``reset`` after a good run."""

    def __init__(self, first: float = 0.5, most: float = 30.0) -> None:
        self.first, self.most = first, most
        self.delay = first

    def next(self) -> float:
        delay, self.delay = self.delay, min(self.delay * 2, self.most)
        return delay

    def reset(self) -> None:
        self.delay = self.first


class CannotStart(Exception):
    """A setting to fix (the database named does not exist), not an outage to wait out: one line, exit 2."""


def not_ready(db: Database, database_url: str) -> str | None:
    """What the worker must wait for, in words, or None when the database answers with its schema at head."""
    try:
        with db.engine.connect() as conn:
            current = migrate.current_revisions(conn)
    except DBAPIError as exc:
        if database_missing(exc, database_url):
            raise CannotStart(explain_connect_error(exc, database_url)) from None
        cause = str(exc.orig or exc).strip().splitlines()
        return f"the database to answer ({cause[0] if cause else type(exc).__name__})"
    heads = migrate.head_revisions()
    if current != heads:
        return (
            f"the schema to reach {sorted(heads)} (it is at {sorted(current) or 'no revision'}; `bjaudit serve` or "
            "`make migrate` upgrades it)"
        )
    return None


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _rescue(app: procrastinate.App, db: Database, stalled_seconds: float) -> None:
    """Every few seconds, queue again what a dead worker (or a failed job) left undone."""
    while True:
        await asyncio.sleep(max(stalled_seconds / 3, 0.5))
        try:
            await requeue_lost(app, db, stalled_seconds)
        except TRANSIENT as exc:
            log.debug("could not look for lost chunks: %s", exc)
        except Exception:  # noqa: BLE001 - anything else: said, and the rescue goes on
            log.exception("could not look for lost chunks")


async def _run_once(
    app: procrastinate.App, db: Database, settings: Settings, stop: asyncio.Event, options: dict[str, Any]
) -> str:
    """Run procrastinate's worker until it stops or ``stop`` is set; why it ended, in words."""
    async with app.open_async():
        n = await requeue_lost(app, db, settings.batch_stalled_seconds)
        log.info("worker starting; %d chunk(s) requeued", n)
        worker = asyncio.create_task(
            app.run_worker_async(
                queues=[QUEUE],
                delete_jobs="successful",
                update_heartbeat_interval=max(settings.batch_stalled_seconds / 3, 0.5),
                stalled_worker_timeout=settings.batch_stalled_seconds,
                install_signal_handlers=False,
                **options,
            ),
            name="procrastinate worker",
        )
        rescue = asyncio.create_task(_rescue(app, db, settings.batch_stalled_seconds), name="rescue")
        stopping = asyncio.create_task(stop.wait(), name="stop")
        rolled = asyncio.Event()
        rolling = asyncio.create_task(
            keep_rolling(db, settings.rollup_interval_seconds, rolled), name="rollups"
        )
        try:
            await asyncio.wait({worker, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            rolled.set()
            rescue.cancel()
            stopping.cancel()
            if not worker.done():
                worker.cancel()  # procrastinate stops taking jobs and finishes the running ones
            with contextlib.suppress(asyncio.CancelledError):
                await worker
            await rolling  # its pass in progress finishes
        if stop.is_set():
            return "stop requested"
        exc = worker.exception()
        if exc is not None:
            raise exc
        return "procrastinate's worker stopped (a lost connection ends its listener)"


async def supervise(
    settings: Settings, concurrency: int | None = None, stop: asyncio.Event | None = None, **options: Any
) -> None:
    """The worker's life: wait for the database and its schema, run, and after anything that stops the run but a
    stop request, wait a backoff and run again. ``stop`` set ends it (cleanly: running chunks finish); without
    one, SIGINT and SIGTERM set it."""
    global _worker_db
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM) if stop is None else ()
    stop = stop or asyncio.Event()

    def on_signal() -> None:
        # The first signal asks for a clean stop (running chunks finish); the handlers go with it, so that a second
        # one ends the process at once (a chunk that hangs must not make the worker unstoppable).
        stop.set()
        for sig in signals:
            loop.remove_signal_handler(sig)

    for sig in signals:
        loop.add_signal_handler(sig, on_signal)
    _worker_db = db = Database.from_settings(settings, pre_ping=True)
    transparency.configure(settings)
    app = make_app(settings)
    options = {"concurrency": concurrency or settings.batch_worker_concurrency, **options}
    backoff = Backoff()  # between runs that ended by themselves
    polling = Backoff(
        most=2.0
    )  # while waiting for the database or the schema: a worker starts soon after them
    waiting_for: str | None = None
    partitioning: asyncio.Task[None] | None = None  # once the database and its schema are there
    try:
        while not stop.is_set():
            why = await asyncio.to_thread(not_ready, db, settings.database_url)
            if why is not None:
                if why != waiting_for:
                    log.warning("waiting for %s", why)
                    waiting_for = why
                await _sleep_unless(stop, polling.next())
                continue
            polling.reset()
            if partitioning is None:
                partitioning = asyncio.create_task(partitions.keep_ahead(db.engine, stop))
            if waiting_for is not None:
                log.info("the database is ready")
                waiting_for = None
            started = loop.time()
            try:
                ended = await _run_once(app, db, settings, stop, options)
            except TRANSIENT as exc:
                ended = (
                    f"the database failed: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc!r}"
                )
            if stop.is_set():
                break
            if loop.time() - started > 60:
                backoff.reset()
            delay = backoff.next()
            log.warning("worker stopped: %s; starting again in %.1f s", ended, delay)
            await _sleep_unless(stop, delay)
        log.info("worker stopped on request")
    finally:
        stop.set()  # (the partitions' task ends with the worker)
        if partitioning is not None:
            with contextlib.suppress(Exception):
                await partitioning
        for sig in signals:
            loop.remove_signal_handler(sig)
        db.dispose()
        _worker_db = None


def run_worker(settings: Settings, concurrency: int | None = None, **options: Any) -> None:
    """Run a worker until SIGINT/SIGTERM (see :func:`supervise`)."""
    limit_malloc_arenas()
    asyncio.run(supervise(settings, concurrency, **options))


MALLOC_ARENAS = 2
"""At most this many malloc arenas in a worker process (glibc's ``M_ARENA_MAX``). A chunk is audited in a thread, and
glibc gives each new thread an arena of its own (up to 8 per core), where a chunk's ≈ 25 MB of short-lived objects
leave memory the process keeps: measured with ``make bench-batch`` (200,000 rounds, 2 workers), a worker's peak RSS
189 → 161 MB, the same CPU."""


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Limit this process's malloc arenas (glibc only, before threads start); whether it was done. An operator's
    own ``MALLOC_ARENA_MAX`` is left alone."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library to ask, or not one with mallopt
        return False
    return bool(mallopt(_M_ARENA_MAX, arenas))


_M_ARENA_MAX = -8  # glibc's malloc.h
