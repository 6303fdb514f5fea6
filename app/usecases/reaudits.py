"""Re-audits: stored rounds re-run with the current engine and rules modules, as a background job.

When the engine or a rules module changes (or a table's elections are corrected), stored audits go stale. A
re-audit takes the rounds of a scope (source, jurisdiction, table, played range), fixed when it is asked for, in
chunks of round ids; each chunk is one job run by the batch machinery (the in-process runner on SQLite, procrastinate
workers on PostgreSQL) and done in ONE transaction that also marks it done, so an interrupted re-audit resumes where
it stopped and never audits a round twice.

Each round is audited as a dry run of its stored record would be now (its own ``table.rules``, else the
registration in force for its table now, else the defaults). An audit that differs from the round's latest is
appended as the round's next audit (``audits``, its findings rows with that ``audit_no``, a chain entry of kind
``audit``); one that is the same, byte for byte, is counted ``unchanged`` and not stored again. Nothing is ever
overwritten: the lookup lists every audit, search and reports read the latest.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from app.store import chain
from app.store import rounds as repo
from app.store.db import Database
from app.store.models import audits_table as A
from app.store.models import reaudit_chunks_table as RC
from app.store.models import reaudits_table as RA
from app.store.models import rounds_table as R
from app.usecases import offline
from app.usecases import rollups as rollup_cases
from app.usecases import rounds as round_cases
from app.usecases.errors import ServiceError
from app.wire import reaudit as wire
from app.wire.reaudit import parse_reaudit

log = logging.getLogger("bjaudit.reaudits")

CHUNK_ROUNDS = 1000
"""Rounds per chunk (one job, one transaction)."""


class ReauditNotFound(ServiceError):
    status, slug, title = 404, "reaudit-not-found", "No such re-audit"


class ReauditInvalid(ServiceError):
    status, slug, title = 422, "reaudit-invalid", "The re-audit request cannot be used"


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Scope:
    """Which stored rounds a re-audit takes: those of ``source`` (None: every source's), and of the jurisdiction,
    table and [played_from, played_to) range when given."""

    source: str | None = None
    jurisdiction: str | None = None
    table: str | None = None
    played_from: datetime | None = None
    played_to: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            k: (offline.iso_utc(v) if isinstance(v, datetime) else v)
            for k, v in asdict(self).items()
            if v is not None
        }

    def where(self) -> list[Any]:
        """The rounds of the scope, as the search finds them."""
        return repo.search_conditions(
            repo.Search(
                table=self.table,
                jurisdiction=self.jurisdiction,
                source=self.source,
                played_from=self.played_from,
                played_to=self.played_to,
            )
        )


@dataclass(frozen=True, slots=True)
class Started:
    reaudit_id: str
    round_count: int
    chunks: list[tuple[str, int]]
    """(reaudit_id, chunk_no) of every chunk: the jobs to run."""


def start(
    session: Session,
    scope: Scope,
    requested_by: str | None,
    reason: str,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> Started:
    """Record a re-audit of the rounds ``scope`` matches now, in chunks (the caller commits, then runs the chunks).
    Rounds stored later are not in it."""
    reaudit_id = "ra_" + secrets.token_hex(12)
    pks = list(session.execute(select(R.c.id).where(*scope.where()).order_by(R.c.id)).scalars())
    chunks = [pks[i : i + chunk_rounds] for i in range(0, len(pks), chunk_rounds)]
    session.execute(
        insert(RA).values(
            id=reaudit_id,
            source=scope.source,
            scope=orjson.dumps(scope.to_dict()).decode(),
            requested_by=requested_by,
            reason=reason,
            created_at=_now(),
            round_count=len(pks),
            chunk_count=len(chunks),
        )
    )
    if chunks:
        session.execute(
            insert(RC),
            [
                {
                    "reaudit_id": reaudit_id,
                    "chunk_no": n,
                    "round_pks": orjson.dumps(c).decode(),
                    "round_count": len(c),
                    "changed": 0,
                    "unchanged": 0,
                    "unreadable": 0,
                }
                for n, c in enumerate(chunks)
            ],
        )
    return Started(reaudit_id, len(pks), [(reaudit_id, n) for n in range(len(chunks))])


def request(
    session: Session,
    body: bytes,
    source: str | None,
    requested_by: str | None,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> Started:
    """A re-audit asked for over HTTP (``POST /v1/reaudit``): the rounds of ``source`` (None: every source's) that
    the request narrows to."""
    try:
        req = parse_reaudit(body)
    except wire.ReauditInvalid as exc:
        errors = [{"pointer": p["pointer"], "detail": p["message"]} for p in exc.problems]
        n = len(errors)
        raise ReauditInvalid(
            f"The re-audit request has {n} problem{'s' if n != 1 else ''}; nothing was started.",
            errors=errors,
        ) from exc
    scope = Scope(source, req.jurisdiction, req.table, req.played_from, req.played_to)
    return start(session, scope, requested_by, req.reason, chunk_rounds)


# --- running -----------------------------------------------------------------------------------------------------

_ROUNDS = (
    select(
        R.c.id,
        R.c.source,
        R.c.record,
        R.c.received_at,
        repo.latest("audit"),
        repo.latest("audit_no"),
    )
    .select_from(repo.with_latest_audit())
    .order_by(R.c.id)
)


def process_chunk(db: Database, reaudit_id: str, chunk_no: int) -> bool:
    """Re-audit one chunk's rounds and store what changed, in one transaction. False if it was done already."""
    with db.session() as s:
        chunk = s.execute(
            select(RC.c.round_pks, RC.c.done_at)
            .where(RC.c.reaudit_id == reaudit_id, RC.c.chunk_no == chunk_no)
            .with_for_update()
        ).one_or_none()
        if chunk is None or chunk.done_at is not None:
            return False
        started = _now()
        counts = _reaudit(s, reaudit_id, orjson.loads(chunk.round_pks), started)
        s.execute(
            update(RC)
            .where(RC.c.reaudit_id == reaudit_id, RC.c.chunk_no == chunk_no)
            .values(started_at=started, done_at=_now(), **counts)
        )
    if counts["changed"]:
        rollup_cases.roll_after_chunk(db, None)
    return True


def _reaudit(s: Session, reaudit_id: str, pks: Sequence[int], now: datetime) -> dict[str, int]:
    counts = {"changed": 0, "unchanged": 0, "unreadable": 0}
    rows = s.execute(_ROUNDS.where(R.c.id.in_(pks))).all()
    lookups: dict[str, offline.ElectionsLookup] = {}
    fresh: list[tuple[Any, offline.Audited]] = []
    for row in rows:
        registered = lookups.get(row.source)
        if registered is None:
            registered = lookups[row.source] = round_cases.cached_registered_elections(s, row.source)
        try:
            done = offline.audit(bytes(row.record), registered)
        except ServiceError as exc:
            counts["unreadable"] += 1
            log.warning("re-audit %s: round pk %s cannot be audited now: %s", reaudit_id, row.id, exc.detail)
            continue
        if done.body == row.audit.encode():
            counts["unchanged"] += 1
        else:
            fresh.append((row, done))
    if not fresh:
        return counts
    counts["changed"] = len(fresh)
    values = [_audit_row(row, done, reaudit_id, now) for row, done in fresh]
    ids = s.execute(insert(A).returning(A.c.id, sort_by_parameter_order=True), values).scalars().all()
    findings: list[dict[str, Any]] = []
    links: dict[str, list[chain.Link]] = {}
    for audit_id, v, (row, done) in zip(ids, values, fresh, strict=True):
        rnd = done.round
        findings += repo.finding_rows(row.id, done.result.get("findings", ()), row.source, rnd, v["audit_no"])
        content = chain.audit_content({**v, "round_id": rnd.round_id, "jurisdiction": rnd.jurisdiction})
        links.setdefault(row.source, []).append(chain.link_of("audit", int(audit_id), content))
    repo.insert_findings(s, findings)
    for source in sorted(links):  # last, and in one order: the heads stay locked only to the commit
        chain.append_links(s, source, links[source])
    return counts


def _audit_row(row: Any, done: offline.Audited, reaudit_id: str, now: datetime) -> dict[str, Any]:
    return {
        "round_pk": row.id,
        "audit_no": int(row.audit_no) + 1,
        "source": row.source,
        "reaudit_id": reaudit_id,
        "created_at": now,
        **round_cases.audit_columns(done),
    }


def pending_chunks(session: Session, reaudit_id: str | None = None) -> list[tuple[str, int]]:
    """(reaudit_id, chunk_no) of every chunk not yet done (of ``reaudit_id`` only, if given), oldest re-audit
    first."""
    stmt = (
        select(RC.c.reaudit_id, RC.c.chunk_no)
        .join(RA, RA.c.id == RC.c.reaudit_id)
        .where(RC.c.done_at.is_(None))
        .order_by(RA.c.created_at, RC.c.reaudit_id, RC.c.chunk_no)
    )
    if reaudit_id is not None:
        stmt = stmt.where(RC.c.reaudit_id == reaudit_id)
    return [(r.reaudit_id, r.chunk_no) for r in session.execute(stmt)]


# --- reading -----------------------------------------------------------------------------------------------------


def status(session: Session, reaudit_id: str, source: str | None = None) -> dict[str, Any]:
    """A re-audit's progress (of ``source``'s; None: of any source's)."""
    where = RA.c.id == reaudit_id
    if source is not None:
        where = where & (RA.c.source == source)
    ra = session.execute(select(RA).where(where)).one_or_none()
    if ra is None:
        raise ReauditNotFound(f"No re-audit {reaudit_id!r}.")
    agg = session.execute(
        select(
            func.count(RC.c.done_at),
            func.coalesce(func.sum(RC.c.round_count).filter(RC.c.done_at.is_not(None)), 0),
            func.coalesce(func.sum(RC.c.changed), 0),
            func.coalesce(func.sum(RC.c.unchanged), 0),
            func.coalesce(func.sum(RC.c.unreadable), 0),
            func.max(RC.c.done_at),
        ).where(RC.c.reaudit_id == reaudit_id)
    ).one()
    done_chunks = int(agg[0])
    finished = done_chunks == ra.chunk_count
    finished_at = agg[5] if finished else None
    if isinstance(finished_at, str):  # SQLite aggregate: the stored UTC text
        finished_at = datetime.fromisoformat(finished_at).replace(tzinfo=UTC)
    if finished and finished_at is None:
        finished_at = ra.created_at
    return {
        "reaudit_id": ra.id,
        "source": ra.source,
        "scope": orjson.loads(ra.scope),
        "reason": ra.reason,
        "requested_by": ra.requested_by,
        "state": "done" if finished else ("processing" if done_chunks else "queued"),
        "created_at": offline.iso_utc(ra.created_at),
        "finished_at": None if finished_at is None else offline.iso_utc(finished_at),
        "chunks": ra.chunk_count,
        "chunks_done": done_chunks,
        "counts": {
            "rounds": ra.round_count,
            "audited": int(agg[1]),
            "changed": int(agg[2]),
            "unchanged": int(agg[3]),
            "unreadable": int(agg[4]),
        },
    }
