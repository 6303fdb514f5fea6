"""Use cases: submit a round, audit one without storing it, look rounds up, list the rules.

Called by the HTTP API and the CLI. Functions take a :class:`~sqlalchemy.orm.Session` and never commit: the caller
(the edge) owns the transaction.

Why a request cannot be served is one exception tree, mapped to problem details in one handler::

    ServiceError
      +-- InvalidRound          422  the record cannot be read (schema, or it contradicts itself before replay)
      +-- CannotAudit           422  no rules to audit it by (unknown jurisdiction, no ruleset in force)
      +-- InvalidQuery          422  a search parameter that cannot be used (a bad cursor)
      +-- RoundConflict         409  the round_id was already submitted with a different record
      +-- AmbiguousRound        409  the round_id names rounds of several submitters or jurisdictions
      +-- RoundNotFound         404
      +-- ElectionsInvalid      422  a table elections registration cannot be read
      +-- ElectionsConflict     409  other elections are already registered for that table and effective_from
      +-- (HTTP-level errors in app.api.problems: 413, 415)
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import orjson
from sqlalchemy.orm import Session

from app.auditing import audit_round, catalogue, rule_details
from app.domain.errors import AuditError
from app.domain.model import Round
from app.schema import RoundInvalid, parse_round
from app.store import elections as elections_repo
from app.store import rounds as repo
from app.store.pg import PgRounds
from app.table_elections import RegistrationInvalid, parse_registration


class ServiceError(Exception):
    """Base of every error the service answers on purpose. ``status``/``slug``/``title`` become the problem."""

    status: ClassVar[int] = 500
    slug: ClassVar[str] = "internal"
    title: ClassVar[str] = "Internal error"

    def __init__(
        self,
        detail: str,
        *,
        errors: Sequence[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = list(errors) if errors is not None else None
        self.extra = extra or {}
        self.headers = headers or {}


PROBLEM_TYPE_PREFIX = "urn:bjaudit:problem:"


def problem_body(exc: ServiceError, instance: str | None = None) -> dict[str, Any]:
    """The RFC 9457 problem details of an error, as a JSON-able dict (the API's answer, the CLI's error line)."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_PREFIX + exc.slug,
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
    }
    if instance is not None:
        body["instance"] = instance
    if exc.errors is not None:
        body["errors"] = exc.errors
    body.update({k: v for k, v in exc.extra.items() if k not in body})
    return body


class InvalidRound(ServiceError):
    status, slug, title = 422, "round-invalid", "The round cannot be read"


class CannotAudit(ServiceError):
    status, slug, title = 422, "round-not-auditable", "The round cannot be audited"


class InvalidQuery(ServiceError):
    status, slug, title = 422, "query-invalid", "The query cannot be used"


class RoundConflict(ServiceError):
    status, slug, title = 409, "round-conflict", "The round_id was already submitted with a different record"


class AmbiguousRound(ServiceError):
    status, slug, title = 409, "round-ambiguous", "The round_id names more than one stored round"


class RoundNotFound(ServiceError):
    status, slug, title = 404, "round-not-found", "No such round"


class ElectionsInvalid(ServiceError):
    status, slug, title = 422, "elections-invalid", "The table elections cannot be read"


class ElectionsConflict(ServiceError):
    status, slug, title = (
        409,
        "elections-conflict",
        "Other elections are already registered for the table from that time",
    )


# --- audit -----------------------------------------------------------------------------------------------------


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


ElectionsLookup = Callable[[Round], Mapping[str, Any] | None]
"""The elections registered for a round's table at its played_at, or None. Called only for a round without
``table.rules``."""


def registered_elections(session: Session, source: str) -> ElectionsLookup:
    """The lookup of the submitter's registered elections: one indexed query per call."""

    def lookup(rnd: Round) -> Mapping[str, Any] | None:
        return elections_from_json(
            elections_repo.in_force(session, source, rnd.jurisdiction, rnd.table_id, rnd.played_at)
        )

    return lookup


def cached_registered_elections(session: Session, source: str) -> ElectionsLookup:
    """The same lookup for many rounds at once (a batch chunk): each table's registrations are read once, with one
    query, the first time a round of that (jurisdiction, table) asks."""
    tables: dict[tuple[str, str], tuple[list[datetime], list[dict[str, Any]]]] = {}

    def lookup(rnd: Round) -> Mapping[str, Any] | None:
        key = (rnd.jurisdiction, rnd.table_id)
        known = tables.get(key)
        if known is None:
            rows = elections_repo.all_for_table(session, source, rnd.jurisdiction, rnd.table_id)
            known = tables[key] = ([r[0] for r in rows], [orjson.loads(r[1]) for r in rows])
        i = bisect.bisect_right(known[0], rnd.played_at) - 1
        return known[1][i] if i >= 0 else None

    return lookup


def read_round(record: bytes | str) -> Round:
    """Parse a record and check that it can be stored (:class:`InvalidRound` if not); nothing is audited."""
    rnd = _parse(record)
    _check_storable(rnd)
    return rnd


def elections_from_json(rules: str | None) -> Mapping[str, Any] | None:
    """A registration's stored rules JSON (or None) as the elections an audit applies."""
    return None if rules is None else dict(orjson.loads(rules))


def audit_read(rnd: Round, elections: Mapping[str, Any] | None) -> Audited:
    """Audit a round already read, by ``elections`` (its registered ones) when it has no ``table.rules``."""
    try:
        result = audit_round(rnd, elections if rnd.rules is None else None).to_dict()
    except AuditError as exc:
        raise CannotAudit(
            exc.message,
            errors=[{"pointer": exc.pointer, "detail": exc.message}],
            extra={"round_id": rnd.round_id},
        ) from exc
    return Audited(rnd, result, orjson.dumps(result))


def audit(record: bytes | str, registered: ElectionsLookup | None = None) -> Audited:
    """Parse and audit a record; nothing is stored. A round without ``table.rules`` is audited by the elections
    ``registered`` finds for it, else by the jurisdiction's defaults."""
    rnd = read_round(record)
    return audit_read(rnd, registered(rnd) if registered is not None and rnd.rules is None else None)


def dry_run(session: Session, record: bytes | str, source: str) -> Audited:
    """The dry run: audit a record as a submission by ``source`` would (its registered elections included),
    storing nothing. The database is touched only for a round without ``table.rules``."""
    return audit(record, registered_elections(session, source))


# --- submit ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Submitted:
    created: bool
    """False: the same record was submitted before, and ``body`` is the audit stored then."""
    round_id: str
    jurisdiction: str
    body: bytes


def round_row(done: Audited, record: bytes, digest: str, source: str) -> dict[str, Any]:
    """The ``rounds`` row of an audited record."""
    rnd, result = done.round, done.result
    return {
        "source": source,
        "jurisdiction": rnd.jurisdiction,
        "round_id": rnd.round_id,
        "table_id": rnd.table_id,
        "played_at": rnd.played_at,
        "dealer_id": rnd.dealer_id,
        "shoe_id": rnd.shoe_id,
        "received_at": datetime.now(UTC),
        "record": record,
        "record_sha256": digest,
        "verdict": result["verdict"],
        "ruleset": result["ruleset"],
        "engine_version": result["engine_version"],
        "elections_source": result["elections_source"],
        "finding_count": len(result.get("findings", ())),
        "audit": done.body.decode(),
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


def submit_round(session: Session, record: bytes, source: str) -> Submitted:
    """Audit a record and store it with its audit, once per (round_id, source, jurisdiction).

    The same record again answers the stored audit; a different record under a stored round_id is a conflict and
    changes nothing. The unique constraint decides, so concurrent submissions of one round are safe.
    """
    digest = hashlib.sha256(record).hexdigest()
    done = audit(record, registered_elections(session, source))
    rnd = done.round
    pk = repo.insert_round(session, round_row(done, record, digest, source))
    if pk is None:
        return replayed(
            repo.stored_submission(session, rnd.round_id, source, rnd.jurisdiction), rnd, source, digest
        )
    repo.insert_findings(session, repo.finding_rows(pk, done.result.get("findings", ()), source, rnd))
    return Submitted(True, rnd.round_id, rnd.jurisdiction, done.body)


async def submit_round_pg(pg: PgRounds, record: bytes, source: str) -> Submitted:
    """:func:`submit_round` on PostgreSQL without a session: the round and its findings in one statement (one
    round trip, atomic), the elections lookup only for a round without ``table.rules``, the stored submission
    read only on a duplicate."""
    digest = hashlib.sha256(record).hexdigest()
    rnd = read_round(record)
    elections = (
        elections_from_json(
            await pg.elections_in_force(source, rnd.jurisdiction, rnd.table_id, rnd.played_at)
        )
        if rnd.rules is None
        else None
    )
    done = audit_read(rnd, elections)
    findings = repo.finding_rows(0, done.result.get("findings", ()), source, rnd)
    pk = await pg.insert_round(round_row(done, record, digest, source), findings)
    if pk is None:
        return replayed(
            await pg.stored_submission(rnd.round_id, source, rnd.jurisdiction), rnd, source, digest
        )
    return Submitted(True, rnd.round_id, rnd.jurisdiction, done.body)


# --- table elections --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Registered:
    created: bool
    """False: the same elections were registered before for that table and effective_from (nothing changed)."""
    jurisdiction: str
    body: bytes


def _check_table_id(table_id: str) -> None:
    if "\x00" in table_id:
        raise ElectionsInvalid(
            "The table id cannot be stored; nothing was stored.",
            errors=[
                {
                    "in": "path",
                    "parameter": "table_id",
                    "detail": "must not contain the NUL character (\\u0000)",
                }
            ],
        )


def _registration(row: Any) -> dict[str, Any]:
    return {
        "source": row.source,
        "jurisdiction": row.jurisdiction,
        "table_id": row.table_id,
        "effective_from": _iso(row.effective_from),
        "rules": orjson.Fragment(row.rules.encode()),
        "created_at": _iso(row.created_at),
    }


def register_elections(session: Session, table_id: str, body: bytes, source: str) -> Registered:
    """Register a table's rule elections from ``effective_from``, once per (source, jurisdiction, table_id,
    effective_from): the same elections again change nothing (``created`` False); different ones are a conflict
    and change nothing. The elections are validated exactly as a round's ``table.rules``."""
    _check_table_id(table_id)
    try:
        jurisdiction, effective_from, rules = parse_registration(body)
    except RegistrationInvalid as exc:
        errors = [{"pointer": p["pointer"], "detail": p["message"]} for p in exc.problems]
        n = len(errors)
        raise ElectionsInvalid(
            f"The registration has {n} problem{'s' if n != 1 else ''}; nothing was stored.", errors=errors
        ) from exc
    rules_json = orjson.dumps(rules, option=orjson.OPT_SORT_KEYS).decode()
    key = (source, jurisdiction, table_id, effective_from)
    pk = elections_repo.insert(
        session,
        {
            "source": source,
            "jurisdiction": jurisdiction,
            "table_id": table_id,
            "effective_from": effective_from,
            "rules": rules_json,
            "created_at": datetime.now(UTC),
        },
    )
    row = elections_repo.stored(session, *key)
    if row is None:  # cannot happen without a delete path
        raise ElectionsConflict("The registration was being changed concurrently; retry.")
    if pk is None and row.rules != rules_json:
        raise ElectionsConflict(
            f"Table {table_id!r} ({jurisdiction}) already has other elections registered by {source!r} from "
            f"{_iso(effective_from)}; nothing was changed. Register the new elections from a later time.",
            extra={"stored_rules": orjson.loads(row.rules), "rules": rules},
        )
    return Registered(pk is not None, jurisdiction, orjson.dumps(_registration(row)))


def list_elections(session: Session, table_id: str, source: str, jurisdiction: str | None) -> bytes:
    """A table's registrations by ``source``, newest effective_from first."""
    rows = elections_repo.listing(session, source, table_id, jurisdiction)
    return orjson.dumps({"table_id": table_id, "source": source, "items": [_registration(r) for r in rows]})


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


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z")


def lookup_round(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """The auditor's view of one stored round, as JSON: the record as received, its audit, the rules cited."""
    return lookup_answer(repo.find_rounds(session, round_id, source, jurisdiction), round_id, source)


async def lookup_round_pg(pg: PgRounds, round_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """:func:`lookup_round` on PostgreSQL without a session."""
    return lookup_answer(await pg.find_rounds(round_id, source, jurisdiction), round_id, source)


def lookup_answer(rows: Sequence[Any], round_id: str, source: str | None) -> bytes:
    """The lookup's answer from the rows stored under ``round_id`` (:data:`app.store.rounds.LOOKUP_COLUMNS`)."""
    if not rows:
        raise RoundNotFound(
            f"No round {round_id!r} is stored" + (f" for source {source!r}" if source else "") + "."
        )
    if len(rows) > 1:
        raise AmbiguousRound(
            f"{len(rows)} stored rounds have round_id {round_id!r}; narrow with ?source= and/or ?jurisdiction=.",
            extra={"candidates": [{"source": r.source, "jurisdiction": r.jurisdiction} for r in rows]},
        )
    row = rows[0]
    audit_result = orjson.loads(row.audit)
    rules: dict[str, dict[str, Any]] = {}
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
            "played_at": _iso(row.played_at),
            "received_at": _iso(row.received_at),
            "record_sha256": row.record_sha256,
            "record": _record_json(row.record),
            "audit": orjson.Fragment(row.audit.encode()),
            "rules": rules,
        }
    )


@dataclass(frozen=True, slots=True)
class RawRecord:
    body: bytes
    sha256: str


def raw_record(session: Session, round_id: str, source: str | None, jurisdiction: str | None) -> RawRecord:
    rows = repo.find_rounds(session, round_id, source, jurisdiction)
    if not rows:
        raise RoundNotFound(f"No round {round_id!r} is stored.")
    if len(rows) > 1:
        raise AmbiguousRound(
            f"{len(rows)} stored rounds have round_id {round_id!r}; narrow with ?source= and/or ?jurisdiction=.",
            extra={"candidates": [{"source": r.source, "jurisdiction": r.jurisdiction} for r in rows]},
        )
    return RawRecord(rows[0].record, rows[0].record_sha256)


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
            "played_at": _iso(r.played_at),
            "received_at": _iso(r.received_at),
            "verdict": r.verdict,
            "ruleset": r.ruleset,
            "engine_version": r.engine_version,
            "finding_count": r.finding_count,
            "record_sha256": r.record_sha256,
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
