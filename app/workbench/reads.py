"""Reads the workbench needs beyond the API's use cases: a page of a batch's per-line results, the recent batches,
the tables' local times of a page of search results, and a what-if audit of a stored round. Each takes a session
and only reads (the caller's unit of work owns it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import batches_table as B
from app.store.models import round_keys_table as RK
from app.store.models import rounds_table as R
from app.store.rounds import keyed_rounds
from app.usecases import alerts, batches, offline
from app.usecases import rounds as round_cases
from app.usecases.what_if import WhatIf

RESULTS_PAGE = 200


@dataclass(frozen=True, slots=True)
class Outcome:
    line: int
    round_id: str | None
    outcome: str
    verdict: str | None
    findings: int
    rules: list[str]
    problem: str | None


@dataclass(frozen=True, slots=True)
class OutcomePage:
    rows: list[Outcome]
    next_after: int | None


def _outcome(row: Any) -> Outcome:
    detail = orjson.loads(row.detail) if row.detail else None
    if row.outcome in ("rejected", "conflict"):
        problem = detail.get("detail") if isinstance(detail, dict) else None
        return Outcome(row.line_no, row.round_id, row.outcome, row.verdict, 0, [], problem or row.outcome)
    findings = detail if isinstance(detail, list) else []
    rules = list(dict.fromkeys(str(f.get("rule")) for f in findings if isinstance(f, dict)))
    return Outcome(row.line_no, row.round_id, row.outcome, row.verdict, len(findings), rules, None)


def batch_outcomes(
    session: Session, batch_id: str, after: int, only: str | None, limit: int = RESULTS_PAGE
) -> OutcomePage:
    """Up to ``limit`` lines' outcomes after line ``after``, in line order (keyset on line_no), and the line to
    continue after when there are more."""
    rows = session.execute(batches.results_query(batch_id, after, only, limit + 1)).all()
    page = [_outcome(r) for r in rows[:limit]]
    return OutcomePage(page, page[-1].line if len(rows) > limit else None)


def recent_batches(session: Session, source: str | None, limit: int = 50) -> list[dict[str, Any]]:
    """The latest batches (of ``source``; None: of every source), newest first."""
    stmt = (
        select(B.c.id, B.c.source, B.c.state, B.c.lines_received, B.c.created_at, B.c.received_at)
        .order_by(B.c.created_at.desc())
        .limit(limit)
    )
    if source is not None:
        stmt = stmt.where(B.c.source == source)
    return [
        {
            "batch_id": r.id,
            "source": r.source,
            "state": "failed"
            if r.state == "failed"
            else ("uploading" if r.received_at is None else "received"),
            "lines": r.lines_received,
            "created_at": offline.iso_utc(r.created_at),
        }
        for r in session.execute(stmt)
    ]


def played_at_local(session: Session, keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
    """The ``played_at`` each record states (the table's local time, with its offset), by (round_id, source,
    jurisdiction): the search answers it in UTC."""
    if not keys:
        return {}
    ids = sorted({k[0] for k in keys})
    stmt = (
        select(RK.c.round_id, RK.c.source, RK.c.jurisdiction, R.c.record)
        .select_from(keyed_rounds())
        .where(RK.c.round_id.in_(ids))  # by the keys: one partition a round
    )
    wanted = set(keys)
    out: dict[tuple[str, str, str], str] = {}
    for r in session.execute(stmt):
        key = (r.round_id, r.source, r.jurisdiction)
        if key not in wanted:
            continue
        try:
            stated = orjson.loads(r.record).get("played_at")
        except (orjson.JSONDecodeError, AttributeError):
            continue
        if isinstance(stated, str):
            out[key] = stated
    return out


def what_if_audit(session: Session, record: bytes, source: str, asked: WhatIf) -> dict[str, Any]:
    """A stored round audited under another ruleset, by the elections its source registered for the table (as its
    own audit was): never stored."""
    done = offline.audit(record, round_cases.registered_elections(session, source), asked)
    return done.result


def round_alerts(session: Session, round_id: str, source: str, jurisdiction: str) -> list[alerts.Shown]:
    """A stored round's alerts (the findings of the audit stored with it), with their acknowledgements."""
    pk = session.execute(
        select(RK.c.id).where(
            RK.c.round_id == round_id, RK.c.source == source, RK.c.jurisdiction == jurisdiction
        )
    ).scalar_one_or_none()
    return [] if pk is None else alerts.alerts_of_round(session, source, int(pk))
