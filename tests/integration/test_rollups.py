"""The reports' rollups (app/store/rollups.py) against the report's definition, the raw query, on SQLite and
PostgreSQL: every group_by, ranges of whole days and of part-days, open at either end, each source and jurisdiction,
before any roll, part-way through and after, and after re-audits (audits 2 and 3, which take findings back, add
others, void a round or undo its void). The rows are made directly, at random from fixed seeds: what is tested is
the adding up (days and months), not the engine (tests/integration/test_reports.py holds the figures to hand-written expectations)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, insert, text
from sqlalchemy.orm import Session

from app.store import rollups
from app.store.models import audits_table as A
from app.store.models import chain_entries_table as CE
from app.store.models import chain_heads_table as CH
from app.store.models import findings_table as F
from app.store.models import round_keys_table as K
from app.store.models import rounds_table as R
from app.store.reports import GROUP_BY, Summary
from app.store.rollups import Page
from app.usecases.reports import Report, decode_cursor, summary

SOURCES = ("casino-a", "casino-b")
RULES = ("19:47-2.10(b)", "19:47-2.12(b)1", "NZ-6.3", "13:69F-2.6(a)")
ALSO_CITED_AS = {
    "19:47-2.10(b)": '["13:69F-2.10(b)"]',
    "13:69F-2.6(a)": '["19:47-2.4(a)","X_1%"]',  # two numbers, one with LIKE's wildcards
}
"""What the findings of a rule are also cited as (JSON text, as stored): the search by rule finds them by these too."""
START = datetime(2026, 1, 30, 18, tzinfo=UTC)


class Store:
    """Rounds, findings, re-audits and chain entries written as the service writes them (the columns reports read)."""

    def __init__(self, session: Session, seed: int) -> None:
        self.s = session
        self.rnd = random.Random(seed)
        self.seq = dict.fromkeys(SOURCES, 0)
        self.audits: dict[int, int] = {}  # round pk -> latest audit_no
        self.n = 0

    def _entry(self, source: str, kind: str, ref_id: int) -> None:
        self.seq[source] += 1
        seq = self.seq[source]
        self.s.execute(
            insert(CE).values(
                source=source, seq=seq, kind=kind, ref_id=ref_id, label=kind, digest=b"d" * 32, hash=b"h" * 32
            )
        )
        if seq == 1:
            self.s.execute(insert(CH).values(source=source, seq=seq, hash=b"h" * 32))
        else:
            self.s.execute(text("UPDATE chain_heads SET seq = :q WHERE source = :s"), {"q": seq, "s": source})

    def _findings(self, pk: int, audit_no: int, row: dict[str, Any]) -> tuple[int, bool]:
        r = self.rnd
        count = r.choice((0, 0, 0, 1, 1, 2, 3))
        rows = [
            {
                "round_pk": pk,
                "seq": i,
                "rule": (rule := r.choice(RULES)),
                "also_cited_as": ALSO_CITED_AS.get(rule),
                "citation_status": "verified",
                "category": "payout",
                "event_index": i,
                "hand": None,
                "amount_delta": r.choice((None, 0, 500, -250, 1250)),
                "source": row["source"],
                "jurisdiction": row["jurisdiction"],
                "table_id": row["table_id"],
                "played_at": row["played_at"],
                "audit_no": audit_no,
                "corrected_by": r.choice((None, None, 7)),
                "corrected_actual": None,
            }
            for i in range(count)
        ]
        if rows:
            self.s.execute(insert(F), rows)
        return count, r.random() < 0.1

    def round(self) -> None:
        r = self.rnd
        self.n += 1
        source = r.choice(SOURCES)
        row = {
            "source": source,
            "jurisdiction": r.choice(("US-NJ", "NZ")),
            "round_id": f"R-{self.n}",
            "table_id": r.choice(("BJ1", "BJ2", "BJ3")),
            "played_at": START + timedelta(hours=r.randrange(0, 24 * 100), seconds=r.randrange(3600)),
            # keys whose code point order is not a collation's: pages of groups are in code point order
            "dealer_id": r.choice(("D1", "D2", "", None, "Ä", "a", "Z")),
            "shoe_id": r.choice(("S1", "S2", None, "s10", "É")),
            "received_at": START,
            "record": b"{}",
            "record_sha256": "0" * 64,
            "verdict": "compliant",
            "ruleset": "test",
            "engine_version": "test",
            "elections_source": "defaults",
            "elections_id": None,
            "finding_count": 0,
            "audit": "{}",
            "void_reason": None,
        }
        key = {k: row[k] for k in ("round_id", "source", "jurisdiction", "played_at")}
        pk = int(self.s.execute(insert(K).values(**key).returning(K.c.id)).scalar_one())  # the round's id
        self.s.execute(insert(R).values(id=pk, **row))
        count, voided = self._findings(pk, 1, row)
        self.s.execute(
            text("UPDATE rounds SET finding_count = :c, void_reason = :v WHERE id = :pk"),
            {"c": count, "v": "misdeal" if voided else None, "pk": pk},
        ) if (count or voided) else None
        self.audits[pk] = 1
        self._entry(source, "round", pk)

    def reaudit(self) -> None:
        pk = self.rnd.choice(sorted(self.audits))
        row = dict(self.s.execute(R.select().where(R.c.id == pk)).one()._mapping)
        n = self.audits[pk] + 1
        count, voided = self._findings(pk, n, row)
        audit_pk = self.s.execute(
            insert(A)
            .values(
                round_pk=pk,
                audit_no=n,
                source=row["source"],
                reaudit_id=None,
                created_at=START,
                verdict="violations" if count else "compliant",
                ruleset="test",
                engine_version="test",
                elections_source="defaults",
                elections_id=None,
                finding_count=count,
                audit="{}",
                void_reason="misdeal" if voided else None,
            )
            .returning(A.c.id)
        ).scalar_one()
        self.audits[pk] = n
        self._entry(row["source"], "audit", int(audit_pk))


def ranges(rnd: random.Random) -> Iterator[tuple[datetime | None, datetime | None]]:
    day = timedelta(days=1)
    yield None, None
    yield datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)  # whole days
    yield START, None  # a part-day, then open
    yield None, datetime(2026, 2, 10, 13, 30, tzinfo=UTC)
    yield (
        datetime(2026, 1, 31, 6, tzinfo=UTC),
        datetime(2026, 4, 5, 12, tzinfo=UTC),
    )  # part, days, 2 months, days, part
    yield datetime(2026, 1, 15, tzinfo=UTC), datetime(2026, 5, 20, tzinfo=UTC)  # days, whole months, days
    yield None, datetime(2026, 3, 3, tzinfo=UTC)  # months from the first, then days
    yield datetime(2026, 2, 1, tzinfo=UTC), None  # months to the last
    yield datetime(2026, 2, 14, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)  # days to a month's start
    yield datetime(2026, 2, 3, 5, tzinfo=UTC), datetime(2026, 2, 3, 23, tzinfo=UTC)  # within one day
    yield (
        datetime(2026, 2, 3, 5, tzinfo=UTC),
        datetime(2026, 2, 4, 1, tzinfo=UTC),
    )  # two part-days, no whole one
    for _ in range(3):
        a = START + timedelta(minutes=rnd.randrange(0, 60 * 24 * 100))
        yield a, a + rnd.randrange(1, 70) * day + timedelta(minutes=rnd.randrange(0, 1440))


def assert_same(session_of: Any, rnd: random.Random, pages: bool = False) -> int:
    """``pages``: also walk the pages of the reports of every source (:func:`assert_pages_add_up`)."""
    checked = 0
    for start, stop in ranges(rnd):
        for group_by in GROUP_BY:
            for source, jurisdiction in (
                (None, None),
                ("casino-a", None),
                (None, "NZ"),
                ("casino-b", "US-NJ"),
            ):
                q = Summary(group_by, start, stop, source, jurisdiction)
                with session_of() as s:
                    got = summary(s, q)
                with session_of() as s:
                    want = summary(s, q, raw=True)
                assert as_dict(got) == as_dict(want), q
                if pages and source is None and jurisdiction is None:
                    assert_pages_add_up(session_of, q, want)
                checked += 1
    return checked


def assert_pages_add_up(session_of: Any, q: Summary, whole: Report) -> None:
    """The pages of ``q``'s groups, walked by their cursors, are its groups in order, each page with the whole
    report's totals and alerts: a page of one group, and pages of about a third of them."""
    n = len(whole.groups)
    for limit in {1, max(1, n // 3), n + 1} if n <= 8 else {max(1, n // 3)}:
        for raw in (False, True):
            groups: list[dict[str, Any]] = []
            after = None
            for _ in range(n + 2):
                with session_of() as s:
                    page = summary(s, q, raw=raw, page=Page(limit, after))
                assert len(page.groups) <= limit
                assert (page.totals, page.alerts) == (whole.totals, whole.alerts)
                groups += page.groups
                if page.next_cursor is None:
                    break
                after = decode_cursor(page.next_cursor, q.group_by)
            assert page.next_cursor is None
            assert groups == whole.groups, (q, limit, raw)


def as_dict(report: Report) -> dict[str, Any]:
    return {"groups": report.groups, "totals": report.totals, "alerts": report.alerts}


def roll_all(engine: Engine, limit: int) -> None:
    with Session(engine) as s:
        for source in rollups.behind(s):
            assert rollups.roll(s, source, limit) is not None
        s.commit()


@pytest.mark.parametrize("seed", [1, 2])
def test_the_rollups_add_up_to_the_raw_query_before_during_and_after_rolling(
    engine: Engine, seed: int
) -> None:
    rnd = random.Random(seed)
    with Session(engine) as s:
        store = Store(s, seed)
        for _ in range(300):
            store.round()
        s.commit()

    def session_of() -> Session:
        return Session(engine)

    assert assert_same(session_of, rnd, pages=seed == 2)  # nothing rolled: the tail is every entry
    roll_all(engine, 137)  # part-way: some of each source rolled
    assert_same(session_of, rnd)
    with Session(engine) as s:
        for _ in range(60):
            store.s = s
            store.reaudit()  # audits 2, 3 ... of rolled rounds, in the tail
        for _ in range(40):
            store.round()
        s.commit()
    assert_same(session_of, rnd)
    for _ in range(20):
        roll_all(engine, 100)
    with Session(engine) as s:
        assert rollups.behind(s) == []
    assert_same(session_of, rnd, pages=seed == 1)  # all rolled, re-audits included


def test_a_report_past_the_tail_limit_adds_up_the_raw_rows(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(engine) as s:
        store = Store(s, 3)
        for _ in range(50):
            store.round()
        s.commit()
    monkeypatch.setattr(rollups, "TAIL_LIMIT", 10)
    with Session(engine) as s:
        assert rollups.tail(s, rollups.Days(None, None, None, None)) is None
    assert assert_same(lambda: Session(engine), random.Random(3))


def test_a_roller_that_lost_the_race_adds_nothing(engine: Engine) -> None:
    with Session(engine) as s:
        store = Store(s, 4)
        for _ in range(20):
            store.round()
        s.commit()
    with Session(engine) as first:
        assert rollups.roll(first, "casino-a") is not None
        first.commit()
    with Session(engine) as again:
        assert rollups.roll(again, "casino-a") == 0  # up to date: nothing read, nothing added
    with Session(engine) as s:
        before = s.execute(text("SELECT count(*), sum(rounds) FROM report_rollups")).one()
        assert before[0] > 0
