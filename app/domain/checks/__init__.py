"""The checks, by topic. Each reports by *role*; a jurisdiction decides which of its rules a role cites (see
:mod:`app.domain.rules`). Comments marked ``Interpretation:`` record how we read the law.

Two kinds, one rule each: what an event may do given the state it arrives in is judged by the replay as the event
arrives (:mod:`.play`, :func:`.doubling.on_double`, :func:`.splitting.on_split`); what can only be judged at the end
of the round is judged by the checks below, reading the state the replay leaves (never the event list again).

=================  =====================================================================================
topic              module
=================  =====================================================================================
state of play      :mod:`.play`: cards and decisions on complete hands, play after a dealer blackjack,
                   order of play (13:69F-2.11(b) for split hands), surrender
doubling           :mod:`.doubling`: 19:47-2.10(a), (c), (d), 13:69F-2.12(a)2
splitting          :mod:`.splitting`: 13:69F-2.11(a), (c)1, (e)
dealer             :mod:`.dealer`: 13:69F-2.12(b)-(e)
settlement         :mod:`.settlement` (with :mod:`.outcome`): outcomes, odds, 19:47-2.10(b), 2.11(d), NZ 4.1, 8.2
insurance          :mod:`.insurance`: insurance and even money, NZ 8.3, 9.1-9.6
wagers             :mod:`.wagers`: table limits, 13:69F-2.17 additional wagers
=================  =====================================================================================
"""

from __future__ import annotations

from app.domain.checks import dealer, doubling, insurance, play, settlement, splitting, wagers
from app.domain.rules import Check

_PAYOUT = settlement.ROLES - {"missing_settlement", "settled_twice", "settled_early"}

REPLAY_ROLES: frozenset[str] = play.ROLES | doubling.ROLES | splitting.ROLES | _PAYOUT
"""The roles the replay reports in as events arrive (it runs for every ruleset); settlements made once the dealer's
hand is complete are judged as they arrive (:func:`.settlement.on_settle`)."""

ROLES: dict[Check, frozenset[str]] = {
    wagers.check_table_limits: frozenset({"wager_limits"}),
    doubling.check_double_cards: doubling.END_ROLES,
    insurance.check_insurance: frozenset(
        {"insurance_when", "insurance_amount", "insurance_timing", "insurance_chips"}
    ),
    insurance.check_even_money: frozenset(
        {
            "even_money_when",
            "even_money_amount",
            "even_money_timing",
            "settled_early",
            "void_wager_not_returned",
        }
    )
    | _PAYOUT,
    dealer.check_dealer_draw: dealer.ROLES,
    settlement.check_settlements: settlement.ROLES,
    insurance.check_insurance_settlements: frozenset(
        {
            "missing_settlement",
            "settled_twice",
            "insurance_outcome",
            "insurance_odds",
            "lose_amount",
            "insurance_collect_timing",
            "void_wager_not_returned",
        }
    ),
    settlement.check_blackjack_paid_early: frozenset({"bj_paid_early"}),
    wagers.check_additional: frozenset(
        {
            "additional_type",
            "additional_amount",
            "additional_outcome",
            "additional_13",
            "additional_timing",
            "missing_settlement",
            "settled_twice",
            "lose_amount",
            "void_wager_not_returned",
        }
    ),
}
"""The roles each end-of-round check reports in: a ruleset runs only the checks with at least one role it binds."""

ALL_CHECKS: tuple[Check, ...] = tuple(ROLES)

check_additional = wagers.check_additional

__all__ = ["ALL_CHECKS", "REPLAY_ROLES", "ROLES", "check_additional"]
