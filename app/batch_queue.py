"""The batch job queue on PostgreSQL: procrastinate (https://procrastinate.readthedocs.io, 3.x).

One job per chunk (task ``bjaudit.audit_chunk``, queue ``batches``). ``bjaudit worker`` runs a worker process;
start as many as there are cores, on one machine or several: they share every batch. The queue's tables live in
the PostgreSQL schema ``procrastinate`` (created by the Alembic migration), reached through the connection's
``search_path``.

Exactly once does not rest on the queue: :func:`app.batches.process_chunk` locks the chunk row and skips a chunk
already done, and stores everything of a chunk in one transaction. So a job run twice is harmless, and a job lost
(its worker killed) is found again: every worker, when it starts and then every minute, defers the undone chunks
of committed batches whose jobs are not waiting or running on a live worker (procrastinate's heartbeats tell).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import procrastinate
from procrastinate.exceptions import AlreadyEnqueued
from sqlalchemy.engine import make_url

from app import batches
from app.config import Settings, sqlalchemy_url
from app.store.db import Database

log = logging.getLogger("bjaudit.batch_queue")

QUEUE_SCHEMA = "procrastinate"
QUEUE = "batches"
TASK = "bjaudit.audit_chunk"
RESCUE_TASK = "bjaudit.rescue_chunks"

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
        kwargs={"options": f"-c search_path={QUEUE_SCHEMA}", "application_name": "bjaudit-queue"},
        min_size=1,
        max_size=2,
    )
    app = procrastinate.App(connector=connector)

    @app.task(name=TASK, queue=QUEUE, pass_context=False)
    def audit_chunk(batch_id: str, chunk_no: int) -> None:
        assert _worker_db is not None, "audit_chunk runs in `bjaudit worker`"
        batches.process_chunk(_worker_db, batch_id, chunk_no)

    @app.periodic(cron="* * * * *", periodic_id="rescue")
    @app.task(name=RESCUE_TASK, queue=QUEUE, pass_context=False)
    async def rescue_chunks(timestamp: int) -> None:
        assert _worker_db is not None
        lost = await asyncio.to_thread(lost_chunks, _worker_db, settings.batch_stalled_seconds)
        for batch_id, chunk_no in lost:
            with contextlib.suppress(AlreadyEnqueued):
                await (
                    app.tasks[TASK]
                    .configure(queueing_lock=f"{batch_id}:{chunk_no}")
                    .defer_async(batch_id=batch_id, chunk_no=chunk_no)
                )
        if lost:
            log.warning("requeued %d chunk(s) left undone", len(lost))

    return app


def defer_chunks(app: procrastinate.App, refs: list[tuple[str, int]]) -> None:
    """Queue one job per chunk (synchronous; the app must be open)."""
    if refs:
        jobs: list[dict[str, Any]] = [{"batch_id": b, "chunk_no": c} for b, c in refs]
        app.tasks[TASK].batch_defer(*jobs)


def lost_chunks(db: Database, stalled_seconds: float) -> list[tuple[str, int]]:
    """Undone chunks of committed batches that no job covers: none waiting, none running on a live worker."""
    with db.reading() as s:
        todo = batches.pending_chunks(s)
        if not todo:
            return []
        rows = (
            s.connection()
            .exec_driver_sql(
                f"SELECT j.args->>'batch_id', (j.args->>'chunk_no')::int FROM {QUEUE_SCHEMA}.procrastinate_jobs j "
                f"LEFT JOIN {QUEUE_SCHEMA}.procrastinate_workers w ON w.id = j.worker_id "
                "WHERE j.task_name = %(task)s AND (j.status = 'todo' OR (j.status = 'doing' AND w.id IS NOT NULL "
                "AND w.last_heartbeat > now() - make_interval(secs => %(stalled)s)))",
                {"task": TASK, "stalled": stalled_seconds},
            )
            .all()
        )
    busy = {(r[0], r[1]) for r in rows}
    return [ref for ref in todo if ref not in busy]


def requeue_pending(app: procrastinate.App, db: Database, stalled_seconds: float) -> int:
    """Defer a job for every lost chunk (synchronous; the app must be open). Returns how many."""
    lost = lost_chunks(db, stalled_seconds)
    for batch_id, chunk_no in lost:
        with contextlib.suppress(AlreadyEnqueued):
            app.tasks[TASK].configure(queueing_lock=f"{batch_id}:{chunk_no}").defer(
                batch_id=batch_id, chunk_no=chunk_no
            )
    if lost:
        log.warning("requeued %d chunk(s) left undone", len(lost))
    return len(lost)


def run_worker(settings: Settings, concurrency: int | None = None, **options: Any) -> None:
    """Run a worker until SIGINT/SIGTERM: first requeue what earlier workers left undone, then take jobs."""
    global _worker_db
    _worker_db = Database.from_settings(settings)
    app = make_app(settings)
    try:
        with app.open():
            n = requeue_pending(app, _worker_db, settings.batch_stalled_seconds)
            log.info("worker starting; %d chunk(s) requeued", n)
        app.run_worker(
            queues=[QUEUE],
            concurrency=concurrency or settings.batch_worker_concurrency,
            delete_jobs="successful",
            update_heartbeat_interval=max(settings.batch_stalled_seconds / 3, 0.5),
            stalled_worker_timeout=settings.batch_stalled_seconds,
            **options,
        )
    finally:
        _worker_db.dispose()
        _worker_db = None
