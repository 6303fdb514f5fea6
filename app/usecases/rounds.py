"""Use cases of rounds: audit one (stored or not), submit it, look rounds up, search them, list the rules.

Called by the HTTP API, the CLI and the batch worker. Functions take a :class:`~sqlalchemy.orm.Session` and never
commit: the caller (the edge) owns the transaction. Errors are :mod:`app.usecases.errors`.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app import metrics
from app.domain.errors import AuditError
from app.domain.model import Round
from app.store import chain
from app.store import elections as elections_repo
from app.store import rounds as repo
from app.store.pg import PgRounds
from app.usecases import audit_diff
from app.usecases.auditing import catalogue, rule_details
from app.usecases.errors import (
    AmbiguousRound,
    InvalidQuery,
    RoundArchived,
    RoundConflict,
    RoundNotFound,
)
from app.usecases.offline import (
    Audited,
    ElectionsLookup,
    Registered,
    audit,
    audit_read,
    elections_from_json,
    iso_utc,
    read_round,
)
from app.usecases.what_if import WhatIf

# --- audit -----------------------------------------------------------------------------------------------------


def registered_elections(session: Session, source: str) -> ElectionsLookup:
    """The lookup of the submitter's registered elections: one indexed query per call."""

    def lookup(rnd: Round) -> Registered | None:
        return elections_from_json(
            elections_repo.in_force(session, source, rnd.jurisdiction, rnd.table_id, rnd.played_at)
        )

    return lookup


def cached_registered_elections(session: Session, source: str) -> ElectionsLookup:
    """The same lookup for many rounds at once (a batch chunk): each table's registrations are read once, with one
    query, the first time a round of that (jurisdiction, table) asks."""
    tables: dict[tuple[str, str], tuple[list[datetime], list[Registered]]] = {}

    def lookup(rnd: Round) -> Registered | None:
        key = (rnd.jurisdiction, rnd.table_id)
        known = tables.get(key)
        if known is None:
            rows = elections_repo.all_for_table(session, source, rnd.jurisdiction, rnd.table_id)
            known = tables[key] = ([r[0] for r in rows], [(r[1], orjson.loads(r[2])) for r in rows])
        i = bisect.bisect_right(known[0], rnd.played_at) - 1
        return known[1][i] if i >= 0 else None

    return lookup


def dry_run(
    session: Session,
    record: bytes | str,
    source: str,
    asked: WhatIf | None = None,
    received_at: datetime | None = None,
) -> Audited:
    """The dry run: audit a record as a submission by ``source`` would (its registered elections included),
    storing nothing; or, ``asked``, a what-if (:mod:`app.usecases.what_if`). The database is touched only for a
    round without ``table.rules``. ``received_at``: when the service received it (:func:`read_round`)."""
    done = audit(record, registered_elections(session, source), asked, received_at)
    metrics.audited(done.result, "dry_run")
    return done


# --- submit ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Submitted:
    created: bool
    """False: the same record was submitted before, and ``body`` is the audit stored then."""
    round_id: str
    jurisdiction: str
    body: bytes
    findings: int = 0
    """How many findings a newly stored round has (alerts to deliver, once committed)."""


def audit_columns(done: Audited) -> dict[str, Any]:
    """The columns an audit is stored in, in ``rounds`` (a round's first audit) and ``audits`` (a re-audit's) alike."""
    result = done.result
    return {
        "verdict": result["verdict"],
        "ruleset": result["ruleset"],
        "engine_version": result["engine_version"],
        "elections_source": result["elections_source"],
        "elections_id": result.get("elections_registration"),
        "finding_count": len(result.get("findings", ())),
        "audit": done.body.decode(),
        "void_reason": void_reason(result),
    }


def void_reason(result: Mapping[str, Any]) -> str | None:
    """The reason of an audit's ``void`` (the round was declared void, round-v1 section 2.3), else None.

    >>> void_reason({"void": {"event": 9, "reason": "misdeal"}}), void_reason({"verdict": "compliant"})
    ('misdeal', None)
    """
    void = result.get("void")
    return void.get("reason") if isinstance(void, Mapping) else None


def round_row(
    done: Audited, record: bytes, digest: str, source: str, received_at: datetime | None = None
) -> dict[str, Any]:
    """The ``rounds`` row of an audited record, received now unless ``received_at`` says when."""
    rnd = done.round
    return {
        "source": source,
        "jurisdiction": rnd.jurisdiction,
        "round_id": rnd.round_id,
        "table_id": rnd.table_id,
        "played_at": rnd.played_at,
        "dealer_id": rnd.dealer_id,
        "shoe_id": rnd.shoe_id,
        "received_at": received_at or datetime.now(UTC),
        "record": record,
        "record_sha256": digest,
        **audit_columns(done),
    }


def replayed(stored: repo.Stored | None, rnd: Round, source: str, digest: str) -> Submitted:
    """The answer to a submission whose (round_id, source, jurisdiction) is already stored: the stored audit if
    the record is the same, else :class:`RoundConflict`."""
    if stored is None:  # deleted between the two statements: cannot happen without a delete path
        raise RoundConflict("The round was being changed concurrently; retry.")
    if stored.record_sha256 != digest:
        raise RoundConflict(
            f"Round {rnd.round_id!r} ({rnd.jurisdiction}) was already submitted by {source!r} with a different "
            "record; nothing was changed.",
            extra={"round_id": rnd.round_id, "stored_sha256": stored.record_sha256, "sha256": digest},
        )
    return Submitted(False, rnd.round_id, rnd.jurisdiction, stored.audit.encode())


def submit_round(
    session: Session, record: bytes, source: str, received_at: datetime | None = None
) -> Submitted:
    """Audit a record and store it with its audit, once per (round_id, source, jurisdiction).

    The same record again answers the stored audit; a different record under a stored round_id is a conflict and
    changes nothing. The unique constraint decides, so concurrent submissions of one round are safe.
    ``received_at``: the moment the service received it (a round played more than 5 minutes later is refused,
    :func:`read_round`), stored as the round's; None: now, unchecked.
    """
    digest = hashlib.sha256(record).hexdigest()
    done = audit(record, registered_elections(session, source), None, received_at)
    rnd = done.round
    row = round_row(done, record, digest, source, received_at)
    pk = repo.insert_round(session, row)
    if pk is None:
        stored = repo.stored_submission(session, rnd.round_id, source, rnd.jurisdiction)
        if stored is None:  # its key is taken by a round of an archived month
            gone(repo.archived(session, rnd.round_id, source, rnd.jurisdiction))
        return replayed(stored, rnd, source, digest)
    repo.insert_findings(session, repo.finding_rows(pk, done.result.get("findings", ()), source, rnd))
    chain.append(session, source, "round", pk, chain.round_content(row))
    metrics.audited(done.result, "single")
    return Submitted(True, rnd.round_id, rnd.jurisdiction, done.body, len(done.result.get("findings", ())))


async def submit_round_pg(
    pg: PgRounds, record: bytes, source: str, key_id: str | None = None, received_at: datetime | None = None
) -> Submitted:
    """:func:`submit_round` on PostgreSQL without a session: the round and its findings in one statement (one
    round trip, atomic), the elections lookup only for a round without ``table.rules``, the stored submission
    read only on a duplicate. ``key_id``: the caller's API key, not looked up yet: the statement stores the round
    only if the key is in force (else :class:`app.store.pg.KeyRevoked`). ``received_at``: as for
    :func:`submit_round`."""
    digest = hashlib.sha256(record).hexdigest()
    rnd = read_round(record, received_at)
    elections = (
        elections_from_json(
            await pg.elections_in_force(source, rnd.jurisdiction, rnd.table_id, rnd.played_at)
        )
        if rnd.rules is None
        else None
    )
    done = audit_read(rnd, elections)
    findings = repo.finding_rows(0, done.result.get("findings", ()), source, rnd)
    pk = await pg.insert_round(round_row(done, record, digest, source, received_at), findings, key_id)
    if pk is None:
        stored = await pg.stored_submission(rnd.round_id, source, rnd.jurisdiction)
        if stored is None:  # its key is taken by a round of an archived month
            gone(await pg.archived(rnd.round_id, source, rnd.jurisdiction))
        return replayed(stored, rnd, source, digest)
    metrics.audited(done.result, "single")
    return Submitted(True, rnd.round_id, rnd.jurisdiction, done.body, len(findings))


# --- look up ---------------------------------------------------------------------------------------------------


def _record_json(record: bytes) -> orjson.Fragment | Any:
    """The stored record as a JSON value for a response: the verbatim bytes where they are strict JSON."""
    try:
        orjson.loads(record)
    except orjson.JSONDecodeError:
        # Accepted by the parser but not strict JSON to orjson (a BOM, a huge integer...): re-encode it.
        value = json.loads(record)
        return orjson.Fragment(json.dumps(value, ensure_ascii=False, allow_nan=False).encode())
    return orjson.Fragment(record)


def lookup_round(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """The auditor's view of one stored round, as JSON: the record as received, its latest audit, the history of
    its audits, the rules cited."""
    rows = repo.find_rounds(session, round_id, source, jurisdiction)
    if not rows:
        gone(repo.archived(session, round_id, source, jurisdiction))
    later = repo.audits_of(session, rows[0].id) if len(rows) == 1 and rows[0].latest_no is not None else ()
    return lookup_answer(rows, round_id, source, later)


async def lookup_round_pg(pg: PgRounds, round_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """:func:`lookup_round` on PostgreSQL without a session."""
    rows = await pg.find_rounds(round_id, source, jurisdiction)
    if not rows:
        gone(await pg.archived(round_id, source, jurisdiction))
    later = await pg.audits_of(rows[0].id) if len(rows) == 1 and rows[0].latest_no is not None else []
    return lookup_answer(rows, round_id, source, later)


def gone(archived: Any) -> None:
    """:class:`RoundArchived` for a round whose month was archived (``archived``: where it went), else nothing."""
    if archived is not None:
        raise RoundArchived(
            f"Round {archived.round_id!r} ({archived.source}, {archived.jurisdiction}) was archived with its month "
            f"on {archived.archived_at:%Y-%m-%d} to {archived.path}; `bjaudit restore` brings the month back.",
            extra={"archive": archived.path, "archived_at": archived.archived_at.isoformat()},
        )


def _one(rows: Sequence[Any], round_id: str, source: str | None) -> Any:
    if not rows:
        raise RoundNotFound(
            f"No round {round_id!r} is stored" + (f" for source {source!r}" if source else "") + "."
        )
    if len(rows) > 1:
        raise AmbiguousRound(
            f"{len(rows)} stored rounds have round_id {round_id!r}; narrow with ?source= and/or ?jurisdiction=.",
            extra={"candidates": [{"source": r.source, "jurisdiction": r.jurisdiction} for r in rows]},
        )
    return rows[0]


def audit_history(row: Any, later: Sequence[Any]) -> list[dict[str, Any]]:
    """Every audit of a round, oldest first: number, time (audit 1: when the round was received), the re-audit
    that made it, verdict, ruleset, engine version, number of findings, its chain position, and ``changes`` from
    the audit before it (null for the first); ``audit`` holds each audit's parsed JSON (callers drop it)."""
    texts = [(1, row.received_at, None, row.audit, row.chain_seq)]
    texts += [(a.audit_no, a.created_at, a.reaudit_id, a.audit, a.chain_seq) for a in later]
    out: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for audit_no, created_at, reaudit_id, text, chain_seq in texts:
        audit = orjson.loads(text)
        out.append(
            {
                "audit_no": audit_no,
                "created_at": iso_utc(created_at),
                "reaudit_id": reaudit_id,
                **audit_diff.summary(audit),
                "chain_seq": chain_seq,
                "changes": None
                if previous is None
                else audit_diff.diff_findings(previous.get("findings") or [], audit.get("findings") or []),
                "audit": audit,
            }
        )
        previous = audit
    return out


def lookup_answer(rows: Sequence[Any], round_id: str, source: str | None, later: Sequence[Any] = ()) -> bytes:
    """The lookup's answer from the rows stored under ``round_id`` (:data:`app.store.rounds.LOOKUP_COLUMNS`) and
    the round's re-audits (:func:`app.store.rounds.audits_of`)."""
    row = _one(rows, round_id, source)
    history = audit_history(row, later)
    latest = later[-1].audit if later else row.audit
    rules: dict[str, dict[str, Any]] = {}
    for entry in history:
        audit_result = entry.pop("audit")
        for f in audit_result.get("findings", ()):
            rule = f["rule"]
            if rule in rules:
                continue
            details = rule_details(row.jurisdiction, audit_result.get("ruleset", row.ruleset), rule) or {}
            rules[rule] = {
                "title": details.get("title", f.get("title")),
                "citation": details.get("citation", f.get("citation")),
                "citation_status": details.get("citation_status", f.get("citation_status")),
                "paraphrase": details.get("paraphrase"),
            }
    return orjson.dumps(
        {
            "round_id": row.round_id,
            "source": row.source,
            "jurisdiction": row.jurisdiction,
            "table_id": row.table_id,
            "played_at": iso_utc(row.played_at),
            "received_at": iso_utc(row.received_at),
            "record_sha256": row.record_sha256,
            "record": _record_json(row.record),
            "audit": orjson.Fragment(latest.encode()),
            "audit_no": history[-1]["audit_no"],
            "audits": history,
            "rules": rules,
            "chain": None
            if row.chain_seq is None
            else {"seq": row.chain_seq, "hash": bytes(row.chain_hash).hex()},
        }
    )


def audit_number(
    session: Session, round_id: str, source: str | None, jurisdiction: str | None, audit_no: int
) -> bytes:
    """Audit ``audit_no`` of a stored round (1: the one stored with it), as stored."""
    row = _one(repo.find_rounds(session, round_id, source, jurisdiction), round_id, source)
    if audit_no == 1:
        return bytes(row.audit.encode())
    for a in repo.audits_of(session, row.id) if row.latest_no is not None else ():
        if a.audit_no == audit_no:
            return bytes(a.audit.encode())
    raise RoundNotFound(
        f"Round {round_id!r} has no audit {audit_no}: it has {row.latest_no or 1}.",
        extra={"audits": row.latest_no or 1},
    )


@dataclass(frozen=True, slots=True)
class RawRecord:
    body: bytes
    sha256: str


def the_round(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> Any:
    """The one stored round of ``round_id`` (narrowed by source and jurisdiction): its lookup row
    (:data:`app.store.rounds.LOOKUP_COLUMNS`). :class:`RoundNotFound`, or :class:`AmbiguousRound` naming the
    candidates."""
    rows = repo.find_rounds(session, round_id, source, jurisdiction)
    if not rows:
        raise RoundNotFound(f"No round {round_id!r} is stored.")
    if len(rows) > 1:
        raise AmbiguousRound(
            f"{len(rows)} stored rounds have round_id {round_id!r}; narrow with ?source= and/or ?jurisdiction=.",
            extra={"candidates": [{"source": r.source, "jurisdiction": r.jurisdiction} for r in rows]},
        )
    return rows[0]


def raw_record(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> RawRecord:
    row = the_round(session, round_id, source, jurisdiction)
    return RawRecord(row.record, row.record_sha256)


# --- search ----------------------------------------------------------------------------------------------------


def _encode_cursor(played_at: datetime, pk: int) -> str:
    raw = f"{played_at.astimezone(UTC).isoformat()}|{pk}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        ts, pk = raw.split("|")
        when = datetime.fromisoformat(ts)
        if when.tzinfo is None:
            raise ValueError("naive")
        when.astimezone(UTC)
        if not 0 < int(pk) < 2**63:
            raise ValueError("id out of range")
        return when, int(pk)
    except (ValueError, OverflowError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidQuery(
            "The cursor is not one this service issued.",
            errors=[{"parameter": "cursor", "detail": "bad cursor"}],
        ) from exc


def search_rounds(session: Session, q: repo.Search, limit: int, cursor: str | None) -> bytes:
    """A page of stored rounds matching ``q``, newest played first, with the cursor of the next page."""
    if cursor:
        q = dataclasses.replace(q, after=_decode_cursor(cursor))
    rows = repo.search_rounds(session, q, limit + 1)
    page, more = rows[:limit], len(rows) > limit
    items = [
        {
            "round_id": r.round_id,
            "source": r.source,
            "jurisdiction": r.jurisdiction,
            "table_id": r.table_id,
            "played_at": iso_utc(r.played_at),
            "received_at": iso_utc(r.received_at),
            "verdict": r.verdict,
            "ruleset": r.ruleset,
            "engine_version": r.engine_version,
            "finding_count": r.finding_count,
            "record_sha256": r.record_sha256,
            "void_reason": r.void_reason,
        }
        for r in page
    ]
    next_cursor = _encode_cursor(page[-1].played_at, page[-1].id) if more else None
    return orjson.dumps({"items": items, "next_cursor": next_cursor})


# --- rules -----------------------------------------------------------------------------------------------------


def rules(jurisdiction: str | None) -> list[dict[str, Any]]:
    """The rule catalogue, of one jurisdiction or all."""
    try:
        entries = catalogue(jurisdiction)
    except AuditError as exc:
        entries = []
        cause: Exception | None = exc
    else:
        cause = None
    if jurisdiction is not None and not entries:
        raise InvalidQuery(
            f"No rules are held for jurisdiction {jurisdiction!r}.",
            errors=[{"parameter": "jurisdiction", "detail": "unknown jurisdiction"}],
        ) from cause
    return entries
