"""Mutations of legal rounds: each injects one dealer, payout, procedure or record-keeping error, and says exactly
which findings the audit must report for it and what money it owes.

Public surface::

    MUTATIONS                    every named mutation (a Mutation: name, what it does, apply(round, rng))
    mutate(round, rng)           -> Fault | None: one applicable mutation, picked at random
    combine(first, second,
            round, rng)          -> Fault | None: two payout faults in one round, on bets of different seats
    Fault                        (round, expected, owes): the mutated round, its findings, the money it owes
    Want                         one finding, whole: rule, event, hand, amount_delta, corrected_by, corrected_actual

A mutation names check *roles* (see :mod:`app.domain.checks`), never citations: the rule a finding cites is looked
up in the role binding of the ruleset in force for the round, so the same mutation serves both jurisdictions. A
mutation whose role the jurisdiction does not bind is not applicable there.

Mutations read the round with their own small replay (below), not the engine's: a test of the engine should not
borrow the engine's reading of the round. The money owed is worked out from the cards and ``round-v1.md`` section
2.2 (odds and surrender halves in whole chips of ``min_chip``, rounded down unless the table elects up; split hands
after a dealer blackjack bet by bet; a dealer's forbidden draw judged against the hand before it; a corrected
settlement at its event with what is still owed). Mutations choose source rounds where the injected error is the
only one (e.g. re-settling every hand when a dealer card is added), so that the expected findings are exact.

Where the spec was read differently from the engine, the property tests hold a minimal round for each
(``test_engine_reads_*``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

from app.jurisdictions import ruleset_for

__all__ = [
    "MUTATIONS",
    "Expected",
    "Fault",
    "Mutation",
    "Want",
    "COMBINABLE",
    "PAYOUT_FAULTS",
    "combine",
    "mutate",
]

Doc = dict[str, Any]
T = TypeVar("T")


class Want(NamedTuple):
    """One finding the mutated round must produce, stated whole (before binding, ``rule`` holds the check role)."""

    rule: str
    event: int | None
    """Its 0-based event index (None for a finding of an absence or of an election)."""
    hand: str | None
    """The finding's ``hand``: a hand name (``"3"``, ``"3.2"``), a seat for a seat's bet, ``"dealer"``, or None."""
    amount: int | None = None
    """Its ``amount_delta`` (+ owed to the player), None where the finding carries none."""
    corrected_by: int | None = None
    corrected_actual: int | None = None


Expected = list[Want]
"""Every finding the mutated round must produce, exactly."""


class Fault(NamedTuple):
    round: Doc
    """The mutated round."""
    expected: Expected
    owes: int | None
    """What the injected error owes the player (+) or the player owes (-), worked out from the money the mutation
    moved on the bets it touched (the source round is legal, so its settlements are what was due); 0 for an error
    that moves no money wrongly, None where the spec leaves the amount open (a winning additional wager's odds, which
    are on the table's layout; a New Zealand dealer blackjack after a double or a split, where either reading of
    the unheld rule is accepted)."""


_VAL = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "A23456789TJQK"}
_TAG = "_k"  # an event's index in the round a mutation started from (dropped before the round is handed out)


def _card(c: str) -> str:
    c = c.upper()
    return "T" + c[2] if c.startswith("10") else c


def _total(cards: list[str]) -> tuple[int, bool]:
    hard = sum(_VAL[c[0]] for c in cards)
    if any(c[0] == "A" for c in cards) and hard <= 11:
        return hard + 10, True
    return hard, False


def _natural(cards: list[str]) -> bool:
    return len(cards) == 2 and sorted(_VAL[c[0]] for c in cards) == [1, 10]


def _hand_key(name: str) -> tuple[int, int]:
    seat, _, n = name.partition(".")
    return int(seat), int(n) if n else 1


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


# ---------------------------------------------------------------------------------------------------------------
# A small, independent reading of a round


@dataclass
class _Hand:
    seat: int
    num: int
    wager: int
    cards: list[tuple[int, str, str]] = field(default_factory=list)  # (event, card, face)
    created_by: int | None = None
    splits: list[int] = field(default_factory=list)
    doubles: list[tuple[int, int]] = field(default_factory=list)
    surrendered: int | None = None
    even_money: tuple[int, int] | None = None
    settles: list[int] = field(default_factory=list)  # (a correction is not one: see _Round.corrections)
    reveals: list[tuple[int, str]] = field(default_factory=list)  # (event, card)
    stands: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.seat) if self.num == 1 else f"{self.seat}.{self.num}"

    def double_card(self) -> tuple[int, str, str] | None:
        """The card dealt after the hand's double: (event, card, face)."""
        if not self.doubles:
            return None
        return next((c for c in self.cards if c[0] > self.doubles[0][0]), None)

    def double_reveal(self) -> int | None:
        """The event that turned up the hand's face-down double card."""
        card = self.double_card()
        if card is None or card[2] != "down":
            return None
        return next((i for i, c in self.reveals if i > card[0] and c == card[1]), None)

    @property
    def values(self) -> list[str]:
        return [c for _, c, _ in self.cards]

    def values_before(self, i: int) -> list[str]:
        return [c for e, c, _ in self.cards if e < i]

    @property
    def stake(self) -> int:
        return self.wager + sum(a for _, a in self.doubles)

    @property
    def doubled(self) -> int:
        return sum(a for _, a in self.doubles)


class _Round:
    """What the mutations need to know about a round: hands and their cards, the dealer's cards, wagers, where
    each was settled (and corrected), burns and a void."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.events: list[Doc] = doc["events"]
        self.jurisdiction: str = doc["jurisdiction"]
        self.ruleset = ruleset_for(self.jurisdiction, datetime.fromisoformat(doc["played_at"].upper()))
        rules = doc["table"].get("rules")
        self.has_rules = rules is not None
        self.elections: dict[str, Any] = {k: v for k, v in self.ruleset.defaults.items() if v is not None}
        self.elections.update(rules or {})
        self.decks = int(self.elections.get("decks") or 8)
        chip = self.elections.get("min_chip")
        self.chip = chip if isinstance(chip, int) and chip > 0 else 1
        self.round_up = self.elections.get("payout_rounding") == "up"
        self.six_five = self.elections.get("blackjack_pays") == "6:5" and self.ruleset.params.get(
            "six_five_permitted", True
        )
        self.original_only = self.ruleset.params.get("dealer_blackjack_collects") == "original_only"
        self.wager = {s["seat"]: s["wager"] for s in doc["seats"]}
        self.additional = {
            s["seat"]: (s["additional_wager"]["kind"], s["additional_wager"]["amount"])
            for s in doc["seats"]
            if "additional_wager" in s
        }
        self.hands: dict[tuple[int, int], _Hand] = {}
        self.seat_hands: dict[int, list[_Hand]] = {}
        for seat, w in self.wager.items():
            h = _Hand(seat, 1, w)
            self.hands[(seat, 1)] = h
            self.seat_hands[seat] = [h]
        self.dealer: list[tuple[int, str, str]] = []
        self.dealer_reveals: list[int] = []
        self.insurance: dict[int, list[tuple[int, int]]] = {}
        self.ins_settles: dict[int, list[int]] = {}
        self.add_settles: dict[int, list[int]] = {}
        self.counts: dict[str, int] = {}
        self.player_deals: list[tuple[int, _Hand]] = []
        self.peeks: list[int] = []
        self.dbj_peek: int | None = None  # the peek that showed the dealer's blackjack
        self.burns: list[int] = []
        self.void_at: int | None = None
        self.corrections: dict[int, list[int]] = {}  # a corrected settlement -> its corrections, in order
        self.correction_of: dict[int, int] = {}  # a correction -> the settlement it (finally) corrects
        for i, e in enumerate(self.events):
            kind = e["type"]
            if kind == "deal":
                c = _card(e["card"])
                self.counts[c] = self.counts.get(c, 0) + 1
                face = e.get("face", "up")
                if e["to"] == "dealer":
                    self.dealer.append((i, c, face))
                else:
                    h = self.hands[_hand_key(e["to"])]
                    h.cards.append((i, c, face))
                    self.player_deals.append((i, h))
            elif kind == "burn":
                c = _card(e["card"])
                self.counts[c] = self.counts.get(c, 0) + 1
                self.burns.append(i)
            elif kind == "void":
                if self.void_at is None:
                    self.void_at = i
            elif kind == "split":
                h = self.hands[_hand_key(e["hand"])]
                hs = self.seat_hands[h.seat]
                new = _Hand(h.seat, len(hs) + 1, e["amount"], created_by=i)
                new.cards.append(h.cards.pop(1))
                h.splits.append(i)
                hs.append(new)
                self.hands[(h.seat, new.num)] = new
            elif kind == "double":
                self.hands[_hand_key(e["hand"])].doubles.append((i, e["amount"]))
            elif kind == "surrender":
                self.hands[_hand_key(e["hand"])].surrendered = i
            elif kind == "even_money":
                self.hands[(e["seat"], 1)].even_money = (i, e["amount"])
            elif kind == "insurance":
                self.insurance.setdefault(e["seat"], []).append((i, e["amount"]))
            elif kind == "reveal":
                if e["to"] == "dealer":
                    self.dealer_reveals.append(i)
                else:
                    self.hands[_hand_key(e["to"])].reveals.append((i, _card(e["card"])))
            elif kind == "peek":
                self.peeks.append(i)
                if e["dealer_blackjack"] and self.dbj_peek is None:
                    self.dbj_peek = i
            elif kind == "stand":
                self.hands[_hand_key(e["hand"])].stands.append(i)
            elif kind == "settle":
                k = e.get("corrects")
                if k is not None:
                    first = self.correction_of.get(k, k)
                    self.corrections.setdefault(first, []).append(i)
                    self.correction_of[i] = first
                elif e["bet"] == "main":
                    self.hands[_hand_key(e["hand"])].settles.append(i)
                elif e["bet"] == "insurance":
                    self.ins_settles.setdefault(e["seat"], []).append(i)
                else:
                    self.add_settles.setdefault(e["seat"], []).append(i)

    # -- money (round-v1.md section 2.2)

    def odds(self, wager: int, num: int, den: int) -> int:
        """Winnings at num to den in whole chips of the table's min_chip: rounded down, or up where elected."""
        whole, rest = divmod(wager * num, den * self.chip)
        return (whole + (1 if self.round_up and rest else 0)) * self.chip

    def bj_pays(self, wager: int) -> int:
        return self.odds(wager, 6, 5) if self.six_five else self.odds(wager, 3, 2)

    def surrender_net(self, wager: int) -> int:
        """A surrender's net: the wager less the half returned (that half in whole chips)."""
        return -(wager - self.odds(wager, 1, 2))

    def net(self, i: int) -> int:
        e = self.events[i]
        if e["result"] == "win":
            return int(e["amount"])
        if e["result"] in ("push", "void"):
            return 0
        return -int(e["amount"])

    # -- facts

    @property
    def dealer_cards(self) -> list[str]:
        return [c for _, c, _ in self.dealer]

    @property
    def up(self) -> str | None:
        """The dealer's up card: the face-up one of its first two cards (the hole card may be dealt first)."""
        d = self.dealer
        if not d:
            return None
        return d[1][1] if len(d) > 1 and d[0][2] == "down" and d[1][2] != "down" else d[0][1]

    @property
    def hole(self) -> str | None:
        """The dealer's other initial card: the "second card" of the rules, whichever was dealt first."""
        d = self.dealer
        if len(d) < 2:
            return None
        return d[0][1] if d[1][1] == self.up and d[0][2] == "down" else d[1][1]

    @property
    def up_ace_ten(self) -> bool:
        up = self.up
        return up is not None and _VAL[up[0]] in (1, 10)

    @property
    def dealer_bj(self) -> bool:
        return _natural(self.dealer_cards[:2])

    def split_seat(self, seat: int) -> bool:
        return len(self.seat_hands[seat]) > 1

    def is_bj(self, h: _Hand) -> bool:
        return not self.split_seat(h.seat) and _natural(h.values)

    def all_hands(self) -> list[_Hand]:
        return [h for hs in self.seat_hands.values() for h in hs]

    def corrected(self, i: int) -> bool:
        """Whether settlement ``i`` was corrected, or is a correction."""
        return i in self.corrections or i in self.correction_of

    def one_settle(self, h: _Hand) -> int | None:
        """The hand's only settlement, when it has one and the table did not correct it."""
        if len(h.settles) != 1 or self.corrected(h.settles[0]):
            return None
        return h.settles[0]

    def seat_settle(self, settles: dict[int, list[int]], seat: int) -> int | None:
        """A seat's only insurance or additional settlement (``settles``), uncorrected."""
        v = settles.get(seat, [])
        return v[0] if len(v) == 1 and not self.corrected(v[0]) else None

    def initial_end(self) -> int | None:
        """The event that completes the initial deal: every seat's second card with the dealer's first card dealt,
        or, in a hole-card game, the dealer's face-down second card when it directly follows."""
        need = {(s, 1) for s in self.wager}
        got: dict[tuple[int, int], int] = {}
        dealer = 0
        for i, e in enumerate(self.events):
            if e["type"] == "burn":
                continue
            if e["type"] != "deal":
                return None
            if e["to"] == "dealer":
                dealer += 1
            else:
                k = _hand_key(e["to"])
                got[k] = got.get(k, 0) + 1
            if dealer >= 1 and all(got.get(k, 0) >= 2 for k in need):
                if dealer == 1:
                    # A hole card still to come belongs to the initial deal, even after losing additional wagers
                    # were collected (13:69F-2.17(d)) or the players turned up their cards.
                    for j in range(i + 1, len(self.events)):
                        nxt = self.events[j]
                        if nxt["type"] == "reveal" or nxt["type"] == "settle" and nxt["bet"] == "additional":
                            continue
                        if nxt["type"] == "deal" and nxt["to"] == "dealer" and self.hole_card(nxt):
                            return j
                        break
                return i
        return None

    def first_deal(self) -> int | None:
        return next((i for i, e in enumerate(self.events) if e["type"] == "deal"), None)

    def hole_card(self, deal: Doc) -> bool:
        """Whether the dealer's second card ``deal`` is a hole card (part of the initial deal)."""
        second = self.elections.get("dealer_second_card")
        if second is not None:
            return bool(second == "initial_deal")
        return deal.get("face") == "down" or (bool(self.dealer) and self.dealer[0][2] == "down")

    def draw_regime(self) -> tuple[str, bool | None]:
        """The role the jurisdiction binds for dealer drawing at this table, and whether its dealer hits soft 17
        (None: the option is not known)."""
        e = self.elections
        roles = self.ruleset.roles
        if e.get("blackjack_pays") == "6:5" and "draw_6to5" in roles:
            return "draw_6to5", True
        if e.get("dealt_from") == "hand" and e.get("dealer_soft_17") == "hit" and "draw_hand_dealt" in roles:
            return "draw_hand_dealt", True
        if e.get("dealer_soft_17") == "hit":
            return "draw_h17", True
        if e.get("dealer_soft_17") == "stand":
            return "draw_s17", False
        return "draw_unknown", None

    def outcome(self, h: _Hand, dealer: list[str]) -> int:
        """The net of a hand that is not surrendered, not paid even money, against a dealer without blackjack."""
        stake = h.stake
        pt, _ = _total(h.values)
        if pt > 21:
            return -stake
        if self.is_bj(h):
            return self.bj_pays(h.wager)
        dt, _ = _total(dealer)
        if dt > 21 or pt > dt:
            return stake
        return -stake if pt < dt else 0

    def live(self, h: _Hand) -> bool:
        return (
            h.surrendered is None and h.even_money is None and _total(h.values)[0] <= 21 and not self.is_bj(h)
        )


def _roles_vs(pt: int, dt: int) -> tuple[str, str]:
    """The settlement roles of a live hand of ``pt`` (no blackjack) against a dealer of ``dt`` without blackjack:
    (wrong way, wrong amount)."""
    if pt > 21:
        return "bust_loses", "lose_amount"
    if dt > 21:
        return "dealer_bust", "win_odds"
    if pt > dt:
        return "higher_total", "win_odds"
    if pt < dt:
        return "lower_total", "lose_amount"
    return "equal_totals", "equal_totals"


def _role(right: int, paid: int, roles: tuple[str, str]) -> str:
    """Which of a settlement's two roles a wrong net reports under: the way it went, or the amount."""
    return roles[0] if _sign(paid) != _sign(right) else roles[1]


def _lost_to_dbj(pt: int) -> str:
    """The outcome role of a hand (no blackjack) that loses to the dealer's blackjack."""
    return "bust_loses" if pt > 21 else "dealer_bj_beats_21" if pt == 21 else "lower_total"


def _clone(doc: Doc) -> Doc:
    out = dict(doc)
    table = dict(doc["table"])
    if "rules" in table:
        table["rules"] = dict(table["rules"])
    out["table"] = table
    out["seats"] = [dict(s) for s in doc["seats"]]
    out["events"] = [dict(e) for e in doc["events"]]
    return out


def _settle_event(bet: str, where: str | int, net: int, old: Doc | None = None) -> Doc:
    """A settlement of ``net`` on a bet (``where``: the hand of a main bet, the seat of another), keeping the
    optional fields and the tag of the event ``old`` it replaces."""
    if net > 0:
        result, amount = "win", net
    elif net < 0:
        result, amount = (
            ("surrender" if old is not None and old.get("result") == "surrender" else "lose"),
            -net,
        )
    else:
        result, amount = "push", 0
    ev: Doc = {"type": "settle", "bet": bet, ("hand" if bet == "main" else "seat"): where}
    ev["result"] = result
    ev["amount"] = amount
    if old is not None:
        for k in ("at", "note", _TAG):
            if k in old:
                ev[k] = old[k]
    return ev


def _settle_main(hand: str, net: int) -> Doc:
    return _settle_event("main", hand, net)


def _resettle(new: Doc, a: _Round, i: int, net: int) -> None:
    old = new["events"][i]
    if old["result"] == "lose" and old["amount"] == 0 and net == 0:
        return
    new["events"][i] = _settle_event(
        old["bet"], old["hand"] if old["bet"] == "main" else old["seat"], net, old
    )


def _move(events: list[Doc], src: int, dst: int) -> int:
    """Move event ``src`` so that it lands at index ``dst`` of the list without it; returns its new index."""
    ev = events.pop(src)
    events.insert(dst, ev)
    return dst


def _pick(rng: random.Random, items: list[T]) -> T | None:
    return items[int(rng.random() * len(items))] if items else None


def _spare_card(a: _Round, rng: random.Random, most: int = 11) -> str | None:
    """A card the shoe still holds (not dealt or burned as often as the decks hold it), worth at most ``most``
    points (an ace counted one)."""
    cards = [
        r + s for r in "A23456789TJQK" for s in "CDHS" if _VAL[r] <= most and a.counts.get(r + s, 0) < a.decks
    ]
    return _pick(rng, cards)


def _bet_of(e: Doc) -> str:
    """The finding's ``hand`` for a settlement's bet: the hand of a main bet, the seat of another."""
    return _norm(e["hand"]) if e["bet"] == "main" else str(e["seat"])


def _norm(name: str) -> str:
    seat, num = _hand_key(name)
    return str(seat) if num == 1 else f"{seat}.{num}"


Out = tuple[Doc, Expected, int | None]
"""What a mutation function returns: the mutated round, its findings by role, and what it owes."""


# ---------------------------------------------------------------------------------------------------------------
# Split hands after a dealer blackjack, New Jersey (round-v1.md section 2.2)


def _split_dbj(a: _Round, seat: int, nets: dict[int, int]) -> tuple[Expected, int]:
    """13:69F-2.11(d) and 19:47-2.10(b) bet by bet: the split hands' settlements (``nets``, event -> net, the hands
    settled) read in event order, with the running total collected of the hands' stakes. A settlement that takes it
    past the original wager: 2.11(d) for the excess; any of a double collected: 2.10(b) for it; a hand paid as a
    win: the settlement key, owing back what was still collectable from its stake. Returns the findings and the
    running total (the caller judges a shortfall)."""
    w = a.wager[seat]
    order = sorted(
        ((i, h) for h in a.seat_hands[seat] for i in h.settles[:1] if i in nets), key=lambda x: x[0]
    )
    running = 0
    out: Expected = []
    for i, h in order:
        net = nets[i]
        collectable = max(0, w - running)
        if net > 0:
            want = -min(h.wager, collectable)
            out.append(Want(_lost_to_dbj(_total(h.values)[0]), i, h.name, want - net))
            running -= want
            continue
        taken = -net
        double = min(max(0, taken - h.wager), h.doubled)
        if double:
            out.append(Want("dealer_bj_after_double", i, h.name, double))
        stake = taken - double
        if stake > collectable:
            out.append(Want("dealer_bj_after_split", i, h.name, stake - collectable))
        running += stake
    return out, running


def _split_dbj_all(a: _Round, seat: int, nets: dict[int, int]) -> Expected:
    """Every hand of the seat settled: the bet-by-bet findings, and a shortfall at the last settlement."""
    out, running = _split_dbj(a, seat, nets)
    w = a.wager[seat]
    if running < w:
        last = max(nets)
        h = next(h for h in a.seat_hands[seat] if h.settles[:1] == [last])
        out.append(Want(_lost_to_dbj(_total(h.values)[0]), last, h.name, running - w))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Payout errors. Each returns the mutated round, its findings by role and what it owes, or None where it does not
# apply to the round.


def _win_paid_wrong(a: _Round, rng: random.Random) -> Out | None:
    """A winning hand (not a blackjack) is paid the wrong amount."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := a.one_settle(h)) is not None
        and a.events[i]["result"] == "win"
        and not a.is_bj(h)
        and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    amount = a.events[i]["amount"]
    wrong = rng.choice((amount + 100, amount * 2, amount // 2, amount - 1, amount + 1))
    if wrong <= 0 or wrong == amount:
        wrong = amount + 100
    new = _clone(a.doc)
    new["events"][i]["amount"] = wrong
    right = h.stake  # even money on the hand's wagers
    return new, [Want("win_odds", i, h.name, right - wrong)], amount - wrong


def _blackjack_paid_even(a: _Round, rng: random.Random) -> Out | None:
    """A winning blackjack is paid one to one (where its odds, in whole chips, are more)."""
    cands = []
    for h in a.all_hands():
        i = a.one_settle(h)
        if i is None or not a.is_bj(h) or a.events[i]["result"] != "win" or h.even_money:
            continue
        if a.bj_pays(h.wager) != h.wager:
            cands.append((i, h))
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i]["amount"] = h.wager
    # How much a blackjack won is the odds' key (NZ 8.2 names them against an ace or a ten up).
    role = "bj_vs_dealer_ace_ten" if a.up_ace_ten else "bj_odds"
    return new, [Want(role, i, h.name, a.bj_pays(h.wager) - h.wager)], a.net(i) - h.wager


def _losing_hand_paid(a: _Round, rng: random.Random) -> Out | None:
    """A losing hand is paid instead of collected."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := a.one_settle(h)) is not None
        and a.events[i]["result"] == "lose"
        and a.events[i]["amount"] > 0
        and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    paid = a.events[i]["amount"]
    new = _clone(a.doc)
    new["events"][i]["result"] = "win"
    owes = -2 * paid
    pt, _ = _total(h.values)
    if a.dealer_bj and a.split_seat(h.seat):
        hs = a.seat_hands[h.seat]
        if any(a.one_settle(x) is None for x in hs):
            return None
        nets = {x.settles[0]: a.net(x.settles[0]) for x in hs}
        nets[i] = paid
        if a.original_only:
            return new, _split_dbj_all(a, h.seat, nets), owes
        # (NZ: the seat judged as a whole, at its last settlement; either reading of the unheld rule accepted)
        total = sum(nets.values())
        accepted = (-a.wager[h.seat], -sum(x.stake for x in hs))
        if total in accepted:
            return None
        want = min(accepted, key=lambda n: abs(n - total))
        return new, [Want("dealer_bj_after_split", max(nets), str(h.seat), want - total)], None
    if a.dealer_bj and h.doubles:
        if a.original_only:
            return new, [Want("dealer_bj_after_double", i, h.name, -h.wager - paid)], owes
        want = min((-h.stake, -h.wager), key=lambda n: abs(n - paid))
        return new, [Want("dealer_bj_after_double", i, h.name, want - paid)], None
    role = _lost_to_dbj(pt) if a.dealer_bj else _roles_vs(pt, _total(a.dealer_cards)[0])[0]
    return new, [Want(role, i, h.name, -2 * paid)], owes


def _losing_hand_collected_wrong(a: _Round, rng: random.Random) -> Out | None:
    """A losing hand (against a dealer without blackjack) is collected for the wrong amount."""
    if a.dealer_bj:
        return None
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := a.one_settle(h)) is not None
        and a.events[i]["result"] == "lose"
        and a.events[i]["amount"] > 1
        and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    amount = a.events[i]["amount"]
    wrong = rng.choice((amount // 2, amount + 100, amount * 2))
    new = _clone(a.doc)
    new["events"][i]["amount"] = wrong
    return new, [Want("lose_amount", i, h.name, wrong - h.stake)], wrong - amount


def _winning_hand_collected(a: _Round, rng: random.Random) -> Out | None:
    """A winning hand is collected instead of paid."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := a.one_settle(h)) is not None and a.events[i]["result"] == "win" and a.events[i]["amount"] > 0
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i]["result"] = "lose"
    amount = a.events[i]["amount"]
    dt, _ = _total(a.dealer_cards)
    # Whether a hand won is the totals' key, whatever the dealer's up card (round-v1.md section 2.1).
    if a.is_bj(h):
        role = "bj_beats_21" if dt == 21 else "dealer_bust" if dt > 21 else "higher_total"
        right = a.bj_pays(h.wager)
    else:
        role = "dealer_bust" if dt > 21 else "higher_total"
        right = h.stake
    return new, [Want(role, i, h.name, right + amount)], a.net(i) + amount


def _push_paid(a: _Round, rng: random.Random) -> Out | None:
    """A stand off (equal totals) is paid as a win."""
    if a.dealer_bj:
        return None
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := a.one_settle(h)) is not None and a.net(i) == 0 and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i] = _settle_event("main", a.events[i]["hand"], h.stake, a.events[i])
    return new, [Want("equal_totals", i, h.name, -h.stake)], -h.stake


def _winning_insurance_paid_wrong(a: _Round, rng: random.Random) -> Out | None:
    """Winning insurance is paid one to one."""
    cands = [
        (s, j)
        for s, ins in a.insurance.items()
        if len(ins) == 1
        and (j := a.seat_settle(a.ins_settles, s)) is not None
        and a.events[j]["result"] == "win"
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    s, j = got
    insured = a.insurance[s][0][1]
    right = a.odds(insured, 2, 1)
    if right == insured:
        return None
    new = _clone(a.doc)
    new["events"][j]["amount"] = insured
    return new, [Want("insurance_odds", j, str(s), right - insured)], a.net(j) - insured


def _initial_cards(a: _Round, seat: int) -> list[str]:
    """The seat's first two cards (those its additional wager is decided on)."""
    return [
        e["card"]
        for e in a.events
        if e["type"] == "deal" and e["to"] != "dealer" and _hand_key(e["to"])[0] == seat
    ][:2]


def _losing_additional_paid(a: _Round, rng: random.Random) -> Out | None:
    """A losing additional wager (NJ 13:69F-2.17) is paid instead of collected."""
    cands = [
        (s, j)
        for s in a.additional
        if (j := a.seat_settle(a.add_settles, s)) is not None and a.events[j]["result"] == "lose"
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    s, j = got
    kind, stake = a.additional[s]
    own = [_card(c) for c in _initial_cards(a, s)]
    paid = a.events[j]["amount"]
    new = _clone(a.doc)
    new["events"][j]["result"] = "win"
    thirteen = kind in ("over_13", "under_13") and sum(_VAL[c[0]] for c in own) == 13  # (an ace counts one)
    return (
        new,
        [Want("additional_13" if thirteen else "additional_outcome", j, str(s), -stake - paid)],
        -2 * paid,
    )


def _settlement_dropped(a: _Round, rng: random.Random) -> Out | None:
    """A wager (main, insurance or additional) is never settled."""
    cands = [i for h in a.all_hands() if (i := a.one_settle(h)) is not None]
    cands += [i for s in a.ins_settles if (i := a.seat_settle(a.ins_settles, s)) is not None]
    cands += [i for s in a.add_settles if (i := a.seat_settle(a.add_settles, s)) is not None]
    i = _pick(rng, cands)
    if i is None:
        return None
    if len(a.dealer) < 2 and a.events[i]["bet"] == "main":
        # (what a hand is due without the dealer's second card: see
        # test_engine_reads_a_busted_hand_never_settled_as_owing_its_stake)
        return None
    new = _clone(a.doc)
    del new["events"][i]
    due, owes = _owed_if_missing(a, i)
    return new, [Want("missing_settlement", None, _bet_of(a.events[i]), due or None)], owes


def _owed_if_missing(a: _Round, i: int) -> tuple[int | None, int | None]:
    """What a settlement left out of the record was due, from the cards (None where the record cannot tell), and
    what leaving it out owes (None where the spec leaves it open)."""
    e = a.events[i]
    if e["bet"] == "insurance":
        hole = a.hole
        insured = a.insurance[e["seat"]][0][1]
        due = a.odds(insured, 2, 1) if hole is not None and _VAL[hole[0]] == 10 else -insured
        return due, a.net(i)
    if e["bet"] == "additional":
        # a winner's odds are on the table's layout, which we do not hold
        return (a.net(i), a.net(i)) if a.net(i) < 0 else (None, None)
    h = a.hands[_hand_key(e["hand"])]
    if a.dealer_bj and a.split_seat(h.seat):
        others = {j: a.net(j) for x in a.seat_hands[h.seat] if x is not h for j in x.settles[:1]}
        if a.original_only:
            # Bet by bet: what was still collectable of the original wager, up to this hand's stake.
            _, running = _split_dbj(a, h.seat, others)
            return -min(h.wager, max(0, a.wager[h.seat] - running)), a.net(i)
        # (NZ, either reading: the least it could owe)
        return min(0, max(-h.stake, -a.wager[h.seat] - sum(others.values()))), None
    if a.dealer_bj and h.doubles and not a.is_bj(h):
        return (-h.wager, a.net(i)) if a.original_only else (-h.stake, None)
    if h.surrendered is not None:
        return a.surrender_net(h.wager), a.net(i)
    if a.is_bj(h):
        return (0 if a.dealer_bj else a.bj_pays(h.wager)), a.net(i)
    if a.dealer_bj:
        return -h.stake, a.net(i)
    return a.outcome(h, a.dealer_cards), a.net(i)


def _settled_twice(a: _Round, rng: random.Random) -> Out | None:
    """A hand's wager, an insurance or an additional wager is settled a second time."""
    cands = [i for h in a.all_hands() if (i := a.one_settle(h)) is not None]
    cands += [i for s in a.ins_settles if (i := a.seat_settle(a.ins_settles, s)) is not None]
    cands += [i for s in a.add_settles if (i := a.seat_settle(a.add_settles, s)) is not None]
    i = _pick(rng, cands)
    if i is None:
        return None
    new = _clone(a.doc)
    again = dict(a.events[i])
    again.pop(_TAG, None)
    new["events"].insert(i + 1, again)
    net = a.net(i)
    return new, [Want("settled_twice", i + 1, _bet_of(a.events[i]), -net or None)], -net


def _settled_after_even_money(a: _Round, rng: random.Random) -> Out | None:
    """A hand paid even money is settled again."""
    cands = [h for h in a.all_hands() if h.even_money is not None and not h.settles]
    h = _pick(rng, cands)
    if h is None:
        return None
    new = _clone(a.doc)
    at = len(new["events"])
    paid = h.wager * 3 // 2
    new["events"].append(_settle_main(str(h.seat), paid))
    return new, [Want("settled_twice", at, h.name, -paid)], -paid


def _even_money_wrong(a: _Round, rng: random.Random) -> Out | None:
    """Even money is paid at other than one to one."""
    cands = [h for h in a.all_hands() if h.even_money is not None]
    h = _pick(rng, cands)
    if h is None or h.even_money is None:
        return None
    i, amount = h.even_money
    wrong = rng.choice((h.wager * 3 // 2, h.wager // 2, h.wager * 6 // 5, h.wager + 1))
    if wrong == amount:
        return None
    new = _clone(a.doc)
    new["events"][i]["amount"] = wrong
    return new, [Want("even_money_amount", i, h.name, h.wager - wrong)], amount - wrong


def _surrender_collected_wrong(a: _Round, rng: random.Random) -> Out | None:
    """A surrendered hand forfeits other than half its wager (that half in whole chips)."""
    cands = [
        (j, h)
        for h in a.all_hands()
        if h.surrendered is not None and (j := a.one_settle(h)) is not None and h.wager >= 4
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    j, h = got
    taken = rng.choice((h.wager, h.wager // 4, 0))
    right = a.surrender_net(h.wager)
    if -taken == right:
        return None
    new = _clone(a.doc)
    new["events"][j]["amount"] = taken
    if taken == 0:
        new["events"][j]["result"] = "push"
    return new, [Want("surrender_amount", j, h.name, right + taken)], a.net(j) + taken


def _dealer_bj_double_collects_all(a: _Round, rng: random.Random) -> Out | None:
    """Against a dealer blackjack, a doubled hand loses its double too (NJ 19:47-2.10(b))."""
    if not a.dealer_bj or not a.original_only:
        return None
    cands = [
        (i, h)
        for h in a.all_hands()
        if h.doubles
        and not a.split_seat(h.seat)
        and (i := a.one_settle(h)) is not None
        and a.net(i) == -h.wager
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    _resettle(new, a, i, -h.stake)
    return new, [Want("dealer_bj_after_double", i, h.name, h.stake - h.wager)], a.net(i) + h.stake


def _dealer_bj_split_collects_all(a: _Round, rng: random.Random) -> Out | None:
    """Against a dealer blackjack, a split seat loses every hand's wagers (NJ 13:69F-2.11(d), 19:47-2.10(b)): bet
    by bet, each settlement past the original wager, and each double, is owed back at its settlement."""
    if not a.dealer_bj or not a.original_only:
        return None
    cands = [
        s for s, hs in a.seat_hands.items() if len(hs) > 1 and all(a.one_settle(h) is not None for h in hs)
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    new = _clone(a.doc)
    nets = {}
    owes = 0
    for h in a.seat_hands[s]:
        i = h.settles[0]
        _resettle(new, a, i, -h.stake)
        nets[i] = -h.stake
        owes += a.net(i) + h.stake
    if not owes:
        return None
    return new, _split_dbj_all(a, s, nets), owes


def _dealer_draws_on_standing_total(a: _Round, rng: random.Random) -> Out | None:
    """The dealer draws one more card on a total on which the table's dealer must stand, and every hand is settled
    against the dealer's hand with it. The draw carries no money; each settlement it changed is judged against the
    dealer's hand before the card, and owes the difference (round-v1.md section 2.2)."""
    if len(a.dealer) < 2 or a.dealer_bj:
        return None
    role, h17 = a.draw_regime()
    before = a.dealer_cards
    total, soft = _total(before)
    stands = total >= 18 or (total == 17 and (not soft or h17 is False))
    if not stands:
        return None
    marks = [a.dealer[-1][0], *a.dealer_reveals, *a.peeks, *(i for i, _ in a.player_deals)]
    marks += [i for v in a.ins_settles.values() for i in v]
    marks += [i for v in a.add_settles.values() for i in v]
    pos = max(marks) + 1
    if any(r is not None and r < pos for h in a.all_hands() for r in [h.double_reveal()]):
        return None
    for h in a.all_hands():
        if a.live(h) and any(i < pos for i in h.settles):
            return None
    card = _spare_card(a, rng)
    if card is None:
        return None
    drawn = [*before, card]
    new = _clone(a.doc)
    ev = new["events"]
    wants: Expected = [Want(role, pos, "dealer")]
    owes = 0
    for h in a.all_hands():
        if h.surrendered is not None or h.even_money is not None or len(h.settles) != 1:
            continue
        i = h.settles[0]
        if i < pos or a.corrected(i):
            continue
        paid = a.outcome(h, drawn)
        _resettle(new, a, i, paid)
        right = a.outcome(h, before)
        if paid != right:
            roles = _roles_vs(_total(h.values)[0], total)
            wants.append(Want(_role(right, paid, roles), i + 1, h.name, right - paid))
        owes += a.net(i) - paid
    ev.insert(pos, {"type": "deal", "to": "dealer", "card": card})
    return new, wants, owes


def _dealer_stops_short(a: _Round, rng: random.Random) -> Out | None:
    """The dealer stops on a total on which the table's dealer must draw (the last card drawn is taken out of the
    record and every hand settled against the shorter hand, which is how the settlements are judged: the hand the
    dealer should have had cannot be known)."""
    if len(a.dealer) < 3 or a.dealer_bj:
        return None
    first = a.first_deal()
    if any(first is not None and b > first for b in a.burns) or a.corrections:
        return None  # (a burn after the last card would come while the dealer was still to draw)
    role, h17 = a.draw_regime()
    before = a.dealer_cards[:-1]
    total, soft = _total(before)
    must = total < 17 or (total == 17 and soft and h17 is True)
    if not must or not any(a.live(h) for h in a.all_hands()):
        return None
    last = a.dealer[-1][0]
    for h in a.all_hands():
        if a.live(h) and any(i < last for i in h.settles):
            return None
    new = _clone(a.doc)
    for h in a.all_hands():
        if h.surrendered is not None or h.even_money is not None or len(h.settles) != 1:
            continue
        if h.settles[0] > last and not a.corrected(h.settles[0]):
            _resettle(new, a, h.settles[0], a.outcome(h, before))
    del new["events"][last]
    return new, [Want(role, None, "dealer")], 0


def _double_for_more(a: _Round, rng: random.Random) -> Out | None:
    """A double down for more than the hand's wager (the hand settled on its whole stake)."""
    if a.dealer_bj:
        return None
    cands = [(h, j) for h in a.all_hands() if len(h.doubles) == 1 and (j := a.one_settle(h)) is not None]
    got = _pick(rng, cands)
    if got is None:
        return None
    h, j = got
    i, _ = h.doubles[0]
    more = h.wager + rng.choice((1, 100, max(1, h.wager // 2), h.wager))
    new = _clone(a.doc)
    new["events"][i]["amount"] = more
    net = a.net(j)
    stake = h.wager + more
    _resettle(new, a, j, stake if net > 0 else -stake if net < 0 else 0)
    return new, [Want("double_amount", i, h.name)], 0


def _split_wager_differs(a: _Round, rng: random.Random) -> Out | None:
    """A split for a wager other than the original (the new hand settled on its wager)."""
    if a.dealer_bj:
        return None
    cands = [(h, j) for h in a.all_hands() if h.created_by is not None and (j := a.one_settle(h)) is not None]
    got = _pick(rng, cands)
    if got is None:
        return None
    h, j = got
    i = h.created_by
    assert i is not None
    amount = h.wager + rng.choice((100, max(1, h.wager // 2), h.wager))
    new = _clone(a.doc)
    new["events"][i]["amount"] = amount
    net = a.net(j)
    stake = amount + h.doubled
    _resettle(new, a, j, stake if net > 0 else -stake if net < 0 else 0)
    return new, [Want("split_amount", i, _norm(a.events[i]["hand"]))], 0


def _blackjack_settled_early(a: _Round, rng: random.Random) -> Out | None:
    """A blackjack against a dealer ace or ten is settled before the dealer's second card (NZ r 8.2)."""
    if not a.up_ace_ten or len(a.dealer) < 2:
        return None
    end = a.initial_end()
    second = a.dealer[1][0]
    if end is None or second <= end:
        return None
    cands = [
        (h, i)
        for h in a.all_hands()
        if a.is_bj(h) and h.even_money is None and (i := a.one_settle(h)) is not None and i > second
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    h, i = got
    at = end + 1 if rng.random() < 0.5 else second  # right after the initial deal, or just before the card
    new = _clone(a.doc)
    _move(new["events"], i, at)
    return new, [Want("bj_paid_early", at, h.name)], 0


def _insurance_over_half(a: _Round, rng: random.Random) -> Out | None:
    """Insurance is accepted for more than half the wager (and settled consistently)."""
    step = a.chip // 2 if a.chip % 2 == 0 else a.chip
    cands = [
        s for s, ins in a.insurance.items() if len(ins) == 1 and a.seat_settle(a.ins_settles, s) is not None
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    i, j = a.insurance[s][0][0], a.ins_settles[s][0]
    wager = a.wager[s]
    over = (wager // 2 // step + 1) * step
    if rng.random() < 0.5:
        over += step * rng.randint(0, 3)
    new = _clone(a.doc)
    new["events"][i]["amount"] = over
    settle = new["events"][j]
    settle["amount"] = a.odds(over, 2, 1) if settle["result"] == "win" else over
    return new, [Want("insurance_amount", i, str(s))], 0


def _insurance_against_non_ace(a: _Round, rng: random.Random) -> Out | None:
    """Insurance is accepted though the dealer's first card is not an ace."""
    up = a.up
    end = a.initial_end()
    if up is None or up[0] == "A" or len(a.dealer) < 2 or end is None:
        return None
    second_at, second = a.dealer[1][0], a.hole
    assert second is not None
    third_at = a.dealer[2][0] if len(a.dealer) > 2 else None
    step = a.chip // 2 if a.chip % 2 == 0 else a.chip
    seats = [s for s, w in a.wager.items() if w // 2 >= step and a.hands[(s, 1)].even_money is None]
    s = _pick(rng, seats)
    if s is None:
        return None
    amount = a.wager[s] // 2 // step * step
    wins = _VAL[second[0]] == 10  # the engine's and rule 9.1's test: the dealer's second card is a ten
    ins = {"type": "insurance", "seat": s, "amount": amount}
    settle = {
        "type": "settle",
        "bet": "insurance",
        "seat": s,
        "result": "win" if wins else "lose",
        "amount": a.odds(amount, 2, 1) if wins else amount,
    }
    new = _clone(a.doc)
    ev = new["events"]
    at = end + 1
    if second_at <= end:
        # Hole-card game: settle it when the hole card is turned up (before any further dealer card).
        reveals = [r for r in a.dealer_reveals if r > end]
        where = reveals[0] + 1 if reveals else at
        if third_at is not None and where > third_at:
            return None
    else:
        where = second_at + 1
    ev.insert(where, settle)
    ev.insert(at, ins)
    return new, [Want("insurance_when", at, str(s))], 0


def _insurance_placed_late(a: _Round, rng: random.Random) -> Out | None:
    """Insurance is accepted after further cards were dealt."""
    end = a.initial_end()
    if end is None:
        return None
    later = next((i for i, e in enumerate(a.events) if i > end and e["type"] == "deal"), None)
    if later is None or a.events[later]["to"] == "dealer":
        return None
    cands = [
        s
        for s, ins in a.insurance.items()
        if len(ins) == 1 and (j := a.seat_settle(a.ins_settles, s)) is not None and j > later
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    i = a.insurance[s][0][0]
    new = _clone(a.doc)
    at = _move(new["events"], i, later)  # lands right after the card (which moved down one place)
    return new, [Want("insurance_timing", at, str(s))], 0


def _insurance_collected_late(a: _Round, rng: random.Random) -> Out | None:
    """Losing insurance is collected after the dealer drew a further card."""
    if len(a.dealer) < 3:
        return None
    third = a.dealer[2][0]
    cands = [
        (s, j)
        for s in a.insurance
        if (j := a.seat_settle(a.ins_settles, s)) is not None
        and a.events[j]["result"] == "lose"
        and j < third
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    s, j = got
    new = _clone(a.doc)
    at = _move(new["events"], j, third)
    return new, [Want("insurance_collect_timing", at, str(s))], 0


def _double_face(a: _Round) -> str:
    return str(a.elections.get("double_card") or "face_up")


def _double_card_face_down(a: _Round, rng: random.Random) -> Out | None:
    """At a table that deals double-down cards face up, one is dealt face down (and turned up at its
    settlement, after the dealer has drawn)."""
    if _double_face(a) != "face_up" or not a.dealer:
        return None
    done = max([a.dealer[-1][0], *a.dealer_reveals])  # the dealer has drawn and turned up the hole card
    cands = []
    for h in a.all_hands():
        if len(h.doubles) != 1 or len(h.settles) != 1 or h.settles[0] <= done:
            continue
        card = h.double_card()
        if card is not None and card[2] == "up":
            cands.append((h, card))
    got = _pick(rng, cands)
    if got is None:
        return None
    h, card = got
    new = _clone(a.doc)
    ev = new["events"]
    ev[card[0]]["face"] = "down"
    j = h.settles[0]
    ev.insert(j, {"type": "reveal", "to": ev[j]["hand"], "card": card[1]})
    return new, [Want("double_card_face", card[0], h.name)], 0


def _double_card_face_up(a: _Round, rng: random.Random) -> Out | None:
    """At a table that deals double-down cards face down, one is dealt face up."""
    if _double_face(a) != "face_down":
        return None
    cands = []
    for h in a.all_hands():
        card = h.double_card()
        j = h.double_reveal()
        if len(h.doubles) == 1 and card is not None and j is not None:
            if _total(h.values)[0] > 21 and any(i > card[0] for i, _, _ in a.dealer[2:]):
                # Turned up, the card shows a bust: a dealer drawing after it might then draw for no live hand
                # (13:69F-2.12(c)), a second fault.
                continue
            cands.append((h, card, j))
    got = _pick(rng, cands)
    if got is None:
        return None
    h, card, j = got
    new = _clone(a.doc)
    ev = new["events"]
    ev[card[0]].pop("face", None)
    del ev[j]
    return new, [Want("double_card_face", card[0], h.name)], 0


def _six_five_stands_soft_17(a: _Round, rng: random.Random) -> Out | None:
    """A 6 to 5 table elects to stand on soft 17."""
    if not a.has_rules or a.elections.get("blackjack_pays") != "6:5":
        return None
    if a.elections.get("dealer_soft_17") == "stand":
        return None
    new = _clone(a.doc)
    new["table"]["rules"]["dealer_soft_17"] = "stand"
    return new, [Want("elect_6to5_soft17", None, None)], 0


def _additional_collected_late(a: _Round, rng: random.Random) -> Out | None:
    """A losing additional wager is collected after further cards were dealt to the players (NJ 2.17(d))."""
    firsts: dict[tuple[int, int], int] = {}
    later = None
    for i, h in a.player_deals:
        k = (h.seat, h.num)
        firsts[k] = firsts.get(k, 0) + 1
        if h.num != 1 or firsts[k] > 2 or a.split_seat(h.seat) and h.created_by is not None:
            later = i
            break
    if later is None:
        return None
    cands = [
        (s, j)
        for s in a.add_settles
        if (j := a.seat_settle(a.add_settles, s)) is not None and a.net(j) < 0 and j < later
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    s, j = got
    new = _clone(a.doc)
    at = _move(new["events"], j, later)
    return new, [Want("additional_timing", at, str(s))], 0


def _wager_outside_limits(a: _Round, rng: random.Random) -> Out | None:
    """A wager is accepted outside the table's posted limits (the record's limits are moved past it)."""
    if not a.has_rules:
        return None
    wagers = sorted(a.wager.values())
    new = _clone(a.doc)
    rules = new["table"]["rules"]
    if rng.random() < 0.5 and wagers[-1] > 1:
        rules["max_wager"] = wagers[-1] - rng.choice((1, max(1, wagers[-1] // 2)))
        if rules.get("min_wager", 0) > rules["max_wager"]:
            del rules["min_wager"]
    else:
        rules["min_wager"] = wagers[0] + rng.choice((1, 100, wagers[0]))
        if rules.get("max_wager", rules["min_wager"]) < rules["min_wager"]:
            del rules["max_wager"]
    lo, hi = rules.get("min_wager"), rules.get("max_wager")
    out = [s for s, w in a.wager.items() if lo is not None and w < lo or hi is not None and w > hi]
    return new, [Want("wager_limits", None, str(s)) for s in out], 0


# --- The state of play (round-v1.md section 2.1) ------------------------------------------------------------------


def _complete_by_rule(a: _Round, h: _Hand) -> list[str]:
    """The roles a card dealt to ``h`` now is reported in, when its own cards forbid any: a split ace with its card,
    a doubled hand with its card, a bust, a 21 (the more specific reasons, before the round or the hand's state)."""
    total, _ = _total(h.values)
    if (h.created_by is not None or h.splits) and h.values[0][0] == "A" and len(h.cards) == 2:
        return ["split_aces_draw", "split_aces_more"]
    if h.doubles and h.double_card() is not None:
        return ["double_one_card"]
    if total > 21:
        return ["hit_over_21"]
    if total == 21:
        return ["hit_on_21"]
    return []


def _split_waits(a: _Round, h: _Hand, at: int) -> str | None:
    """For a card at event ``at`` to split hand ``h``, complete only because it stood or was settled: the box's
    hand still to be completed first (13:69F-2.11(b): one waiting for its second card), None if every other hand of
    the box is complete (a hand play moved on from stood, implicitly: section 2.1)."""
    for g in a.seat_hands[h.seat]:
        if g is h or any(i < at for i in g.settles) or g.surrendered is not None and g.surrendered < at:
            continue
        if len(g.values_before(at)) < 2:
            return g.name
    return None


def _dbj_known(a: _Round) -> int | None:
    """Where the dealer's blackjack was known before the players acted: a peek that showed it, or, at a table that
    peeks (its peek may go unrecorded), the end of the initial deal that dealt it (round-v1.md section 2.1)."""
    if a.dbj_peek is not None:
        return a.dbj_peek
    if a.elections.get("peek") is True and a.dealer_bj and len(a.dealer) >= 2:
        end = a.initial_end()
        if end is not None and a.dealer[1][0] <= end:
            # (insurance and even money are offered before the players act, so after the peek)
            offers = [i for v in a.insurance.values() for i, _ in v]
            offers += [h.even_money[0] for h in a.all_hands() if h.even_money is not None]
            return max([end, *offers])
    return None


def _card_to_complete(a: _Round, h: _Hand, at: int) -> Expected | None:
    """The findings of a card (or a hit) at event ``at`` on hand ``h``, complete; None where contested."""
    roles = _complete_by_rule(a, h)
    if roles:
        return [Want(role, at, h.name) for role in roles]
    if _dbj_known(a) is not None:
        return [Want("play_after_dealer_bj", at, h.name)]
    if a.split_seat(h.seat):
        waits = _split_waits(a, h, at)
        if waits is not None:
            return [Want("split_order", at, waits)]
    return [Want("card_to_complete_hand", at, h.name)]


def _card_after_settlement(a: _Round, rng: random.Random) -> Out | None:
    """A card (with or without a recorded hit) is dealt to a hand after it was settled; the settlement stands as it
    was, judged by the hand it settled."""
    cands = []
    for h in a.all_hands():
        settled = h.even_money[0] if h.even_money else a.one_settle(h)
        if settled is None:
            continue
        after = max([settled, *(i for i, _, _ in a.dealer), *a.dealer_reveals, *(i for i, _ in h.reveals)])
        cands.append((h, after))
    got = _pick(rng, cands)
    card = _spare_card(a, rng)
    if got is None or card is None:
        return None
    h, after = got
    at = after + 1
    wants = _card_to_complete(a, h, at)
    if wants is None:
        return None
    wants += _paid_before_the_card(a, h, at)
    new = _clone(a.doc)
    inserted = [{"type": "deal", "to": h.name, "card": card}]
    if rng.random() < 0.5:
        inserted.insert(0, {"type": "hit", "hand": h.name})
    new["events"][at:at] = inserted
    return new, wants, 0


def _paid_before_the_card(a: _Round, h: _Hand, at: int) -> Expected:
    """NZ 8.2: a blackjack against a dealer ace or ten is not paid (or its cards removed: settled) "until all other
    cards have been dealt to the players": one settled before a card (at event ``at``) to another hand was settled
    too early."""
    if "bj_paid_early" not in a.ruleset.roles or not a.up_ace_ten:
        return []
    return [
        Want("bj_paid_early", i, x.name)
        for x in a.all_hands()
        if x is not h and a.is_bj(x) and x.settles and (i := x.settles[0]) < at
    ]


def _hit_after_stand(a: _Round, rng: random.Random) -> Out | None:
    """A hand that stood takes a hit and a card that does not bust it; it is settled as it then stood."""
    if a.dealer_bj or len(a.dealer) < 2:
        return None
    cands = []
    for h in a.all_hands():
        if not h.stands or h.doubles or h.surrendered is not None or h.even_money or a.one_settle(h) is None:
            continue
        total, _ = _total(h.values)
        if total >= 21 or (h.created_by is not None or h.splits) and h.values[0][0] == "A":
            continue
        last = h.cards[-1][0]
        if h.stands[0] < last or h.settles[0] < h.stands[0]:
            continue
        cands.append((h, total))
    got = _pick(rng, cands)
    if got is None:
        return None
    h, total = got
    card = _spare_card(a, rng, min(11, 21 - total))
    if card is None:
        return None
    k = h.stands[0]
    wants = _card_to_complete(a, h, k + 1)
    if wants is None:
        return None
    new = _clone(a.doc)
    ev = new["events"]
    ev[k + 1 : k + 1] = [{"type": "hit", "hand": h.name}, {"type": "deal", "to": h.name, "card": card}]
    held = _Hand(h.seat, h.num, h.wager, cards=[*h.cards, (k + 2, card, "up")])
    _resettle(new, a, h.settles[0] + 2, a.outcome(held, a.dealer_cards))
    return new, wants, 0


def _late_stand(a: _Round, rng: random.Random) -> Out | None:
    """The stand on an incomplete hand is recorded after play went on: after a card to another hand (a later split
    hand of its box, a later box, the dealer) or, in a hole-card game, after the dealer's hole card was turned up
    (which begins the dealer's play, round-v1.md section 2.1). The finding is at that premature event."""
    end = a.initial_end()
    if end is None or a.dealer_bj:
        return None
    moves = [(i, e["to"]) for i, e in enumerate(a.events) if i > end and e["type"] == "deal"]
    moves += [(i, "dealer") for i in a.dealer_reveals if i > end]
    moves.sort()
    cands = []
    for h in a.all_hands():
        total, _ = _total(h.values)
        aces = (h.created_by is not None or h.splits) and h.values[0][0] == "A"
        if total >= 21 or aces or h.doubles or h.surrendered is not None or h.even_money or not h.settles:
            continue
        if a.is_bj(h):
            continue
        last = max([c[0] for c in h.cards] + h.splits)
        elsewhere = next((i for i, to in moves if i > last and to != h.name and _other(to, h)), None)
        if elsewhere is not None:
            cands.append((h, elsewhere))
    got = _pick(rng, cands)
    if got is None:
        return None
    h, elsewhere = got
    new = _clone(a.doc)
    ev = new["events"]
    for k in reversed(h.stands):
        del ev[k]
    at = elsewhere - sum(1 for k in h.stands if k < elsewhere)
    ev.insert(at + 1, {"type": "stand", "hand": h.name})
    return new, [Want("split_order" if a.split_seat(h.seat) else "play_out_of_turn", at, h.name)], 0


def _other(to: str, h: _Hand) -> bool:
    """Whether a card to ``to`` takes play past hand ``h``: the dealer, a later box, or another hand of its box."""
    if to == "dealer":
        return True
    seat, num = _hand_key(to)
    return seat > h.seat or (seat == h.seat and num != h.num)


def _play_after_dealer_blackjack(a: _Round, rng: random.Random) -> Out | None:
    """After the dealer's blackjack was known (a peek showed it, or the table peeks), a hand that is not a
    blackjack hits and is dealt a card."""
    known = _dbj_known(a)
    if known is None:
        return None
    cands = [h for h in a.all_hands() if not a.is_bj(h) and h.even_money is None]
    h = _pick(rng, cands)
    card = _spare_card(a, rng)
    if h is None or card is None:
        return None
    at = rng.randint(known + 1, len(a.events))
    inserted = [{"type": "deal", "to": h.name, "card": card}]
    if rng.random() < 0.7:
        inserted.insert(0, {"type": "hit", "hand": h.name})
    new = _clone(a.doc)
    new["events"][at:at] = inserted
    return new, [Want("play_after_dealer_bj", at, h.name)], 0


# --- What real tables also record (round-v1.md section 2.3) ----------------------------------------------------------


def _burn_during_play(a: _Round, rng: random.Random) -> Out | None:
    """A card is burned between the round's first card and the dealer's complete hand: right before a card to a
    player, or before a card the dealer had to draw."""
    first = a.first_deal()
    if first is None or a.dealer_bj:
        return None
    cands = [i for i, _ in a.player_deals if i > first]
    live = any(
        a.live(h) for h in a.all_hands()
    )  # (with none, the dealer needs no card: its hand is complete)
    for k in range(2, len(a.dealer)):
        if live and _total(a.dealer_cards[:k])[0] < 17:
            cands.append(a.dealer[k][0])
    at = _pick(rng, cands)
    card = _spare_card(a, rng)
    if at is None or card is None:
        return None
    burn: Doc = {"type": "burn", "card": card}
    if rng.random() < 0.3:
        burn["face"] = "up"
    new = _clone(a.doc)
    new["events"].insert(at, burn)
    return new, [Want("card_burned_during_play", at, None)], 0


def _returns(a: _Round) -> list[int]:
    """The settlements that returned a voided round's wagers (after the void, moving nothing)."""
    v = a.void_at
    if v is None:
        return []
    return [
        i
        for i, e in enumerate(a.events)
        if i > v and e["type"] == "settle" and a.net(i) == 0 and "corrects" not in e and not a.corrected(i)
    ]


def _void_wager_won_or_lost(a: _Round, rng: random.Random) -> Out | None:
    """In a voided round, a wager still in play at the void is paid or collected instead of returned."""
    j = _pick(rng, _returns(a))
    if j is None:
        return None
    e = a.events[j]
    if e["bet"] == "main":
        stake = a.hands[_hand_key(e["hand"])].stake
    elif e["bet"] == "insurance":
        stake = a.insurance[e["seat"]][0][1]
    else:
        stake = a.additional[e["seat"]][1]
    net = rng.choice((stake, -stake, max(1, stake // 2), -max(1, stake // 2)))
    new = _clone(a.doc)
    new["events"][j] = _settle_event(e["bet"], e["hand"] if e["bet"] == "main" else e["seat"], net, e)
    return new, [Want("void_wager_not_returned", j, _bet_of(e), -net)], -net


def _void_wager_never_returned(a: _Round, rng: random.Random) -> Out | None:
    """In a voided round, a wager still in play at the void is never returned."""
    j = _pick(rng, _returns(a))
    if j is None:
        return None
    new = _clone(a.doc)
    del new["events"][j]
    return new, [Want("void_wager_not_returned", None, _bet_of(a.events[j]))], 0


def _play_after_void(a: _Round, rng: random.Random) -> Out | None:
    """After the void, a card is dealt (to a hand in play or to the dealer) or a player takes a decision."""
    v = a.void_at
    if v is None:
        return None
    hands = [_norm(a.events[j]["hand"]) for j in _returns(a) if a.events[j]["bet"] == "main"]
    if not hands:
        return None
    at = rng.randint(v + 1, len(a.events))
    name = hands[int(rng.random() * len(hands))]
    h = a.hands[_hand_key(name)]
    x = rng.random()
    ev: Doc
    if x < 0.3:
        card = _spare_card(a, rng)
        if card is None:
            return None
        ev = {"type": "deal", "to": name, "card": card}
    elif x < 0.45:
        card = _spare_card(a, rng)
        if card is None:
            return None
        ev, name = {"type": "deal", "to": "dealer", "card": card}, "dealer"
    elif x < 0.7:
        ev = {"type": "hit", "hand": name}
    elif x < 0.85:
        ev = {"type": "double", "hand": name, "amount": h.wager}
    else:
        ev, name = {"type": "insurance", "seat": h.seat, "amount": max(1, a.wager[h.seat] // 2)}, str(h.seat)
    new = _clone(a.doc)
    new["events"].insert(at, ev)
    return new, [Want("play_after_void", at, name)], 0


# Payout errors on one settlement, changed in place: a correction can restate any of them.
_ONE_SETTLEMENT: list[Callable[[_Round, random.Random], Out | None]] = [
    _win_paid_wrong,
    _blackjack_paid_even,
    _losing_hand_paid,
    _losing_hand_collected_wrong,
    _winning_hand_collected,
    _push_paid,
    _winning_insurance_paid_wrong,
    _surrender_collected_wrong,
    _dealer_bj_double_collects_all,
    _losing_additional_paid,
]


def _one_wrong(a: _Round, rng: random.Random) -> tuple[int, Doc, Want] | None:
    """A payout error on one settlement, in place: (its event, the wrong settlement, its finding by role)."""
    for k in rng.sample(range(len(_ONE_SETTLEMENT)), len(_ONE_SETTLEMENT)):
        out = _ONE_SETTLEMENT[k](a, rng)
        if out is None:
            continue
        new, wants, owes = out
        if len(wants) != 1 or wants[0].event is None or wants[0].amount is None or owes is None:
            continue  # (one finding at the settlement, with what it owes)
        i = wants[0].event
        if len(new["events"]) != len(a.events) or any(
            x != y for j, (x, y) in enumerate(zip(new["events"], a.events, strict=True)) if j != i
        ):
            continue
        wrong = dict(new["events"][i])
        wrong.pop(_TAG, None)
        return i, wrong, wants[0]
    return None


def _correction(a: _Round, rng: random.Random, k: int, fix: Doc) -> tuple[Doc, int]:
    """The round with ``fix`` recorded as a correction of settlement ``k``: right after it, or at the end of the
    round. Returns the new round (its settlement ``k`` as in ``a``) and the correction's event."""
    new = _clone(a.doc)
    fix = {key: v for key, v in fix.items() if key != _TAG}
    fix["corrects"] = k
    at = k + 1 if rng.random() < 0.5 else len(new["events"])
    new["events"].insert(at, fix)
    return new, at


def _right_correction(a: _Round, rng: random.Random) -> Out | None:
    """A wrong settlement is corrected at the table to the right amount: its finding stays, with the correction,
    and nothing is still owed."""
    got = _one_wrong(a, rng)
    if got is None:
        return None
    k, wrong, want = got
    right = a.events[k]
    new, c = _correction(a, rng, k, right)
    new["events"][k] = {**wrong, **({_TAG: right[_TAG]} if _TAG in right else {})}
    return new, [want._replace(amount=0, corrected_by=c, corrected_actual=a.net(k))], 0


def _wrong_correction(a: _Round, rng: random.Random) -> Out | None:
    """A wrong settlement is corrected at the table to another wrong amount (of the same sign): its finding stays at
    the settlement, with the correction, for what is still owed."""
    got = _one_wrong(a, rng)
    if got is None:
        return None
    k, wrong, want = got
    right_net = a.net(k)
    first = _net_of(wrong)
    if first == 0:
        return None
    steps = (a.chip, -a.chip, 100, -100, 1, (right_net - first) // 2)
    cands = [first + d for d in steps if d and _sign(first + d) == _sign(first) and first + d != right_net]
    second = _pick(rng, cands)
    if second is None:
        return None
    bet = wrong["bet"]
    fix = _settle_event(bet, wrong["hand"] if bet == "main" else wrong["seat"], second, wrong)
    new, c = _correction(a, rng, k, fix)
    new["events"][k] = {**wrong, **({_TAG: a.events[k][_TAG]} if _TAG in a.events[k] else {})}
    owed = right_net - second
    return new, [want._replace(amount=owed, corrected_by=c, corrected_actual=second)], owed


def _correction_of_right(a: _Round, rng: random.Random) -> Out | None:
    """A right settlement is corrected at the table into a wrong one: one finding, at the correction."""
    got = _one_wrong(a, rng)
    if got is None:
        return None
    k, wrong, want = got
    new, c = _correction(a, rng, k, wrong)
    return new, [want._replace(event=c)], a.net(k) - _net_of(wrong)


def _net_of(e: Doc) -> int:
    if e["result"] == "win":
        return int(e["amount"])
    return 0 if e["result"] in ("push", "void") else -int(e["amount"])


# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    name: str
    fn: Callable[[_Round, random.Random], Out | None]
    voided: bool = False
    """Applies to voided rounds only (the others apply only to rounds played out)."""

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def apply(self, round_: Doc, rng: random.Random) -> Fault | None:
        """The mutated round, its expected findings and what it owes, or None where this mutation does not apply."""
        got = _run(self, _tagged(round_), rng)
        if got is None:
            return None
        new, expected, owes = got
        _finish(new)
        return Fault(new, expected, owes)


def _tagged(doc: Doc) -> Doc:
    """A copy of the round whose events carry their index (so that an edit's moves can be followed)."""
    out = _clone(doc)
    for i, e in enumerate(out["events"]):
        e[_TAG] = i
    return out


def _run(m: Mutation, doc: Doc, rng: random.Random) -> Out | None:
    a = _Round(doc)
    if (a.void_at is not None) != m.voided:
        return None
    out = m.fn(a, rng)
    if out is None:
        return None
    new, wants, owes = out
    bound = a.ruleset.roles
    if not wants or any(w.rule not in bound for w in wants):
        return None
    return new, [w._replace(rule=bound[w.rule].rule) for w in wants], owes


def _finish(doc: Doc) -> dict[int, int]:
    """Drop the events' tags; a correction that was in the round before the edit names its settlement where it now
    is. Returns where each tagged event went (its first copy)."""
    where: dict[int, int] = {}
    kept: list[bool] = []
    for j, e in enumerate(doc["events"]):
        k = e.pop(_TAG, None)
        kept.append(k is not None)
        if k is not None and k not in where:
            where[k] = j
    for e, old in zip(doc["events"], kept, strict=True):
        if old and "corrects" in e:
            e["corrects"] = where[e["corrects"]]
    return where


def _seats(expected: Expected) -> set[int] | None:
    """The seats whose bets the findings are about (None if any is about no seat's bet)."""
    out = set()
    for w in expected:
        if w.hand is None or w.hand == "dealer":
            return None
        out.add(_hand_key(w.hand)[0])
    return out


def _moved(w: Want, where: dict[int, int]) -> Want:
    return w._replace(
        event=None if w.event is None else where[w.event],
        corrected_by=None if w.corrected_by is None else where[w.corrected_by],
    )


def combine(first: Mutation, second: Mutation, round_: Doc, rng: random.Random) -> Fault | None:
    """Two payout faults in one round, on the bets of different seats: the first applied, then the second to what
    it made. Their findings together, what they owe together. None where either does not apply (or both would
    touch one seat's bets)."""
    if first.name not in COMBINABLE or second.name not in COMBINABLE:
        raise ValueError("only payout faults on one seat's bets combine")
    one = first.apply(round_, rng)
    if one is None:
        return None
    busy = _seats(one.expected)
    if busy is None:
        return None
    for _ in range(4):
        got = _run(second, _tagged(one.round), rng)
        if got is None:
            return None
        new, expected, owes = got
        seats = _seats(expected)
        if seats is None or seats & busy:
            continue
        where = _finish(new)
        total = None if owes is None or one.owes is None else owes + one.owes
        return Fault(new, [*(_moved(w, where) for w in one.expected), *expected], total)
    return None


MUTATIONS: list[Mutation] = [
    Mutation("win_paid_wrong", _win_paid_wrong),
    Mutation("blackjack_paid_even", _blackjack_paid_even),
    Mutation("losing_hand_paid", _losing_hand_paid),
    Mutation("losing_hand_collected_wrong", _losing_hand_collected_wrong),
    Mutation("winning_hand_collected", _winning_hand_collected),
    Mutation("push_paid", _push_paid),
    Mutation("insurance_over_half", _insurance_over_half),
    Mutation("insurance_against_non_ace", _insurance_against_non_ace),
    Mutation("insurance_placed_late", _insurance_placed_late),
    Mutation("winning_insurance_paid_wrong", _winning_insurance_paid_wrong),
    Mutation("insurance_collected_late", _insurance_collected_late),
    Mutation("dealer_draws_on_standing_total", _dealer_draws_on_standing_total),
    Mutation("dealer_stops_short", _dealer_stops_short),
    Mutation("double_for_more", _double_for_more),
    Mutation("split_wager_differs", _split_wager_differs),
    Mutation("blackjack_settled_early", _blackjack_settled_early),
    Mutation("settlement_dropped", _settlement_dropped),
    Mutation("settled_twice", _settled_twice),
    Mutation("settled_after_even_money", _settled_after_even_money),
    Mutation("even_money_wrong", _even_money_wrong),
    Mutation("surrender_collected_wrong", _surrender_collected_wrong),
    Mutation("double_card_face_down", _double_card_face_down),
    Mutation("double_card_face_up", _double_card_face_up),
    Mutation("six_five_stands_soft_17", _six_five_stands_soft_17),
    Mutation("wager_outside_limits", _wager_outside_limits),
    Mutation("additional_collected_late", _additional_collected_late),
    Mutation("losing_additional_paid", _losing_additional_paid),
    Mutation("dealer_bj_double_collects_all", _dealer_bj_double_collects_all),
    Mutation("dealer_bj_split_collects_all", _dealer_bj_split_collects_all),
    Mutation("card_after_settlement", _card_after_settlement),
    Mutation("hit_after_stand", _hit_after_stand),
    Mutation("late_stand", _late_stand),
    Mutation("play_after_dealer_blackjack", _play_after_dealer_blackjack),
    Mutation("burn_during_play", _burn_during_play),
    Mutation("void_wager_won_or_lost", _void_wager_won_or_lost, voided=True),
    Mutation("void_wager_never_returned", _void_wager_never_returned, voided=True),
    Mutation("play_after_void", _play_after_void, voided=True),
    Mutation("right_correction", _right_correction),
    Mutation("wrong_correction", _wrong_correction),
    Mutation("correction_of_right", _correction_of_right),
]

PAYOUT_FAULTS = frozenset(
    {
        "win_paid_wrong",
        "blackjack_paid_even",
        "losing_hand_paid",
        "losing_hand_collected_wrong",
        "winning_hand_collected",
        "push_paid",
        "winning_insurance_paid_wrong",
        "losing_additional_paid",
        "dealer_draws_on_standing_total",
        "settlement_dropped",
        "settled_twice",
        "settled_after_even_money",
        "even_money_wrong",
        "surrender_collected_wrong",
        "dealer_bj_double_collects_all",
        "dealer_bj_split_collects_all",
        "void_wager_won_or_lost",
        "right_correction",
        "wrong_correction",
        "correction_of_right",
    }
)
"""The mutations that move money wrongly (or, a right correction, put it right): each states what it owes."""

COMBINABLE = PAYOUT_FAULTS - {"dealer_draws_on_standing_total", "void_wager_won_or_lost"}
"""The payout faults that touch the bets of one seat only, so that two of them can go into one round."""


def mutate(round_: Doc, rng: random.Random) -> Fault | None:
    """One mutation applicable to the round, picked at random: the mutated round, the findings it must produce and
    what it owes. None when no mutation applies."""
    tagged = _tagged(round_)
    for k in rng.sample(range(len(MUTATIONS)), len(MUTATIONS)):
        m = MUTATIONS[k]
        got = _run(m, tagged, rng)
        if got is not None:
            new, expected, owes = got
            _finish(new)
            return Fault(new, expected, owes)
    return None
