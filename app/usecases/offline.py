"""Auditing a record with nothing stored: read it (parse, the checks a submission makes), audit it, answer. The
offline ``bjaudit audit`` runs only this (no database, no web framework is imported); the service's use cases
(:mod:`app.usecases.rounds`, batches, re-audits) call it and store what it gives.

Errors are :mod:`app.usecases.errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from app.domain.errors import AuditError
from app.domain.model import Round
from app.usecases.auditing import audit_round
from app.usecases.errors import CannotAudit, InvalidRound, RoundInFuture
from app.usecases.what_if import WhatIf, audit_what_if
from app.wire.fast import parse_round
from app.wire.forms import RoundInvalid


@dataclass(frozen=True, slots=True)
class Audited:
    round: Round
    result: dict[str, Any]
    body: bytes
    """The audit result as JSON, exactly as answered (and, for a stored round, as stored)."""


def _check_storable(rnd: Round) -> None:
    """The identifiers kept in their own columns must be storable as text (PostgreSQL text cannot hold NUL),
    so that a record the dry run accepts is one a submission can store."""
    fields = {"/table/id": rnd.table_id, "/dealer_id": rnd.dealer_id, "/shoe_id": rnd.shoe_id}
    bad = [
        {"pointer": p, "detail": "must not contain the NUL character (\\u0000)"}
        for p, v in fields.items()
        if v and "\x00" in v
    ]
    if bad:
        raise InvalidRound(
            f"The record has {len(bad)} problem{'s' if len(bad) != 1 else ''}.",
            errors=bad,
            extra={"round_id": rnd.round_id},
        )


def _parse(record: bytes | str) -> Round:
    try:
        return parse_round(record)
    except RoundInvalid as exc:
        errors = [{"pointer": p.get("pointer", ""), "detail": p.get("message", "")} for p in exc.problems]
        n = len(errors)
        raise InvalidRound(
            f"The record has {n} problem{'s' if n != 1 else ''}.",
            errors=errors,
            extra={"round_id": exc.round_id} if exc.round_id else None,
        ) from exc


Registered = tuple[int, Mapping[str, Any]]
"""A registration in force: its id and its elections."""
ElectionsLookup = Callable[[Round], Registered | None]
"""The registration in force for a round's table at its played_at, or None. Called only for a round without
``table.rules``."""


FUTURE_LEEWAY = timedelta(minutes=5)
"""How far after the moment the service received a round its ``played_at`` may be (clocks differ) before the round
is refused: beyond that it cannot have been played yet (round-v1 section 2.3)."""


def too_far_ahead(rnd: Round, received_at: datetime) -> timedelta | None:
    """How far the round's ``played_at`` is after ``received_at``, when that is more than :data:`FUTURE_LEEWAY`;
    else None."""
    ahead = rnd.played_at - received_at
    return ahead if ahead > FUTURE_LEEWAY else None


def duration(span: timedelta) -> str:
    """A positive span in words, to its two largest units (``over`` when something smaller is left out).

    >>> duration(timedelta(hours=1)), duration(timedelta(minutes=5, seconds=1))
    ('1 hour', '5 minutes 1 second')
    >>> duration(timedelta(minutes=5, microseconds=1)), duration(timedelta(days=2, seconds=1))
    ('over 5 minutes', 'over 2 days')
    >>> duration(timedelta(days=391, hours=13)), duration(timedelta(0))
    ('391 days 13 hours', '0 seconds')
    """
    rest = span // timedelta(microseconds=1)
    parts: list[str] = []
    taken = 0
    for name, seconds in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, rest = divmod(rest, seconds * 1_000_000)
        if n:
            parts.append(f"{n} {name}{'s' if n != 1 else ''}")
        taken += bool(parts)
        if taken == 2:
            break
    text = " ".join(parts) or "0 seconds"
    return f"over {text}" if rest and parts else text


def _check_played(rnd: Round, received_at: datetime) -> None:
    """Refuse a round played more than :data:`FUTURE_LEEWAY` after the moment the service received it."""
    ahead = too_far_ahead(rnd, received_at)
    if ahead is None:
        return
    received = iso_utc(received_at)
    raise RoundInFuture(
        f"The round's played_at is {duration(ahead)} after the service received it ({received}): a round cannot be "
        f"taken before it is played (at most {duration(FUTURE_LEEWAY)} ahead is accepted, for clocks that differ).",
        errors=[
            {
                "pointer": "/played_at",
                "detail": f"{rnd.played_at.isoformat()} is {duration(ahead)} after the moment the service received "
                f"the round ({received}): more than {duration(FUTURE_LEEWAY)} in the future, so it cannot have been "
                "played yet",
            }
        ],
        extra={"round_id": rnd.round_id},
    )


def read_round(record: bytes | str, received_at: datetime | None = None) -> Round:
    """Parse a record and check that it can be stored (:class:`InvalidRound` if not); nothing is audited.
    ``received_at``: the moment the service received it, when there is one: a round played more than
    :data:`FUTURE_LEEWAY` after it is refused (:class:`RoundInFuture`). None checks nothing (a stored round read
    again, the offline CLI, the golden audits)."""
    rnd = _parse(record)
    _check_storable(rnd)
    if received_at is not None:
        _check_played(rnd, received_at)
    return rnd


def elections_from_json(found: tuple[int, str] | None) -> Registered | None:
    """A registration's id and stored rules JSON (or None) as the registration an audit applies."""
    return None if found is None else (found[0], dict(orjson.loads(found[1])))


def audit_read(rnd: Round, registered: Registered | None, asked: WhatIf | None = None) -> Audited:
    """Audit a round already read, by ``registered`` (the registration in force for its table) when it has no
    ``table.rules``; ``asked``: a what-if, never to be stored (:mod:`app.usecases.what_if`). An audit by a
    registration names it (``elections_registration``)."""
    use = registered if rnd.rules is None else None
    elections = use[1] if use is not None else None
    try:
        if asked is None:
            result = audit_round(rnd, elections).to_dict()
        else:
            result = audit_what_if(rnd, elections, asked)
    except AuditError as exc:
        raise CannotAudit(
            exc.message,
            errors=[{"pointer": exc.pointer, "detail": exc.message}],
            extra={"round_id": rnd.round_id},
        ) from exc
    if use is not None:
        result["elections_registration"] = use[0]
    return Audited(rnd, result, orjson.dumps(result))


def audit(
    record: bytes | str,
    registered: ElectionsLookup | None = None,
    asked: WhatIf | None = None,
    received_at: datetime | None = None,
) -> Audited:
    """Parse and audit a record (as a what-if when ``asked``); nothing is stored. A round without ``table.rules``
    is audited by the elections ``registered`` finds for it, else by the jurisdiction's defaults. ``received_at``:
    the moment the service received the record, if it did (see :func:`read_round`); the audit itself never reads
    the clock."""
    rnd = read_round(record, received_at)
    return audit_read(rnd, registered(rnd) if registered is not None and rnd.rules is None else None, asked)


def iso_utc(ts: datetime) -> str:
    """A stored timestamp as the API writes it: RFC 3339 in UTC, with ``Z``."""
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")
