"""Batch use cases: take in an NDJSON upload as a stream, audit it chunk by chunk, report progress and results.

Called by the HTTP API (``app.api.batches``), the in-process runner (SQLite) and the queue worker
(``app.usecases.batch_queue``, PostgreSQL). Design and measurements: ``docs/batches.md``.

- :class:`BatchWriter` stores an upload: incremental gunzip, split into lines, SHA-256 of the content, one
  ``batch_chunks`` row per ``batch_chunk_lines`` lines, all in ONE transaction that commits only when the whole
  body has arrived intact. A cut-off upload leaves a ``failed`` batch and no chunk. The same content from the same
  source is the same batch (idempotent re-upload).
- :func:`process_chunk` audits one chunk in ONE transaction: rounds, findings, per-line results and the chunk's
  ``done_at`` commit together, so a worker killed mid-chunk leaves nothing and a chunk done is never redone.
- :func:`batch_status` and :func:`iter_results` read progress and results.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import Select, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import metrics
from app.store import chain
from app.store import rounds as repo
from app.store.db import Database
from app.store.models import batch_chunks_table as C
from app.store.models import batch_results_table as BR
from app.store.models import batches_table as B
from app.store.models import findings_table as F
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.usecases import alerts, offline, reaudits, transparency
from app.usecases import rollups as rollup_cases
from app.usecases import rounds as round_cases
from app.usecases.errors import RoundConflict, ServiceError, problem_body

log = logging.getLogger("bjaudit.batches")

FINDINGS_OUTCOMES = ("violations", "unreplayable")
ONLY = {"findings": FINDINGS_OUTCOMES, "rejected": ("rejected",)}


class BatchNotFound(ServiceError):
    status, slug, title = 404, "batch-not-found", "No such batch"


class UploadIncomplete(ServiceError):
    status, slug, title = (
        400,
        "batch-upload-incomplete",
        "The upload did not arrive whole; nothing was accepted",
    )


class LineTooLong(ServiceError):
    status, slug, title = 413, "batch-line-too-long", "A line of the batch is over the size limit"


TOO_LONG = b"\x00line-too-long:"
"""Stored in a chunk in place of a line over the line limit (which is not kept): no line of JSON starts with NUL."""


# A client's own line that happens to look like the marker is either this exact shape (and rejected, as it would
# be anyway: no JSON starts with NUL) or audited as the line it is.
_TOO_LONG_RE = re.compile(re.escape(TOO_LONG) + rb"(\d{1,20}):(\d{1,20})")


def _too_long(size: int, limit: int) -> bytes:
    return TOO_LONG + f"{size}:{limit}".encode()


class UploadTooLarge(ServiceError):
    status, slug, title = 413, "batch-too-large", "The batch is over a size limit"


@dataclass(frozen=True)
class UploadLimits:
    """What one upload may hold (each a BJAUDIT_BATCH_MAX_* setting); over any of them it is refused whole (413)."""

    upload_bytes: int = 4 << 30
    content_bytes: int = 4 << 30
    ratio: float = 200.0
    lines: int = 2_000_000

    RATIO_FROM = 16 << 20
    """The decompression ratio is judged once this many bytes are decompressed (small uploads vary widely)."""


def _now() -> datetime:
    return datetime.now(UTC)


# --- upload ----------------------------------------------------------------------------------------------------


class _Gunzip:
    """Incremental gunzip of one or more concatenated gzip members (what ``cat a.gz b.gz`` makes)."""

    def __init__(self) -> None:
        self._d = zlib.decompressobj(wbits=31)
        self._in_member = False
        self._members = 0
        self.consumed = 0
        """Compressed bytes inflated so far (not merely received): what the ratio is judged against."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decompressed content, in pieces of at most ``PIECE`` bytes however far ``data`` expands (memory stays
        flat under a gzip bomb; the line-length and body limits then stop it)."""
        while data:
            self._in_member = True
            while True:
                out = self._d.decompress(data, self.PIECE)
                self.consumed += len(data) - len(self._d.unconsumed_tail) - len(self._d.unused_data)
                if out:
                    yield out
                data = self._d.unconsumed_tail
                if self._d.eof or (len(out) < self.PIECE and not data):
                    break
            if not self._d.eof:
                return
            self._members += 1
            self._in_member = False
            data = self._d.unused_data
            self._d = zlib.decompressobj(wbits=31)

    PIECE = 1 << 20

    def complete(self) -> bool:
        """True when the stream ended at the end of a gzip member (not cut off inside one)."""
        return self._members > 0 and not self._in_member


@dataclass
class UploadOutcome:
    batch_id: str
    created: bool
    """False: the same content from the same source was uploaded before; this is that batch."""
    lines_received: int
    chunks: list[int] = field(default_factory=list)
    """Chunk numbers to hand to the runner (empty for an existing batch)."""


class BatchWriter:
    """Stores one upload, fed with the raw body as it arrives. Not thread-safe; feed it from one thread at a time.

    ``feed(data)`` for each piece of the body, then ``finish(declared_length)``; ``fail(reason)`` if the body
    cannot be completed. Memory: at most one chunk of lines (plus one partial line) at a time.
    """

    def __init__(
        self,
        db: Database,
        source: str,
        *,
        gzipped: bool,
        chunk_lines: int,
        max_line_bytes: int,
        limits: UploadLimits | None = None,
        alive_every: float = 30.0,
    ) -> None:
        self.db = db
        self.limits = limits or UploadLimits()
        self.alive_every = alive_every
        """Seconds between marks of life (``updated_at``) while data keeps coming, chunk or not: a sweep must never
        take a slow but live upload for dead."""
        self._alive_at = time.monotonic()
        self.source = source
        self.batch_id = uuid.uuid4().hex
        self.chunk_lines = chunk_lines
        self.max_line_bytes = max_line_bytes
        self._gunzip = _Gunzip() if gzipped else None
        self._sha = hashlib.sha256()
        self._partial = bytearray()
        self._skipped: int | None = None  # bytes so far of a line over max_line_bytes (not kept)
        self._lines: list[bytes] = []
        self._nonblank = 0
        self._buffered = 0  # bytes of the lines held for the next chunk
        self._first_line = 1
        self._next_line = 1
        self.lines_received = 0
        self.bytes_received = 0
        self.content_bytes = 0
        self._chunk_no = 0
        self._created_at = _now()
        self._started = False

    # -- plumbing: short transactions, one per chunk, so that an upload never holds the database (SQLite's write
    # lock, a PostgreSQL connection) while it waits for the client. Until ``finish`` the batch is ``queued`` with no
    # ``received_at``: uploading, invisible to the runners (:func:`pending_chunks`), its chunks removed if it fails.

    def _begin(self) -> None:
        if self._started:
            return
        with self.db.engine.begin() as conn:
            conn.execute(
                insert(B).values(
                    id=self.batch_id,
                    source=self.source,
                    content_sha256=None,
                    state="queued",
                    lines_received=0,
                    bytes_received=0,
                    chunk_count=0,
                    created_at=self._created_at,
                    received_at=None,
                    updated_at=_now(),
                    error=None,
                )
            )
        self._started = True

    def _touch(self, conn: Any, **values: Any) -> None:
        """Update the batch row while it is still arriving; a batch swept meanwhile (taken for dead and failed) ends
        this upload: nothing of it is accepted."""
        done = conn.execute(
            update(B)
            .where(B.c.id == self.batch_id, B.c.state == "queued", B.c.received_at.is_(None))
            .values(updated_at=_now(), **values)
        )
        if done.rowcount != 1:
            raise UploadIncomplete(
                "The upload was taken for dead (no sign of life for too long) and failed; nothing of it was "
                "accepted; send the whole file again.",
                extra={"batch_id": self.batch_id},
            )
        self._alive_at = time.monotonic()

    def _discard(self) -> None:
        """Remove what this upload stored (its chunks, and the batch row unless ``keep_row``)."""
        if not self._started:
            return
        with self.db.engine.begin() as conn:
            conn.execute(delete(C).where(C.c.batch_id == self.batch_id))
            conn.execute(delete(B).where(B.c.id == self.batch_id))
        self._started = False

    # -- the stream

    def feed(self, data: bytes) -> None:
        self.bytes_received += len(data)
        if self._started and time.monotonic() - self._alive_at > self.alive_every:
            with self.db.engine.begin() as conn:
                self._touch(conn)
        if self.bytes_received > self.limits.upload_bytes:
            raise self._too_large(
                f"over {self.limits.upload_bytes} bytes as sent", "BJAUDIT_BATCH_MAX_UPLOAD_BYTES"
            )
        for piece in self._gunzip.feed(data) if self._gunzip is not None else (data,):
            self._take(piece)

    def _too_large(self, what: str, setting: str) -> UploadTooLarge:
        return UploadTooLarge(
            f"The upload is {what}; nothing was accepted. Split it, or raise {setting}.",
            extra={"setting": setting},
        )

    def _take(self, data: bytes) -> None:
        if not data:
            return
        self.content_bytes += len(data)
        limits = self.limits
        if self.content_bytes > limits.content_bytes:
            raise self._too_large(
                f"over {limits.content_bytes} bytes decompressed", "BJAUDIT_BATCH_MAX_CONTENT_BYTES"
            )
        if (
            self._gunzip is not None
            and self.content_bytes > limits.RATIO_FROM
            and self.content_bytes > limits.ratio * max(self._gunzip.consumed, 1)
        ):
            raise self._too_large(
                f"gzip that expands over {limits.ratio:g} times (a decompression bomb?)",
                "BJAUDIT_BATCH_MAX_RATIO",
            )
        self._sha.update(data)
        start = 0
        limit = self.max_line_bytes
        while True:
            nl = data.find(b"\n", start)
            if nl >= 0 and not self._partial and self._skipped is None:  # a whole line in this piece
                line = data[start:nl]
                self._add_line(line if len(line) <= limit else _too_long(len(line), limit))
                start = nl + 1
                continue
            piece = data[start:] if nl < 0 else data[start:nl]
            if self._skipped is not None:  # inside a line already over the limit: count it, keep none of it
                self._skipped += len(piece)
            else:
                self._partial += piece
                if len(self._partial) > limit:
                    self._skipped = len(self._partial)
                    self._partial.clear()
            if nl < 0:
                return
            self._end_partial_line()
            start = nl + 1

    def _end_partial_line(self) -> None:
        if self._skipped is not None:
            self._add_line(_too_long(self._skipped, self.max_line_bytes))
            self._skipped = None
        else:
            self._add_line(bytes(self._partial))
            self._partial.clear()

    def _add_line(self, line: bytes) -> None:
        if self._next_line > self.limits.lines:  # every line counts, blank ones too: each costs a little work
            raise self._too_large(
                f"over {self.limits.lines} lines (blank ones count)", "BJAUDIT_BATCH_MAX_LINES"
            )
        self._lines.append(line)
        self._next_line += 1
        self._buffered += len(line)
        if line.strip():
            self._nonblank += 1
            if self._nonblank >= self.chunk_lines or self._buffered >= self.CHUNK_BYTES:
                self._flush()
        elif len(self._lines) >= 4 * self.chunk_lines:
            self._flush()  # blank lines take memory too: a chunk may hold fewer lines, or none (then none is stored)

    CHUNK_BYTES = 32 << 20
    """A chunk is cut short at this many bytes of lines, however few lines it holds."""

    def _flush(self) -> None:
        if self._nonblank:
            self._begin()
            with self.db.engine.begin() as conn:
                conn.execute(
                    insert(C).values(
                        batch_id=self.batch_id,
                        chunk_no=self._chunk_no,
                        first_line=self._first_line,
                        line_count=self._nonblank,
                        data=b"\n".join(self._lines),
                        started_at=None,
                        done_at=None,
                        compliant=0,
                        violations=0,
                        unreplayable=0,
                        rejected=0,
                        duplicates=0,
                        conflicts=0,
                    )
                )
                self._touch(
                    conn,
                    lines_received=self.lines_received + self._nonblank,
                    bytes_received=self.content_bytes,
                )
            self._chunk_no += 1
            self.lines_received += self._nonblank
        self._first_line = self._next_line
        self._lines = []
        self._nonblank = 0
        self._buffered = 0

    def finish(self, declared_length: int | None) -> UploadOutcome:
        """The body has ended: mark the batch received (the runners may take it), or, when this content from this
        source is a batch already, remove this upload and answer that batch. Raises :class:`UploadIncomplete` (and
        removes what was stored) when the body did not arrive whole."""
        if declared_length is not None and declared_length != self.bytes_received:
            raise self.fail(f"Content-Length said {declared_length} bytes, {self.bytes_received} arrived.")
        if self._gunzip is not None and not self._gunzip.complete():
            raise self.fail("The gzip stream is cut off (it ends inside a gzip member).")
        if self._partial or self._skipped is not None:
            self._end_partial_line()
        self._flush()
        self._begin()  # an upload of blank lines only is a batch too
        digest = self._sha.hexdigest()
        same_content = select(B.c.id, B.c.lines_received).where(
            B.c.source == self.source, B.c.content_sha256 == digest, B.c.id != self.batch_id
        )
        with self.db.engine.begin() as conn:
            existing = conn.execute(same_content).one_or_none()
            if existing is None:
                try:
                    with conn.begin_nested():
                        self._touch(
                            conn,
                            content_sha256=digest,
                            lines_received=self.lines_received,
                            bytes_received=self.content_bytes,
                            chunk_count=self._chunk_no,
                            received_at=_now(),
                        )
                except IntegrityError:  # a concurrent upload of the same content was received first
                    existing = conn.execute(same_content).one()
        if existing is None:
            return UploadOutcome(self.batch_id, True, self.lines_received, list(range(self._chunk_no)))
        self._discard()
        return UploadOutcome(existing.id, False, existing.lines_received)

    def fail(self, reason: str) -> UploadIncomplete:
        """Remove what was stored, record the batch as failed (so the operator sees it), and return the error to
        raise."""
        try:
            self._begin()
            with self.db.engine.begin() as conn:
                conn.execute(delete(C).where(C.c.batch_id == self.batch_id))
                conn.execute(
                    update(B)
                    .where(B.c.id == self.batch_id)
                    .values(
                        state="failed",
                        lines_received=self.lines_received + self._nonblank,
                        bytes_received=self.content_bytes,
                        chunk_count=0,
                        updated_at=_now(),
                        error=reason,
                    )
                )
        except Exception:  # noqa: BLE001 - the upload failed already; the record of it is best effort
            log.exception("could not record failed batch %s", self.batch_id)
        self._started = False  # the failed batch's record stays: nothing of it for abandon() to remove
        return UploadIncomplete(
            f"{reason} Nothing of this upload was accepted; send the whole file again.",
            extra={"batch_id": self.batch_id, "bytes_received": self.bytes_received},
        )

    def abandon(self) -> None:
        """Remove what was stored without recording anything (an error already answered, e.g. a line too long)."""
        try:
            self._discard()
        except Exception:  # noqa: BLE001 - answered already; a leftover is swept as a stale upload
            log.exception("could not remove abandoned upload %s", self.batch_id)


def sweep_stale_uploads(session: Session, idle_seconds: float) -> int:
    """Uploads that stopped (the process died mid-upload) and were never marked: failed, their chunks removed.
    An upload still alive touches its batch at least every chunk, and fails by itself after ``idle_seconds``
    without data; twice that, and it is surely dead."""
    cutoff = _now() - timedelta(seconds=2 * idle_seconds)
    stale = select(B.c.id).where(B.c.state == "queued", B.c.received_at.is_(None), B.c.updated_at < cutoff)
    ids = [r[0] for r in session.execute(stale)]
    if ids:
        session.execute(delete(C).where(C.c.batch_id.in_(ids)))
        session.execute(
            update(B)
            .where(B.c.id.in_(ids))
            .values(
                state="failed",
                chunk_count=0,
                error="The upload stopped before it was complete (the "
                "service stopped, or lost the client); nothing of it was accepted.",
            )
        )
    return len(ids)


# --- processing ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    line_no: int
    record: bytes
    sha: str
    round_id: str
    jurisdiction: str
    audited: offline.Audited


def _dialect_insert(session: Session, table: Any) -> Any:
    return (
        postgresql.insert
        if session.bind is not None and session.bind.dialect.name == "postgresql"
        else sqlite.insert
    )(table)


def _round_values(line: _Line, source: str, received_at: datetime) -> dict[str, Any]:
    return round_cases.round_row(line.audited, line.record, line.sha, source, received_at)


def _finding_values(pk: int, line: _Line, source: str) -> list[dict[str, Any]]:
    return repo.finding_rows(pk, line.audited.result.get("findings", ()), source, line.audited.round)


def _findings_json(line: _Line) -> str | None:
    findings = line.audited.result.get("findings") or []
    return orjson.dumps(findings).decode() if findings else None


def _conflict_problem(line: _Line, source: str, stored_sha: str) -> str:
    exc = RoundConflict(
        f"Round {line.round_id!r} ({line.jurisdiction}) was already submitted by {source!r} with a different "
        "record; nothing was changed.",
        extra={"round_id": line.round_id, "stored_sha256": stored_sha, "sha256": line.sha},
    )
    return orjson.dumps(problem_body(exc)).decode()


def audit_lines(
    chunk: bytes,
    first_line: int,
    registered: offline.ElectionsLookup | None = None,
    received_at: datetime | None = None,
) -> Iterator[tuple[int, bytes, offline.Audited | ServiceError]]:
    """Each non-blank line of a chunk with its audit, or the error the single-round API would answer for it.
    ``registered`` finds the registered elections of a round without ``table.rules``, as for a single round;
    ``received_at``, when the service received the batch: a line played more than 5 minutes after it is rejected
    (:func:`app.usecases.rounds.read_round`; None checks nothing)."""
    audit = offline.audit
    for i, raw in enumerate(chunk.split(b"\n")):
        if not raw.strip():
            continue
        too_long = _TOO_LONG_RE.fullmatch(raw) if raw.startswith(TOO_LONG) else None
        if too_long is not None:  # rejected alone, as the single-round API refuses such a body (413)
            size, limit = int(too_long[1]), int(too_long[2])
            yield (
                first_line + i,
                b"",
                LineTooLong(
                    f"Line {first_line + i} is {size} bytes, over the limit of {limit} bytes (BJAUDIT_MAX_BODY_BYTES, "
                    "the single-round limit); this line alone is rejected.",
                    extra={"max_body_bytes": limit},
                ),
            )
            continue
        record = raw[:-1] if raw.endswith(b"\r") else raw
        try:
            yield first_line + i, record, audit(record, registered, None, received_at)
        except ServiceError as exc:
            yield first_line + i, record, exc


# Test hook: called inside the chunk's transaction after the rounds are inserted (a test raises here to play a
# worker that dies mid-chunk).
_after_rounds_hook: Callable[[str, int], None] | None = None


def process_chunk(db: Database, batch_id: str, chunk_no: int) -> bool:
    """Audit one chunk and store everything it gives, in one transaction. False if it was done already."""
    with db.session() as s:
        chunk = s.execute(
            select(C.c.first_line, C.c.data, C.c.done_at)
            .where(C.c.batch_id == batch_id, C.c.chunk_no == chunk_no)
            .with_for_update()
        ).one_or_none()
        if chunk is None or chunk.done_at is not None:
            return False
        batch = s.execute(select(B.c.source, B.c.state, B.c.received_at).where(B.c.id == batch_id)).one()
        if (
            batch.state != "queued" or batch.received_at is None
        ):  # failed, or still arriving: not ours to audit
            return False
        source = batch.source
        started = _now()
        stored = _store_chunk(
            s, batch_id, chunk_no, chunk.first_line, chunk.data, source, started, batch.received_at
        )
    metrics.audited_all(stored, "batch")  # once committed
    if any(r.get("findings") for r in stored):
        alerts.stored_findings()
    rollup_cases.roll_after_chunk(db, [source])
    if transparency.PUBLISHER is not None:
        with db.reading() as s:
            left = s.execute(
                select(func.count()).where(C.c.batch_id == batch_id, C.c.done_at.is_(None))
            ).scalar_one()
        if not left:
            transparency.batch_done(db, source)
    return True


def _store_chunk(
    s: Session,
    batch_id: str,
    chunk_no: int,
    first_line: int,
    data: bytes,
    source: str,
    started: datetime,
    received_at: datetime,
) -> list[dict[str, Any]]:
    """Audit and store a chunk; returns the audit results of the rounds it stored. ``received_at``: when the
    service received the whole batch (its lines' moment of receipt, whenever the chunk is audited)."""
    counts = dict.fromkeys(
        ("compliant", "violations", "unreplayable", "rejected", "duplicates", "conflicts"), 0
    )
    # (line_no, round_id, outcome, verdict, detail) per line
    results: list[tuple[int, str | None, str, str | None, str | None]] = []
    fresh: dict[tuple[str, str], _Line] = {}
    repeats: list[_Line] = []  # a round_id seen earlier in this chunk
    new: list[dict[str, Any]] = []
    sha256 = hashlib.sha256
    # Registered elections: at most one query per (jurisdiction, table) of the chunk, only for rounds without rules.
    registered = round_cases.cached_registered_elections(s, source)
    for line_no, record, got in audit_lines(data, first_line, registered, received_at):
        if isinstance(got, ServiceError):
            counts["rejected"] += 1
            problem = problem_body(got)
            results.append(
                (line_no, got.extra.get("round_id"), "rejected", None, orjson.dumps(problem).decode())
            )
            continue
        rnd = got.round
        line = _Line(line_no, record, sha256(record).hexdigest(), rnd.round_id, rnd.jurisdiction, got)
        key = (line.round_id, line.jurisdiction)
        if key in fresh:
            repeats.append(line)
        else:
            fresh[key] = line

    pg = s.bind is not None and s.bind.dialect.name == "postgresql"
    store = _store_rounds_pg if pg else _store_rounds_generic
    # key -> None (inserted now) or the SHA-256 of the round someone else stored under that key before
    links: list[chain.Link] = []  # the rounds inserted now, in line order, to append to the source's chain
    stored = store(s, list(fresh.values()), source, started, links) if fresh else {}
    if _after_rounds_hook is not None:
        _after_rounds_hook(batch_id, chunk_no)

    def classify(line: _Line, against_sha: str | None) -> None:
        verdict = line.audited.result["verdict"]
        if against_sha is None:
            counts[verdict] += 1
            new.append(line.audited.result)
            results.append((line.line_no, line.round_id, verdict, verdict, _findings_json(line)))
        elif against_sha == line.sha:
            counts["duplicates"] += 1
            results.append((line.line_no, line.round_id, "duplicate", verdict, _findings_json(line)))
        else:
            counts["conflicts"] += 1
            results.append(
                (line.line_no, line.round_id, "conflict", None, _conflict_problem(line, source, against_sha))
            )

    gone: dict[tuple[str, str], str] = {}
    for key, line in fresh.items():
        if key not in stored:  # its key is taken by a round of an archived month (the only delete path)
            archived = repo.archived(s, line.round_id, source, line.jurisdiction)
            if archived is None:  # cannot happen otherwise; say so rather than guess
                raise RuntimeError(f"round {key} neither inserted nor found")
            gone[key] = _archived_problem(line, archived)
            counts["conflicts"] += 1
            results.append((line.line_no, line.round_id, "conflict", None, gone[key]))
            continue
        classify(line, stored[key])
    for line in repeats:
        # Against what is stored under the key: the first line's record if it was inserted now, else the round
        # stored before (a repeat of a conflicting line is a conflict too, never a duplicate of an unstored record).
        key = (line.round_id, line.jurisdiction)
        if key in gone:
            counts["conflicts"] += 1
            results.append((line.line_no, line.round_id, "conflict", None, gone[key]))
            continue
        classify(line, stored[key] or fresh[key].sha)
    if results:
        if pg:
            _copy_results_pg(s, batch_id, results)
        else:
            s.execute(
                insert(BR),
                [
                    {
                        "batch_id": batch_id,
                        "line_no": r[0],
                        "round_id": r[1],
                        "outcome": r[2],
                        "verdict": r[3],
                        "detail": r[4],
                    }
                    for r in results
                ],
            )
    s.execute(
        update(C)
        .where(C.c.batch_id == batch_id, C.c.chunk_no == chunk_no)
        .values(started_at=started, done_at=_now(), **counts)
    )
    # Last: the chain. The source's head stays locked from here to the commit, so that concurrent chunks of one
    # source wait for each other only over these three statements.
    chain.append_links(s, source, links)
    return new


def _archived_problem(line: _Line, archived: Any) -> str:
    """The problem of a line whose round_id is taken by a round of an archived month (its record is in the archive
    file, not here to compare with): as the single-round API answers it (410)."""
    try:
        round_cases.gone(archived)
    except ServiceError as exc:
        return orjson.dumps(problem_body(exc)).decode()
    raise RuntimeError("gone() did not refuse an archived round")


def _chain_links(
    inserted: dict[tuple[str, str], int], lines: list[_Line], source: str, started: datetime
) -> list[chain.Link]:
    """The chain entries of the rounds inserted now, in line order."""
    return [
        chain.link_of("round", pk, chain.round_content(_round_values(line, source, started)))
        for line in lines
        if (pk := inserted.get((line.round_id, line.jurisdiction))) is not None
    ]


def _store_rounds_generic(
    s: Session, lines: list[_Line], source: str, started: datetime, links: list[chain.Link]
) -> dict[tuple[str, str], str | None]:
    """Insert the rounds (SQLAlchemy, any dialect) and their findings; classify the keys (see _store_chunk); add
    the chain entries of the rounds inserted to ``links``."""
    stmt = (
        _dialect_insert(s, RK)
        .on_conflict_do_nothing(index_elements=["round_id", "source", "jurisdiction"])
        .returning(RK.c.id, RK.c.round_id, RK.c.jurisdiction)
    )
    values = {(line.round_id, line.jurisdiction): _round_values(line, source, started) for line in lines}
    keys = [{c: v[c] for c in ("round_id", "source", "jurisdiction", "played_at")} for v in values.values()]
    inserted = {(r.round_id, r.jurisdiction): r.id for r in s.execute(stmt, keys)}
    if inserted:  # the rounds under the keys inserted now only
        s.execute(insert(R), [{**values[k], "id": pk} for k, pk in inserted.items()])
    stored: dict[tuple[str, str], str | None] = dict.fromkeys(inserted)
    taken = [
        (line.round_id, line.jurisdiction)
        for line in lines
        if (line.round_id, line.jurisdiction) not in inserted
    ]
    if taken:
        # Another batch or submission holds these: the unique constraint decided; now compare the records.
        ids = sorted({k[0] for k in taken})
        for i in range(0, len(ids), 500):
            for r in s.execute(
                select(RK.c.round_id, RK.c.jurisdiction, R.c.record_sha256)
                .select_from(repo.keyed_rounds())
                .where(RK.c.source == source, RK.c.round_id.in_(ids[i : i + 500]))
            ):
                stored.setdefault((r.round_id, r.jurisdiction), r.record_sha256)
    by_key = {(line.round_id, line.jurisdiction): line for line in lines}
    findings = [f for k, pk in inserted.items() for f in _finding_values(pk, by_key[k], source)]
    if findings:
        s.execute(insert(F), findings)
    links += _chain_links(inserted, lines, source, started)
    return stored


# PostgreSQL: the chunk's keys are inserted first, all in one statement (their arrays in binary), ON CONFLICT DO
# NOTHING RETURNING: the keys' unique constraint decides duplicates and conflicts, also between chunks racing on one
# round_id; then the rounds under the keys inserted now are COPYed (binary) straight into ``rounds``, each record
# written once; findings and results are COPYed (no conflict possible).
_STAGE_COLUMNS = (
    ("jurisdiction", "text"),
    ("round_id", "text"),
    ("table_id", "text"),
    ("played_at", "timestamptz"),
    ("dealer_id", "text"),
    ("shoe_id", "text"),
    ("record", "bytea"),
    ("record_sha256", "text"),
    ("verdict", "text"),
    ("ruleset", "text"),
    ("engine_version", "text"),
    ("elections_source", "text"),
    ("elections_id", "int8"),
    ("finding_count", "int4"),
    ("audit", "text"),
    ("void_reason", "text"),
)
"""A round's columns as the batch path writes them (:func:`_stage_row`), beside ``id``, ``source`` and
``received_at``."""
_STAGE_NAMES = ", ".join(n for n, _ in _STAGE_COLUMNS)
_ROUND_COPY_COLUMNS = (("id", "int8"), ("source", "text"), ("received_at", "timestamptz"), *_STAGE_COLUMNS)
_INSERT_KEYS = (
    "INSERT INTO round_keys (round_id, source, jurisdiction, played_at) "
    "SELECT k.round_id, %(source)s, k.jurisdiction, k.played_at FROM unnest(%(round_ids)b::text[], "
    "%(jurisdictions)b::text[], %(played)b::timestamptz[]) WITH ORDINALITY AS k(round_id, jurisdiction, played_at, n) "
    "ORDER BY k.n ON CONFLICT (round_id, source, jurisdiction) DO NOTHING RETURNING id, round_id, jurisdiction"
)
"""The chunk's keys, in line order (the locks of the keys in the order of the chunk's lines; a chunk's repeats are
never among them): the ids of those inserted now."""
_STORED_SHAS = (
    "SELECT k.round_id, k.jurisdiction, r.record_sha256 FROM round_keys k "
    "JOIN rounds r ON r.id = k.id AND r.played_at = k.played_at "
    "WHERE k.source = %(source)s AND (k.round_id, k.jurisdiction) IN "
    "(SELECT * FROM unnest(%(round_ids)b::text[], %(jurisdictions)b::text[]))"
)
"""The records' SHA-256 of keys another batch or submission holds."""
_STAGE_TYPES = [t for _, t in _STAGE_COLUMNS]
_FINDING_COLUMNS = (
    ("round_pk", "int8"),
    ("seq", "int4"),
    ("rule", "text"),
    ("also_cited_as", "text"),
    ("citation_status", "text"),
    ("category", "text"),
    ("event_index", "int4"),
    ("hand", "text"),
    ("amount_delta", "int8"),
    ("source", "text"),
    ("jurisdiction", "text"),
    ("table_id", "text"),
    ("played_at", "timestamptz"),
    ("corrected_by", "int4"),
    ("corrected_actual", "int8"),
)
_RESULT_COLUMNS = (
    ("batch_id", "text"),
    ("line_no", "int4"),
    ("round_id", "text"),
    ("outcome", "text"),
    ("verdict", "text"),
    ("detail", "text"),
)


def _driver(s: Session) -> Any:
    """The psycopg connection under the session, inside the session's transaction."""
    return s.connection().connection.driver_connection


def _copy(cur: Any, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[Any]]) -> None:
    names = ", ".join(n for n, _ in columns)
    with cur.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as cp:
        cp.set_types([t for _, t in columns])
        for row in rows:
            cp.write_row(row)


def _store_rounds_pg(
    s: Session, lines: list[_Line], source: str, started: datetime, links: list[chain.Link]
) -> dict[tuple[str, str], str | None]:
    driver = _driver(s)
    with driver.cursor() as cur:
        # A chunk lost in a crash before its commit reached the disk is simply not done, and is done again: the
        # chunk's transaction need not wait for the WAL flush.
        cur.execute("SET LOCAL synchronous_commit = off")
        cur.execute(
            _INSERT_KEYS,
            {
                "source": source,
                "round_ids": [line.round_id for line in lines],
                "jurisdictions": [line.jurisdiction for line in lines],
                "played": [line.audited.round.played_at for line in lines],
            },
        )
        inserted = {(r[1], r[2]): r[0] for r in cur.fetchall()}
        by_key = {(line.round_id, line.jurisdiction): line for line in lines}
        if inserted:
            _copy(
                cur,
                "rounds",
                _ROUND_COPY_COLUMNS,
                ((pk, source, started, *_stage_row(by_key[k])) for k, pk in inserted.items()),
            )
        stored: dict[tuple[str, str], str | None] = dict.fromkeys(inserted)
        taken = [k for k in by_key if k not in inserted]
        if taken:
            # Another batch or submission holds these: the unique constraint decided; now compare the records.
            cur.execute(
                _STORED_SHAS,
                {
                    "source": source,
                    "round_ids": [k[0] for k in taken],
                    "jurisdictions": [k[1] for k in taken],
                },
            )
            for round_id, jurisdiction, sha in cur.fetchall():
                stored.setdefault((round_id, jurisdiction), sha)
        findings = [row for k, pk in inserted.items() for row in _finding_rows(pk, by_key[k], source)]
        if findings:
            _copy(cur, "findings", _FINDING_COLUMNS, findings)
    links += _chain_links(inserted, lines, source, started)
    return stored


def _stage_row(line: _Line) -> tuple[Any, ...]:
    rnd, result = line.audited.round, line.audited.result
    return (
        rnd.jurisdiction,
        rnd.round_id,
        rnd.table_id,
        rnd.played_at,
        rnd.dealer_id,
        rnd.shoe_id,
        line.record,
        line.sha,
        result["verdict"],
        result["ruleset"],
        result["engine_version"],
        result["elections_source"],
        result.get("elections_registration"),
        len(result.get("findings", ())),
        line.audited.body.decode(),
        round_cases.void_reason(result),
    )


def _finding_rows(pk: int, line: _Line, source: str) -> list[tuple[Any, ...]]:
    return [
        (
            v["round_pk"],
            v["seq"],
            v["rule"],
            v["also_cited_as"],
            v["citation_status"],
            v["category"],
            v["event_index"],
            v["hand"],
            v["amount_delta"],
            v["source"],
            v["jurisdiction"],
            v["table_id"],
            v["played_at"],
            v["corrected_by"],
            v["corrected_actual"],
        )
        for v in _finding_values(pk, line, source)
    ]


def _copy_results_pg(
    s: Session, batch_id: str, results: list[tuple[int, str | None, str, str | None, str | None]]
) -> None:
    driver = _driver(s)
    with driver.cursor() as cur:
        _copy(cur, "batch_results", _RESULT_COLUMNS, ((batch_id, *r) for r in results))


def _result(line: _Line, outcome: str, verdict: str | None, detail: str | None) -> dict[str, Any]:
    return {
        "line_no": line.line_no,
        "round_id": line.round_id,
        "outcome": outcome,
        "verdict": verdict,
        "detail": detail,
    }


def pending_chunks(session: Session, batch_id: str | None = None) -> list[tuple[str, int]]:
    """(batch_id, chunk_no) of every chunk not yet done, of committed batches, oldest batch first."""
    stmt = (
        select(C.c.batch_id, C.c.chunk_no)
        .join(B, B.c.id == C.c.batch_id)
        .where(C.c.done_at.is_(None), B.c.state == "queued", B.c.received_at.is_not(None))
        .order_by(B.c.created_at, C.c.batch_id, C.c.chunk_no)
    )
    if batch_id is not None:
        stmt = stmt.where(C.c.batch_id == batch_id)
    return [(r.batch_id, r.chunk_no) for r in session.execute(stmt)]


# --- reading ---------------------------------------------------------------------------------------------------


def _iso(ts: datetime | None) -> str | None:
    return None if ts is None else offline.iso_utc(ts)


def _of_source(batch_id: str, source: str | None) -> Any:
    """The batch's row filter: the batch, if it is ``source``'s (None: any source's)."""
    where = B.c.id == batch_id
    return where if source is None else where & (B.c.source == source)


def batch_status(session: Session, batch_id: str, source: str | None = None) -> dict[str, Any]:
    """State and progress of a batch (of ``source``; None: of any source)."""
    b = session.execute(select(B).where(_of_source(batch_id, source))).one_or_none()
    if b is None:
        raise BatchNotFound(f"No batch {batch_id!r}.")
    agg = session.execute(
        select(
            func.count(C.c.done_at),
            func.count(C.c.started_at),
            func.coalesce(func.sum(C.c.line_count).filter(C.c.done_at.is_not(None)), 0),
            func.coalesce(func.sum(C.c.compliant), 0),
            func.coalesce(func.sum(C.c.violations), 0),
            func.coalesce(func.sum(C.c.unreplayable), 0),
            func.coalesce(func.sum(C.c.rejected), 0),
            func.coalesce(func.sum(C.c.duplicates), 0),
            func.coalesce(func.sum(C.c.conflicts), 0),
            func.max(C.c.done_at),
        ).where(C.c.batch_id == batch_id)
    ).one()
    done_chunks, started_chunks, audited = int(agg[0]), int(agg[1]), int(agg[2])
    finished_at = agg[9]
    if isinstance(finished_at, str):  # SQLite aggregate: the stored UTC text
        finished_at = datetime.fromisoformat(finished_at).replace(tzinfo=UTC)
    if b.state == "failed":
        state = "failed"
    elif b.received_at is None:
        state = "uploading"
    elif done_chunks == b.chunk_count:
        state = "done"
        finished_at = finished_at or b.received_at
    elif done_chunks or started_chunks:
        state = "processing"
    else:
        state = "queued"
    if state != "done":
        finished_at = None
    end = finished_at or _now()
    elapsed = max((end - b.created_at).total_seconds(), 0.0)
    return {
        "batch_id": b.id,
        "source": b.source,
        "state": state,
        "error": b.error,
        "content_sha256": b.content_sha256,
        "created_at": _iso(b.created_at),
        "received_at": _iso(b.received_at),
        "finished_at": _iso(finished_at),
        "chunks": b.chunk_count,
        "chunks_done": done_chunks,
        "counts": {
            "lines_received": b.lines_received,
            "audited": audited,
            "compliant": int(agg[3]),
            "violations": int(agg[4]),
            "unreplayable": int(agg[5]),
            "rejected": int(agg[6]),
            "duplicates": int(agg[7]),
            "conflicts": int(agg[8]),
        },
        "bytes_received": b.bytes_received,
        "elapsed_seconds": round(elapsed, 3),
        "rate_per_second": round(audited / elapsed, 1) if elapsed > 0 else None,
        "results": f"/v1/batches/{b.id}/results",
    }


def check_batch(session: Session, batch_id: str, source: str | None = None) -> None:
    """:class:`BatchNotFound` unless the batch exists (and is ``source``'s, when given)."""
    if session.execute(select(B.c.id).where(_of_source(batch_id, source))).one_or_none() is None:
        raise BatchNotFound(f"No batch {batch_id!r}.")


def result_line(row: Any) -> bytes:
    out: dict[str, Any] = {
        "line": row.line_no,
        "round_id": row.round_id,
        "outcome": row.outcome,
        "verdict": row.verdict,
    }
    if row.outcome in ("rejected", "conflict"):
        out["problem"] = orjson.Fragment(row.detail.encode())
    else:
        out["findings"] = orjson.Fragment(row.detail.encode()) if row.detail else []
    return orjson.dumps(out) + b"\n"


def results_query(batch_id: str, after: int, only: str | None, limit: int) -> Select[Any]:
    """Up to ``limit`` of a batch's per-line results after line ``after``, in line order (keyset on line_no), of the
    outcomes ``only`` names (:data:`ONLY`; None: every line)."""
    stmt = (
        select(BR.c.line_no, BR.c.round_id, BR.c.outcome, BR.c.verdict, BR.c.detail)
        .where(BR.c.batch_id == batch_id, BR.c.line_no > after)
        .order_by(BR.c.line_no)
        .limit(limit)
    )
    outcomes = ONLY.get(only) if only else None
    return stmt.where(BR.c.outcome.in_(outcomes)) if outcomes else stmt


def corrected_in(row: Any, corrected: bool) -> bool:
    """Whether a per-line result's findings hold one the table corrected (``corrected``: its ``corrected_by`` is
    set, round-v1 section 2.3), or one it did not; a line without findings holds neither."""
    if row.outcome in ("rejected", "conflict") or not row.detail:
        return False
    return any(("corrected_by" in f) == corrected for f in orjson.loads(row.detail))


def iter_results(
    db: Database, batch_id: str, only: str | None, page: int = 2000, corrected: bool | None = None
) -> Iterator[bytes]:
    """The batch's per-line results as NDJSON, in line order, read in pages (keyset on line_no): flat memory.
    ``corrected``: only the lines with a finding the table corrected (True) or did not (False)."""
    after = 0
    while True:
        stmt = results_query(batch_id, after, "findings" if corrected is not None else only, page)
        with db.reading() as s:
            rows = s.execute(stmt).all()
        if not rows:
            return
        kept = rows if corrected is None else [r for r in rows if corrected_in(r, corrected)]
        if kept:
            yield b"".join(result_line(r) for r in kept)
        after = rows[-1].line_no


# --- the in-process runner (SQLite, or when asked) -------------------------------------------------------------


Process = Callable[[Database, str, int], bool]
"""What a chunk's job runs: :func:`process_chunk` (a batch's) or :func:`app.usecases.reaudits.process_chunk`."""


class InlineRunner:
    """Audits chunks, of batches and of re-audits, in a background thread of this process: the embedded (SQLite)
    default. At start it takes up every chunk left undone (the service stopped or died mid-job)."""

    def __init__(self, db: Database, retries: int = 5) -> None:
        self.db = db
        self.retries = retries
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bjaudit-batch")
        self._stopping = threading.Event()

    def submit(self, items: Iterable[tuple[str, int]], process: Process | None = None) -> None:
        """Run ``process`` (default: a batch's :func:`process_chunk`) on each (job id, chunk number)."""
        if self._stopping.is_set():
            return
        for job_id, chunk_no in items:
            try:
                self._pool.submit(self._run, process or process_chunk, job_id, chunk_no)
            except (
                RuntimeError
            ):  # shut down meanwhile: the chunk stays undone and is taken up at the next start
                return

    def submit_reaudit(self, items: Iterable[tuple[str, int]]) -> None:
        self.submit(items, reaudits.process_chunk)

    def resume(self) -> int:
        with self.db.reading() as s:
            todo = pending_chunks(s)
            redo = reaudits.pending_chunks(s)
        self.submit(todo)
        self.submit_reaudit(redo)
        return len(todo) + len(redo)

    def _run(self, process: Process, job_id: str, chunk_no: int) -> None:
        for attempt in range(self.retries + 1):
            if self._stopping.is_set():
                return
            try:
                process(self.db, job_id, chunk_no)
                return
            except Exception:  # noqa: BLE001 - logged; the chunk stays undone and is retried
                log.exception("%s chunk %s failed (attempt %d)", job_id, chunk_no, attempt + 1)
                time.sleep(min(0.2 * 2**attempt, 5.0))
        # Still failing (e.g. the database locked by a long upload): try again later, behind the other chunks, for
        # as long as the service runs. An accepted chunk is never given up.
        if not self._stopping.is_set():
            timer = threading.Timer(self.requeue_after, self.submit, args=([(job_id, chunk_no)], process))
            timer.daemon = True
            timer.start()

    requeue_after = 30.0

    def close(self) -> None:
        self._stopping.set()
        self._pool.shutdown(wait=True, cancel_futures=True)


def chunk_refs(batch_id: str, chunks: Sequence[int]) -> list[tuple[str, int]]:
    return [(batch_id, c) for c in chunks]
