"""A seeded generator of legal blackjack rounds, as wire-format dicts (``shared/spec/round-v1.md``).

Public surface::

    random_elections(rng, jurisdiction)                 -> dict   legal, permitted table elections
    generate_round(rng, jurisdiction, elections=None,
                   round_id=None, played_at=None,
                   end=None)                            -> dict   one legal round
    generate_rounds(n, seed, jurisdiction=None,
                    elections=None, end=None)           -> Iterator[dict]   n legal rounds, deterministic
    earliest_end(jurisdiction)                          -> datetime   the earliest ``end`` the jurisdiction allows

Rounds are played before ``end`` (default :data:`DEFAULT_END`, a fixed instant in the past, so that the same seed
always gives the same rounds and none is in the future; ``bjaudit generate`` passes the current time).

Every round is real blackjack dealt from a shuffled shoe of the elected decks: the rounds of one ``shoe_id`` share
one card supply (a shoe is dealt to its cutting card, then replaced), so no card appears more often than the
shoe holds it. The play follows the law as the regulation texts in ``shared/regulations`` state it and as the
engine's checks read it:

* New Jersey (N.J.A.C. 13:69F-2, 19:47-2.10), rounds from 2024-09-16: a hole-card game (seats in order, the
  dealer's up card, seats again, the hole card face down), a peek where the table peeks and the dealer shows an
  ace or a ten; losing additional wagers (2.17) collected right after the players' second cards; doubles and
  splits under 19:47-2.10 and 2.11 (resplits only where elected, up to 2.11(e)'s limits); the dealer draws by the
  table's option (2.12(b)), hits soft 17 at a 6 to 5 table (2.12(d)), and draws nothing once no player hand can be
  affected (2.12(c)); a dealer blackjack after a double or a split collects only the original wager (2.10(b),
  2.11(d)); a face-down double card is turned up after the dealer has drawn, at its hand's settlement (2.10(c)).
* New Zealand (NZ Gazette 1994 No 112), rounds from 1994-10-31 until 1998-01-28: the dealer's second card is dealt
  after the players' hands (rules 8.2, 9.6); a blackjack against a dealer ace or ten is settled only after that
  card (8.2); even money (8.3) is paid before it; insurance (9.1-9.6) is at most half the wager, payable in chips,
  and losing insurance is collected right after the dealer's second card. Against a dealer blackjack a doubled or
  split hand loses either all its wagers or only the original one: each table keeps to one of the two.
* Both (round-v1.md sections 2.2, 2.3): odds and the half of a surrendered wager returned are paid in whole chips
  of the table's min_chip, rounded down or, where the table elects it, up; a shoe's first round begins with the
  burn (a card or a few, counted out of the shoe); now and then a card is burned once the round is over, a round is
  declared void part way (every wager still in play returned, nothing settled on the dealer's total before the
  void), or a settlement is corrected at the table (restated, or corrected wrongly and then back).

The generator is tuned for speed (it feeds benchmarks): cards are strings, totals are kept incrementally, events
are built as plain dicts. It keeps its own card arithmetic and play on purpose, sharing nothing with
``app.domain``: a second, independent implementation of the rules is what makes the property tests worth running.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = [
    "JURISDICTIONS",
    "DEFAULT_END",
    "VALIDITY",
    "earliest_end",
    "generate_floor",
    "generate_round",
    "generate_rounds",
    "random_elections",
]

JURISDICTIONS = ("US-NJ", "NZ")

_NJ_ZONE = ZoneInfo("America/New_York")
_NZ_ZONE = ZoneInfo("Pacific/Auckland")

VALIDITY: dict[str, tuple[datetime, datetime]] = {
    # The window in which generated rounds are played (local time): the NJ ruleset holds the 13:69F-2.12 text
    # current through 2024-09-16; the NZ 1994 rules were replaced by the Rules of Casino Table Games by
    # 1998-01-28.
    "US-NJ": (datetime(2024, 9, 16, 10, 0, tzinfo=_NJ_ZONE), datetime(2027, 12, 30, 20, 0, tzinfo=_NJ_ZONE)),
    "NZ": (datetime(1994, 10, 31, 10, 0, tzinfo=_NZ_ZONE), datetime(1998, 1, 26, 18, 0, tzinfo=_NZ_ZONE)),
}
_ZONES = {"US-NJ": _NJ_ZONE, "NZ": _NZ_ZONE}

DEFAULT_END = datetime(2026, 12, 1, 0, 0, tzinfo=_NJ_ZONE)
"""Rounds are played before this when no ``end`` is given: a fixed instant in the past (so that a seed's rounds never
change, and none was played after it was received: round-v1 section 2.3). Only New Jersey's window reaches it."""
_SESSION_SPAN = timedelta(hours=4)
"""A table session (at most 80 rounds, one every 35-150 s, each round's events stamped seconds apart) ends within
this of its first round: before an ``end``, sessions start at least this long before it."""

_RANKS = "A23456789TJQK"
_SUITS = "CDHS"
_DECK = [r + s for s in _SUITS for r in _RANKS]
_VAL = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in _RANKS}

# Additional wagers (13:69F-2.17): the regulation fixes the $1.00 wager; the payout odds are on the table's
# layout, which we do not hold. These are plausible odds; the engine does not check winning amounts.
_ADDITIONAL_WIN = {"over_13": 100, "under_13": 100, "same_suit": 300, "seven": 300}
_ADDITIONAL_AMOUNT = 100

_NJ_CASINOS = ("BOR", "HRA", "TRP", "OCN", "HAR", "CAE", "BAL", "TRO", "GNG")
_NZ_CASINOS = ("CHC", "AKL")


class _Exhausted(Exception):
    """The shoe ran out in the middle of a round (only with one or two decks and a crowded table)."""


class _Shoe:
    """A shuffled supply of cards, dealt by a lazy Fisher-Yates: only the cards dealt are ever shuffled."""

    __slots__ = ("cards", "n", "cut", "shoe_id", "fresh")

    def __init__(self, rng: random.Random, decks: int, shoe_id: str, hand_dealt: bool) -> None:
        self.cards = _DECK * decks
        self.n = len(self.cards)
        # The cutting card: a shoe is dealt to about 65-80% of its cards, a hand-held deck to about 55-65%.
        keep = rng.uniform(0.35, 0.45) if hand_dealt else rng.uniform(0.2, 0.35)
        self.cut = int(self.n * keep)
        self.shoe_id = shoe_id
        self.fresh = True  # no round dealt from it yet: the first begins with the burn

    def draw(self, rng: random.Random) -> str:
        n = self.n
        if n == 0:
            raise _Exhausted
        cards = self.cards
        j = int(rng.random() * n)
        n -= 1
        c = cards[j]
        cards[j] = cards[n]
        cards[n] = c
        self.n = n
        return c

    def draw_value(self, rng: random.Random, value: int) -> str:
        """The next card happens to be of the given point value (when the shoe still holds one): still a card
        of this shoe, dealt once. Used sparingly, to make pairs and resplits common enough to test."""
        n = self.n
        if n == 0:
            raise _Exhausted
        cards = self.cards
        start = int(rng.random() * n)
        for k in range(n):
            j = start + k
            if j >= n:
                j -= n
            if _VAL[cards[j][0]] == value:
                n -= 1
                c = cards[j]
                cards[j] = cards[n]
                cards[n] = c
                self.n = n
                return c
        return self.draw(rng)


# ---------------------------------------------------------------------------------------------------------------
# Elections


def random_elections(rng: random.Random, jurisdiction: str) -> dict[str, Any]:
    """Legal, permitted table elections for the jurisdiction, as ``table.rules`` carries them. Optional elections
    are sometimes left out (the engine then applies the jurisdiction's defaults, which permit the same play)."""
    if jurisdiction == "US-NJ":
        return _nj_elections(rng)
    if jurisdiction == "NZ":
        return _nz_elections(rng)
    raise ValueError(f"unknown jurisdiction {jurisdiction!r}")


def _nj_elections(rng: random.Random) -> dict[str, Any]:
    r = rng.random
    e: dict[str, Any] = {}
    hand = r() < 0.12
    # 13:69F-2.2(a): a game dealt from the hand uses one or two decks.
    decks = rng.choice((1, 2)) if hand else rng.choice((4, 6, 6, 6, 8, 8))
    e["decks"] = decks
    if hand or r() < 0.3:
        e["dealt_from"] = "hand" if hand else "shoe"
    six_five = r() < 0.2
    # 13:69F-2.12(d): in the 6 to 5 variation the dealer hits soft 17.
    if six_five:
        if r() < 0.85:
            e["dealer_soft_17"] = "hit"
    elif r() < 0.95:
        e["dealer_soft_17"] = rng.choice(("stand", "hit"))
    if six_five or r() < 0.8:
        e["blackjack_pays"] = "6:5" if six_five else "3:2"
    if r() < 0.8:
        e["dealer_second_card"] = "initial_deal"
    if r() < 0.9:
        e["peek"] = r() < 0.85
    # 19:47-2.10(d): only a 6 to 5 table may prohibit doubling after splitting.
    if six_five and r() < 0.5:
        e["double_after_split"] = False
    elif r() < 0.5:
        e["double_after_split"] = True
    x = r()
    if x < 0.25:
        e["double_card"] = "face_down"
    elif x < 0.4:
        e["double_card"] = "player_request"
    elif x < 0.7:
        e["double_card"] = "face_up"
    boxes = rng.choice((5, 6, 7, 7, 7, 7))
    if boxes != 7 or r() < 0.6:
        e["boxes"] = boxes
    # 13:69F-2.11(e): resplitting at tables of up to seven boxes (the limit depends on the boxes).
    if r() < 0.5:
        e["resplit"] = True
        e["boxes"] = boxes
        if r() < 0.7:
            e["resplit_aces"] = r() < 0.5
    elif r() < 0.5:
        e["resplit"] = False
    if r() < 0.7:
        e["surrender"] = rng.choice(("none", "late"))
    x = r()
    # 13:69F-2.17(a): one kind of additional wager per table; 2.2(a): the seven wager needs four decks or more.
    if x < 0.2:
        e["additional_wager"] = "over_under_13"
    elif x < 0.4:
        e["additional_wager"] = "same_suit"
    elif x < 0.55 and decks >= 4 and not hand:
        e["additional_wager"] = "seven"
    elif x < 0.75:
        e["additional_wager"] = "none"
    if r() < 0.7:
        lo = rng.choice((1000, 1500, 2500, 2500, 5000, 10000))
        e["min_wager"] = lo
        if r() < 0.9:
            e["max_wager"] = lo * rng.choice((20, 40, 100, 200))
    # Section 2.2: odds (and the half of a surrendered wager returned) paid in whole chips of min_chip, rounded
    # down unless the table elects up; some tables elect the default direction in so many words.
    if r() < 0.25:
        e["min_chip"] = rng.choice((100, 100, 500))
    if r() < 0.3:
        e["payout_rounding"] = "up" if r() < 0.6 else "down"
    return e


def _nz_elections(rng: random.Random) -> dict[str, Any]:
    r = rng.random
    e: dict[str, Any] = {}
    # r 3.1: six to eight decks.
    e["decks"] = rng.choice((6, 6, 6, 7, 8, 8))
    if r() < 0.95:
        e["dealer_soft_17"] = "stand" if r() < 0.75 else "hit"
    if r() < 0.8:
        e["blackjack_pays"] = "3:2"  # r 8.2
    if r() < 0.85:
        e["dealer_second_card"] = "after_players"  # rr 8.2, 9.6
    if r() < 0.85:
        e["min_chip"] = rng.choice((100, 100, 200, 500))  # r 9.4
    if r() < 0.7:
        e["double_after_split"] = r() < 0.7
    if r() < 0.7:
        e["resplit"] = r() < 0.5
    if r() < 0.6:
        e["surrender"] = "late" if r() < 0.3 else "none"
    if r() < 0.5:
        e["boxes"] = 7
    if r() < 0.7:
        lo = rng.choice((500, 1000, 2000, 2500, 5000))
        chip = e.get("min_chip", 100)
        lo = -(-lo // chip) * chip
        e["min_wager"] = lo
        if r() < 0.9:
            e["max_wager"] = lo * rng.choice((20, 50, 100))
    if r() < 0.3:
        e["payout_rounding"] = "up" if r() < 0.5 else "down"  # section 2.2
    return e


# ---------------------------------------------------------------------------------------------------------------
# The table: elections resolved into how its dealer plays


class _Table:
    __slots__ = (
        "jurisdiction",
        "casino",
        "table_id",
        "rules",
        "decks",
        "hand_dealt",
        "h17",
        "bj_num",
        "bj_den",
        "chip",
        "round_up",
        "hole_card",
        "peek",
        "das",
        "double_face",
        "max_hands",
        "resplit_aces",
        "surrender",
        "ins_step",
        "min_wager",
        "max_wager",
        "unit",
        "odd_wagers",
        "additional",
        "boxes",
        "all_wagers_on_dbj",
        "record_actions",
        "dotted",
        "bust_now",
        "draw_idle",
        "pre_hole_additional",
        "pitch",
        "hole_first",
        "noop_stands",
        "peek_recorded",
        "settle_before_reveal",
        "card_style",
        "stamps",
        "dealer_id",
        "shoe",
    )

    def __init__(
        self, rng: random.Random, jurisdiction: str, elections: dict[str, Any], omit_rules: bool
    ) -> None:
        e = elections
        r = rng.random
        nj = jurisdiction == "US-NJ"
        self.jurisdiction = jurisdiction
        self.rules: dict[str, Any] | None = None if omit_rules else dict(e)
        if nj:
            self.casino = rng.choice(_NJ_CASINOS)
            self.table_id = (
                f"BJ{rng.randint(1, 60):02d}" if r() < 0.7 else f"{self.casino}-BJ{rng.randint(1, 60)}"
            )
            self.dealer_id = f"{rng.randint(10000, 99999)}"
        else:
            self.casino = rng.choice(_NZ_CASINOS)
            self.table_id = f"{self.casino}-BJ{rng.randint(1, 24)}"
            self.dealer_id = f"D{rng.randint(100, 999)}"
        self.hand_dealt = e.get("dealt_from") == "hand"
        decks = e.get("decks")
        if not isinstance(decks, int):
            decks = rng.choice((1, 2)) if self.hand_dealt else rng.choice((6, 8))
        self.decks = decks
        six_five = e.get("blackjack_pays") == "6:5"
        self.bj_num, self.bj_den = (6, 5) if six_five else (3, 2)
        # Section 2.2: odds (and the half of a surrendered wager returned) are paid in whole chips of min_chip,
        # rounded down unless the table elects up.
        chip = e.get("min_chip")
        self.chip = chip if isinstance(chip, int) and chip > 0 else 1
        self.round_up = e.get("payout_rounding") == "up"
        soft17 = e.get("dealer_soft_17")
        if nj and six_five:
            self.h17 = True  # 13:69F-2.12(d)
        elif soft17 in ("stand", "hit"):
            self.h17 = soft17 == "hit"
        else:
            self.h17 = r() < 0.5  # the table's option, not recorded: the engine accepts either on soft 17
        second = e.get("dealer_second_card")
        self.hole_card = second != "after_players" if nj else second == "initial_deal"
        peek = e.get("peek")
        self.peek = self.hole_card and (peek if isinstance(peek, bool) else r() < 0.8)
        self.das = e.get("double_after_split") is not False
        face = e.get("double_card", "face_up")
        self.double_face = "down" if face == "face_down" else "request" if face == "player_request" else "up"
        boxes = e.get("boxes")
        if not isinstance(boxes, int):
            boxes = 7
        self.boxes = boxes
        if e.get("resplit") is True and boxes <= 7:
            # 13:69F-2.11(e): up to four hands at tables of up to six boxes, three at seven.
            self.max_hands = 4 if boxes <= 6 else 3
        else:
            self.max_hands = 2
        self.resplit_aces = e.get("resplit_aces") is not False
        self.surrender = e.get("surrender") == "late"
        chip = e.get("min_chip")
        self.ins_step = (
            chip // 2 if isinstance(chip, int) and chip % 2 == 0 else chip if isinstance(chip, int) else 1
        )
        unit = chip if isinstance(chip, int) else 500 if nj else 100
        self.unit = unit
        lo = e.get("min_wager")
        hi = e.get("max_wager")
        lo = lo if isinstance(lo, int) else unit * rng.choice((1, 2, 2, 5))
        lo = -(-lo // unit) * unit
        hi = hi if isinstance(hi, int) else lo * 100
        self.min_wager, self.max_wager = lo, max(hi, lo)
        # Rarely, wagers of odd amounts (where no chip or limit says otherwise): 3 to 2 and 6 to 5 then leave a
        # fraction, which is paid rounded down.
        self.odd_wagers = 0.02 if chip is None and "min_wager" not in e else 0.0
        kind = e.get("additional_wager", "none")
        self.additional = kind if nj and kind in ("over_under_13", "same_suit", "seven") else None
        # NZ: the rule for a dealer blackjack against doubled and split hands is not held; a table keeps to
        # one of the two readings the engine accepts.
        self.all_wagers_on_dbj = (not nj) and r() < 0.6
        self.record_actions = rng.choice((0.0, 0.0, 0.5, 1.0))
        self.dotted = r() < 0.05
        self.bust_now = rng.choice((0.0, 0.8, 1.0))
        self.draw_idle = 0.0 if nj else rng.choice((0.0, 0.5, 1.0))
        # 13:69F-2.17(d): losing additional wagers are collected right after the players' second cards, which
        # some tables do before the dealer's hole card and some after it.
        self.pre_hole_additional = r() < 0.3
        # A hand-held game may deal the players' cards face down; a player turns them up to split, double,
        # surrender or take even money, and the dealer turns them up at settlement.
        self.pitch = self.hand_dealt and r() < 0.5
        # Legal variants of how a table system records a round (round-v1.md sections 2 and 2.1): the hole card
        # dealt first (face down) and the up card second; stands recorded on hands already complete by rule (a
        # split ace with its card, a 21, a bust, a doubled hand with its card), at once or after play has moved
        # on, which decide nothing; a peek the system does not record (its absence proves nothing); against a
        # peeked dealer blackjack, the hands settled before the hole card is turned up.
        self.hole_first = self.hole_card and r() < 0.2
        self.noop_stands = rng.choice((0.0, 0.0, 0.5, 1.0))
        self.peek_recorded = r() < 0.9
        self.settle_before_reveal = r() < 0.4
        # How the table system spells cards (the spec accepts "10" for T and lowercase), and whether it stamps
        # each event with the time.
        x = r()
        self.card_style = "lower" if x < 0.04 else "ten" if x < 0.08 else ""
        self.stamps = r() < 0.08
        self.shoe: _Shoe | None = None

    def new_shoe(self, rng: random.Random, when: datetime, k: int) -> _Shoe:
        shoe_id = f"{self.table_id}-{when:%Y%m%d}-S{k:03d}"
        self.shoe = _Shoe(rng, self.decks, shoe_id, self.hand_dealt)
        return self.shoe

    def wager(self, rng: random.Random) -> int:
        """A wager within the table's posted limits (sometimes exactly at one of them)."""
        unit, lo, hi = self.unit, self.min_wager, self.max_wager
        if self.odd_wagers and rng.random() < self.odd_wagers:
            w = rng.randint(max(lo, 201), max(lo, 201) * 3)
            return min(w, hi)
        w = lo * rng.choice((1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 8, 10, 20))
        if rng.random() < 0.2:
            w += unit * rng.randint(1, 4)
        if w > hi:
            w = hi // unit * unit
        return max(w, lo)


def _defaults_cover(jurisdiction: str, e: dict[str, Any]) -> bool:
    """Whether the jurisdiction's default elections allow every play this table makes, so that its rounds may
    leave ``table.rules`` out. NJ defaults: a 3 to 2 shoe game, double cards face up, no resplits, no additional
    wager, and no soft 17 option (the engine then accepts either on soft 17). NZ defaults permit our NZ play. Neither
    elects a smallest chip or rounding up, by which the table's odds would be paid (round-v1.md section 2.2)."""
    if e.get("min_chip") not in (None, 1) or e.get("payout_rounding") == "up":
        return False
    if jurisdiction != "US-NJ":
        return True
    return (
        e.get("blackjack_pays", "3:2") == "3:2"
        and e.get("dealt_from", "shoe") == "shoe"
        and e.get("double_card", "face_up") == "face_up"
        and e.get("resplit") is not True
        and e.get("additional_wager", "none") == "none"
    )


def _within_defaults(e: dict[str, Any]) -> dict[str, Any]:
    """Elections narrowed to what the defaults permit (a 3 to 2 shoe game of four or more decks, face-up double
    cards, no resplits, no additional wager, odds paid to the cent), for a table whose rounds leave ``table.rules``
    out."""
    e = dict(e)
    e.pop("min_chip", None)
    e.pop("payout_rounding", None)
    e["blackjack_pays"] = "3:2"
    e.pop("double_after_split", None)
    if e.get("dealt_from") == "hand":
        e["dealt_from"] = "shoe"
        e["decks"] = 6
    e["double_card"] = "face_up"
    e["resplit"] = False
    e.pop("resplit_aces", None)
    e["additional_wager"] = "none"
    return e


# ---------------------------------------------------------------------------------------------------------------
# Hands


class _Hand:
    __slots__ = (
        "name",
        "seat",
        "cards",
        "hard",
        "ace",
        "wager",
        "doubled",
        "split_aces",
        "bust",
        "settled",
        "down_card",
        "bj",
        "hidden",
    )

    def __init__(self, name: str, seat: _Seat, wager: int) -> None:
        self.name = name
        self.seat = seat
        self.cards: list[str] = []
        self.hard = 0
        self.ace = False
        self.wager = wager
        self.doubled = 0
        self.split_aces = False
        self.bust = False
        self.settled = False
        self.down_card: str | None = None
        self.bj = False
        self.hidden: list[str] = []  # the player's own cards, dealt face down in a hand-held game

    def add(self, card: str) -> None:
        self.cards.append(card)
        v = _VAL[card[0]]
        self.hard += v
        if v == 1:
            self.ace = True

    def total(self) -> int:
        h = self.hard
        return h + 10 if self.ace and h <= 11 else h

    def soft(self) -> bool:
        return self.ace and self.hard <= 11


class _Seat:
    __slots__ = ("n", "wager", "hands", "kind", "insured", "even", "split", "name")

    def __init__(self, n: int, wager: int, kind: str | None, dotted: bool) -> None:
        self.n = n
        self.wager = wager
        self.kind = kind
        self.insured = 0
        self.even = False
        self.split = False
        self.name = str(n)
        self.hands = [_Hand(f"{n}.1" if dotted else self.name, self, wager)]


def _natural(a: str, b: str) -> bool:
    va, vb = _VAL[a[0]], _VAL[b[0]]
    return (va == 1 and vb == 10) or (va == 10 and vb == 1)


def _dealer_total(cards: list[str]) -> tuple[int, bool]:
    hard = 0
    ace = False
    for c in cards:
        v = _VAL[c[0]]
        hard += v
        if v == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def _settle(name: str, net: int) -> dict[str, Any]:
    if net > 0:
        return {"type": "settle", "bet": "main", "hand": name, "result": "win", "amount": net}
    if net < 0:
        return {"type": "settle", "bet": "main", "hand": name, "result": "lose", "amount": -net}
    return {"type": "settle", "bet": "main", "hand": name, "result": "push", "amount": 0}


# ---------------------------------------------------------------------------------------------------------------
# Strategy: roughly basic strategy, with some noise (all of it legal)


def _wants_split(rng: random.Random, v: int, up: int) -> bool:
    # v: the pair's point value (ace 1); up: the dealer's up card, ace 11.
    if v == 1 or v == 8:
        p = 0.97
    elif v == 10:
        p = 0.03
    elif v == 9:
        p = 0.85 if up in (2, 3, 4, 5, 6, 8, 9) else 0.1
    elif v in (2, 3, 7):
        p = 0.85 if up <= 7 else 0.1
    elif v == 6:
        p = 0.8 if up <= 6 else 0.1
    elif v == 4:
        p = 0.5 if up in (5, 6) else 0.05
    else:
        p = 0.03
    return rng.random() < p


def _wants_double(rng: random.Random, total: int, soft: bool, up: int) -> bool:
    if soft:
        p = 0.6 if 13 <= total <= 18 and 4 <= up <= 6 else 0.01
    elif total == 11:
        p = 0.9 if up <= 10 else 0.4
    elif total == 10:
        p = 0.9 if up <= 9 else 0.05
    elif total == 9:
        p = 0.7 if 3 <= up <= 6 else 0.03
    else:
        p = 0.01
    return rng.random() < p


def _wants_hit(rng: random.Random, total: int, soft: bool, up: int) -> bool:
    if total >= 21:
        return False  # 13:69F-2.12(a)1: never on 21
    if soft:
        if total <= 17:
            p = 0.97
        elif total == 18:
            p = 0.6 if up >= 9 else 0.05
        else:
            p = 0.01
    elif total <= 11:
        p = 0.995
    elif total == 12:
        p = 0.15 if 4 <= up <= 6 else 0.85
    elif total <= 16:
        p = 0.1 if up <= 6 else 0.85
    elif total == 17:
        p = 0.01
    else:
        p = 0.002
    return rng.random() < p


def _wants_surrender(rng: random.Random, total: int, up: int) -> bool:
    if total == 16 and up >= 9 or total == 15 and up == 10:
        return rng.random() < 0.5
    return rng.random() < 0.005


# ---------------------------------------------------------------------------------------------------------------
# One round


def _play(rng: random.Random, t: _Table, shoe: _Shoe, seats: list[_Seat]) -> list[dict[str, Any]]:
    """The events of one round at table ``t`` (raises _Exhausted when the shoe runs out)."""
    ev: list[dict[str, Any]] = []
    add = ev.append
    draw = shoe.draw
    r = rng.random
    nj = t.jurisdiction == "US-NJ"
    pays_num, pays_den = t.bj_num, t.bj_den
    pitch = t.pitch

    def show(h: _Hand) -> None:
        for c in h.hidden:
            add({"type": "reveal", "to": h.name, "card": c})
        h.hidden.clear()

    # The initial deal: each seat in order, the dealer's first card, each seat again (then, in a hole-card
    # game, the dealer's hole card face down). Some tables deal the hole card first and the up card second.
    hole_first = t.hole_first
    for s in seats:
        c = draw(rng)
        h = s.hands[0]
        h.add(c)
        if pitch:
            h.hidden.append(c)
            add({"type": "deal", "to": h.name, "card": c, "face": "down"})
        else:
            add({"type": "deal", "to": h.name, "card": c})
    hole: str | None = None
    if hole_first:
        hole = draw(rng)
        add({"type": "deal", "to": "dealer", "card": hole, "face": "down"})
    else:
        up = draw(rng)
        add({"type": "deal", "to": "dealer", "card": up})
    for s in seats:
        h = s.hands[0]
        c = shoe.draw_value(rng, _VAL[h.cards[0][0]]) if r() < 0.04 else draw(rng)
        h.add(c)
        if pitch:
            h.hidden.append(c)
            add({"type": "deal", "to": h.name, "card": c, "face": "down"})
        else:
            add({"type": "deal", "to": h.name, "card": c})
        h.bj = _natural(h.cards[0], c)
    if hole is not None:
        up = _dealer_second(rng, shoe, _VAL[hole[0]])
        add({"type": "deal", "to": "dealer", "card": up})
    dealer = [up]
    upv = _VAL[up[0]]
    up_ace = upv == 1
    up_ten = upv == 10
    up11 = 11 if up_ace else upv

    additional = [s for s in seats if s.kind is not None]
    if additional and t.hole_card and t.pre_hole_additional and not hole_first:
        _settle_additional(additional, up, add, show)
        additional = []
    dealer_bj = False
    if t.hole_card:
        if hole is None:
            hole = _dealer_second(rng, shoe, upv)
            add({"type": "deal", "to": "dealer", "card": hole, "face": "down"})
        dealer.append(hole)
        dealer_bj = _natural(up, hole)
    if additional:
        _settle_additional(additional, up, add, show)

    # Even money and insurance, offered after the initial deal when the dealer shows an ace.
    insured: list[_Seat] = []
    if up_ace:
        step = t.ins_step
        for s in seats:
            h = s.hands[0]
            if h.bj and r() < 0.45:
                show(h)
                add({"type": "even_money", "seat": s.n, "amount": s.wager})
                s.even = True
                h.settled = True
                continue
            half = s.wager // 2
            if half >= step and r() < (0.3 if h.bj else 0.12):
                if r() < 0.7:
                    amount = half // step * step
                else:
                    unit = step if step > 1 or half < 100 else 100
                    amount = rng.randint(1, half // unit) * unit
                add({"type": "insurance", "seat": s.n, "amount": amount})
                s.insured = amount
                insured.append(s)

    peeked = False
    if t.hole_card and t.peek and (up_ace or up_ten):
        peeked = True
        if t.peek_recorded:
            add({"type": "peek", "dealer_blackjack": dealer_bj})
        if dealer_bj:
            assert hole is not None
            before = t.settle_before_reveal and r() < 0.7
            if not before:
                add({"type": "reveal", "to": "dealer", "card": hole})
            for s in insured:
                add(_ins_settle(s, True, t))
            for s in seats:
                h = s.hands[0]
                if not h.settled:
                    show(h)
                    add(_settle(h.name, 0 if h.bj else -h.wager))
            if before:
                add({"type": "reveal", "to": "dealer", "card": hole})
            return ev
        for s in insured:
            add(_ins_settle(s, False, t))
        insured = []

    # Could the dealer still turn out to hold a blackjack? (No peek in a hole-card game, or no second card yet.)
    may_bj = (up_ace or up_ten) and not peeked
    # Settling a busted hand at once is safe unless a dealer blackjack could later limit what a doubled or split
    # hand loses (NJ 2.10(b), 2.11(d); the NZ tables that collect only the original wager).
    bust_now_ok = not may_bj or (not nj and t.all_wagers_on_dbj)
    record = t.record_actions
    noop = t.noop_stands
    late_seat: list[str] = []  # stands recorded once the seat's other hands have been played
    late_round: list[str] = []  # ... once every box has been played

    def complete(h: _Hand) -> None:
        """Hand ``h`` is complete by rule: some table systems record a stand on it anyway, at once or later."""
        if noop and r() < noop:
            x = r()
            if x < 0.4:
                add({"type": "stand", "hand": h.name})
            else:
                (late_seat if x < 0.7 else late_round).append(h.name)

    def stand_late(names: list[str]) -> None:
        for name in names:
            add({"type": "stand", "hand": name})
        names.clear()

    for s in seats:
        if s.even:
            continue
        h0 = s.hands[0]
        if h0.bj:
            # A blackjack stands. Paid at once unless the dealer may still have blackjack (NZ 8.2).
            if not may_bj and r() < 0.6:
                show(h0)
                add(_settle(h0.name, _odds(h0.wager, pays_num, pays_den, t)))
                h0.settled = True
            complete(h0)
            continue
        if (
            t.surrender
            and not (t.hole_card and may_bj)
            and _wants_surrender(rng, h0.total() if not h0.soft() else 0, up11)
        ):
            show(h0)
            add({"type": "surrender", "hand": h0.name})
            add(
                {
                    "type": "settle",
                    "bet": "main",
                    "hand": h0.name,
                    "result": "surrender",
                    "amount": s.wager - _odds(s.wager, 1, 2, t),
                }
            )
            h0.settled = True
            continue
        order = [h0]
        i = 0
        while i < len(order):
            h = order[i]
            # Bring a split hand to two cards; split (again) while the table allows and the player wants.
            while True:
                if len(h.cards) == 1:
                    if len(s.hands) < t.max_hands and r() < 0.15:
                        c = shoe.draw_value(rng, _VAL[h.cards[0][0]])
                    else:
                        c = draw(rng)
                    h.add(c)
                    add({"type": "deal", "to": h.name, "card": c})
                    if h.split_aces:
                        if c[0] == "A" and len(s.hands) < t.max_hands and t.resplit_aces and r() < 0.9:
                            _split(s, h, order, i, add)
                            continue
                        break
                cards = h.cards
                if (
                    len(cards) == 2
                    and _VAL[cards[0][0]] == _VAL[cards[1][0]]
                    and len(s.hands) < t.max_hands
                    and _wants_split(rng, _VAL[cards[0][0]], up11)
                ):
                    show(h)
                    _split(s, h, order, i, add)
                    continue
                break
            i += 1
            if h.split_aces:
                complete(h)
                continue  # 13:69F-2.11(c)2: one card on each split ace
            total = h.total()
            if total == 21:
                complete(h)
                continue
            if (not s.split or t.das) and _wants_double(rng, total, h.soft(), up11):
                w = h.wager
                if r() < 0.85:
                    amount = w
                else:
                    amount = rng.choice((w // 2 // 100 * 100, w - 100, 100, w // 2))
                    if not 0 < amount <= w:
                        amount = w
                show(h)
                add({"type": "double", "hand": h.name, "amount": amount})
                h.doubled = amount
                c = draw(rng)
                h.add(c)
                face = t.double_face
                if face == "down" or (face == "request" and r() < 0.5):
                    h.down_card = c
                    add({"type": "deal", "to": h.name, "card": c, "face": "down"})
                else:
                    add({"type": "deal", "to": h.name, "card": c})
                if h.total() > 21:
                    h.bust = True
                    if h.down_card is None and bust_now_ok and r() < t.bust_now:
                        add(_settle(h.name, -(w + amount)))
                        h.settled = True
                complete(h)
                continue
            soft = h.soft()
            while _wants_hit(rng, total, soft, up11):
                if record and r() < record:
                    add({"type": "hit", "hand": h.name})
                c = draw(rng)
                h.add(c)
                add({"type": "deal", "to": h.name, "card": c})
                total = h.total()
                soft = h.soft()
            if total > 21:
                h.bust = True
                if bust_now_ok and r() < t.bust_now:
                    show(h)
                    add(_settle(h.name, -h.wager))
                    h.settled = True
                complete(h)
            elif total == 21:
                complete(h)
            elif record and r() < record:
                add({"type": "stand", "hand": h.name})
        stand_late(late_seat)
    stand_late(late_round)

    # The dealer's hand.
    if t.hole_card:
        assert hole is not None
        add({"type": "reveal", "to": "dealer", "card": hole})
        for s in insured:
            add(_ins_settle(s, dealer_bj, t))
    else:
        pending = bool(insured) or any(not h.settled for s in seats for h in s.hands)
        if pending or r() < 0.7:
            second = _dealer_second(rng, shoe, upv)
            dealer.append(second)
            add({"type": "deal", "to": "dealer", "card": second})
            dealer_bj = _natural(up, second)
            # r 9.6: losing insurance collected right after the dealer's second card (r 9.5: winners 2 to 1).
            for s in insured:
                add(_ins_settle(s, dealer_bj, t))
    if len(dealer) >= 2 and not dealer_bj:
        # 13:69F-2.12(c): no dealer draw once no player hand can be affected. A hand whose double card lies face
        # down is undecided as far as the dealer can know (19:47-2.10(c) turns it up only after the dealer
        # has drawn), so the dealer draws for it.
        live = False
        for s in seats:
            for h in s.hands:
                if not (h.settled or h.bj or (h.bust and h.down_card is None)):
                    live = True
                    break
            if live:
                break
        if live or (t.draw_idle and r() < t.draw_idle):
            h17 = t.h17
            total, soft = _dealer_total(dealer)
            while total < 17 or (total == 17 and soft and h17):
                c = draw(rng)
                dealer.append(c)
                add({"type": "deal", "to": "dealer", "card": c})
                total, soft = _dealer_total(dealer)

    # Settlement, in rotation.
    if len(dealer) < 2:
        return ev
    dt, _ = _dealer_total(dealer)
    only_original = nj or not t.all_wagers_on_dbj
    for s in seats:
        if dealer_bj and s.split and only_original:
            # 13:69F-2.11(d): only the original wager is collected; the split wagers are returned.
            first = True
            for h in s.hands:
                if h.down_card is not None:
                    add({"type": "reveal", "to": h.name, "card": h.down_card})
                assert not h.settled
                add(_settle(h.name, -s.wager if first else 0))
                first = False
            continue
        for h in s.hands:
            if h.settled:
                continue
            if h.hidden:
                show(h)
            if h.down_card is not None:
                add({"type": "reveal", "to": h.name, "card": h.down_card})
            stake = h.wager + h.doubled
            if dealer_bj:
                if h.bj:
                    net = 0
                elif h.doubled and only_original:
                    net = -h.wager  # 19:47-2.10(b)
                else:
                    net = -stake
            elif h.bust:
                net = -stake
            elif h.bj:
                net = _odds(h.wager, pays_num, pays_den, t)
            elif dt > 21:
                net = stake
            else:
                pt = h.total()
                net = stake if pt > dt else -stake if pt < dt else 0
            if net == 0 and r() < 0.02:
                add({"type": "settle", "bet": "main", "hand": h.name, "result": "lose", "amount": 0})
            else:
                add(_settle(h.name, net))
    return ev


def _dealer_second(rng: random.Random, shoe: _Shoe, upv: int) -> str:
    """The dealer's second card; now and then (still a card of this shoe) one that completes a blackjack, so
    that dealer blackjacks after doubles and splits are common enough to test."""
    if (upv == 1 or upv == 10) and rng.random() < 0.04:
        return shoe.draw_value(rng, 10 if upv == 1 else 1)
    return shoe.draw(rng)


def _split(s: _Seat, h: _Hand, order: list[_Hand], i: int, add: Callable[[dict[str, Any]], None]) -> None:
    """Split hand ``h`` (play position ``i``): its second card starts a new hand, numbered one more than the
    seat's hands so far and played right after it, for a wager equal to the original (13:69F-2.11(a))."""
    n = len(s.hands) + 1
    new = _Hand(f"{s.n}.{n}", s, s.wager)
    second = h.cards.pop()
    first = h.cards[0]
    h.hard = _VAL[first[0]]
    h.ace = h.hard == 1
    new.add(second)
    aces = h.ace and second[0] == "A"
    h.split_aces = new.split_aces = aces or h.split_aces
    add({"type": "split", "hand": h.name, "amount": s.wager})
    s.hands.append(new)
    s.split = True
    order.insert(i + 1, new)


def _odds(wager: int, num: int, den: int, t: _Table) -> int:
    """Winnings at num to den in whole chips of the table's min_chip, rounded down, or up where the table elects it
    (round-v1.md section 2.2)."""
    whole, rest = divmod(wager * num, den * t.chip)
    return (whole + (1 if t.round_up and rest else 0)) * t.chip


def _ins_settle(s: _Seat, wins: bool, t: _Table) -> dict[str, Any]:
    if wins:
        return {
            "type": "settle",
            "bet": "insurance",
            "seat": s.n,
            "result": "win",
            "amount": _odds(s.insured, 2, 1, t),
        }
    return {"type": "settle", "bet": "insurance", "seat": s.n, "result": "lose", "amount": s.insured}


def _settle_additional(
    seats: list[_Seat], up: str, add: Callable[[dict[str, Any]], None], show: Callable[[_Hand], None]
) -> None:
    """13:69F-2.17(b)-(d): settle each seat's additional wager on its first two cards (and, for the seven, the
    dealer's first card)."""
    for s in seats:
        show(s.hands[0])
        a, b = s.hands[0].cards[:2]
        kind = s.kind
        assert kind is not None
        if kind == "over_13" or kind == "under_13":
            # 13:69F-2.2(b)3ii: an ace counts one; 2.17(c): exactly 13 loses both.
            total = _VAL[a[0]] + _VAL[b[0]]
            wins = total > 13 if kind == "over_13" else total < 13
        elif kind == "same_suit":
            wins = a[1] == b[1]
        else:
            wins = a[0] == "7" or b[0] == "7" or up[0] == "7"
        if wins:
            amount = _ADDITIONAL_WIN[kind]
            add({"type": "settle", "bet": "additional", "seat": s.n, "result": "win", "amount": amount})
        else:
            add(
                {
                    "type": "settle",
                    "bet": "additional",
                    "seat": s.n,
                    "result": "lose",
                    "amount": _ADDITIONAL_AMOUNT,
                }
            )


def _seats(rng: random.Random, t: _Table) -> list[_Seat]:
    boxes = t.boxes
    k = rng.choice((1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7))
    if t.decks == 1:
        k = min(k, 4)
    k = min(k, boxes, 7)
    numbers = sorted(rng.sample(range(1, boxes + 1), k))
    out = []
    kinds = None
    if t.additional is not None:
        kinds = ("over_13", "under_13") if t.additional == "over_under_13" else (t.additional,)
    for n in numbers:
        kind = rng.choice(kinds) if kinds is not None and rng.random() < 0.35 else None
        out.append(_Seat(n, t.wager(rng), kind, t.dotted))
    return out


# ---------------------------------------------------------------------------------------------------------------
# What real tables also record (round-v1.md section 2.3): burns, voided rounds, corrected settlements

_VOID_RATE = 0.01
_CORRECTION_RATE = 0.012
_LATE_BURN_RATE = 0.03
_VOID_REASONS = ("misdeal", "card_exposed", "shoe_error", "equipment", "other")


def _burn(rng: random.Random, shoe: _Shoe, up: float) -> dict[str, Any]:
    """A card burned from the shoe (it counts toward the shoe, and toward no hand); face down unless turned up."""
    b: dict[str, Any] = {"type": "burn", "card": shoe.draw(rng)}
    if rng.random() < up:
        b["face"] = "up"
    return b


def _burns(rng: random.Random, shoe: _Shoe) -> list[dict[str, Any]]:
    """The burn that opens a shoe, before the first round's first card: one card, sometimes a few."""
    n = 1 if rng.random() < 0.7 else rng.randint(2, 5)
    return [_burn(rng, shoe, 0.35 if k == 0 else 0.05) for k in range(n)]


def _as_tables_record(
    rng: random.Random, t: _Table, shoe: _Shoe, seats: list[_Seat], ev: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Now and then, the round as a table system records more than a clean round: declared void part way, or with
    a settlement corrected at the table (legally: the last correction right); and sometimes a card burned once the
    round is over (the dealer's hand complete)."""
    x = rng.random()
    if x < _VOID_RATE:
        ev = _voided(rng, t, seats, ev)
    elif x < _VOID_RATE + _CORRECTION_RATE:
        _corrected(rng, t, ev)
    if rng.random() < _LATE_BURN_RATE:
        ev.append(_burn(rng, shoe, 0.2))
    return ev


def _voided(
    rng: random.Random, t: _Table, seats: list[_Seat], ev: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The round declared void part way (section 2.3): the events up to some point, the ``void``, and a ``void``
    settlement (sometimes written as a push of 0) for every wager still in play: each hand's main wager, insurance,
    the additional wager; sometimes the dealer's hole card turned up. The settlements made before the void are ones
    that do not depend on the dealer's total (busts, surrenders, blackjacks, losing insurance, additional wagers) or
    come once the dealer's hand is complete: this generator settles a hand on the dealer only then."""
    first = next(i for i, e in enumerate(ev) if e["type"] == "deal")
    for _ in range(10):
        p = rng.randint(first + 1, len(ev))
        if ev[p - 1]["type"] == "surrender":
            continue  # (a surrender is settled with it)
        returns = _still_in_play(seats, ev[:p])
        if returns:
            break
    else:
        return ev
    out = ev[:p]
    out.append({"type": "void", "reason": rng.choice(_VOID_REASONS)})
    hole = _hole_down(out)
    show = hole is not None and rng.random() < 0.5
    if show and rng.random() < 0.5:
        out.append({"type": "reveal", "to": "dealer", "card": hole})
        show = False
    push = rng.random() < 0.15
    for bet, key, where in returns:
        out.append(
            {"type": "settle", "bet": bet, key: where, "result": "push" if push else "void", "amount": 0}
        )
    if show:
        out.append({"type": "reveal", "to": "dealer", "card": hole})
    return out


def _still_in_play(seats: list[_Seat], ev: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    """The wagers in play after events ``ev``: (bet, the settlement's key, hand or seat), in seat order."""
    splits: dict[int, int] = {}
    settled: set[str] = set()
    insured: set[int] = set()
    done: set[tuple[str, int]] = set()
    for e in ev:
        kind = e["type"]
        if kind == "split":
            n = int(e["hand"].partition(".")[0])
            splits[n] = splits.get(n, 0) + 1
        elif kind == "even_money":
            done.add(("main", e["seat"]))
        elif kind == "insurance":
            insured.add(e["seat"])
        elif kind == "settle":
            if e["bet"] == "main":
                settled.add(e["hand"])
            else:
                done.add((e["bet"], e["seat"]))
    out: list[tuple[str, str, Any]] = []
    for s in seats:
        if ("main", s.n) not in done:
            out += [
                ("main", "hand", h.name) for h in s.hands[: 1 + splits.get(s.n, 0)] if h.name not in settled
            ]
        if s.n in insured and ("insurance", s.n) not in done:
            out.append(("insurance", "seat", s.n))
        if s.kind is not None and ("additional", s.n) not in done:
            out.append(("additional", "seat", s.n))
    return out


def _hole_down(ev: list[dict[str, Any]]) -> str | None:
    """The dealer's card lying face down (the hole card, not yet turned up), if any."""
    down = [e["card"] for e in ev if e["type"] == "deal" and e["to"] == "dealer" and e.get("face") == "down"]
    if not down or any(e["type"] == "reveal" and e["to"] == "dealer" for e in ev):
        return None
    return str(down[0])


def _corrected(rng: random.Random, t: _Table, ev: list[dict[str, Any]]) -> None:
    """A settlement corrected at the table, legally (section 2.3): restated as it was (a stand off written as a
    loss of 0 rewritten as a push, say), or first corrected to a wrong amount and then back to the right one, the
    last correction naming the settlement or the first correction. Inserted right after the settlement, or at the
    end of the round."""
    cands = [i for i, e in enumerate(ev) if e["type"] == "settle" and e["result"] != "void"]
    if not cands:
        return
    k = rng.choice(cands)
    right = dict(ev[k])
    right.pop("corrects", None)
    if right["amount"] == 0 and rng.random() < 0.5:
        right["result"] = (
            "lose" if right["result"] == "push" else "push"
        )  # (the money decides, not the label)
    at = k + 1 if rng.random() < 0.5 else len(ev)
    if rng.random() < 0.6:
        ev.insert(at, {**right, "corrects": k})
        return
    wrong = dict(right)
    wrong["amount"] = right["amount"] + rng.choice((t.unit, 100, 1))
    if wrong["result"] == "push":
        wrong["result"] = "win"
    ev.insert(at, {**wrong, "corrects": k})
    ev.insert(at + 1, {**right, "corrects": k if rng.random() < 0.5 else at})


def _round(
    rng: random.Random, t: _Table, when: datetime, round_id: str, shoe_no: list[int]
) -> dict[str, Any]:
    for _ in range(100):
        shoe = t.shoe
        if shoe is None or shoe.n < shoe.cut:
            shoe_no[0] += 1
            shoe = t.new_shoe(rng, when, shoe_no[0])
        seats = _seats(rng, t)
        try:
            burns = _burns(rng, shoe) if shoe.fresh else []
            events = _play(rng, t, shoe, seats)
            events[:0] = burns
            events = _as_tables_record(rng, t, shoe, seats, events)
        except _Exhausted:
            t.shoe = None  # shuffle up and deal the round again from a new shoe
            continue
        shoe.fresh = False
        break
    else:  # pragma: no cover - a table that cannot finish a round from a fresh shoe
        raise RuntimeError("could not deal a round")
    if t.card_style:
        ten = t.card_style == "ten"
        for e in events:
            c = e.get("card")
            if c is not None:
                e["card"] = ("10" + c[1] if c[0] == "T" else c) if ten else c.lower()
    if t.stamps:
        ts = when
        for e in events:
            ts += timedelta(seconds=rng.randint(1, 6))
            e["at"] = ts.isoformat(timespec="seconds")
    seat_list: list[dict[str, Any]] = []
    for s in seats:
        if s.kind is None:
            seat_list.append({"seat": s.n, "wager": s.wager})
        else:
            seat_list.append(
                {
                    "seat": s.n,
                    "wager": s.wager,
                    "additional_wager": {"kind": s.kind, "amount": _ADDITIONAL_AMOUNT},
                }
            )
    table: dict[str, Any] = {"id": t.table_id}
    if t.rules is not None:
        table["rules"] = dict(t.rules)
    return {
        "round_id": round_id,
        "jurisdiction": t.jurisdiction,
        "played_at": when.isoformat(timespec="seconds"),
        "table": table,
        "seats": seat_list,
        "events": events,
        "dealer_id": t.dealer_id,
        "shoe_id": shoe.shoe_id,
    }


def earliest_end(jurisdiction: str) -> datetime:
    """The earliest ``end`` that leaves room for a session of the jurisdiction's rounds."""
    return VALIDITY[jurisdiction][0] + _SESSION_SPAN


def _window(jurisdiction: str, end: datetime | None) -> tuple[float, float]:
    """When a session of the jurisdiction's rounds may start (timestamps): within the rules' window, and early
    enough to end before ``end``."""
    lo, hi = VALIDITY[jurisdiction]
    if end is None:
        end = DEFAULT_END
    elif end.tzinfo is None:
        raise ValueError("end must be an aware datetime (with its UTC offset)")
    if end < earliest_end(jurisdiction):
        raise ValueError(
            f"end {end.isoformat()} is too early for {jurisdiction} rounds: give "
            f"{earliest_end(jurisdiction).isoformat()} or later"
        )
    return lo.timestamp(), min(hi, end - _SESSION_SPAN).timestamp()


def _random_time(rng: random.Random, jurisdiction: str, end: datetime | None = None) -> datetime:
    lo, hi = _window(jurisdiction, end)
    ts = rng.uniform(lo, hi)
    return datetime.fromtimestamp(int(ts), tz=_ZONES[jurisdiction])


def _id_prefix(t: _Table) -> str:
    """Round ids read casino-table-date-number: ``BOR-BJ12-20261201-0000123``."""
    return f"{t.table_id}-" if t.table_id.startswith(t.casino) else f"{t.casino}-{t.table_id}-"


def _new_table(rng: random.Random, jurisdiction: str, elections: dict[str, Any] | None) -> _Table:
    if elections is None:
        e = random_elections(rng, jurisdiction)
        omit = rng.random() < 0.12
        if omit and not _defaults_cover(jurisdiction, e):
            e = _within_defaults(e)
    else:
        e, omit = elections, False
    return _Table(rng, jurisdiction, e, omit)


def generate_round(
    rng: random.Random,
    jurisdiction: str,
    elections: dict[str, Any] | None = None,
    round_id: str | None = None,
    played_at: datetime | None = None,
    end: datetime | None = None,
) -> dict[str, Any]:
    """One legal round of the jurisdiction, at a table with the given elections (random legal ones if None),
    dealt from a fresh shoe, played at ``played_at`` (else at random before ``end``, :data:`DEFAULT_END` if None)."""
    if jurisdiction not in JURISDICTIONS:
        raise ValueError(f"unknown jurisdiction {jurisdiction!r}")
    t = _new_table(rng, jurisdiction, elections)
    if played_at is None:
        when = _random_time(rng, jurisdiction, end)
    elif played_at.tzinfo is None:
        when = played_at.replace(tzinfo=_ZONES[jurisdiction])  # the table's local time
    else:
        when = played_at
    if round_id is None:
        round_id = f"{_id_prefix(t)}{when:%Y%m%d}-{rng.getrandbits(40):010X}"
    return _round(rng, t, when, round_id, [rng.randint(1, 40)])


def generate_rounds(
    n: int,
    seed: int,
    jurisdiction: str | None = None,
    elections: dict[str, Any] | None = None,
    end: datetime | None = None,
) -> Iterator[dict[str, Any]]:
    """``n`` legal rounds, the same for the same arguments. Rounds come in table sessions (one table, one dealer,
    its shoes dealt to the cutting card, a round every minute or two); ``jurisdiction`` None mixes both.
    ``elections`` (which need a ``jurisdiction``) are those of every table; None draws each table's. Every round
    is played (and its events stamped) before ``end``: None is :data:`DEFAULT_END`, a fixed instant in the past."""
    if jurisdiction is not None and jurisdiction not in JURISDICTIONS:
        raise ValueError(f"unknown jurisdiction {jurisdiction!r}")
    if elections is not None and jurisdiction is None:
        raise ValueError("elections are a jurisdiction's: pass the jurisdiction with them")
    rng = random.Random(seed)
    made = 0
    while made < n:
        j = jurisdiction or (JURISDICTIONS[0] if rng.random() < 0.5 else JURISDICTIONS[1])
        t = _new_table(rng, j, elections)
        when = _random_time(rng, j, end)
        tz = _ZONES[j]
        ts = when.timestamp()
        shoe_no = [0]
        session = rng.randint(10, 80)
        prefix = _id_prefix(t)
        for _ in range(min(session, n - made)):
            when = datetime.fromtimestamp(ts, tz=tz)
            yield _round(rng, t, when, f"{prefix}{when:%Y%m%d}-{made:07d}", shoe_no)
            made += 1
            ts += rng.randint(35, 150)


def generate_floor(
    n: int,
    seed: int,
    casinos: dict[str, str],
    tables: int,
    dealers: int,
    span: timedelta,
    end: datetime,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """``n`` legal rounds of a group of casinos, each with its casino's code: ``casinos`` maps a casino code to its
    jurisdiction. The floor is fixed, as a regulator sees it: ``tables`` tables (shared out among the casinos, each
    keeping its elections and numbering its shoes through the whole span) and ``dealers`` dealers (likewise), so
    that searches by table, dealer and shoe find a realistic number of rounds. Table sessions start at random in
    the ``span`` before ``end``; a jurisdiction whose rules' window ends earlier (NZ: 1998) gets the ``span``
    before the end of its window instead, so that its rounds stay auditable. The same arguments give the same
    rounds."""
    for code, j in casinos.items():
        if j not in JURISDICTIONS:
            raise ValueError(f"casino {code}: unknown jurisdiction {j!r}")
    if not casinos or tables < len(casinos) or dealers < len(casinos):
        raise ValueError("at least one table and one dealer a casino")
    rng = random.Random(seed)
    codes = list(casinos)
    floor: list[tuple[str, _Table]] = []
    for k in range(tables):
        code = codes[k % len(codes)]
        t = _new_table(rng, casinos[code], None)
        t.casino, t.table_id = code, f"{code}-BJ{k // len(codes) + 1:03d}"
        floor.append((code, t))
    staff = {
        code: [f"{code}-{i + 1:04d}" for i in range(k, dealers, len(codes))] for k, code in enumerate(codes)
    }
    windows = {j: _floor_window(j, span, end) for j in set(casinos.values())}
    shoes = {t.table_id: [0] for _, t in floor}
    made = 0
    while made < n:
        code, t = rng.choice(floor)
        t.shoe, t.dealer_id = None, rng.choice(staff[code])
        ts = rng.uniform(*windows[t.jurisdiction])
        for _ in range(min(rng.randint(10, 80), n - made)):
            when = datetime.fromtimestamp(int(ts), tz=_ZONES[t.jurisdiction])
            yield code, _round(rng, t, when, f"{t.table_id}-{when:%Y%m%d}-{made:08d}", shoes[t.table_id])
            made += 1
            ts += rng.randint(35, 150)


def _floor_window(jurisdiction: str, span: timedelta, end: datetime) -> tuple[float, float]:
    """When a session may start: in the ``span`` before ``end``, or before the end of the rules' window."""
    lo, hi = _window(jurisdiction, max(end, earliest_end(jurisdiction) + span))
    return max(lo, hi - span.total_seconds()), hi
