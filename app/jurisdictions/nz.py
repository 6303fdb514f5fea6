"""New Zealand: the Blackjack Rules in NZ Gazette 1994 No 112 (instrument A in ``shared/regulations``).

We hold rules 3.0-4.2 (p 3229) and 8.2-9.6 (p 3234, the seed). Their numbering is the 1994 instrument's own and
must not be used for the later Rules of Casino Table Games, Division 2 - Blackjack, which had replaced them by
28 January 1998 (NZ Gazette 1998 No 8 p 191 publishes that code's Division 1; 1998 No 15 applies its Division 2).
We hold none of Division 2's base text, so rounds played from that date have no ruleset here: the audit says so
rather than cite superseded rules.

Interpretation: rules 8.2 and 9.6 describe a game in which the dealer's second card is dealt after the players'
hands (no hole card). We do not assume it; the checks read the order of the recorded events.
"""

from __future__ import annotations

from datetime import date

from app.domain import checks as c
from app.domain.replay import Trace
from app.domain.rules import Ctx, Rule
from app.jurisdictions import common as k

JURISDICTION = "NZ"
INSTRUMENT = "NZ Gazette 1994 No 112, Blackjack Rules"


def nz(
    rule: str, title: str, category: k.Category, paraphrase: str, *, elections: tuple[str, ...] = ()
) -> Rule:
    return Rule(
        rule=rule,
        citation=f"{INSTRUMENT}, r {rule}",
        citation_status="verified",
        title=title,
        category=category,
        paraphrase=paraphrase,
        elections=elections,
    )


R_3_1 = nz(
    "3.1",
    "Six to eight decks",
    "election",
    "The game is played with six to eight decks and one cutting card.",
    elections=("decks",),
)
R_4_1_a = nz(
    "4.1(a)",
    "A dealer bust pays a standing player",
    "payout",
    "A wager wins when the player's total is 21 or less and the dealer's exceeds 21.",
)
R_4_1_b = nz(
    "4.1(b)",
    "A higher total wins",
    "payout",
    "A wager wins when the player's total is higher than the dealer's, neither exceeding 21.",
)
R_4_1_c = nz(
    "4.1(c)",
    "Blackjack beats a dealer 21 of more than two cards",
    "payout",
    "A player blackjack wins against a dealer total of 21 made with more than two cards.",
)
R_4_1_d = nz(
    "4.1(d)",
    "Dealer blackjack beats a player 21 of more than two cards",
    "payout",
    "A wager loses when the dealer has blackjack and the player has 21 made with more than two cards.",
)
R_4_1_e = nz(
    "4.1(e)",
    "Equal totals are a stand off",
    "payout",
    "Equal totals, or a blackjack each, are a stand off: the wager neither wins nor loses.",
)
R_4_1_f = nz(
    "4.1(f)",
    "A player over 21 loses",
    "payout",
    "A wager loses when the player's total exceeds 21, whatever the dealer's total.",
)
R_4_1_g = nz(
    "4.1(g)",
    "A higher dealer total loses",
    "payout",
    "A wager loses when the dealer's total is higher than the player's, neither exceeding 21.",
)
# Interpretation (r 4.2): a surrender at a table that does not offer it withdraws half a wager after the first card,
# which no rule we hold provides for.
R_4_2 = nz(
    "4.2",
    "No wager made, altered or withdrawn after the first card",
    "wager",
    "Except as the rules provide, no wager may be made, altered or withdrawn after the first card of a round "
    "has left the shoe.",
    elections=("surrender",),
)
R_8_2 = nz(
    "8.2",
    "Blackjack against a dealer ace or ten: wait for the second card; 3 to 2 or stand off",
    "payout",
    "With a dealer ace or ten-value first card, a player blackjack is neither paid nor removed until the "
    "dealer's second card; it is then paid three to two, or is a stand off if the dealer has blackjack.",
    elections=("blackjack_pays",),
)
R_8_3 = nz(
    "8.3",
    "Even money",
    "payout",
    "A player with blackjack against a dealer ace may ask to be paid one to one at once in full settlement.",
)
R_9_1 = nz(
    "9.1",
    "Insurance against a dealer ace, decided by the dealer's second card",
    "wager",
    "Insurance may be taken only when the dealer's first card is an ace; it wins if the dealer's second card is "
    "a ten-value card and loses if it is an ace or two to nine.",
)
R_9_3 = nz(
    "9.3",
    "Insurance at most half the wager, before further cards",
    "wager",
    "Insurance is at most half the player's original wager and is placed after the initial deal, before any "
    "further card is dealt.",
)
R_9_4 = nz(
    "9.4",
    "Insurance payable in chips",
    "wager",
    "The insurance amount is such that, if it wins, the dealer can pay it in chips.",
    elections=("min_chip",),
)
R_9_5 = nz(
    "9.5", "Winning insurance pays 2 to 1", "payout", "Winning insurance wagers are paid at two to one."
)
R_9_6 = nz(
    "9.6",
    "Losing insurance collected right after the dealer's second card",
    "timing",
    "Losing insurance wagers are collected immediately after the dealer's second card is drawn and before any "
    "further card.",
)

NOT_CHECKABLE = (
    k.not_checkable(
        nz(
            "3.2",
            "Value of the cards",
            "dealing",
            "Two to ten at face value, jack, queen and king ten, an ace eleven unless that takes the hand over 21.",
        ),
        "Not a check of its own: every total the engine computes follows it.",
    ),
    k.not_checkable(
        nz(
            "3.3",
            "Only the dealer handles the cards",
            "dealing",
            "No player or spectator may handle, alter or withdraw a card; the dealer deals every card.",
        ),
        "A round record does not say who handled a card.",
    ),
    k.not_checkable(
        nz(
            "9.2",
            'The dealer calls "Insurance"',
            "dealing",
            'With a dealer ace, the dealer completes the initial deal, then calls "Insurance" aloud and runs a hand '
            "along the insurance line.",
        ),
        "A round record carries no announcements.",
    ),
)

DRAW = k.uncited(
    "dealer-draw",
    "The dealer draws by the table's soft 17 election",
    "dealer_draw",
    "The dealer draws below 17 and stands on hard 17 or more; on soft 17 the dealer stands or draws as the table "
    "elects (the 1994 drawing rule is not held).",
    ("dealer_soft_17",),
)
PLAYER_DRAW = k.uncited(
    "player-draw",
    "No player draw on 21 or after busting",
    "player_action",
    "A player may not draw on a total of 21 or more.",
)
DOUBLING = k.uncited(
    "doubling",
    "Doubling down: on the first two cards, for no more than the wager, one card",
    "player_action",
    "A hand may be doubled once, on its first two cards, for no more than its original wager, and receives exactly "
    "one more card; a table that prohibits doubling after splitting does not allow it (rules 10.x are not held).",
    ("double_after_split",),
)
SPLITTING = k.uncited(
    "splitting",
    "Splitting: a pair of equal value, for a wager equal to the original",
    "player_action",
    "Only a hand's first two cards, of equal value, may be split, for a wager equal to the original; a table that "
    "does not offer resplitting allows one split (the splitting rules are not held).",
    ("resplit",),
)
DEALER_BJ_EXTRA = k.uncited(
    "dealer-blackjack-extra-wagers",
    "Dealer blackjack against a doubled or split hand",
    "payout",
    "Against a dealer blackjack a doubled or split hand loses either its original wager only or the whole of its "
    "wagers (the 1994 rule that decides which is not held, so both are accepted).",
)
BLACKJACK_ODDS = k.uncited(
    "blackjack-odds",
    "A player blackjack against a dealer two to nine pays 3 to 2",
    "payout",
    "A player blackjack when the dealer's first card is two to nine is paid three to two (rule 8.1 is not held).",
)

ENTRIES: tuple[k.Entry, ...] = (
    (R_3_1, ("elect_decks",)),
    (R_4_1_a, ("dealer_bust",)),
    (R_4_1_b, ("higher_total",)),
    (R_4_1_c, ("bj_beats_21",)),
    (R_4_1_d, ("dealer_bj_beats_21",)),
    (R_4_1_e, ("equal_totals",)),
    (R_4_1_f, ("bust_loses",)),
    (R_4_1_g, ("lower_total",)),
    (R_4_2, ("surrender_not_offered",)),
    (R_8_2, ("bj_vs_dealer_ace_ten", "bj_paid_early", "elect_bj_pays")),
    (R_8_3, ("even_money_when", "even_money_amount", "even_money_timing")),
    (R_9_1, ("insurance_when", "insurance_outcome")),
    (R_9_3, ("insurance_amount", "insurance_timing")),
    (R_9_4, ("insurance_chips",)),
    (R_9_5, ("insurance_odds",)),
    (R_9_6, ("insurance_collect_timing",)),
    (DRAW, ("draw_s17", "draw_h17", "draw_unknown")),
    (PLAYER_DRAW, ("hit_on_21", "hit_over_21")),
    (DOUBLING, ("double_when", "double_amount", "double_one_card", "das_prohibited")),
    (SPLITTING, ("split_pair", "split_amount", "resplit_not_elected")),
    (DEALER_BJ_EXTRA, ("dealer_bj_after_double", "dealer_bj_after_split")),
    (BLACKJACK_ODDS, ("bj_odds",)),
    (k.WIN_ODDS, ("win_odds",)),
    (k.LOSE_COLLECTS, ("lose_amount",)),
    (k.SURRENDER, ("surrender_when", "surrender_amount")),
    (k.MISSING, ("missing_settlement",)),
    (k.TWICE, ("settled_twice",)),
    (k.TABLE_LIMITS, ("wager_limits",)),
    (k.CARD_TO_COMPLETE, ("card_to_complete_hand",)),
    (k.DECISION_ON_COMPLETE, ("decision_on_complete_hand",)),
    (k.PLAY_AFTER_DEALER_BJ, ("play_after_dealer_bj",)),
    # The NZ splitting rules are not held: split hands played out of turn cite the fundamental.
    (k.OUT_OF_TURN, ("play_out_of_turn", "split_order")),
    (k.SETTLED_EARLY, ("settled_early",)),
    (k.BURNED_DURING_PLAY, ("card_burned_during_play",)),
    (k.PLAY_AFTER_VOID, ("play_after_void",)),
    (k.VOID_NOT_RETURNED, ("void_wager_not_returned",)),
)


def check_elections(t: Trace, ctx: Ctx) -> None:
    e = t.elections
    decks = e.get("decks")
    if isinstance(decks, int) and not 6 <= decks <= 8:
        ctx.emit(
            "elect_decks",
            None,
            None,
            f"This table uses {decks} deck(s); the game is played with six to eight.",
            expected="6 to 8 decks",
            actual=decks,
        )
    if e.get("blackjack_pays") == "6:5":
        ctx.emit(
            "elect_bj_pays",
            None,
            None,
            "This table pays blackjack 6 to 5; the rules pay it three to two.",
            expected="3:2",
            actual="6:5",
        )


CHECKS = tuple(ch for ch in c.ALL_CHECKS if ch is not c.check_additional)

RULESET = k.build_ruleset(
    jurisdiction=JURISDICTION,
    name="NZ Gazette 1994 No 112 Blackjack Rules",
    effective=date(1994, 10, 31),
    until=date(1998, 1, 28),
    entries=ENTRIES,
    also_listed=NOT_CHECKABLE,
    checks=CHECKS,
    params={"dealer_blackjack_collects": "original_or_all", "six_five_permitted": False, "currency": "NZ$"},
    defaults={
        "decks": None,
        "dealt_from": "shoe",
        "dealer_soft_17": None,
        "blackjack_pays": "3:2",
        "dealer_second_card": None,
        "peek": None,
        "double_after_split": None,
        "double_card": None,
        "resplit": None,
        "resplit_aces": None,
        "boxes": None,
        "surrender": None,
        "min_chip": None,
        "payout_rounding": None,  # section 2.2: down unless the table elects up
        "additional_wager": "none",
    },
    elections_check=check_elections,
)
