"""New Jersey: N.J.A.C. 13:69F-2 (Blackjack), and the 19:47-2.10 text of doubling down that we hold.

Sources: ``shared/regulations/nj-blackjack.md`` and the seeds. 13:69F-2.12 is the seed text "current through
Register Vol. 56, No. 18, September 16, 2024"; the ruleset takes effect then, because we hold no earlier text of it.
19:47-2.10 is the seed (last amended R.2010 d.082, effective June 7, 2010); its 13:69F number is inferred (number
unverified), so findings cite the 19:47 number and carry the 13:69F one in ``also_cited_as``.
"""

from __future__ import annotations

from datetime import date

from app.domain import checks as c
from app.domain.replay import Trace
from app.domain.rules import Ctx, Rule
from app.jurisdictions import common as k

JURISDICTION = "US-NJ"


def nj(
    rule: str,
    title: str,
    category: k.Category,
    paraphrase: str,
    *,
    elections: tuple[str, ...] = (),
    status: k.CitationStatus = "verified",
    effective: date | None = None,
) -> Rule:
    also: tuple[str, ...] = ()
    if rule.startswith("19:47-"):
        also = ("13:69F-" + rule.removeprefix("19:47-"),)
    elif rule.startswith("13:69F-2.12(b)"):
        # 19:47-2.10(c) (seed) cites "N.J.A.C. 19:47-2.12(b)" for the dealer's drawing options: the one 19:47
        # number of 2.12 we know exists. Its subparagraph numbers are not known, so they are not given.
        also = ("19:47-2.12(b)",)
    return Rule(
        rule=rule,
        citation=f"N.J.A.C. {rule}",
        citation_status=status,
        title=title,
        category=category,
        paraphrase=paraphrase,
        also_cited_as=also,
        elections=elections,
        effective=effective,
    )


R_2_12_a = nj(
    "13:69F-2.12(a)",
    "A player draws only while the hand totals less than 21",
    "player_action",
    "A player may draw additional cards whenever the hand's point count is less than 21.",
)
R_2_12_a1 = nj(
    "13:69F-2.12(a)1",
    "No draw on a blackjack or on a hard or soft 21",
    "player_action",
    "A player having blackjack or a hard or soft total of 21 may not draw additional cards.",
)
R_2_12_a2 = nj(
    "13:69F-2.12(a)2",
    "A doubled hand draws one and only one card",
    "player_action",
    "A player electing to double down draws one and only one additional card.",
)
R_2_12_a3 = nj(
    "13:69F-2.12(a)3",
    "Split aces receive one card each",
    "player_action",
    "A player splitting aces has only one card dealt to each ace and may not elect to receive additional cards.",
)
R_2_12_b = nj(
    "13:69F-2.12(b)",
    "The dealer draws by one of the two drawing options",
    "dealer_draw",
    "The dealer draws until a hard or soft 17-21 (option 1) or until a hard 17-21 or soft 18-21 (option 2). "
    "Cited when the table's option is not known: only what both options require is checked.",
    elections=("dealer_soft_17",),
)
R_2_12_b1 = nj(
    "13:69F-2.12(b)1",
    "Dealer stands on all 17s",
    "dealer_draw",
    "Under option 1 the dealer draws additional cards until reaching a hard or soft total of 17, 18, 19, 20 or 21.",
    elections=("dealer_soft_17",),
)
R_2_12_b2 = nj(
    "13:69F-2.12(b)2",
    "Dealer hits soft 17",
    "dealer_draw",
    "Under option 2 the dealer draws until reaching a hard total of 17-21 or a soft total of 18-21.",
    elections=("dealer_soft_17",),
)
R_2_12_c = nj(
    "13:69F-2.12(c)",
    "No dealer draw once the dealer's count cannot affect the outcome",
    "dealer_draw",
    "Except under 13:69F-2.25(d), the dealer draws no more cards, whatever the count, once decisions have been made "
    "on all players' hands and the dealer's count cannot affect the outcome of the round.",
)
R_2_12_d = nj(
    "13:69F-2.12(d)",
    "6 to 5 variation: the dealer hits soft 17",
    "dealer_draw",
    "In the 6 to 5 blackjack variation the dealer draws until a hard 17 or a hard or soft 18-21.",
    elections=("blackjack_pays", "dealer_soft_17"),
)
R_2_12_e = nj(
    "13:69F-2.12(e)",
    "Hand-dealt game electing to hit soft 17",
    "dealer_draw",
    "Where blackjack is dealt from the hand, the licensee may require the dealer to draw until a hard 17 or a hard "
    "or soft 18-21, electing it on its rules of the games checklist.",
    elections=("dealt_from", "dealer_soft_17"),
)
R_2_10_a = nj(
    "19:47-2.10(a)",
    "Doubling down: on the first two cards, not on 21, for no more than the original wager",
    "player_action",
    "Except on a blackjack or a two-card 21, a player may double down on the first two cards of a hand or of any "
    "split hand, by an additional wager not exceeding the original wager.",
    effective=date(2005, 1, 18),
)
R_2_10_b = nj(
    "19:47-2.10(b)",
    "Dealer blackjack after a double down",
    "payout",
    "If the dealer obtains blackjack after a player doubles down, the dealer collects only the original wager, not "
    "the additional amount wagered in doubling down.",
)
R_2_10_c = nj(
    "19:47-2.10(c)",
    "How the double-down card is dealt and turned up",
    "dealing",
    "The one additional card is dealt face up unless the table deals it face down or at the player's request; a "
    "face-down card is turned up after the dealer has drawn and when the player's wagers are settled in rotation.",
    elections=("double_card",),
    effective=date(2010, 6, 7),
)
R_2_10_d = nj(
    "19:47-2.10(d)",
    "6 to 5 variation may prohibit doubling after splitting",
    "player_action",
    "In the 6 to 5 blackjack variation a licensee may, after notice, prohibit doubling down after splitting pairs.",
    elections=("blackjack_pays", "double_after_split"),
    effective=date(2006, 1, 17),
)
R_2_11_a = nj(
    "13:69F-2.11(a)",
    "Split only a first-two-card pair, for a wager equal to the original",
    "player_action",
    "A player whose initial two cards are identical in value may split them into two hands, placing on the second "
    "a wager equal to the original wager.",
)
R_2_11_b = nj(
    "13:69F-2.11(b)",
    "Split hands are completed one at a time",
    "dealing",
    "The dealer deals to and completes the first incomplete split hand on the dealer's left before dealing any card "
    "to any other hand.",
)
R_2_11_c1 = nj(
    "13:69F-2.11(c)1",
    "No resplit unless resplitting is offered",
    "player_action",
    "A split hand whose second card matches the pair may not be split again, unless the table offers resplitting "
    "under 13:69F-2.11(e).",
    elections=("resplit",),
)
R_2_11_c2 = nj(
    "13:69F-2.11(c)2",
    "Split aces receive one card each and no more",
    "player_action",
    "A player who splits aces receives one card on each ace and no further cards.",
)
R_2_11_d = nj(
    "13:69F-2.11(d)",
    "Dealer blackjack after a split",
    "payout",
    "If the dealer obtains blackjack after a player splits, the dealer collects only the original wager, not the "
    "additional split wager(s).",
)
R_2_11_e = nj(
    "13:69F-2.11(e)",
    "Resplitting limits",
    "player_action",
    "Where offered, resplitting allows up to four hands at tables of up to six boxes and three hands at seven-box "
    "tables; the licensee may prohibit splitting aces more than once.",
    elections=("resplit", "resplit_aces", "boxes"),
)
R_2_17_a = nj(
    "13:69F-2.17(a)",
    "Additional wager: $1.00, of the one type the table offers",
    "wager",
    "A table may offer one of three $1.00 additional wagers: over/under 13, same suit, or a seven in the first "
    "three cards.",
    elections=("additional_wager",),
)
R_2_17_b = nj(
    "13:69F-2.17(b)",
    "Additional wager outcomes",
    "payout",
    "Over 13 wins when the first two cards total more than 13, under 13 when less; same suit when both cards are of "
    "one suit; seven when one of the first three cards is a seven.",
    elections=("additional_wager",),
)
R_2_17_c = nj(
    "13:69F-2.17(c)",
    "Over/under 13 loses on exactly 13",
    "payout",
    "An over or under 13 wager loses when the first two cards total exactly 13 (an ace counting one).",
    elections=("additional_wager",),
)
R_2_17_d = nj(
    "13:69F-2.17(d)",
    "Losing additional wagers are collected after the second cards",
    "timing",
    "Losing additional wagers are collected immediately after the second card is dealt to each player and before "
    "any further card is dealt to any player.",
    elections=("additional_wager",),
)
R_2_2_a1 = nj(
    "13:69F-2.2(a)1",
    "A game dealt from the hand uses one or two decks",
    "election",
    "The minimum number of decks is one or two if the game is dealt from the hand.",
    elections=("decks", "dealt_from"),
)
R_2_2_a3 = nj(
    "13:69F-2.2(a)3",
    "At least four decks with the seven additional wager",
    "election",
    "The minimum number of decks is four if the seven additional wager (13:69F-2.17(a)3) or the progressive wager "
    "is offered.",
    elections=("decks", "additional_wager"),
)

NOT_CHECKABLE = (
    k.not_checkable(
        nj(
            "13:69F-2.2(b)",
            "Value of the cards",
            "dealing",
            "Cards two to ten count face value, jack, queen and king ten, an ace eleven unless that takes the hand "
            "over 21, then one.",
        ),
        "Not a check of its own: every total the engine computes follows it.",
    ),
    k.not_checkable(
        nj(
            "13:69F-2.5",
            "Shuffle and cut of the cards",
            "dealing",
            "Shuffle before play and after each shoe; the cut at least 10 cards from either end; the cutting card "
            "re-inserted about a quarter from the back; who is offered the cut.",
        ),
        "A round record carries no shuffle or cut events.",
    ),
    k.not_checkable(
        nj(
            "13:69F-2.17(e)",
            "Winning additional wagers paid immediately",
            "timing",
            "Winning additional wagers are paid immediately (the rest of the text is not held).",
            status="unverified",
        ),
        "Only part of the text is held; a missing payment is reported as a missing settlement.",
    ),
)

ENTRIES: tuple[k.Entry, ...] = (
    (R_2_12_a, ("hit_over_21",)),
    (R_2_12_a1, ("hit_on_21",)),
    (R_2_12_a2, ("double_one_card",)),
    (R_2_12_a3, ("split_aces_draw",)),
    (R_2_12_b, ("draw_unknown",)),
    (R_2_12_b1, ("draw_s17",)),
    (R_2_12_b2, ("draw_h17",)),
    (R_2_12_c, ("needless_draw",)),
    (R_2_12_d, ("draw_6to5", "elect_6to5_soft17")),
    (R_2_12_e, ("draw_hand_dealt",)),
    (R_2_10_a, ("double_when", "double_on_21", "double_amount")),
    (R_2_10_b, ("dealer_bj_after_double",)),
    (R_2_10_c, ("double_card_face", "double_card_reveal")),
    (R_2_10_d, ("das_prohibited_6to5", "elect_das")),
    (R_2_11_a, ("split_pair", "split_amount")),
    (R_2_11_b, ("split_order",)),
    (R_2_11_c1, ("resplit_not_elected",)),
    (R_2_11_c2, ("split_aces_more",)),
    (R_2_11_d, ("dealer_bj_after_split",)),
    (R_2_11_e, ("resplit_limit", "resplit_aces", "elect_resplit")),
    (R_2_17_a, ("additional_type", "additional_amount")),
    (R_2_17_b, ("additional_outcome",)),
    (R_2_17_c, ("additional_13",)),
    (R_2_17_d, ("additional_timing",)),
    (R_2_2_a1, ("elect_decks_hand_dealt",)),
    (R_2_2_a3, ("elect_decks_seven",)),
    # Fundamentals we hold no NJ provision for (13:69F-2.7-2.9, 2.13-2.16 not found).
    (
        k.OUTCOME,
        (
            "bust_loses",
            "dealer_bust",
            "higher_total",
            "lower_total",
            "equal_totals",
            "bj_beats_21",
            "dealer_bj_beats_21",
        ),
    ),
    (k.WIN_ODDS, ("win_odds",)),
    (k.LOSE_COLLECTS, ("lose_amount",)),
    (k.BLACKJACK_ODDS, ("bj_odds", "bj_vs_dealer_ace_ten")),
    (k.INSURANCE_OFFER, ("insurance_when", "insurance_amount", "insurance_timing")),
    (k.INSURANCE_PAYS, ("insurance_outcome", "insurance_odds")),
    (k.EVEN_MONEY, ("even_money_when", "even_money_amount")),
    (k.SURRENDER, ("surrender_not_offered", "surrender_when", "surrender_amount")),
    (k.MISSING, ("missing_settlement",)),
    (k.TWICE, ("settled_twice",)),
    (k.TABLE_LIMITS, ("wager_limits",)),
    (k.CARD_TO_COMPLETE, ("card_to_complete_hand",)),
    (k.DECISION_ON_COMPLETE, ("decision_on_complete_hand",)),
    (k.PLAY_AFTER_DEALER_BJ, ("play_after_dealer_bj",)),
    (k.OUT_OF_TURN, ("play_out_of_turn",)),
    (k.SETTLED_EARLY, ("settled_early",)),
    (k.BURNED_DURING_PLAY, ("card_burned_during_play",)),
    (k.PLAY_AFTER_VOID, ("play_after_void",)),
    (k.VOID_NOT_RETURNED, ("void_wager_not_returned",)),
)


def check_elections(t: Trace, ctx: Ctx) -> None:
    e = t.elections
    decks = e.get("decks")
    if isinstance(decks, int):
        if e.get("dealt_from") == "hand" and decks > 2:
            ctx.emit(
                "elect_decks_hand_dealt",
                None,
                None,
                f"This table deals from the hand with {decks} decks; a hand-dealt game uses one or two.",
                expected="1 or 2 decks",
                actual=decks,
            )
        if e.get("additional_wager") == "seven" and decks < 4:
            ctx.emit(
                "elect_decks_seven",
                None,
                None,
                f"This table offers the seven additional wager with {decks} deck(s); it needs at least four.",
                expected="at least 4 decks",
                actual=decks,
            )
    if e.get("blackjack_pays") == "6:5" and e.get("dealer_soft_17") == "stand":
        ctx.emit(
            "elect_6to5_soft17",
            None,
            None,
            "This 6 to 5 table elects to stand on soft 17, but in the 6 to 5 variation the dealer must hit soft 17.",
            expected="hit soft 17",
            actual="stand on soft 17",
        )
    if e.get("double_after_split") is False and e.get("blackjack_pays") != "6:5":
        ctx.emit(
            "elect_das",
            None,
            None,
            "This table prohibits doubling after splitting, which only a 6 to 5 table may do.",
            expected="doubling after splitting allowed",
            actual="prohibited",
        )
    boxes = e.get("boxes")
    if e.get("resplit") and isinstance(boxes, int) and boxes > 7:
        ctx.emit(
            "elect_resplit",
            None,
            None,
            f"This table offers resplitting with {boxes} boxes; resplitting is allowed only at tables of up to "
            "seven boxes.",
            expected="at most 7 boxes",
            actual=boxes,
        )


RULESET = k.build_ruleset(
    jurisdiction=JURISDICTION,
    name="US-NJ 13:69F as of 2024-09-16",
    effective=date(2024, 9, 16),
    until=None,
    entries=ENTRIES,
    also_listed=NOT_CHECKABLE,
    checks=c.ALL_CHECKS,
    params={"dealer_blackjack_collects": "original_only", "additional_wager_amount": 100, "currency": "$"},
    defaults={
        "decks": None,
        "dealt_from": "shoe",
        "dealer_soft_17": None,  # 2.12(b): one of two options, no default
        "blackjack_pays": "3:2",  # 6 to 5 is a variation a table must elect
        "dealer_second_card": None,
        "peek": None,
        "double_after_split": True,  # 19:47-2.10(a) allows doubling on split pairs
        "double_card": "face_up",  # 19:47-2.10(c): face up unless the licensee elects otherwise
        "resplit": False,  # 13:69F-2.11(c)1 unless 2.11(e) is elected
        "resplit_aces": True,  # 2.11(e): allowed unless prohibited
        "boxes": None,  # not known unless recorded: 2.11(e)'s limits depend on it
        "surrender": None,
        "min_chip": None,
        "payout_rounding": None,  # section 2.2: down unless the table elects up
        "additional_wager": "none",
    },
    elections_check=check_elections,
)
