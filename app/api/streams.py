"""Server-Sent Events of alerts (issue 22): ``GET /v1/findings/stream`` and the pit page's stream follow one source's
chain from a position, as webhooks do (:mod:`app.usecases.alerts`).

A stream holds no database connection while it waits: each look is one short read (``uow.read``). It looks at once
when a round with findings is stored in this process (:data:`~app.usecases.alerts.STREAMS` is woken), every
``BJAUDIT_WEBHOOK_POLL_SECONDS`` otherwise (the findings of other processes: batch workers, the service's other
workers), and sends a comment every :data:`HEARTBEAT` seconds so that proxies keep an idle stream open. It ends when
the client goes (Starlette cancels it), when the server stops (:meth:`Broadcast.stop`, called by the protocol's
shutdown: the answer ends cleanly instead of holding the shutdown), and after ``BJAUDIT_STREAM_MAX_SECONDS`` (the
client reconnects with ``Last-Event-ID`` and misses nothing; a revoked key's stream does not go on for ever), and when
the database does not answer a look (the answer ends cleanly: the client reconnects after ``retry:``, and is answered
503 until the database is back).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator

import orjson

from app import metrics
from app.api.deps import UnitOfWork
from app.usecases import alerts as alert_cases
from app.usecases.alerts import Alert, Filters

log = logging.getLogger("bjaudit.streams")

HEARTBEAT = 15.0
"""Seconds of silence after which a stream sends ``: keep-alive``."""
RETRY_MS = 2000
"""The reconnection delay a stream asks of EventSource clients (``retry:``)."""
MEDIA_TYPE = "text/event-stream"
HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
"""No cache, and no buffering by nginx (``X-Accel-Buffering``): each event goes at once."""


def event(event_id: str, name: str, data: object) -> bytes:
    """One event: its id (what a client sends back as ``Last-Event-ID``), its name, its data as one line of JSON.

    >>> event("s:1:0", "finding", {"a": 1})
    b'id: s:1:0\\nevent: finding\\ndata: {"a":1}\\n\\n'
    """
    return f"id: {event_id}\nevent: {name}\ndata: ".encode() + orjson.dumps(data) + b"\n\n"


async def follow(
    uow: UnitOfWork,
    source: str,
    start: tuple[int, int],
    filters: Filters,
    poll: float,
    lasts: float,
    heartbeat: float = HEARTBEAT,
) -> AsyncIterator[bytes | list[Alert]]:
    """What a stream sends: bytes as they are (a first comment with ``retry:``, heartbeats), and each read's matching
    alerts after ``start``, in the chain's order, for the caller to write as events; for ``lasts`` seconds at most
    (``BJAUDIT_STREAM_MAX_SECONDS``: the client reconnects with the last id)."""
    streams = alert_cases.STREAMS
    metrics.streams_open.inc()
    try:
        yield f": alerts of {source}\nretry: {RETRY_MS}\n\n".encode()
        position = start
        quiet_since = time.monotonic()
        ends = quiet_since + lasts
        while not streams.stopping and time.monotonic() < ends:
            seen = streams.generation
            try:
                alerts, position, more = await uow.read(alert_cases.next_alerts, source, position, filters)
            except Exception as exc:  # noqa: BLE001 - the database away: the answer ends, the client comes back
                log.warning(
                    "a stream of %s ended: the database did not answer (%s)", source, type(exc).__name__
                )
                return
            if alerts:
                yield alerts
                quiet_since = time.monotonic()
            if more:
                continue
            left = heartbeat - (time.monotonic() - quiet_since)
            if left <= 0:
                yield b": keep-alive\n\n"
                quiet_since = time.monotonic()
                continue
            await streams.wait(max(0.0, min(poll, left, ends - time.monotonic())), seen)
    finally:
        metrics.streams_open.dec()
