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
from app.usecases.offline import audit
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


# --- records as real tables write them (round-v1 section 2.3) -------------------------------------------------------


def _spec23_lookup(body: bytes) -> dict[str, Any]:
    """A lookup answer of a record with burns, a void or corrections (tests/spec23.py)."""
    record = json.loads(body)
    return {
        "round_id": record["round_id"],
        "source": "casino-a",
        "jurisdiction": record["jurisdiction"],
        "table_id": record["table"]["id"],
        "played_at": "2026-12-01T03:15:00Z",
        "received_at": "2026-12-02T10:00:00Z",
        "record_sha256": "ab" * 32,
        "record": record,
        "audit": audit(body).result,
        "rules": {},
    }


def test_burned_cards_are_drawn_apart_from_the_hands() -> None:
    from tests.spec23 import burned_in_play, voided

    page = views.round_page(_spec23_lookup(voided("V1", "2026-12-01T21:00:00-05:00")), _aliases())
    assert [(b.event, b.card.code, b.face) for b in page.table.burned] == [(0, "5S", "face down")]
    on_hands = [c.code for h in (page.table.dealer, *page.table.seats[0].hands) for c in h.cards]
    assert "5S" not in on_hands and on_hands == ["9C", "TH", "8D"]
    assert page.timeline[0].text == "Card burned, face down (on no hand)"
    assert [c.code for c in page.timeline[0].cards] == ["5S"]

    page = views.round_page(_spec23_lookup(burned_in_play("B1", "2026-12-01T21:00:00-05:00")), _aliases())
    assert [(b.event, b.card.code, b.face) for b in page.table.burned] == [(2, "4D", "face up")]
    doc = _render(page)
    table = doc.one("section", id="table-view")
    burns = table.one(id="burned-cards")
    assert [c.get("data-card") for c in burns.all(cls="card")] == ["4D"]
    assert burns.one(cls="burn").get("data-event") == "2" and "#2, face up" in burns.text
    hands = [c.get("data-card") for h in table.all(cls="hand") for c in h.all(cls="card")]
    assert "4D" not in hands and len(hands) == 4
    (finding,) = doc.one("li", attrs={"data-event-index": "2"}).all(cls="finding")
    assert finding.get("data-rule") == "uncited:card-burned-during-play"


def test_a_voided_round_is_marked_with_its_reason_and_the_wagers_returned() -> None:
    from tests.spec23 import voided

    body = json.loads(voided("V2", "2026-12-02T10:00:00Z", "card_exposed", dealt_after=True))
    body["seats"][0]["additional_wager"] = {"kind": "over_13", "amount": 500}
    body["table"]["rules"]["additional_wager"] = "over_under_13"
    body["events"].append({"type": "settle", "bet": "additional", "seat": 1, "result": "void", "amount": 0})
    page = views.round_page(_spec23_lookup(json.dumps(body).encode()), _aliases())
    assert page.void is not None
    assert (page.void.event, page.void.reason) == (4, "card exposed")
    assert page.void.returned == ["the main wager of seat 1 ($10.00)", "seat 1's additional wager ($5.00)"]
    assert page.table.seats[0].hands[0].outcome == "void: wager returned"
    assert page.timeline[4].text == "The round is declared void: card exposed"
    assert page.timeline[6].text == "Settled the main wager of seat 1: void: wager returned"
    doc = _render(page)
    mark = doc.one(id="void-mark")
    assert mark.get("data-void-reason") == "card exposed" and mark.text == "void: card exposed"
    notice = doc.one("section", id="void")
    assert notice.get("data-event") == "4" and notice.one(cls="void-reason").text == "card exposed"
    assert [li.text for li in notice.one("ul", cls="returned").all("li")] == page.void.returned
    assert doc.one("li", attrs={"data-event-index": "4"}).get("id") == "event-4"
    # A round not voided has no mark.
    plain = _render(views.round_page(_lookup(), _aliases()))
    assert not plain.all(id="void-mark") and not plain.all("section", id="void")


def test_a_corrected_settlement_shows_its_correction_and_what_is_still_owed() -> None:
    from tests.spec23 import corrected

    page = views.round_page(_spec23_lookup(corrected("C2", "2026-12-02T12:00:00Z", 800)), _aliases())
    (hand,) = page.table.seats[0].hands
    assert hand.outcome == "win: $5.00 paid, corrected at #8 to win: $8.00 paid"
    assert page.timeline[8].text == "Settlement #7 corrected: the main wager of seat 1, win: $8.00 paid"
    (f,) = page.timeline[7].findings
    assert (f.corrected_by, f.corrected, f.owed) == (
        8,
        "$8.00 paid to the player",
        "$2.00 owed to the player",
    )
    assert (f.expected, f.actual) == ("$10.00 paid to the player", "$5.00 paid to the player")
    dl = _render(page).one("li", attrs={"data-event-index": "7"}).one(cls="finding")
    fixed = dl.one("dd", cls="corrected")
    assert (
        fixed.get("data-corrected-by") == "8" and fixed.text == "by the table at #8: $8.00 paid to the player"
    )
    assert fixed.one("a").get("href") == "#event-8"
    labels = [dt.text for dt in dl.all("dt")]
    assert "Still owed" in labels and "Money" not in labels
    assert dl.one("dd", cls="amount").text == "$2.00 owed to the player"
    # A right correction: nothing still owed.
    page = views.round_page(_spec23_lookup(corrected("C1", "2026-12-01T10:00:00Z", 1000)), _aliases())
    (f,) = page.timeline[7].findings
    assert (f.corrected, f.owed) == ("$10.00 paid to the player", "nothing owed either way")
    # A finding the table did not correct keeps its plain money line.
    plain = finding_view_of(FINDING)
    assert plain.corrected_by is None and plain.corrected is None


def finding_view_of(f: dict[str, Any]) -> views.FindingView:
    return views.finding_view(f, {}, "US-NJ", None)


def test_the_report_page_shows_the_void_and_correction_columns_and_the_rates() -> None:
    from app.store.reports import Summary
    from app.usecases.reports import Report, with_rates

    figures = {
        "rounds": 3,
        "rounds_with_findings": 2,
        "findings": 2,
        "owed_to_players": 200,
        "owed_by_players": 0,
        "voided_rounds": 2,
        "corrected_findings": 1,
        "corrected_still_owed": 200,
    }
    report = Report(
        Summary("dealer"), [{"key": "D1", **with_rates(figures, True)}], with_rates(figures, True)
    )
    html = (
        _templates()
        .get_template("reports.html")
        .render(
            viewer=None,
            csrf=None,
            logged_in=False,
            title="t",
            report=report,
            chart=views.day_chart({}, None, None),
            error=None,
            params={"from": "2026-12-01", "to": "2026-12-04", "group_by": "dealer"},
            group_bys=("day", "dealer"),
            jurisdictions=("US-NJ", "NZ"),
            currency_of="US-NJ",
            csv_href="/ui/reports/summary.csv",
            search_href="/ui",
        )
    )
    doc = parse(html)
    row = doc.one("tr", cls="group")
    cells = {td.get("data-column"): td.text for td in row.all("td") if td.get("data-column")}
    assert cells == {
        "voided_rounds": "2",
        "corrected_findings": "1",
        "corrected_still_owed": "$2.00",
        "void_rate": "66.7%",
        "error_rate": "66.7%",
    }
    totals = doc.one("tr", id="totals")
    assert totals.one("td", attrs={"data-column": "void_rate"}).text == "66.7%"
    by_rule = Report(
        Summary("rule"), [{"key": "9.3", **with_rates(figures, False)}], with_rates(figures, True)
    )
    assert (by_rule.groups[0]["void_rate"], by_rule.groups[0]["error_rate"]) == (None, None)
    assert views.percent(by_rule.groups[0]["void_rate"]) == "\u2014"
