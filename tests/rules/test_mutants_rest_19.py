"""The engine's frame around issue 19 (round-v1.md sections 2.1-2.3): corrections judged twice, the dealer's
blackjack known at a table that peeks whether or not the peek is recorded, burns, voids, split hands played out of
order, the additional wager of a split box, what-if elections, and shoe reconciliation. Rounds that surviving mutants
of ``app.domain.engine``, ``state``, ``shoe``, ``checks.play`` and ``checks.doubling`` got wrong; each expectation is
written from the spec and the regulation notes (N.J.A.C. 13:69F-2.11, 2.12, 2.17, 19:47-2.10; NZ Gazette 1994 No 112
rules 4.1, 9.3), every finding stated whole, in the engine's documented order.

Section 4: a finding's ``message`` "is for people: it names money in the jurisdiction's currency". No test here
compares a message's words; :func:`findings` checks only that every message is text and names every amount in the
jurisdiction's currency.

Each round is built and audited inside its test (mutation testing sees only what tests run). Event indices are
spelled out beside each round. New Jersey boxes wager 2500, New Zealand boxes 1000. The New Jersey test table deals
a hole card, peeks, and stands on soft 17.
"""

from __future__ import annotations

import re
from typing import Any

from tests.builders import (
    a_round,
    audit,
    deal,
    double,
    peek,
    reveal,
    seat,
    settle,
    split,
)
from tests.rules.case import Want, got, want

W = 2500
NZ_W = 1000

DBJ = "uncited:play-after-dealer-blackjack"
DBJ_EXPECTED = "no play after the dealer's blackjack is known"
SPLIT_PAIR = "13:69F-2.11(a)"

_AMOUNT = re.compile(r"([^\s\d(]*)\d[\d,]*\.\d\d(?![\d(])")
"""An amount of money as a message writes it (``NZ$1,250.50``), with what stands before its digits."""


def findings(r: dict[str, Any], currency: str = "$") -> list[Want]:
    """Every finding of the round's audit, whole; and, of every finding, that its message is a string and names
    each amount in ``currency`` (section 4)."""
    result = audit(r)
    for f in result["findings"]:
        message = f["message"]
        assert isinstance(message, str) and message, f
        written = {before.lstrip("-") for before in _AMOUNT.findall(message)}
        assert written <= {currency}, (written, message)
    return [got(f) for f in result["findings"]]


def nj(
    events: list[dict[str, Any]], seats: list[dict[str, Any]] | None = None, **elections: Any
) -> dict[str, Any]:
    """A New Jersey round on the test table; one box of 2500 unless ``seats``."""
    return a_round("US-NJ", seats=seats or [seat(1, W)], events=events, extra_rules=elections)


def nz(events: list[dict[str, Any]], **elections: Any) -> dict[str, Any]:
    """A New Zealand round on the test table (the dealer's second card after the players); one box of 1000."""
    return a_round("NZ", seats=[seat(1, NZ_W)], events=events, extra_rules=elections)


def opening(p1: str, up: str, p2: str, hole: str) -> list[dict[str, Any]]:
    """Events 0-3 of a one-box NJ round: player, dealer up card, player, dealer hole card face down."""
    return [deal("1", p1), deal("dealer", up), deal("1", p2), deal("dealer", hole, "down")]


# --- The dealer's blackjack at a table that peeks, peek recorded or not (section 2.1) ---------------------------
# "At a peek: true table the peek is taken to have happened (its record is optional) ... if the dealer's blackjack
# is revealed later, the peek missed it, and every player decision or card after the initial deal is play after a
# known dealer blackjack." So a round without the peek's record is judged as the same round with it.


def test_a_split_of_a_blackjack_after_an_unrecorded_peek_is_judged_as_with_the_peek_recorded() -> None:
    # 0-3 AH KC KD AS(down): the player's blackjack against the dealer's; no peek recorded. 4 the box splits AH and
    # KD (not a pair: 13:69F-2.11(a)); the dealer's blackjack was known before it. 5 the reveal, 6-7 both returned.
    # "A hand is settled by the cards it held when the blackjack was known": a blackjack against a blackjack is a
    # stand off, so returning the wager owes nothing; the split wager of 1.2, placed after the round was over, is
    # returned too. The same round with the peek recorded at 4 (the split at 5) says the same, a finding later.
    unrecorded = nj(
        [
            *opening("AH", "KC", "KD", "AS"),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(unrecorded) == [want(SPLIT_PAIR, 4, "1", "two cards of identical value", "AH+KD")]
    recorded = nj(
        [
            *opening("AH", "KC", "KD", "AS"),
            peek(True),
            split("1", W),
            reveal("dealer", "AS"),
            settle("1", "push", 0),
            settle("1.2", "push", 0),
        ]
    )
    assert findings(recorded) == [want(SPLIT_PAIR, 5, "1", "two cards of identical value", "AH+KD")]


def test_a_double_after_an_unrecorded_peek_is_owed_no_card() -> None:
    # 0-3 6H KC 5D AS(down), 4 the box doubles its 11: the dealer's blackjack was known (the peek is taken to have
    # happened), so the double is play after it, and play was over: no double card is owed (no 13:69F-2.12(a)2
    # finding for its absence). 5 the reveal, 6 the original wager collected (19:47-2.10(b): only it may be).
    r = nj(
        [
            *opening("6H", "KC", "5D", "AS"),
            double("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
        ]
    )
    assert findings(r) == [want(DBJ, 4, "1", DBJ_EXPECTED, "hand 1 doubled down")]
    recorded = nj(
        [
            *opening("6H", "KC", "5D", "AS"),
            peek(True),
            double("1", W),
            reveal("dealer", "AS"),
            settle("1", "lose", W),
        ]
    )
    assert findings(recorded) == [want(DBJ, 5, "1", DBJ_EXPECTED, "hand 1 doubled down")]
