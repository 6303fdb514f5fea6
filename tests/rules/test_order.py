"""The documented order of findings (app/domain/engine.py): findings about the table's elections (no event, no hand)
first, whatever the category of the rule they cite, then the findings at events in event order (at one event, by
rule), then the findings with no event but a hand (an absence) last.

Regression: a 6 to 5 table standing on soft 17 cites 13:69F-2.12(d), whose category is dealer drawing; its finding
came last, among the absences."""

from __future__ import annotations

from tests.builders import a_round, audit, deal, double, reveal, seat, settle


def test_elections_first_then_by_event_then_absences() -> None:
    # A 6 to 5 table standing on soft 17 (an election finding); two seats. Seat 1 doubles for more than its wager
    # (event 6) and is never dealt its card (an absence, hand 1); seat 2's 19 is paid 1 to 1 against a dealer 17
    # (event 10: correct) and seat 1 is paid for its 11 (event 11: wrong).
    r = a_round(
        "US-NJ",
        extra_rules={"blackjack_pays": "6:5", "dealer_soft_17": "stand"},
        seats=[seat(1, 2500), seat(2, 2500)],
        events=[
            deal("1", "6H"),
            deal("2", "TC"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("2", "9D"),
            deal("dealer", "8S", "down"),
            double("1", 3000),
            reveal("dealer", "8S"),
            settle("2", "win", 2500),
            settle("1", "win", 5500),
        ],
    )
    got = [(f["rule"], f["event"], f["hand"]) for f in audit(r)["findings"]]
    assert got == [
        ("13:69F-2.12(d)", None, None),
        ("19:47-2.10(a)", 6, "1"),
        ("uncited:settlement-outcome", 9, "1"),
        ("13:69F-2.12(a)2", None, "1"),
    ]


def test_at_one_event_findings_are_ordered_by_rule() -> None:
    # NZ: even money against a dealer king (8.3), paid before the dealer's second card (8.2) at 1 to 1 (8.2).
    from tests.rules.cases_nz import CASES

    case = next(c for c in CASES if c.name == "even money against a dealer king")
    got = [(f["rule"], f["event"]) for f in audit(case.round)["findings"]]
    assert got == sorted(got) and got[0][0] == "8.2" and got[-1][0] == "8.3"
