"""Alerts' repository: the findings of stored rounds read in the order of their source's chain, webhook subscriptions
and their cursors, deliveries and acknowledgements. SQLAlchemy Core on the caller's session; nothing here commits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, func, insert, or_, select, update
from sqlalchemy.orm import Session

from app.store.models import acknowledgements_table as ACK
from app.store.models import chain_entries_table as CE
from app.store.models import chain_heads_table as CH
from app.store.models import deliveries_table as D
from app.store.models import rounds_table as R
from app.store.models import subscriptions_table as S

ALERT_COLUMNS = (
    CE.c.seq,
    R.c.id,
    R.c.round_id,
    R.c.jurisdiction,
    R.c.table_id,
    R.c.dealer_id,
    R.c.shoe_id,
    R.c.played_at,
    R.c.received_at,
    R.c.audit,
)
"""What an alert is made of: the round's chain entry, the round, its audit (app.usecases.alerts reads its findings)."""


def head_seq(session: Session, source: str) -> int:
    """The last seq of ``source``'s chain (0 before its first entry)."""
    return int(session.execute(select(CH.c.seq).where(CH.c.source == source)).scalar_one_or_none() or 0)


def entries_with_findings(
    session: Session, source: str, first: int, last: int
) -> tuple[int, Sequence[Row[Any]]]:
    """The rounds with findings among ``source``'s chain entries ``first`` <= seq <= ``last`` (a range of the primary
    key, read in order), and the last seq of the range that exists. Only rounds' own entries (a re-audit's finds no
    one at the table)."""
    upto = session.execute(
        select(func.max(CE.c.seq)).where(CE.c.source == source, CE.c.seq >= first, CE.c.seq <= last)
    ).scalar_one_or_none()
    rows = session.execute(
        select(*ALERT_COLUMNS)
        .join(R, and_(R.c.id == CE.c.ref_id, R.c.finding_count > 0))
        .where(CE.c.source == source, CE.c.seq >= first, CE.c.seq <= last, CE.c.kind == "round")
        .order_by(CE.c.seq)
    ).all()
    return (first - 1 if upto is None else int(upto)), rows


def entry_of_round(session: Session, round_pk: int) -> int | None:
    return session.execute(
        select(CE.c.seq).where(CE.c.kind == "round", CE.c.ref_id == round_pk)
    ).scalar_one_or_none()


def round_at(session: Session, source: str, seq: int) -> Row[Any] | None:
    return session.execute(
        select(*ALERT_COLUMNS)
        .join(R, R.c.id == CE.c.ref_id)
        .where(CE.c.source == source, CE.c.seq == seq, CE.c.kind == "round")
    ).one_or_none()


# --- subscriptions ---------------------------------------------------------------------------------------------

SUBSCRIPTION = (
    S.c.id,
    S.c.source,
    S.c.url,
    S.c.secret,
    S.c.filters,
    S.c.created_at,
    S.c.created_by,
    S.c.paused_at,
    S.c.paused_reason,
    S.c.cursor_seq,
    S.c.cursor_index,
    S.c.failures,
    S.c.first_failure_at,
    S.c.next_attempt_at,
    S.c.last_error,
    S.c.delivered,
)


def add_subscription(session: Session, values: Mapping[str, Any]) -> None:
    session.execute(insert(S).values(**values))


def subscription(session: Session, sub_id: str) -> Row[Any] | None:
    return session.execute(
        select(*SUBSCRIPTION).where(S.c.id == sub_id, S.c.deleted_at.is_(None))
    ).one_or_none()


def subscriptions(session: Session, source: str | None) -> Sequence[Row[Any]]:
    stmt = select(*SUBSCRIPTION).where(S.c.deleted_at.is_(None)).order_by(S.c.created_at, S.c.id)
    if source is not None:
        stmt = stmt.where(S.c.source == source)
    return session.execute(stmt).all()


def delete_subscription(session: Session, sub_id: str, now: datetime) -> bool:
    done = session.execute(update(S).where(S.c.id == sub_id, S.c.deleted_at.is_(None)).values(deleted_at=now))
    return bool(done.rowcount)  # type: ignore[attr-defined]


def update_subscription(session: Session, sub_id: str, values: Mapping[str, Any]) -> None:
    """Set ``values``; a cursor among them only moves forward (a deliverer whose lease ran out while another took
    the subscription never moves it back)."""
    stmt = update(S).where(S.c.id == sub_id)
    if "cursor_seq" in values:
        seq, index = values["cursor_seq"], values["cursor_index"]
        stmt = stmt.where(or_(S.c.cursor_seq < seq, and_(S.c.cursor_seq == seq, S.c.cursor_index < index)))
    session.execute(stmt.values(**values))


def due(session: Session, now: datetime, whole_entry: int) -> Sequence[str]:
    """The subscriptions a deliverer may take now: live, not paused, not waiting for a retry, not held, and with
    something to read (the chain grew past the cursor, or the cursor stopped inside an entry)."""
    return (
        session.execute(
            select(S.c.id)
            .join(CH, CH.c.source == S.c.source)
            .where(
                S.c.deleted_at.is_(None),
                S.c.paused_at.is_(None),
                or_(S.c.next_attempt_at.is_(None), S.c.next_attempt_at <= now),
                or_(S.c.lease_until.is_(None), S.c.lease_until < now),
                or_(CH.c.seq > S.c.cursor_seq, S.c.cursor_index < whole_entry),
            )
        )
        .scalars()
        .all()
    )


def any_live(session: Session) -> bool:
    return bool(
        session.execute(
            select(S.c.id).where(S.c.deleted_at.is_(None), S.c.paused_at.is_(None)).limit(1)
        ).first()
    )


def lease(session: Session, sub_id: str, now: datetime, until: datetime) -> Row[Any] | None:
    """Take ``sub_id`` for a deliverer until ``until``: the subscription, or None when another holds it (or it is
    gone, paused, or waiting)."""
    taken = session.execute(
        update(S)
        .where(
            S.c.id == sub_id,
            S.c.deleted_at.is_(None),
            S.c.paused_at.is_(None),
            or_(S.c.lease_until.is_(None), S.c.lease_until < now),
        )
        .values(lease_until=until)
    )
    return subscription(session, sub_id) if taken.rowcount else None  # type: ignore[attr-defined]


# --- deliveries and acknowledgements ---------------------------------------------------------------------------


def add_delivery(session: Session, values: Mapping[str, Any]) -> None:
    session.execute(insert(D).values(**values))


def deliveries(session: Session, sub_id: str, before: int | None, limit: int) -> Sequence[Row[Any]]:
    stmt = select(D).where(D.c.subscription_id == sub_id).order_by(D.c.id.desc()).limit(limit)
    if before is not None:
        stmt = stmt.where(D.c.id < before)
    return session.execute(stmt).all()


def add_acknowledgement(session: Session, values: Mapping[str, Any]) -> None:
    session.execute(insert(ACK).values(**values))


def acknowledgement(session: Session, source: str, seq: int, index: int) -> Row[Any] | None:
    return session.execute(
        select(ACK).where(ACK.c.source == source, ACK.c.seq == seq, ACK.c.finding_index == index)
    ).one_or_none()


def acknowledged_in(session: Session, source: str, first: int, last: int) -> dict[tuple[int, int], Row[Any]]:
    rows = session.execute(
        select(ACK).where(ACK.c.source == source, ACK.c.seq >= first, ACK.c.seq <= last)
    ).all()
    return {(r.seq, r.finding_index): r for r in rows}


def latest_with_findings(
    session: Session, source: str, tables: Sequence[str] | None, limit: int, upto: int
) -> Sequence[Row[Any]]:
    """The last ``limit`` rounds with findings of ``source``'s chain up to entry ``upto`` (of ``tables`` only, when
    given), newest first, in :data:`ALERT_COLUMNS`."""
    stmt = (
        select(*ALERT_COLUMNS)
        .join(R, and_(R.c.id == CE.c.ref_id, R.c.finding_count > 0))
        .where(CE.c.source == source, CE.c.kind == "round", CE.c.seq <= upto)
        .order_by(CE.c.seq.desc())
        .limit(limit)
    )
    if tables is not None:
        stmt = stmt.where(R.c.table_id.in_(list(tables)))
    return session.execute(stmt).all()
