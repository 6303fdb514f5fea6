"""A box that received one card of its two, at a table that peeks, when the dealer has blackjack (round-v1.md 2.1).

"At a ``peek: true`` table the peek is taken to have happened (its record is optional)", and "once the dealer's
blackjack is known before the players act ... a hand is settled by the cards it held when the blackjack was known":
one card, no blackjack, so it loses the wager to the dealer's. That holds whatever the order of the settlement and
the other boxes' decisions (the engine used to notice the blackjack only at the first decision, so a box settled
before it was not judged: a push was passed). At a ``peek: false`` table the blackjack is known only at the reveal,
after the players: a box that never received its cards is then judged by no rule we hold (no finding).

NJ, seats 1 and 2 (2500 each): 0 TH to 1, 1 8C to 2, 2 AS to the dealer, 3 9D to 1, 4 KD face down to the dealer
(seat 2 never gets its second card).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import a_round, audit, deal, peek, reveal, seat, settle, stand
from tests.rules.case import got, want

OUTCOME = "uncited:settlement-outcome"
DEAL = [deal("1", "TH"), deal("2", "8C"), deal("dealer", "AS"), deal("1", "9D"), deal("dealer", "KD", "down")]


def _findings(tail: list[dict[str, Any]], **elections: Any) -> list[Any]:
    r = a_round("US-NJ", seats=[seat(1, 2500), seat(2, 2500)], events=DEAL + tail, extra_rules=elections)
    return [got(f) for f in audit(r)["findings"]]


@pytest.mark.parametrize(
    ("tail", "at"),
    [
        ([settle("2", "push", 0), stand("1"), reveal("dealer", "KD"), settle("1", "lose", 2500)], 5),
        ([stand("1"), settle("2", "push", 0), reveal("dealer", "KD"), settle("1", "lose", 2500)], 6),
        ([settle("2", "push", 0), reveal("dealer", "KD"), settle("1", "lose", 2500)], 5),
    ],
    ids=["settled before the first decision", "settled after it", "no decision at all"],
)
def test_a_one_card_box_loses_to_a_peeked_dealer_blackjack_in_any_order(
    tail: list[dict[str, Any]], at: int
) -> None:
    assert _findings(tail) == [want(OUTCOME, at, "2", -2500, 0, -2500)]


def test_a_one_card_box_that_lost_its_wager_to_a_peeked_blackjack_is_no_finding() -> None:
    tail = [settle("2", "lose", 2500), reveal("dealer", "KD"), settle("1", "lose", 2500)]
    assert _findings(tail) == []


def test_at_a_table_that_does_not_peek_a_box_that_never_received_its_cards_is_judged_by_no_rule() -> None:
    tail = [stand("1"), reveal("dealer", "KD"), settle("2", "push", 0), settle("1", "lose", 2500)]
    assert _findings(tail, peek=False) == []


def test_a_one_card_box_settled_before_a_recorded_peek_at_a_table_that_does_not_peek_is_judged_by_no_rule() -> (
    None
):
    # The table elects no peek; the dealer's two cards are up (4 KD face up) and the push of seat 2 (5) comes before the
    # peek recorded at 6: the blackjack was not known from a peek when the box was settled, so, as at a peek:false
    # table, a box that never received its cards is judged by no rule we hold.
    events = [*DEAL[:4], deal("dealer", "KD"), settle("2", "push", 0), peek(True), settle("1", "lose", 2500)]
    r = a_round("US-NJ", seats=[seat(1, 2500), seat(2, 2500)], events=events, extra_rules={"peek": False})
    assert [got(f) for f in audit(r)["findings"]] == []
