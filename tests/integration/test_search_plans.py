"""The search by the latest audit's verdict or void, made of two (rounds never re-audited by their own columns, rounds
re-audited by their latest re-audit's: app/store/rounds.py), against its definition, one query over every round
joined with its latest audit: the same rounds in the same order, every page, on SQLite and PostgreSQL, with rounds
re-audited once and twice (verdicts and voids changed both ways). Data made at random from fixed seeds, as in
tests/integration/test_rollups.py."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine, and_, exists, or_, select, text
from sqlalchemy.orm import Session

from app.store import rounds as rounds_store
from app.store.models import findings_table as F
from app.store.models import rounds_table as R
from app.store.rounds import (
    SEARCH_COLUMNS,
    Search,
    finding_is_latest,
    search_conditions,
    search_rounds,
    with_latest_audit,
)
from tests.integration.test_rollups import Store


def reference(s: Session, q: Search, limit: int) -> list[Any]:
    """The search as defined: every round joined with its latest audit; a rule's and a correction's the plain
    EXISTS of one finding of the round's latest audit meeting both."""
    found: list[Any] = []
    if q.rule is not None:
        found.append(or_(F.c.rule == q.rule, F.c.also_cited_as.like(f'%"{q.rule}"%')))
    if q.corrected is not None:
        found.append(F.c.corrected_by.is_not(None) if q.corrected else F.c.corrected_by.is_(None))
    conds = search_conditions(replace(q, rule=None, corrected=None))
    if found:
        conds.append(
            exists().where(
                F.c.round_pk == R.c.id, F.c.played_at == R.c.played_at, *found, finding_is_latest()
            )
        )
    return list(
        s.execute(
            select(*SEARCH_COLUMNS)
            .select_from(with_latest_audit())
            .where(and_(True, *conds))
            .order_by(R.c.played_at.desc(), R.c.id.desc())
            .limit(limit)
        ).all()
    )


@pytest.mark.parametrize("seed", [5, 6])
def test_the_search_by_verdict_and_void_finds_what_its_definition_finds(engine: Engine, seed: int) -> None:
    with Session(engine) as s:
        store = Store(s, seed)
        for _ in range(400):
            store.round()
        rnd = random.Random(seed)
        for pk in rnd.sample(sorted(store.audits), 60):  # first-audit verdicts as the rows say
            verdict = rnd.choice(("violations", "unreplayable"))
            s.execute(text("UPDATE rounds SET verdict = :v WHERE id = :pk"), {"v": verdict, "pk": pk})
        for _ in range(120):
            store.reaudit()
        s.execute(
            text("UPDATE audits SET verdict = 'unreplayable' WHERE id % 7 = 0")
        )  # some re-audits unreplayable
        s.commit()
    checked = 0
    with Session(engine) as s:
        for verdict in (None, "compliant", "violations", "unreplayable"):
            for voided in (None, True, False):
                for extra in (
                    {},
                    {"source": "casino-a"},
                    {"table": "BJ2"},
                    {"rule": "NZ-6.3"},
                    {"corrected": True},
                    {"corrected": False},
                    {"corrected": True, "table": "BJ1"},
                    {"rule": "19:47-2.10(b)", "corrected": True},
                    {"rule": "19:47-2.12(b)1", "played_from": datetime(2026, 2, 10, tzinfo=UTC)},
                    {"played_from": datetime(2026, 2, 10, tzinfo=UTC)},
                ):
                    q = Search(verdict=verdict, voided=voided, **extra)
                    if verdict is None and voided is None and not extra:
                        continue
                    pages = 0
                    while True:
                        got = list(search_rounds(s, q, 7))
                        want = reference(s, q, 7)
                        assert [tuple(r) for r in got] == [tuple(r) for r in want], (q, pages)
                        checked += 1
                        pages += 1
                        if len(got) < 7:
                            break
                        q = _after(q, got[-1])
    assert checked > 60


def _after(q: Search, last: Any) -> Search:
    from dataclasses import replace

    return replace(q, after=(last.played_at, last.id))


@pytest.mark.parametrize("seed", [7])
def test_the_search_by_rule_walked_in_short_stretches_finds_what_its_definition_finds(
    engine: Engine, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk of a rule's findings (app/store/rounds.py) in stretches of a few findings, so that every page takes
    several, ending inside a round's findings and merging the walk of the rule with those of the also_cited_as values
    that list it (one or two numbers, one with LIKE's wildcards), against the definition, every page."""
    monkeypatch.setattr(rounds_store, "WALK_FIRST", 1)
    monkeypatch.setattr(rounds_store, "WALK_MOST", 5)
    with Session(engine) as s:
        store = Store(s, seed)
        for _ in range(300):
            store.round()
        for _ in range(100):
            store.reaudit()
        s.commit()
    checked = 0
    with Session(engine) as s:
        for rule in (
            "19:47-2.10(b)",
            "13:69F-2.10(b)",
            "19:47-2.4(a)",
            "X_1%",
            "13:69F-2.6(a)",
            "X",
            "NZ-6.3",
        ):
            for extra in (
                {},
                {"table": "BJ2"},
                {"verdict": "compliant"},
                {"corrected": True},
                {
                    "played_from": datetime(2026, 2, 10, tzinfo=UTC),
                    "played_to": datetime(2026, 3, 1, tzinfo=UTC),
                },
            ):
                for limit in (1, 3, 7):
                    q = Search(rule=rule, **extra)  # type: ignore[arg-type]
                    while True:
                        got = list(search_rounds(s, q, limit))
                        want = reference(s, q, limit)
                        assert [tuple(r) for r in got] == [tuple(r) for r in want], (q, limit)
                        checked += 1
                        if len(got) < limit:
                            break
                        q = _after(q, got[-1])
    assert checked > 300
