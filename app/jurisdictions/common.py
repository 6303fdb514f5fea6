"""What the two rules modules share: the builder of a ruleset from (rule, roles) entries, and the checks of the
game's fundamentals that we hold no provision for (``citation_status`` ``"uncited"``: reported, never numbered)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from app.domain.checks import ROLES
from app.domain.rules import Category, Check, CitationStatus, Rule, Ruleset

__all__ = ["Category", "CitationStatus", "Entry", "build_ruleset", "not_checkable", "uncited"]

Entry = tuple[Rule, tuple[str, ...]]
"""A rule and the check roles that cite it."""

UNCITED_NOTE = "No provision held for this check; it tests a fundamental of the game (uncited)."


def uncited(
    key: str, title: str, category: Category, paraphrase: str, elections: tuple[str, ...] = ()
) -> Rule:
    return Rule(
        rule=f"uncited:{key}",
        citation=UNCITED_NOTE,
        citation_status="uncited",
        title=title,
        category=category,
        paraphrase=paraphrase,
        elections=elections,
    )


def not_checkable(rule: Rule, reason: str) -> Rule:
    return dataclasses.replace(rule, checkable=False, not_checkable_reason=reason)


def build_ruleset(
    *,
    jurisdiction: str,
    name: str,
    effective: date,
    until: date | None,
    entries: Iterable[Entry],
    also_listed: Iterable[Rule],
    checks: tuple[Check, ...],
    params: Mapping[str, Any],
    defaults: Mapping[str, Any],
    elections_check: Check | None,
) -> Ruleset:
    roles: dict[str, Rule] = {}
    catalogue: list[Rule] = []
    for rule, rule_roles in entries:
        catalogue.append(rule)
        for role in rule_roles:
            if role in roles:
                raise ValueError(
                    f"{jurisdiction}: role {role!r} bound twice ({roles[role].rule}, {rule.rule})"
                )
            roles[role] = rule
    catalogue.extend(also_listed)
    # Run only the checks that can report in a role this jurisdiction binds.
    checks = tuple(ch for ch in checks if ROLES.get(ch, frozenset(roles)) & roles.keys())
    return Ruleset(
        jurisdiction=jurisdiction,
        name=name,
        effective=effective,
        until=until,
        roles=roles,
        catalogue=tuple(catalogue),
        checks=checks,
        params=params,
        defaults=defaults,
        elections_check=elections_check,
    )


# The fundamentals, as both jurisdictions check them where no provision is held.

OUTCOME = uncited(
    "settlement-outcome",
    "Each hand is won, lost or pushed by comparing totals",
    "payout",
    "A busted hand loses; otherwise a dealer bust, or a higher total, wins, a lower total loses and equal totals "
    "push; a dealer blackjack beats any other 21.",
)
WIN_ODDS = uncited(
    "win-pays-1-to-1",
    "A winning hand is paid one to one",
    "payout",
    "A winning wager, including any double, is paid at one to one.",
)
LOSE_COLLECTS = uncited(
    "lose-collects-stake",
    "A losing wager is collected in full",
    "payout",
    "A losing wager is collected, the whole of it and no more.",
)
BLACKJACK_ODDS = uncited(
    "blackjack-odds",
    "A player blackjack pays 3 to 2 (6 to 5 at a 6 to 5 table), and pushes against a dealer blackjack",
    "payout",
    "A winning blackjack is paid at three to two, or six to five in the 6 to 5 variation; against a dealer "
    "blackjack it is a push.",
    ("blackjack_pays",),
)
INSURANCE_OFFER = uncited(
    "insurance",
    "Insurance only against a dealer ace, at most half the wager, before further cards",
    "wager",
    "Insurance is offered only when the dealer's first card is an ace, after the initial deal and before any further "
    "card, for at most half the player's original wager.",
)
INSURANCE_PAYS = uncited(
    "insurance-pays-2-to-1",
    "Insurance wins 2 to 1 when the dealer has blackjack, and loses otherwise",
    "payout",
    "An insurance wager wins, at two to one, when the dealer's second card is a ten-value card, and loses otherwise.",
)
EVEN_MONEY = uncited(
    "even-money",
    "Even money only for a blackjack against a dealer ace, paid one to one",
    "payout",
    "A player holding blackjack against a dealer ace may take even money: the wager paid one to one in full "
    "settlement.",
)
SURRENDER = uncited(
    "surrender",
    "Late surrender on the first two cards, forfeiting half the wager",
    "player_action",
    "Where surrender is offered, a player may surrender a hand's first two cards, before any other decision on it, "
    "and forfeits half the wager.",
    ("surrender",),
)
MISSING = uncited(
    "missing-settlement",
    "Every wager is settled",
    "payout",
    "Every wager placed in the round (main, insurance, additional) is settled before the round ends.",
)
TWICE = uncited("settled-twice", "A wager is settled once", "payout", "No wager is settled twice.")
TABLE_LIMITS = uncited(
    "table-limits",
    "Wagers within the table's posted limits",
    "wager",
    "Each box's original wager is at least the table's posted minimum and at most its posted maximum.",
    ("min_wager", "max_wager"),
)

# The state of play (round-v1.md section 2.1): what an event may follow. Where a jurisdiction holds a provision for
# the same fault (NJ 13:69F-2.11(b) for split hands, 2.12(a) for draws), its rule is cited instead.

CARD_TO_COMPLETE = uncited(
    "card-to-complete-hand",
    "No card to a complete hand",
    "dealing",
    "A hand that stood, was surrendered or was settled receives no further card, and no hit is taken on it.",
)
DECISION_ON_COMPLETE = uncited(
    "decision-on-complete-hand",
    "No decision on a complete hand",
    "player_action",
    "A hand that stood, was doubled, surrendered or settled is not doubled or split afterwards.",
)
PLAY_AFTER_DEALER_BJ = uncited(
    "play-after-dealer-blackjack",
    "No play once the dealer's blackjack is known",
    "dealing",
    "Once the dealer's blackjack is known before the players act (a peek), the round is over for every hand: "
    "only the dealer's reveal and the settlements may follow, no player decision, wager or card.",
)
OUT_OF_TURN = uncited(
    "play-out-of-turn",
    "Boxes are played in turn",
    "dealing",
    "Boxes are played in seat order from the dealer's left, each hand completed before any card goes to another "
    "hand, and the dealer plays after every box is complete.",
)
SETTLED_EARLY = uncited(
    "settled-before-dealer-complete",
    "A wager that depends on the dealer's total is settled after the dealer's hand is complete",
    "timing",
    "A hand whose outcome depends on the dealer's total (not busted, surrendered or a blackjack) is settled only "
    "once the dealer's hand is complete.",
)

# What real tables also record (round-v1.md section 2.3): burns and voided rounds. No provision for them in force for
# the rounds we audit is held in either jurisdiction (NZ's 1998 Division 1 defines "void" as neither win nor lose, but
# applies to no round we audit), so both check them under these keys.

BURNED_DURING_PLAY = uncited(
    "card-burned-during-play",
    "No card is burned during play",
    "dealing",
    "A card burned after the round's first card is dealt and before the dealer's hand is complete takes the card "
    "that a hand or the dealer would otherwise have received; burns belong before the round or after it.",
)
PLAY_AFTER_VOID = uncited(
    "play-after-void",
    "No play once the round is declared void",
    "dealing",
    "Once a round is declared void (a misdeal, an exposed card, a shoe or equipment fault), no card is dealt and no "
    "decision is taken; only the return of the wagers (and the showing of the dealer's cards) may follow.",
)
VOID_NOT_RETURNED = uncited(
    "void-wager-not-returned",
    "Every wager of a voided round is returned",
    "payout",
    "In a round declared void no hand wins or loses: every wager still in play at the void (main, with its doubles "
    "and splits, insurance, additional) is returned, neither paid nor collected.",
)
