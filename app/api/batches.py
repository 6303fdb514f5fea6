"""Batch routes: upload a day of rounds as NDJSON, follow its progress, read its per-line results.

The router's lifespan starts the batch runner: in-process (SQLite) with undone chunks taken up again, or the
procrastinate queue (PostgreSQL) that ``bjaudit worker`` processes serve, and then, unless BJAUDIT_EMBEDDED_WORKERS
is 0, a worker of the service's own beside them. See docs/batches.md.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import zlib
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal, Protocol

import anyio
import anyio.to_thread
import orjson
from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.requests import ClientDisconnect

from app.api import schemas
from app.api.auth import Submitter, SubmitterOrReader
from app.api.deps import UnitOfWorkDep, get_database, get_settings
from app.api.problems import DATABASE_503, RequestTimeout, UnsupportedMediaType
from app.config import Settings
from app.store.db import Database
from app.usecases import batches

log = logging.getLogger("bjaudit.api.batches")

NDJSON = "application/x-ndjson"
NDJSON_TYPES = {NDJSON, "application/jsonl", "application/x-jsonlines", "application/jsonlines"}
FEED_BYTES = 1024 * 1024  # hand the body to the writer's thread a MiB at a time


class Runner(Protocol):
    def submit(self, items: Iterable[tuple[str, int]]) -> None: ...

    def submit_reaudit(self, items: Iterable[tuple[str, int]]) -> None: ...

    def close(self) -> None: ...


class QueueRunner:
    """Defers one procrastinate job per chunk; `bjaudit worker` processes run them. Connects on first use, so that
    the service starts (and answers 503) while the database is away."""

    def __init__(self, settings: Settings) -> None:
        from app.usecases import batch_queue

        self._queue = batch_queue
        self.app = batch_queue.make_app(settings)
        self._open = False
        self._lock = threading.Lock()

    def _opened(self) -> Any:
        with self._lock:
            if not self._open:
                self.app.open()
                self._open = True
        return self.app

    def submit(self, items: Iterable[tuple[str, int]]) -> None:
        self._queue.defer_chunks(self._opened(), list(items))

    def submit_reaudit(self, items: Iterable[tuple[str, int]]) -> None:
        self._queue.defer_reaudit_chunks(self._opened(), list(items))

    def close(self) -> None:
        with self._lock:
            if self._open:
                self.app.close()
                self._open = False


def _sweep(settings: Settings, db: Database) -> None:
    try:
        with db.session() as s:
            n = batches.sweep_stale_uploads(s, settings.upload_idle_seconds)
    except Exception:  # noqa: BLE001 - the database is away: the next upload, or start, sweeps
        log.warning("could not look for stale uploads", exc_info=True)
        return
    if n:
        log.warning("%d upload(s) stopped before they were complete: marked failed", n)


def _start_runner(settings: Settings, db: Database) -> Runner:
    _sweep(settings, db)
    if settings.uses_queue():
        return QueueRunner(settings)
    runner = batches.InlineRunner(db)
    try:
        n = runner.resume()
    except Exception:  # noqa: BLE001 - the database is away: the service still starts; chunks wait for a restart
        log.exception("could not look for undone batch chunks")
    else:
        if n:
            log.warning("resuming %d undone batch chunk(s) in-process", n)
    return runner


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    runner = await anyio.to_thread.run_sync(_start_runner, settings, app.state.db)
    app.state.batch_runner = runner
    stop = asyncio.Event()
    embedded = None
    if settings.uses_queue() and settings.embedded_workers > 0:
        from app.usecases import batch_queue

        # The service's own batch worker (BJAUDIT_EMBEDDED_WORKERS), so that `serve` alone finishes batches.
        embedded = asyncio.create_task(
            batch_queue.supervise(settings, concurrency=settings.embedded_workers, stop=stop),
            name="embedded batch worker",
        )
    try:
        yield
    finally:
        if embedded is not None:
            stop.set()
            try:
                await asyncio.wait_for(embedded, 60)
            except Exception:  # noqa: BLE001 - shutting down: say so, and go on closing
                log.exception("the embedded batch worker did not stop cleanly")
        await anyio.to_thread.run_sync(runner.close)


router = APIRouter(prefix="/v1", tags=["batches"], lifespan=lifespan)


class BatchAccepted(BaseModel):
    batch_id: str
    location: str = Field(description="The batch's progress: GET it.")
    lines_received: int = Field(description="Non-blank lines stored, one round each.")
    created: bool = Field(description="False: this content was uploaded before by this source; its batch.")


class BatchCounts(BaseModel):
    lines_received: int
    audited: int = Field(description="Lines processed so far (every outcome).")
    compliant: int
    violations: int
    unreplayable: int
    rejected: int = Field(
        description="Lines that cannot be read (bad JSON, schema): the problem is in the results."
    )
    duplicates: int = Field(description="Same round_id, same record as one stored already: not stored twice.")
    conflicts: int = Field(description="Same round_id as one stored already, different record: not stored.")


class BatchStatus(BaseModel):
    batch_id: str
    source: str
    state: Literal["uploading", "queued", "processing", "done", "failed"]
    error: str | None = Field(description="Why a failed upload failed.")
    content_sha256: str | None = Field(
        description="SHA-256 of the (decompressed) content: the batch's identity."
    )
    created_at: str
    received_at: str | None = Field(description="When the upload was complete and committed.")
    finished_at: str | None
    chunks: int
    chunks_done: int
    counts: BatchCounts
    bytes_received: int = Field(description="Decompressed bytes.")
    elapsed_seconds: float = Field(description="From the start of the upload to the end (or now).")
    rate_per_second: float | None = Field(description="Lines audited per second of elapsed time.")
    results: str = Field(description="Where the per-line results are.")
    workers_alive: int | None = Field(
        description="Batch workers with a recent heartbeat (the queue, on PostgreSQL); null when the service "
        "audits batches itself (SQLite)."
    )
    stalled: str | None = Field(
        description="Why a batch that is not finished does not move (no batch worker alive), in words; else null."
    )


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    text = {
        400: "The upload was cut off (client gone, truncated gzip, Content-Length mismatch): nothing accepted; "
        "the failed batch is recorded under `batch_id`.",
        404: "No such batch.",
        408: "The upload stalled (nothing arrived for BJAUDIT_UPLOAD_IDLE_SECONDS) or came too slowly (under "
        "BJAUDIT_UPLOAD_MIN_BYTES_PER_SECOND): nothing accepted; the failed batch is recorded under `batch_id`.",
        413: "The upload is over a BJAUDIT_BATCH_MAX_* limit (`setting` names it): nothing accepted. (A line over "
        "BJAUDIT_MAX_BODY_BYTES is rejected alone, in the results.)",
        415: "Content-Type must be application/x-ndjson; Content-Encoding gzip or none (a gzipped body must say so).",
        422: "A parameter cannot be used.",
        500: "Unexpected error (logged).",
        503: DATABASE_503,
    }
    return {s: {"model": schemas.Problem, "description": text[s]} for s in statuses}


def _is_ndjson(content_type: str | None) -> bool:
    media = (content_type or "").partition(";")[0].strip().lower()
    return media in NDJSON_TYPES


UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "One recorded round (format v1) per line, UTF-8; blank lines are ignored, line numbers "
        "count them. Optionally `Content-Encoding: gzip`. Read as a stream: any size.",
        "content": {NDJSON: {"schema": {"type": "string", "format": "binary"}}},
    }
}


class _Pace:
    """How long an upload may keep the service waiting for its next bytes: never more than BJAUDIT_UPLOAD_IDLE_SECONDS
    at once, and in all at most BJAUDIT_BODY_TIMEOUT_SECONDS plus a second for each BJAUDIT_UPLOAD_MIN_BYTES_PER_SECOND
    bytes received (a body trickled a byte at a time is cut like any other's). Only the time spent waiting for the
    client counts, not the time the service spends storing what came."""

    def __init__(self, settings: Settings) -> None:
        self.grace = settings.body_timeout_seconds
        self.rate = settings.upload_min_bytes_per_second
        self.waited = 0.0
        self.received = 0
        self.rule = (
            f"after the first {self.grace:g} s an upload must average {self.rate} bytes a second, "
            "BJAUDIT_UPLOAD_MIN_BYTES_PER_SECOND"
        )

    def wait(self, idle: float) -> float:
        if not self.rate:
            return idle
        return max(0.0, min(idle, self.grace + self.received / self.rate - self.waited))

    def took(self, seconds: float, size: int) -> None:
        self.waited += seconds
        self.received += size


def _refuse_undeclared_gzip(head: bytearray, encoding: str) -> None:
    """A gzipped body sent without its Content-Encoding would be read as text, every line rejected: refuse it, before
    anything is stored, and say which header is missing."""
    if encoding == "identity" and head.startswith(b"\x1f\x8b"):
        raise UnsupportedMediaType(
            "The body is gzip-compressed but was sent without 'Content-Encoding: gzip'; send it with that header "
            "(bjaudit upload does so for gzipped files)."
        )


@router.post(
    "/batches",
    status_code=202,
    response_model=BatchAccepted,
    responses={
        200: {"model": BatchAccepted, "description": "The same content was uploaded before: its batch."},
        202: {"description": "Stored; the rounds are being audited. Follow `Location`."},
        **_problems(400, 408, 413, 415, 500, 503),
    },
    openapi_extra=UPLOAD_BODY,
)
async def upload_batch(request: Request, who: Submitter) -> Response:
    """Upload rounds as NDJSON (a day of them); answered once the whole file is safely stored. Each line is then
    audited as a single round is: a line the single-round API would refuse (unreadable, or played more than 5
    minutes after the batch was received) is rejected alone, its problem in the results."""
    settings = get_settings(request)
    if not _is_ndjson(request.headers.get("content-type")):
        raise UnsupportedMediaType(
            f"Send the batch as 'Content-Type: {NDJSON}'; got {request.headers.get('content-type') or 'none'!r}."
        )
    encoding = (request.headers.get("content-encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip", "x-gzip"):
        raise UnsupportedMediaType(f"Content-Encoding {encoding!r} is not supported: gzip or none.")
    declared_header = request.headers.get("content-length")
    declared = int(declared_header) if declared_header and declared_header.isdigit() else None
    if declared is not None and declared > settings.batch_max_upload_bytes:
        raise batches.UploadTooLarge(
            f"The upload is over {settings.batch_max_upload_bytes} bytes as sent (Content-Length: {declared}); "
            "nothing was accepted. Split it, or raise BJAUDIT_BATCH_MAX_UPLOAD_BYTES.",
            extra={"setting": "BJAUDIT_BATCH_MAX_UPLOAD_BYTES"},
            headers={"Connection": "close"},
        )
    await anyio.to_thread.run_sync(_sweep, settings, get_database(request))
    writer = batches.BatchWriter(
        get_database(request),
        who.writes(None),
        gzipped=encoding != "identity",
        chunk_lines=settings.batch_chunk_lines,
        max_line_bytes=settings.max_body_bytes,
        limits=batches.UploadLimits(
            upload_bytes=settings.batch_max_upload_bytes,
            content_bytes=settings.batch_max_content_bytes,
            ratio=settings.batch_max_ratio,
            lines=settings.batch_max_lines,
        ),
        alive_every=settings.upload_idle_seconds / 2,
    )
    run = anyio.to_thread.run_sync
    idle = settings.upload_idle_seconds
    pace = _Pace(settings)
    try:
        buf = bytearray()
        first = True
        stream = request.stream().__aiter__()
        while True:
            wait = pace.wait(idle)
            began = time.monotonic()
            try:
                with anyio.fail_after(wait):
                    data = await stream.__anext__()
            except StopAsyncIteration:
                break
            except TimeoutError:
                pace.took(wait, 0)
                said = (
                    f"The upload stalled: nothing arrived for {idle:g} s"
                    if wait >= idle
                    else f"The upload is too slow: {pace.received} bytes came in {pace.waited:.0f} s "
                    f"({pace.rule})"
                )
                with anyio.CancelScope(shield=True):
                    await run(writer.fail, said + ".")
                raise RequestTimeout(
                    f"{said}; nothing was accepted (the failed batch is recorded). Send it again.",
                    extra={"batch_id": writer.batch_id},
                    headers={"Connection": "close"},
                ) from None
            pace.took(time.monotonic() - began, len(data))
            buf += data
            if len(buf) >= FEED_BYTES:
                if first:
                    _refuse_undeclared_gzip(buf, encoding)
                    first = False
                await run(writer.feed, bytes(buf))
                buf.clear()
        if buf:
            if first:
                _refuse_undeclared_gzip(buf, encoding)
            await run(writer.feed, bytes(buf))
        outcome = await run(writer.finish, declared)
    except ClientDisconnect:
        with anyio.CancelScope(shield=True):
            await run(writer.fail, "The client disconnected before the upload was complete.")
        raise
    except zlib.error as exc:
        with anyio.CancelScope(shield=True):
            failure = await run(writer.fail, f"The body is not valid gzip ({exc}).")
        raise failure from exc
    except batches.UploadIncomplete:
        raise
    except BaseException:
        with anyio.CancelScope(shield=True):
            await run(writer.abandon)
        raise
    if outcome.created:
        runner: Runner = request.app.state.batch_runner
        try:
            await run(runner.submit, batches.chunk_refs(outcome.batch_id, outcome.chunks))
        except Exception:  # noqa: BLE001 - the batch is committed: the workers' rescue (or a restart) queues it
            log.exception("batch %s stored, but its chunks could not be queued now", outcome.batch_id)
    location = f"/v1/batches/{outcome.batch_id}"
    body = {
        "batch_id": outcome.batch_id,
        "location": location,
        "lines_received": outcome.lines_received,
        "created": outcome.created,
    }
    headers = {"Location": location}
    if not outcome.created:
        headers["Idempotent-Replayed"] = "true"
    return Response(
        orjson.dumps(body),
        status_code=202 if outcome.created else 200,
        media_type="application/json",
        headers=headers,
    )


NO_WORKER = (
    "No batch worker is alive, so the batch waits: start `bjaudit worker` (one per core) on this database, or let "
    "the service run its own (BJAUDIT_EMBEDDED_WORKERS, 1 by default)."
)


BatchId = Annotated[
    str, Path(pattern=r"^[^\x00]{1,128}$", description="The batch_id POST /v1/batches answered.")
]


@router.get("/batches/{batch_id}", response_model=BatchStatus, responses=_problems(404, 500, 503))
async def get_batch(
    who: SubmitterOrReader, batch_id: BatchId, request: Request, uow: UnitOfWorkDep
) -> Response:
    """A batch's state and progress: counts by outcome, elapsed time, rate."""
    status = await uow.read(batches.batch_status, batch_id, who.source)
    status["workers_alive"] = status["stalled"] = None
    settings: Settings = request.app.state.settings
    if settings.uses_queue():
        from app.usecases.batch_queue import live_workers

        alive = await uow.read(live_workers, settings.batch_stalled_seconds)
        status["workers_alive"] = alive
        if alive == 0 and status["state"] in ("queued", "processing"):
            status["stalled"] = NO_WORKER
    return Response(orjson.dumps(status), media_type="application/json")


@router.get(
    "/batches/{batch_id}/results",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One JSON object per line of the batch, in line order: `line`, `round_id`, `outcome` "
            "(compliant, violations, unreplayable, rejected, duplicate, conflict), `verdict`, and `findings` (audited "
            "lines) or `problem` (rejected and conflicting lines, as the single-round API answers them). Lines not "
            "yet audited are absent.",
            "content": {NDJSON: {"schema": {"type": "string"}}},
        },
        **_problems(404, 422, 500, 503),
    },
)
async def get_batch_results(
    who: SubmitterOrReader,
    batch_id: BatchId,
    request: Request,
    uow: UnitOfWorkDep,
    only: Annotated[
        Literal["findings", "rejected"] | None,
        Query(
            description="findings: lines with findings (violations, unreplayable); rejected: unreadable lines."
        ),
    ] = None,
    corrected: Annotated[
        bool | None,
        Query(
            description="true: lines with a finding the table corrected (its `corrected_by` is set, round-v1 "
            "section 2.3); false: lines with a finding the table did not correct. Lines with findings only (as "
            "?only=findings); with ?only=rejected, nothing."
        ),
    ] = None,
) -> StreamingResponse:
    """The per-line results as NDJSON, streamed in line order."""
    await uow.read(batches.check_batch, batch_id, who.source)
    if corrected is not None and only == "rejected":  # a rejected line has no findings
        return StreamingResponse(iter(()), media_type=NDJSON)
    return StreamingResponse(
        batches.iter_results(get_database(request), batch_id, only, corrected=corrected), media_type=NDJSON
    )
