"""Alerts (issue 22): the findings of stored rounds, delivered to the pit while the player is still seated.

An **alert** is one finding of a round's first audit (a re-audit's findings concern rounds long settled: they alert no
one). Alerts are read in the order of their source's chain (:mod:`app.store.chain`): each round's entry is appended in
the transaction that stores the round, and a source's appends are numbered in the order they commit, so a position
``(seq, index)`` in the chain is a cursor that never skips an alert committed later. The chain is thus the outbox:
nothing more is written when a round is stored, whatever the number of subscriptions. An alert's id is
``<source>:<seq>:<index>``, the same for every subscriber and every retry (``webhook-id``: receivers de-duplicate by it).

**Webhooks** (:class:`Deliverer`): each subscription of a source (an admin key's) has filters and a cursor; a
deliverer (in the service, one at a time per subscription whichever process: a lease) POSTs each matching alert, in
order, signed as Standard Webhooks sign (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``: ``v1,`` +
base64 HMAC-SHA256 of ``id.timestamp.body`` under the secret), and moves the cursor past it once the receiver answered
2xx: at least once, in order, across restarts of the service and the database. A failure waits (1 s doubling to
10 min) and is retried; ``BJAUDIT_WEBHOOK_MAX_FAILURES`` failures in a row pause the subscription, which says why,
until an admin resumes it. Requests go only to the URL an admin registered, never to a loopback, private, link-local
or reserved address (unless ``BJAUDIT_WEBHOOKS_ALLOW_PRIVATE``), checked when registered and at each delivery (the
name may resolve elsewhere since), and never follow a redirect.

**Acknowledgements**: a supervisor acknowledges an alert, once, attributed to the key; append-only.

Functions take a :class:`~sqlalchemy.orm.Session` and never commit, but for the deliverer, which owns its short
transactions.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import ipaddress
import logging
import secrets
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlsplit

import orjson
from sqlalchemy.orm import Session

from app.store import alerts as repo
from app.usecases.errors import AlertNotFound, InvalidQuery, SubscriptionInvalid, SubscriptionNotFound
from app.usecases.keys import Principal
from app.usecases.offline import iso_utc

log = logging.getLogger("bjaudit.alerts")

ENTRIES_A_READ = 500
"""How many chain entries one read of the feed covers."""
WHOLE_ENTRY = 1 << 30
"""A cursor's index past every finding of its entry."""
CURSOR_STRIDE = 200
"""A look that finds no alert for a subscription moves its cursor only once this many entries were read past it."""
RECORD_EVERY, RECORD_SECONDS = 50, 0.1
"""Deliveries are recorded (their rows, the cursor) once per this many alerts or seconds, whichever comes first."""


# --- alerts ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alert:
    source: str
    seq: int
    index: int
    round_pk: int
    round_id: str
    jurisdiction: str
    table_id: str
    dealer_id: str | None
    shoe_id: str | None
    played_at: datetime
    received_at: datetime
    finding: Mapping[str, Any]

    @property
    def id(self) -> str:
        return f"{self.source}:{self.seq}:{self.index}"

    @property
    def amount_owed(self) -> int | None:
        """What is still owed, minor units: to the player when positive, by the player when negative (the finding's
        ``amount_delta``); None for a finding that is not about money."""
        delta = self.finding.get("amount_delta")
        return delta if isinstance(delta, int) else None

    @property
    def seat(self) -> int | None:
        hand = self.finding.get("hand")
        return int(hand.split(".")[0]) if isinstance(hand, str) and hand[:1].isdigit() else None

    @property
    def corrected(self) -> bool:
        """The table corrected the settlement at fault later in the round (round-v1 section 2.3): the alert is
        closed."""
        return self.finding.get("corrected_by") is not None

    def body(self, public_url: str) -> dict[str, Any]:
        """The alert as a webhook's and a stream's ``data``."""
        f = self.finding
        return {
            "alert_id": self.id,
            "source": self.source,
            "round_id": self.round_id,
            "jurisdiction": self.jurisdiction,
            "table_id": self.table_id,
            "dealer_id": self.dealer_id,
            "shoe_id": self.shoe_id,
            "played_at": iso_utc(self.played_at),
            "received_at": iso_utc(self.received_at),
            "seat": self.seat,
            "hand": f.get("hand"),
            "event": f.get("event"),
            "rule": f.get("rule"),
            "citation": f.get("citation"),
            "citation_status": f.get("citation_status"),
            "title": f.get("title"),
            "category": f.get("category"),
            "message": f.get("message"),
            "expected": f.get("expected"),
            "actual": f.get("actual"),
            "amount_owed": self.amount_owed,
            "corrected_by": f.get("corrected_by"),
            "round_url": round_url(public_url, self.source, self.round_id, self.jurisdiction),
        }


def round_url(public_url: str, source: str, round_id: str, jurisdiction: str) -> str:
    return (
        f"{public_url.rstrip('/')}/ui/rounds/{quote(round_id, safe='')}"
        f"?source={quote(source, safe='')}&jurisdiction={quote(jurisdiction, safe='')}"
    )


def _alerts_of(source: str, row: Any) -> list[Alert]:
    findings = orjson.loads(row.audit).get("findings", ())
    return [
        Alert(
            source,
            int(row.seq),
            i,
            int(row.id),
            row.round_id,
            row.jurisdiction,
            row.table_id,
            row.dealer_id,
            row.shoe_id,
            row.played_at,
            row.received_at,
            f,
        )
        for i, f in enumerate(findings)
    ]


def read(
    session: Session, source: str, after: tuple[int, int], entries: int = ENTRIES_A_READ
) -> tuple[list[Alert], int]:
    """The alerts of ``source`` after the position ``after`` (seq, index), from at most ``entries`` chain entries,
    and the last seq those entries reached (the cursor may move there when none of them matched)."""
    seq, index = after
    first = seq + 1 if index >= WHOLE_ENTRY else max(seq, 1)
    reached, rows = repo.entries_with_findings(session, source, first, first + entries - 1)
    alerts = [a for row in rows for a in _alerts_of(source, row) if (a.seq, a.index) > (seq, index)]
    # The rows' statement may see entries committed after the one that found the range's last: those were read too
    # (and every entry before them, committed before them), or a stream would send their alerts again.
    return alerts, max(reached, seq, *(int(row.seq) for row in rows))


def parse_alert_id(alert_id: str) -> tuple[str, int, int]:
    source, _, rest = alert_id.rpartition(":")
    source, _, seq = source.rpartition(":")
    try:
        n, i = int(seq), int(rest)
    except ValueError:
        raise AlertNotFound(f"No alert {alert_id!r}: an alert's id is <source>:<seq>:<index>.") from None
    if not source or not 1 <= n < 2**63 or i < 0:  # (seq is a bigint)
        raise AlertNotFound(f"No alert {alert_id!r}: an alert's id is <source>:<seq>:<index>.")
    return source, n, i


def alert(session: Session, principal: Principal, alert_id: str) -> Alert:
    source, seq, index = parse_alert_id(alert_id)
    if principal.source is not None and principal.source != source:
        raise AlertNotFound(f"No alert {alert_id!r} for this key.")
    row = repo.round_at(session, source, seq)
    found = [a for a in _alerts_of(source, row) if a.index == index] if row is not None else []
    if not found:
        raise AlertNotFound(f"No alert {alert_id!r}.")
    return found[0]


# --- filters ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filters:
    rules: frozenset[str] | None = None
    categories: frozenset[str] | None = None
    tables: frozenset[str] | None = None
    min_amount: int | None = None
    """Only alerts owing at least this much, either way (minor units); a finding not about money does not match."""

    def matches(self, a: Alert) -> bool:
        f = a.finding
        if self.rules is not None and f.get("rule") not in self.rules:
            cited = f.get("also_cited_as") or ()
            if not any(c in self.rules for c in cited):
                return False
        if self.categories is not None and f.get("category") not in self.categories:
            return False
        if self.tables is not None and a.table_id not in self.tables:
            return False
        if self.min_amount is not None:
            owed = a.amount_owed
            if owed is None or abs(owed) < self.min_amount:
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": None if self.rules is None else sorted(self.rules),
            "categories": None if self.categories is None else sorted(self.categories),
            "tables": None if self.tables is None else sorted(self.tables),
            "min_amount": self.min_amount,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Filters:
        def names(key: str) -> frozenset[str] | None:
            v = doc.get(key)
            return None if v is None else frozenset(v)

        return cls(names("rules"), names("categories"), names("tables"), doc.get("min_amount"))


# --- signing (Standard Webhooks) -------------------------------------------------------------------------------

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def secret_key(secret: str) -> bytes:
    """The signing key of a ``whsec_`` secret; :class:`ValueError` when it is not one (24 to 64 bytes, base64)."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError(f"a secret is {SECRET_PREFIX!r} followed by the base64 of 24 to 64 random bytes")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except ValueError:
        raise ValueError("the part after 'whsec_' is not base64") from None
    if not 24 <= len(key) <= 64:
        raise ValueError(f"the key is {len(key)} bytes: 24 to 64 are accepted (32 recommended)")
    return key


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body`` (Standard Webhooks)."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(secret_key(secret), signed, hashlib.sha256).digest()).decode()


# --- where requests may go -------------------------------------------------------------------------------------


def refused_address(url: str, allow_private: bool) -> str | None:
    """Why a request to ``url`` must not be made (in words), or None. Resolves its host now."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:  # a bracketed host that is no IPv6 address, a port that is no port
        return f"not a URL: {exc}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "only http:// and https:// URLs with a host are delivered to"
    if parts.username or parts.password:
        return "a URL with credentials in it is not accepted (send them in the path or use the signature)"
    if allow_private:
        return None
    try:
        infos = socket.getaddrinfo(parts.hostname, port)
    except (socket.gaierror, UnicodeError) as exc:
        return f"the host {parts.hostname!r} does not resolve ({exc})"
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if not ip.is_global or ip.is_multicast:
            return (
                f"{parts.hostname} resolves to {ip}, a loopback, private, link-local or reserved address: the "
                "service does not send requests inside its own network (BJAUDIT_WEBHOOKS_ALLOW_PRIVATE=true allows it)"
            )
    return None


# --- subscriptions ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewSubscription:
    url: str
    secret: str | None
    rules: list[str] | None
    categories: list[str] | None
    tables: list[str] | None
    min_amount: int | None


def _now() -> datetime:
    return datetime.now(UTC)


def subscription_info(row: Any) -> dict[str, Any]:
    filters = orjson.loads(row.filters)
    return {
        "id": row.id,
        "source": row.source,
        "url": row.url,
        **filters,
        "created_at": iso_utc(row.created_at),
        "created_by": row.created_by,
        "state": "paused" if row.paused_at is not None else ("retrying" if row.failures else "active"),
        "paused_at": None if row.paused_at is None else iso_utc(row.paused_at),
        "paused_reason": row.paused_reason,
        "delivered": int(row.delivered),
        "failures_in_a_row": int(row.failures),
        "next_attempt_at": None
        if row.next_attempt_at is None or not row.failures
        else iso_utc(row.next_attempt_at),
        "last_error": row.last_error,
        "position": {
            "seq": int(row.cursor_seq),
            "index": None if int(row.cursor_index) >= WHOLE_ENTRY else int(row.cursor_index),
        },
    }


def create_subscription(
    session: Session, principal: Principal, source: str | None, new: NewSubscription, allow_private: bool
) -> dict[str, Any]:
    """Register a webhook for ``source`` (the key's own when it has one); the answer carries the secret, once."""
    owner = principal.source or source
    if owner is None:
        raise SubscriptionInvalid(
            "A key of every source subscribes for one source: give 'source'.",
            errors=[{"pointer": "/source", "detail": "required with a key of every source"}],
        )
    if principal.source is not None and source is not None and source != principal.source:
        raise SubscriptionInvalid(
            f"This key acts for source {principal.source!r}, not {source!r}.",
            errors=[{"pointer": "/source", "detail": "not this key's source"}],
        )
    why = refused_address(new.url, allow_private)
    if why is not None:
        raise SubscriptionInvalid(
            f"The URL is not accepted: {why}.", errors=[{"pointer": "/url", "detail": why}]
        )
    secret = new.secret or new_secret()
    try:
        secret_key(secret)
    except ValueError as exc:
        raise SubscriptionInvalid(
            f"The secret is not accepted: {exc}.", errors=[{"pointer": "/secret", "detail": str(exc)}]
        ) from None
    filters = Filters(
        None if new.rules is None else frozenset(new.rules),
        None if new.categories is None else frozenset(new.categories),
        None if new.tables is None else frozenset(new.tables),
        new.min_amount,
    )
    sub_id = "sub_" + secrets.token_hex(8)
    now = _now()
    repo.add_subscription(
        session,
        {
            "id": sub_id,
            "source": owner,
            "url": new.url,
            "secret": secret,
            "filters": orjson.dumps(filters.to_json()).decode(),
            "created_at": now,
            "created_by": principal.attribution,
            "cursor_seq": repo.head_seq(
                session, owner
            ),  # from now on: the findings stored before are not news
            "cursor_index": WHOLE_ENTRY,
            "failures": 0,
            "delivered": 0,
        },
    )
    session.flush()
    row = repo.subscription(session, sub_id)
    return {**subscription_info(row), "secret": secret}


def _owned(session: Session, principal: Principal, sub_id: str) -> Any:
    row = repo.subscription(session, sub_id)
    if row is None or (principal.source is not None and row.source != principal.source):
        raise SubscriptionNotFound(f"No subscription {sub_id!r}.")
    return row


def get_subscription(session: Session, principal: Principal, sub_id: str) -> dict[str, Any]:
    return subscription_info(_owned(session, principal, sub_id))


def list_subscriptions(session: Session, principal: Principal, source: str | None) -> list[dict[str, Any]]:
    return [subscription_info(r) for r in repo.subscriptions(session, principal.reads(source))]


def delete_subscription(session: Session, principal: Principal, sub_id: str) -> None:
    _owned(session, principal, sub_id)
    repo.delete_subscription(session, sub_id, _now())


def resume_subscription(session: Session, principal: Principal, sub_id: str) -> dict[str, Any]:
    """A paused subscription delivers again, from where it stopped."""
    _owned(session, principal, sub_id)
    repo.update_subscription(
        session,
        sub_id,
        {
            "paused_at": None,
            "paused_reason": None,
            "failures": 0,
            "first_failure_at": None,
            "next_attempt_at": None,
        },
    )
    return subscription_info(repo.subscription(session, sub_id))


def list_deliveries(
    session: Session, principal: Principal, sub_id: str, before: int | None, limit: int
) -> dict[str, Any]:
    _owned(session, principal, sub_id)
    rows = repo.deliveries(session, sub_id, before, limit + 1)
    items = [
        {
            "id": int(r.id),
            "alert_id": r.event_id,
            "attempted_at": iso_utc(r.attempted_at),
            "outcome": r.outcome,
            "status": r.status,
            "error": r.error,
            "seconds": round(float(r.seconds), 4),
            "latency_seconds": None if r.latency_seconds is None else round(float(r.latency_seconds), 4),
        }
        for r in rows[:limit]
    ]
    return {"items": items, "next_before": items[-1]["id"] if len(rows) > limit else None}


# --- acknowledgements ------------------------------------------------------------------------------------------


def acknowledgement_info(row: Any) -> dict[str, Any]:
    return {
        "alert_id": f"{row.source}:{row.seq}:{row.finding_index}",
        "acknowledged_at": iso_utc(row.acknowledged_at),
        "acknowledged_by": row.acknowledged_by,
        "key_id": row.key_id,
        "note": row.note,
    }


def acknowledge(
    session: Session, principal: Principal, alert_id: str, note: str | None
) -> tuple[bool, dict[str, Any]]:
    """Acknowledge an alert: (True, it) when recorded now; (False, the earlier one) when it was acknowledged."""
    a = alert(session, principal, alert_id)
    before = repo.acknowledgement(session, a.source, a.seq, a.index)
    if before is not None:
        return False, acknowledgement_info(before)
    repo.add_acknowledgement(
        session,
        {
            "source": a.source,
            "seq": a.seq,
            "finding_index": a.index,
            "round_pk": a.round_pk,
            "acknowledged_at": _now(),
            "key_id": principal.key_id,
            "acknowledged_by": principal.attribution,
            "note": note,
        },
    )
    session.flush()
    return True, acknowledgement_info(repo.acknowledgement(session, a.source, a.seq, a.index))


def alert_answer(session: Session, principal: Principal, alert_id: str, public_url: str) -> dict[str, Any]:
    a = alert(session, principal, alert_id)
    ack = repo.acknowledgement(session, a.source, a.seq, a.index)
    return {**a.body(public_url), "acknowledgement": None if ack is None else acknowledgement_info(ack)}


# --- delivery --------------------------------------------------------------------------------------------------

BACKOFF_FIRST, BACKOFF_MAX = 1.0, 600.0
IDLE_POLL = 5.0
"""Seconds between looks when no subscription is due (a new one, or a resumed one, wakes the deliverer)."""
LEASE_MARGIN = 5.0
"""A deliverer's hold on a subscription lasts one POST (``webhook_timeout_seconds``) and this many seconds more,
renewed with each delivery it records: a killed deliverer's subscriptions are taken over that soon."""


def backoff(failures: int) -> float:
    """Seconds before the next attempt after ``failures`` failures in a row: 1, 2, 4 ... 600.

    >>> [backoff(n) for n in (1, 2, 3, 11, 30)]
    [1.0, 2.0, 4.0, 600.0, 600.0]
    """
    return float(min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** min(failures - 1, 30)))


class Deliverer:
    """Delivers every live subscription's alerts (an asyncio task of the service). ``wake()`` (after a round with
    findings is stored in this process) starts a pass at once; otherwise a pass runs every ``poll`` seconds, which
    is how the findings stored by batch workers and other processes are seen."""

    def __init__(self, db: Any, settings: Any) -> None:
        import httpx

        self.db = db
        self.public_url = settings.public_url
        self.allow_private = settings.webhooks_allow_private
        self.poll = settings.webhook_poll_seconds
        self.max_failures = settings.webhook_max_failures
        self.lease = timedelta(seconds=settings.webhook_timeout_seconds + LEASE_MARGIN)
        self.client = httpx.AsyncClient(timeout=settings.webhook_timeout_seconds, follow_redirects=False)
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False

    def wake(self) -> None:
        """Start a pass now (from any thread: the batch runner's too)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        import anyio

        self._loop = asyncio.get_running_loop()
        while not self._stopping:
            ids: Sequence[str] = ()
            live = True
            self._wake.clear()  # before the pass: a round stored during it wakes the next one
            try:
                ids, live = await anyio.to_thread.run_sync(self._due)
                passes = await asyncio.gather(
                    *(self.deliver(sub_id) for sub_id in ids), return_exceptions=True
                )
                for sub_id, failed in zip(ids, passes, strict=True):  # a slow receiver delays no other
                    if isinstance(failed, Exception):
                        log.error("the delivery pass of %s failed", sub_id, exc_info=failed)
            except Exception:  # noqa: BLE001 - the database away: the next pass carries everything
                log.exception("a delivery pass of webhooks failed")
            if self._stopping:
                break
            with contextlib.suppress(
                TimeoutError
            ):  # no subscription to serve: a slower look (a new one wakes it)
                await asyncio.wait_for(self._wake.wait(), self.poll if live else IDLE_POLL)

    async def stop(self, task: asyncio.Task[None], timeout: float) -> None:
        """End :meth:`run` after its current pass (a database call in a thread is never cut: its connection would be
        left open under a disposed pool), cancelling it only past ``timeout``; close the HTTP client."""
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            await self.client.aclose()

    def _due(self) -> tuple[Sequence[str], bool]:
        """The subscriptions to deliver now, and whether any subscription is live (then other processes' findings
        are looked for every ``poll`` seconds)."""
        with self.db.session() as session:
            return list(repo.due(session, _now(), WHOLE_ENTRY)), repo.any_live(session)

    def _take(self, sub_id: str) -> tuple[Any, list[Alert], int] | None:
        """The subscription, leased, with its matching alerts and the last entry read; None when there is nothing to
        send (or another deliverer holds it). A look that finds nothing writes nothing: the cursor moves past
        entries without alerts for it only every :data:`CURSOR_STRIDE` entries (re-reading fewer costs less than a
        write each poll)."""
        with self.db.session() as session:
            row = repo.subscription(session, sub_id)
            if row is None or row.paused_at is not None:
                return None
            filters = Filters.from_json(orjson.loads(row.filters))
            alerts, reached = read(session, row.source, (int(row.cursor_seq), int(row.cursor_index)))
            if not any(filters.matches(a) for a in alerts):
                if reached - int(row.cursor_seq) >= CURSOR_STRIDE:
                    repo.update_subscription(
                        session, sub_id, {"cursor_seq": reached, "cursor_index": WHOLE_ENTRY}
                    )
                return None
            now = _now()
            row = repo.lease(session, sub_id, now, now + self.lease)
            if row is None:
                return None
            alerts, reached = read(session, row.source, (int(row.cursor_seq), int(row.cursor_index)))
            return row, [a for a in alerts if filters.matches(a)], reached

    def _record(
        self, sub_id: str, values: Mapping[str, Any], deliveries: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        with self.db.session() as session:
            for delivery in deliveries:
                repo.add_delivery(session, {"subscription_id": sub_id, **delivery})
            repo.update_subscription(session, sub_id, values)

    async def deliver(self, sub_id: str) -> None:
        """One pass of one subscription: its matching alerts in order until one fails; the lease released."""
        import anyio

        taken = await anyio.to_thread.run_sync(self._take, sub_id)
        if taken is None:
            return
        row, alerts, reached = taken
        failures, delivered = int(row.failures), 0
        failing_since = row.first_failure_at if failures else None
        done: list[dict[str, Any]] = []  # delivered, not recorded yet
        recorded_at = time.monotonic()

        async def record_done() -> None:
            """Record the deliveries made since the last record, and move the cursor past the last of them: once
            per :data:`RECORD_EVERY` alerts or :data:`RECORD_SECONDS` (a deliverer killed before it records sends
            those again: at least once)."""
            nonlocal done, recorded_at
            if done:
                last = parse_alert_id(done[-1]["event_id"])
                values = {
                    "cursor_seq": last[1],
                    "cursor_index": last[2],
                    "lease_until": _now() + self.lease,  # held while it delivers
                    "delivered": int(row.delivered) + delivered,
                    "failures": 0,
                    "first_failure_at": None,
                    "next_attempt_at": None,
                    "last_error": None,
                }
                await anyio.to_thread.run_sync(self._record, sub_id, values, done)
                done = []
            recorded_at = time.monotonic()

        try:
            for a in alerts:
                outcome, status, error, seconds = await self._post(row, a)
                now = _now()
                latency = (now - a.received_at).total_seconds()
                delivery = {
                    "event_id": a.id,
                    "attempted_at": now,
                    "outcome": outcome,
                    "status": status,
                    "error": error,
                    "seconds": seconds,
                    "latency_seconds": latency if outcome == "delivered" else None,
                }
                _count(outcome, latency if outcome == "delivered" else None)
                if outcome == "delivered":
                    delivered += 1
                    done.append(delivery)
                    failures, failing_since = 0, None
                    if len(done) >= RECORD_EVERY or time.monotonic() - recorded_at >= RECORD_SECONDS:
                        await record_done()
                    continue
                await record_done()
                failures += 1
                first = failing_since or now
                values: dict[str, Any] = {
                    "failures": failures,
                    "first_failure_at": first,
                    "next_attempt_at": now + timedelta(seconds=backoff(failures)),
                    "last_error": error,
                    "delivered": int(row.delivered) + delivered,
                }
                if failures >= self.max_failures:
                    values["paused_at"] = now
                    values["paused_reason"] = (
                        f"{failures} deliveries in a row failed since {iso_utc(first)}; the last, of alert {a.id}: "
                        f"{error}. Resume it (POST /v1/subscriptions/{sub_id}/resume) once the receiver is fixed: "
                        "delivery goes on from that alert."
                    )
                    log.warning("webhook subscription %s paused: %s", sub_id, values["paused_reason"])
                await anyio.to_thread.run_sync(self._record, sub_id, values, [delivery])
                return
            await record_done()
            # Every alert of the entries read was delivered or did not match: the cursor passes them all.
            await anyio.to_thread.run_sync(
                self._record, sub_id, {"cursor_seq": reached, "cursor_index": WHOLE_ENTRY}
            )
        finally:
            await anyio.to_thread.run_sync(self._record, sub_id, {"lease_until": None})

    async def _post(self, row: Any, a: Alert) -> tuple[str, int | None, str | None, float]:
        """Send one alert: (outcome, HTTP status, error in words, seconds)."""
        import anyio
        import httpx

        started = time.perf_counter()
        why = await anyio.to_thread.run_sync(refused_address, row.url, self.allow_private)
        if why is not None:
            return "refused", None, f"not sent: {why}", time.perf_counter() - started
        ts = int(time.time())
        body = orjson.dumps(
            {"type": "finding.created", "timestamp": iso_utc(_now()), "data": a.body(self.public_url)}
        )
        headers = {
            "content-type": "application/json",
            "user-agent": "bjaudit-webhooks",
            "webhook-id": a.id,
            "webhook-timestamp": str(ts),
            "webhook-signature": signature(row.secret, a.id, ts, body),
        }
        try:
            answer = await self.client.post(row.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            return "failed", None, f"{type(exc).__name__}: {exc}"[:500], time.perf_counter() - started
        seconds = time.perf_counter() - started
        if 200 <= answer.status_code < 300:
            return "delivered", answer.status_code, None, seconds
        return "failed", answer.status_code, f"HTTP {answer.status_code}: {answer.text[:200]}", seconds


def _count(outcome: str, latency: float | None) -> None:
    from app import metrics

    metrics.webhook_deliveries.labels(outcome).inc()
    if latency is not None:
        metrics.webhook_latency.observe(latency)


DELIVERER: Deliverer | None = None
"""The service's deliverer, when it runs one (set in the lifespan)."""


def stored_findings() -> None:
    """A round with findings was just stored in this process: deliver and stream now rather than at the next poll."""
    if DELIVERER is not None:
        DELIVERER.wake()
    STREAMS.wake()


# --- streams ---------------------------------------------------------------------------------------------------


class Broadcast:
    """Wakes every open stream of this process (each an asyncio task waiting in :meth:`wait`) when findings are
    stored here, from any thread; :meth:`stop` ends them all (the server is stopping: they close their answers
    rather than hold the shutdown)."""

    def __init__(self) -> None:
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self.stopping = False
        self.generation = 0
        """How many times it was woken: a stream that notes it before a read and passes it to :meth:`wait` misses
        no wake that came while it was reading."""

    def wake(self) -> None:
        self.generation += 1
        for loop, event in list(self._waiters):
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    def stop(self) -> None:
        self.stopping = True
        self.wake()

    async def wait(self, timeout: float, seen: int | None = None) -> bool:
        """Wait until woken (True) or ``timeout`` seconds (False); at once (True) when woken since the
        :attr:`generation` ``seen``."""
        if self.stopping or (seen is not None and seen != self.generation):
            return True
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        self._waiters.add(waiter)
        try:
            async with asyncio.timeout(timeout):
                await waiter[1].wait()
            return True
        except TimeoutError:
            return False
        finally:
            self._waiters.discard(waiter)

    @property
    def open(self) -> int:
        """How many streams wait now."""
        return len(self._waiters)


STREAMS = Broadcast()
"""The process's streams (``GET /v1/findings/stream``, the pit page's)."""


def stream_start(
    session: Session, source: str, last_event_id: str | None, head: int | None = None
) -> tuple[int, int]:
    """Where a stream of ``source`` starts: after the alert ``last_event_id`` (an alert id of this source), else after
    the chain entry ``head``, else at the source's head now (only findings stored from now on)."""
    if last_event_id is None:
        return (repo.head_seq(session, source) if head is None else head), WHOLE_ENTRY
    try:
        of, seq, index = parse_alert_id(last_event_id)
    except AlertNotFound as exc:
        raise InvalidQuery(exc.detail, errors=[{"parameter": "after", "detail": "not an alert id"}]) from None
    if of != source:
        raise InvalidQuery(
            f"The alert {last_event_id!r} is not of the source streamed ({source!r}).",
            errors=[{"parameter": "after", "detail": "an alert of another source"}],
        )
    return seq, index


def stream_source(principal: Principal, source: str | None) -> str:
    """The one source a stream follows: the key's own, or the one a key of every source names."""
    chosen = principal.reads(source)
    if chosen is None:
        raise InvalidQuery(
            "A key of every source streams one source at a time: give ?source=.",
            errors=[{"parameter": "source", "detail": "required with a key of every source"}],
        )
    return chosen


def next_alerts(
    session: Session, source: str, after: tuple[int, int], filters: Filters
) -> tuple[list[Alert], tuple[int, int], bool]:
    """A stream's next read: the matching alerts after ``after``, the position to read from next, and whether more
    entries may follow at once (the read covered as many as one read covers)."""
    alerts, reached = read(session, source, after)
    matching = [a for a in alerts if filters.matches(a)]
    position = after if reached <= after[0] else (reached, WHOLE_ENTRY)
    return matching, position, reached - max(after[0], 1) + 1 >= ENTRIES_A_READ


# --- the pit page ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """An alert as the pit page shows it: with its acknowledgement (None: not acknowledged)."""

    alert: Alert
    acknowledgement: dict[str, Any] | None


def latest(
    session: Session, source: str, tables: Sequence[str] | None, rounds: int = 50
) -> tuple[list[Shown], int]:
    """The alerts of the last ``rounds`` rounds with findings of ``source`` (of ``tables`` when given), newest
    first, with their acknowledgements; and the source's head they were read at (a stream from there misses none
    stored since)."""
    head = repo.head_seq(session, source)
    rows = repo.latest_with_findings(session, source, tables, rounds, head)
    alerts = [a for row in rows for a in reversed(_alerts_of(source, row))]
    if not alerts:
        return [], head
    acks = repo.acknowledged_in(session, source, alerts[-1].seq, alerts[0].seq)
    return [
        Shown(a, None if (k := acks.get((a.seq, a.index))) is None else acknowledgement_info(k))
        for a in alerts
    ], head


def shown(session: Session, alerts: Sequence[Alert]) -> list[Shown]:
    """``alerts`` (of one source) with their acknowledgements."""
    if not alerts:
        return []
    acks = repo.acknowledged_in(session, alerts[0].source, alerts[0].seq, alerts[-1].seq)
    return [
        Shown(a, None if (k := acks.get((a.seq, a.index))) is None else acknowledgement_info(k))
        for a in alerts
    ]


def alerts_of_round(session: Session, source: str, round_pk: int) -> list[Shown]:
    """A stored round's alerts (the findings of the audit stored with it), with their acknowledgements; none for a
    round without a chain entry."""
    seq = repo.entry_of_round(session, round_pk)
    if seq is None:
        return []
    row = repo.round_at(session, source, seq)
    return shown(session, [] if row is None else _alerts_of(source, row))
