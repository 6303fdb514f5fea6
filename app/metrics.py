"""Prometheus metrics of the service (``prometheus_client``): what the HTTP layer and the use cases count, and the
batches' progress read from the database at scrape time. Exposed at ``/metrics`` by :mod:`app.api.observability`.

The counters live in the process that counts: a ``bjaudit worker`` process counts the chunks it audits in its own
memory, which the service's ``/metrics`` does not show (the batches' progress, read from the database, covers every
worker). With several uvicorn workers, ``bjaudit serve`` points ``PROMETHEUS_MULTIPROC_DIR`` at a scratch directory
and ``/metrics`` adds up every worker process's counters.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import case, func, select

from app.store.db import Database
from app.store.models import batch_chunks_table as C
from app.store.models import batches_table as B

log = logging.getLogger("bjaudit.metrics")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# No ``*_created`` series beside each counter: scrapers of the text format ignore them.
disable_created_metrics()  # type: ignore[no-untyped-call]

http_requests = Counter(
    "bjaudit_http_requests", "HTTP requests answered, by route template.", ("method", "route", "status")
)
http_duration = Histogram(
    "bjaudit_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template.",
    ("method", "route"),
)
rounds_audited = Counter(
    "bjaudit_rounds_audited",
    "Rounds audited by this process: via single (POST /v1/rounds) and batch (a batch line) when newly stored, "
    "dry_run (POST /v1/audit) always.",
    ("jurisdiction", "verdict", "via"),
)
findings = Counter(
    "bjaudit_findings",
    "Findings of the rounds newly stored by this process (single and batch; dry runs are not counted).",
    ("jurisdiction", "rule"),
)


webhook_deliveries = Counter(
    "bjaudit_webhook_deliveries",
    "Webhook deliveries attempted by this process, by outcome: delivered (2xx), failed (another answer, or none), "
    "refused (not sent: the URL resolves to an address the service does not send to).",
    ("outcome",),
)
webhook_latency = Histogram(
    "bjaudit_webhook_latency_seconds",
    "From a round's receipt to the receiver's 2xx answer to the webhook of one of its findings.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)
streams_open = Gauge(
    "bjaudit_streams_open",
    "Streams of findings open now (GET /v1/findings/stream and the pit page's), every process's added up.",
    multiprocess_mode="livesum",
)

replica_reads = Counter(
    "bjaudit_replica_reads",
    "Reads the read replica may serve (BJAUDIT_DATABASE_READ_URL), by who served them: replica, primary (the "
    "standby lagged or was down, BJAUDIT_READ_FALLBACK=primary) or refused (503, BJAUDIT_READ_FALLBACK=unavailable).",
    ("served_by",),
)
replica_lag = Gauge(
    "bjaudit_read_replica_lag_seconds",
    "How far the read replica was behind the primary at its last check (at most once a second; -1: not known).",
    multiprocess_mode="max",
)


def audited(result: Mapping[str, Any], via: str) -> None:
    """Count one audit result (``single``, ``batch`` or ``dry_run``) and, unless a dry run, its findings."""
    jurisdiction = str(result.get("jurisdiction"))
    rounds_audited.labels(jurisdiction, str(result.get("verdict")), via).inc()
    if via != "dry_run":
        for finding in result.get("findings", ()):
            findings.labels(jurisdiction, str(finding.get("rule"))).inc()


def audited_all(results: Iterable[Mapping[str, Any]], via: str) -> None:
    for result in results:
        audited(result, via)


def share_between_processes(processes: int) -> None:
    """Before ``bjaudit serve`` starts ``processes`` > 1 uvicorn workers: their metrics in files of a scratch
    directory (removed at exit), which /metrics adds up; nothing if ``PROMETHEUS_MULTIPROC_DIR`` is set already."""
    if processes <= 1 or os.environ.get(MULTIPROC_ENV):
        return
    directory = tempfile.mkdtemp(prefix="bjaudit-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    atexit.register(shutil.rmtree, directory, ignore_errors=True)


# --- the batches' progress, from the database ------------------------------------------------------------------

UNFINISHED = ("uploading", "queued", "processing")
STATES = (*UNFINISHED, "done", "failed")


def _progress_statement() -> Any:
    """One statement: per state (as ``GET /v1/batches/{id}`` names it), the batches, their lines received and their
    lines not yet audited. The undone chunks are grouped by batch (what the workers' own polling reads)."""
    undone = (
        select(
            C.c.batch_id,
            func.count().label("chunks"),
            func.count(C.c.started_at).label("started"),
            func.sum(C.c.line_count).label("lines"),
        )
        .where(C.c.done_at.is_(None))
        .group_by(C.c.batch_id)
        .subquery()
    )
    state = case(
        (B.c.state == "failed", "failed"),
        (B.c.received_at.is_(None), "uploading"),
        (undone.c.batch_id.is_(None), "done"),
        ((undone.c.started > 0) | (undone.c.chunks < B.c.chunk_count), "processing"),
        else_="queued",
    )
    per_batch = (
        select(
            state.label("state"),
            B.c.lines_received.label("received"),
            func.coalesce(undone.c.lines, 0).label("undone"),
        )
        .select_from(B.outerjoin(undone, undone.c.batch_id == B.c.id))
        .subquery()
    )
    return select(
        per_batch.c.state, func.count(), func.sum(per_batch.c.received), func.sum(per_batch.c.undone)
    ).group_by(per_batch.c.state)


_PROGRESS = _progress_statement()


class BatchProgress(Collector):
    """``bjaudit_batches{state}``, and the lines received and audited of the batches not finished, read at scrape
    time with one query. Nothing (and one warning when it starts failing) while the database cannot answer; at most
    one query at a time (a scrape that finds one still running, on a hung database, skips these metrics)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._busy = threading.Lock()
        self._failing = False

    def collect(self) -> Iterator[Metric]:
        if not self._busy.acquire(blocking=False):
            return
        try:
            with self.db.reading() as session:
                rows = session.execute(_PROGRESS).all()
        except Exception as exc:  # noqa: BLE001 - a scrape never fails for the database
            if not self._failing:
                log.warning("batch metrics skipped: the database cannot answer (%s)", type(exc).__name__)
            self._failing = True
            return
        finally:
            self._busy.release()
        self._failing = False
        counts = dict.fromkeys(STATES, 0)
        received = done = 0
        for state, n, lines, undone in rows:
            counts[state] = int(n)
            if state in UNFINISHED:
                received += int(lines or 0)
                done += int(lines or 0) - int(undone or 0)
        batches = GaugeMetricFamily("bjaudit_batches", "Batches by state.", labels=("state",))
        for state, n in counts.items():
            batches.add_metric((state,), n)
        yield batches
        yield GaugeMetricFamily(
            "bjaudit_batch_lines_received",
            "Lines (rounds) received by the batches not finished (uploading, queued, processing).",
            value=received,
        )
        yield GaugeMetricFamily(
            "bjaudit_batch_lines_done",
            "Lines (rounds) already audited of the batches not finished.",
            value=done,
        )


class Scrape(Collector):
    """What one scrape exposes: this process's metrics (every process's, in multiprocess mode), then ``extra``
    (collected beforehand)."""

    def __init__(self, extra: Iterable[Metric] = ()) -> None:
        self.extra = extra

    def collect(self) -> Iterator[Metric]:
        if os.environ.get(MULTIPROC_ENV):
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            yield from registry.collect()
        else:
            yield from REGISTRY.collect()
        yield from self.extra
