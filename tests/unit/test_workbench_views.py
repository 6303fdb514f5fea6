"""What the workbench's pages show, without a database: the view models (app.workbench.views) built from fabricated
lookup answers — an audit history in the shape the lookup's ``audits`` takes, a what-if not in force, a split hand —
and rendered by the real templates; the session module's examples."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from app.api.workbench import _aliases, _templates
from app.usecases.rounds import audit
from app.workbench import views
from tests.html_tree import Element, parse

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
NJ = "US-NJ 13:69F as of 2024-09-16"


@pytest.mark.parametrize("name", ["app.workbench.session", "app.workbench.views"])
def test_docstring_examples(name: str) -> None:
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0


def _lookup(example: str = "nj-double-then-dealer-blackjack", **extra: Any) -> dict[str, Any]:
    body = (EXAMPLES / f"{example}.round.json").read_bytes()
    record = json.loads(body)
    result = audit(body).result
    return {
        "round_id": record["round_id"],
        "source": "casino-a",
        "jurisdiction": record["jurisdiction"],
        "table_id": record["table"]["id"],
        "played_at": "2026-12-01T03:15:00Z",
        "received_at": "2026-12-02T10:00:00Z",
        "record_sha256": "ab" * 32,
        "record": record,
        "audit": result,
        "rules": {},
        **extra,
    }


def _render(page: views.RoundPage) -> Element:
    html = (
        _templates()
        .get_template("round.html")
        .render(
            viewer=None,
            csrf=None,
            logged_in=False,
            title="t",
            page=page,
            rulesets=[],
            compare_name=None,
            compare_error=None,
            source_param=None,
            jurisdiction_param=None,
        )
    )
    return parse(html)


FINDING = {
    "rule": "19:47-2.10(b)",
    "citation": "N.J.A.C. 19:47-2.10(b)",
    "citation_status": "verified",
    "title": "Dealer blackjack after a double down",
    "category": "payout",
    "event": 7,
    "hand": "1",
    "message": "m",
    "expected": -2500,
    "actual": -5000,
    "amount_delta": 2500,
}


def test_the_audit_history_lists_each_audit_and_what_changed() -> None:
    removed = dict(FINDING)
    changed_before = {**FINDING, "rule": "uncited:settlement-outcome", "amount_delta": 100}
    changed_after = {**changed_before, "amount_delta": 250}
    added = {**FINDING, "rule": "uncited:missing-settlement", "event": None, "amount_delta": None}
    audits = [
        {
            "audit_no": 1,
            "created_at": "2026-12-01T10:00:00Z",
            "engine_version": "0.1.0",
            "ruleset": NJ,
            "verdict": "violations",
            "finding_count": 2,
            "reaudit_id": None,
            "changes": None,
        },
        {
            "audit_no": 2,
            "created_at": "2026-12-02T10:00:00Z",
            "engine_version": "0.2.0",
            "ruleset": NJ,
            "verdict": "violations",
            "finding_count": 2,
            "reaudit_id": "ra-1",
            "changes": {
                "added": [added],
                "removed": [removed],
                "changed": [{"before": changed_before, "after": changed_after}],
            },
        },
        {
            "audit_no": 3,
            "created_at": "2026-12-03T10:00:00Z",
            "engine_version": "0.2.1",
            "ruleset": NJ,
            "verdict": "violations",
            "finding_count": 2,
            "reaudit_id": "ra-2",
            "changes": {"added": [], "removed": [], "changed": []},
        },
    ]
    page = views.round_page(_lookup(audits=audits), _aliases())
    assert [(a.audit_no, a.first, a.engine_version, a.reaudit_id) for a in page.audits] == [
        (1, True, "0.1.0", None),
        (2, False, "0.2.0", "ra-1"),
        (3, False, "0.2.1", "ra-2"),
    ]
    second = page.audits[1]
    assert [f.rule for f in second.added] == ["uncited:missing-settlement"]
    assert [f.rule for f in second.removed] == ["19:47-2.10(b)"]
    assert [(b.owed, a.owed) for b, a in second.changed] == [
        ("$1.00 owed to the player", "$2.50 owed to the player")
    ]
    doc = _render(page).one("section", id="audits")
    items = doc.all("li", cls="audit")
    assert [li.get("data-audit-no") for li in items] == ["1", "2", "3"]
    assert [f.get("data-rule") for f in items[1].all(cls="added")] == ["uncited:missing-settlement"]
    assert [f.get("data-rule") for f in items[1].all(cls="removed")] == ["19:47-2.10(b)"]
    assert items[1].all(cls="before") and items[1].all(cls="after")
    assert items[2].one(cls="no-change")
    assert not items[0].all(cls="changes")


def test_without_an_audit_history_the_current_audit_is_one_line() -> None:
    page = views.round_page(_lookup(), _aliases())
    assert len(page.audits) == 1 and page.audits[0].audit_no is None
    assert page.audits[0].finding_count == 1 and page.audits[0].created_at == "2026-12-02 10:00:00 (UTC)"
    (li,) = _render(page).one("section", id="audits").all("li", cls="audit")
    assert "violations" in li.text and NJ in li.text


def test_a_what_if_not_in_force_is_labelled_so_beside_each_event() -> None:
    compare = {
        "ruleset": "some 1990 ruleset",
        "ruleset_in_force": False,
        "verdict": "violations",
        "findings": [dict(FINDING, rule="9.3", event=4), dict(FINDING, rule="8.2", event=None)],
    }
    page = views.round_page(_lookup(), _aliases(), compare, {"9.3": {"paraphrase": "p"}})
    doc = _render(page)
    label = doc.one(id="compare-summary")
    assert label.get("data-in-force") == "false" and label.one(cls="not-in-force").text == "not in force"
    li = doc.one("li", attrs={"data-event-index": "4"})
    (what_if,) = li.all(cls="whatif-finding")
    assert what_if.get("data-rule") == "9.3" and what_if.one(cls="paraphrase").text == "p"
    assert not li.all(cls="finding")  # the stored audit has nothing at event 4
    assert [f.get("data-rule") for f in doc.one("section", id="absences").all(cls="whatif-finding")] == [
        "8.2"
    ]


def test_the_table_follows_splits_reveals_and_settlements() -> None:
    record = {
        "jurisdiction": "NZ",
        "seats": [{"seat": 2, "wager": 1000}],
        "events": [
            {"type": "deal", "to": "2", "card": "8H"},
            {"type": "deal", "to": "dealer", "card": "6c"},
            {"type": "deal", "to": "2", "card": "8d"},
            {"type": "split", "hand": "2", "amount": 1000},
            {"type": "deal", "to": "2.1", "card": "10S"},
            {"type": "deal", "to": "2.2", "card": "AS"},
            {"type": "insurance", "seat": 2, "amount": 500},
            {"type": "deal", "to": "dealer", "card": "KH", "face": "down"},
            {"type": "settle", "bet": "main", "hand": "2.1", "result": "win", "amount": 1000},
            {"type": "settle", "bet": "main", "hand": "2.2", "result": "lose", "amount": 1000},
        ],
    }
    table = views._Table(record)
    shown = [table.apply(e) for e in record["events"]]
    view = table.view()
    (seat,) = view.seats
    assert [(h.key, [c.code for c in h.cards], h.total) for h in seat.hands] == [
        ("2.1", ["8H", "10S"], "18"),
        ("2.2", ["8d", "AS"], "19 soft"),
    ]
    assert [h.label for h in seat.hands] == ["Hand 2.1", "Hand 2.2"]
    assert (
        seat.hands[0].outcome == "win: NZ$10.00 paid" and seat.hands[1].outcome == "lose: NZ$10.00 collected"
    )
    assert seat.side == ["insurance of NZ$5.00"]
    assert [c.down for c in view.dealer.cards] == [False, True]  # never turned up: drawn as a back
    assert shown[7][0].down and shown[4][0].rank == "10"
    assert (
        views.describe(record["events"][3], table.label, "NZ") == "Hand 2.1 splits: NZ$10.00 on the new hand"
    )


def test_the_chart_draws_every_day_of_the_range_and_labels_its_axes() -> None:
    from datetime import date

    chart = views.day_chart({"2026-11-03": 12, "2026-11-20": 4}, date(2026, 11, 1), date(2026, 11, 30))
    assert len(chart.bars) == 30 and chart.total == 16
    tallest = max(chart.bars, key=lambda b: b.height)
    assert tallest.day == "2026-11-03" and tallest.y >= chart.top
    assert [v for _, v in chart.y_ticks] == [0, 10, 20]
    assert chart.x_labels[0][1] == "2026-11-01" and len(chart.x_labels) <= 8
    long = views.day_chart({}, date(2020, 1, 1), date(2026, 1, 1))
    assert len(long.bars) == views.MAX_DAYS and long.note
    assert views.day_chart({}, None, None).bars == []
