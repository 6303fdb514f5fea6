"""Mutations of legal rounds: each injects exactly one dealer, payout or procedure error, and says which findings
the audit must report for it.

Public surface::

    MUTATIONS                  every named mutation (a Mutation: name, what it does, apply(round, rng))
    mutate(round, rng)         -> (mutated round, Expected) | None: one applicable mutation, picked at random
    Expected                   list of (rule, event): the findings the mutated round must produce, exactly

A mutation names check *roles* (see :mod:`app.domain.checks`), never citations: the rule a finding cites is looked
up in the role binding of the ruleset in force for the round, so the same mutation serves both jurisdictions. A
mutation whose role the jurisdiction does not bind is not applicable there.

Mutations read the round with their own small replay (below), not the engine's: a test of the engine should not
borrow the engine's reading of the round. They choose source rounds where the injected error is the only one
(e.g. re-settling every hand when a dealer card is added), so that the expected findings are exact.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from app.jurisdictions import ruleset_for

__all__ = ["MUTATIONS", "Expected", "Mutation", "mutate"]

Expected = list[tuple[Any, ...]]
"""Every finding the mutated round must produce: ``(rule, event)``, or ``(rule, event, amount_delta)`` where the
mutation changed money and knows what is owed (amount_delta None: the finding carries none). ``rule`` as the
finding's ``rule``, ``event`` its 0-based event index (None for a finding of an absence or of an election)."""

Roles = list[tuple[Any, ...]]
T = TypeVar("T")
Doc = dict[str, Any]

_VAL = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "A23456789TJQK"}


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
    settles: list[int] = field(default_factory=list)
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

    @property
    def stake(self) -> int:
        return self.wager + sum(a for _, a in self.doubles)


class _Round:
    """What the mutations need to know about a round: hands and their cards, the dealer's cards, wagers and
    where each was settled."""

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
        self.wager = {s["seat"]: s["wager"] for s in doc["seats"]}
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
                if e["bet"] == "main":
                    self.hands[_hand_key(e["hand"])].settles.append(i)
                elif e["bet"] == "insurance":
                    self.ins_settles.setdefault(e["seat"], []).append(i)
                else:
                    self.add_settles.setdefault(e["seat"], []).append(i)

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

    def initial_end(self) -> int | None:
        """The event that completes the initial deal: every seat's second card with the dealer's first card dealt,
        or, in a hole-card game, the dealer's face-down second card when it directly follows."""
        need = {(s, 1) for s in self.wager}
        got: dict[tuple[int, int], int] = {}
        dealer = 0
        for i, e in enumerate(self.events):
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

    def hole_card(self, deal: Doc) -> bool:
        """Whether the dealer's second card ``deal`` is a hole card (part of the initial deal)."""
        second = self.elections.get("dealer_second_card")
        if second is not None:
            return bool(second == "initial_deal")
        return deal.get("face") == "down" or (bool(self.dealer) and self.dealer[0][2] == "down")

    def net(self, i: int) -> int:
        e = self.events[i]
        return e["amount"] if e["result"] == "win" else 0 if e["result"] == "push" else -e["amount"]

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
            num, den = (6, 5) if self.elections.get("blackjack_pays") == "6:5" else (3, 2)
            return h.wager * num // den
        dt, _ = _total(dealer)
        if dt > 21 or pt > dt:
            return stake
        return -stake if pt < dt else 0

    def live(self, h: _Hand) -> bool:
        return (
            h.surrendered is None and h.even_money is None and _total(h.values)[0] <= 21 and not self.is_bj(h)
        )


def _clone(doc: Doc) -> Doc:
    out = dict(doc)
    table = dict(doc["table"])
    if "rules" in table:
        table["rules"] = dict(table["rules"])
    out["table"] = table
    out["seats"] = [dict(s) for s in doc["seats"]]
    out["events"] = [dict(e) for e in doc["events"]]
    return out


def _settle_main(hand: str, net: int) -> Doc:
    if net > 0:
        return {"type": "settle", "bet": "main", "hand": hand, "result": "win", "amount": net}
    if net < 0:
        return {"type": "settle", "bet": "main", "hand": hand, "result": "lose", "amount": -net}
    return {"type": "settle", "bet": "main", "hand": hand, "result": "push", "amount": 0}


def _resettle(new: Doc, a: _Round, i: int, net: int) -> None:
    old = new["events"][i]
    if old["result"] == "lose" and old["amount"] == 0 and net == 0:
        return
    ev = _settle_main(old["hand"], net)
    for k in ("at", "note"):
        if k in old:
            ev[k] = old[k]
    new["events"][i] = ev


def _move(events: list[Doc], src: int, dst: int) -> int:
    """Move event ``src`` so that it lands at index ``dst`` of the list without it; returns its new index."""
    ev = events.pop(src)
    events.insert(dst, ev)
    return dst


def _pick(rng: random.Random, items: list[T]) -> T | None:
    return items[int(rng.random() * len(items))] if items else None


def _one_settle(h: _Hand) -> int | None:
    return h.settles[0] if len(h.settles) == 1 else None


def _aggregate(a: _Round, h: _Hand) -> bool:
    """A split seat against a dealer blackjack: the engine judges the seat's hands together."""
    return a.dealer_bj and a.split_seat(h.seat)


# ---------------------------------------------------------------------------------------------------------------
# The mutations. Each returns the mutated round and the (role, event) findings it must produce, or None where it
# does not apply to the round.


def _win_paid_wrong(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A winning hand (not a blackjack) is paid the wrong amount."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := _one_settle(h)) is not None
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
    return new, [("win_odds", i, amount - wrong)]


def _blackjack_paid_even(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A winning blackjack is paid one to one."""
    num, den = (6, 5) if a.elections.get("blackjack_pays") == "6:5" else (3, 2)
    cands = []
    for h in a.all_hands():
        i = _one_settle(h)
        if i is None or not a.is_bj(h) or a.events[i]["result"] != "win" or h.even_money:
            continue
        exact, rest = divmod(h.wager * num, den)
        if h.wager in (exact, exact + (1 if rest else 0)):
            continue
        cands.append((i, h))
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i]["amount"] = h.wager
    owed = h.wager * num // den - h.wager  # the nearer of an odd wager's two roundings
    return new, [("bj_vs_dealer_ace_ten" if a.up_ace_ten else "bj_odds", i, owed)]


def _direction_lose(a: _Round, h: _Hand) -> str:
    """The role the engine reports when a hand that should lose is paid (not a split seat against a dealer
    blackjack, not a doubled hand against one)."""
    pt, _ = _total(h.values)
    if pt > 21:
        return "bust_loses"
    if a.dealer_bj:
        return "dealer_bj_beats_21" if pt == 21 else "lower_total"
    return "lower_total"


def _split_seat_nets(a: _Round, seat: int) -> tuple[int, ...]:
    only = -a.wager[seat]
    if a.ruleset.params.get("dealer_blackjack_collects") == "original_only":
        return (only,)
    return (only, -sum(h.stake for h in a.seat_hands[seat]))


def _losing_hand_paid(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A losing hand is paid instead of collected."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := _one_settle(h)) is not None
        and a.events[i]["result"] == "lose"
        and a.events[i]["amount"] > 0
        and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i]["result"] = "win"
    if _aggregate(a, h):
        hs = a.seat_hands[h.seat]
        if any(len(x.settles) != 1 for x in hs):
            return None
        total = sum(a.net(x.settles[0]) for x in hs) + 2 * a.events[i]["amount"]
        nets = _split_seat_nets(a, h.seat)
        if total in nets:
            return None
        want = min(nets, key=lambda n: abs(n - total))
        return new, [("dealer_bj_after_split", max(x.settles[0] for x in hs), want - total)]
    paid = a.events[i]["amount"]
    if a.dealer_bj and h.doubles:
        original_only = a.ruleset.params.get("dealer_blackjack_collects") == "original_only"
        nets = (-h.wager,) if original_only else (-h.stake, -h.wager)
        want = min(nets, key=lambda n: abs(n - paid))
        return new, [("dealer_bj_after_double", i, want - paid)]
    return new, [(_direction_lose(a, h), i, -2 * paid)]


def _losing_hand_collected_wrong(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A losing hand (against a dealer without blackjack) is collected for the wrong amount."""
    if a.dealer_bj:
        return None
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := _one_settle(h)) is not None
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
    return new, [("lose_amount", i, wrong - amount)]


def _winning_hand_collected(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A winning hand is collected instead of paid."""
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := _one_settle(h)) is not None and a.events[i]["result"] == "win" and a.events[i]["amount"] > 0
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i]["result"] = "lose"
    dt, _ = _total(a.dealer_cards)
    if a.is_bj(h):
        if a.up_ace_ten:
            role = "bj_vs_dealer_ace_ten"
        else:
            role = "bj_beats_21" if dt == 21 else "dealer_bust" if dt > 21 else "higher_total"
    else:
        role = "dealer_bust" if dt > 21 else "higher_total"
    amount = a.events[i]["amount"]
    if a.is_bj(h):
        num, den = (6, 5) if a.elections.get("blackjack_pays") == "6:5" else (3, 2)
        due = h.wager * num // den  # the nearer of an odd wager's two roundings to the collection
    else:
        due = amount
    return new, [(role, i, due + amount)]


def _push_paid(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A stand off (equal totals) is paid as a win."""
    if a.dealer_bj:
        return None
    cands = [
        (i, h)
        for h in a.all_hands()
        if (i := _one_settle(h)) is not None and a.net(i) == 0 and h.surrendered is None
    ]
    got = _pick(rng, cands)
    if got is None:
        return None
    i, h = got
    new = _clone(a.doc)
    new["events"][i] = _settle_main(a.events[i]["hand"], h.stake)
    return new, [("equal_totals", i, -h.stake)]


def _insurance_over_half(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Insurance is accepted for more than half the wager (and settled consistently)."""
    chip = a.elections.get("min_chip")
    step = (chip // 2 if chip % 2 == 0 else chip) if isinstance(chip, int) else 1
    cands = [s for s, ins in a.insurance.items() if len(ins) == 1 and len(a.ins_settles.get(s, ())) == 1]
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
    settle["amount"] = 2 * over if settle["result"] == "win" else over
    return new, [("insurance_amount", i)]


def _insurance_against_non_ace(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Insurance is accepted though the dealer's first card is not an ace."""
    up = a.up
    end = a.initial_end()
    if up is None or up[0] == "A" or len(a.dealer) < 2 or end is None:
        return None
    second_at, second = a.dealer[1][0], a.hole
    assert second is not None
    third_at = a.dealer[2][0] if len(a.dealer) > 2 else None
    chip = a.elections.get("min_chip")
    step = (chip // 2 if chip % 2 == 0 else chip) if isinstance(chip, int) else 1
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
        "amount": 2 * amount if wins else amount,
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
    return new, [("insurance_when", at)]


def _insurance_placed_late(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
        if len(ins) == 1 and len(a.ins_settles.get(s, ())) == 1 and a.ins_settles[s][0] > later
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    i = a.insurance[s][0][0]
    new = _clone(a.doc)
    at = _move(new["events"], i, later)  # lands right after the card (which moved down one place)
    return new, [("insurance_timing", at)]


def _winning_insurance_paid_wrong(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Winning insurance is paid one to one."""
    cands = [
        s
        for s, ins in a.insurance.items()
        if len(ins) == 1
        and len(a.ins_settles.get(s, ())) == 1
        and a.events[a.ins_settles[s][0]]["result"] == "win"
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    j = a.ins_settles[s][0]
    insured = a.insurance[s][0][1]
    new = _clone(a.doc)
    new["events"][j]["amount"] = insured
    return new, [("insurance_odds", j, insured)]


def _insurance_collected_late(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Losing insurance is collected after the dealer drew a further card."""
    if len(a.dealer) < 3:
        return None
    third = a.dealer[2][0]
    cands = [
        s
        for s, ins in a.insurance.items()
        if len(a.ins_settles.get(s, ())) == 1
        and a.events[a.ins_settles[s][0]]["result"] == "lose"
        and a.ins_settles[s][0] < third
    ]
    s = _pick(rng, cands)
    if s is None:
        return None
    new = _clone(a.doc)
    at = _move(new["events"], a.ins_settles[s][0], third)
    return new, [("insurance_collect_timing", at)]


def _dealer_draws_on_standing_total(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """The dealer draws one more card on a total on which the table's dealer must stand; every hand is settled
    against the dealer's hand as dealt."""
    if len(a.dealer) < 2 or a.dealer_bj:
        return None
    role, h17 = a.draw_regime()
    total, soft = _total(a.dealer_cards)
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
    spare = [r + s for r in "A23456789TJQK" for s in "CDHS" if a.counts.get(r + s, 0) < a.decks]
    card = _pick(rng, spare)
    if card is None:
        return None
    dealer = [*a.dealer_cards, card]
    new = _clone(a.doc)
    ev = new["events"]
    owed: int | None = None  # had the dealer stood: what the players were owed, over the hands it changed
    for h in a.all_hands():
        if h.surrendered is not None or h.even_money is not None or len(h.settles) != 1:
            continue
        i = h.settles[0]
        if i >= pos:
            net = a.outcome(h, dealer)
            _resettle(new, a, i, net)
            if net != a.net(i):
                owed = (owed or 0) + a.net(i) - net
    ev.insert(pos, {"type": "deal", "to": "dealer", "card": card})
    return new, [(role, pos, owed)]


def _dealer_stops_short(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """The dealer stops on a total on which the table's dealer must draw (the last card drawn is taken out of
    the record and every hand settled against the shorter hand)."""
    if len(a.dealer) < 3 or a.dealer_bj:
        return None
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
        if h.settles[0] > last:
            _resettle(new, a, h.settles[0], a.outcome(h, before))
    del new["events"][last]
    return new, [(role, None)]


def _double_for_more(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A double down for more than the hand's wager (the hand settled on its whole stake)."""
    if a.dealer_bj:
        return None
    cands = [h for h in a.all_hands() if len(h.doubles) == 1 and len(h.settles) == 1]
    h = _pick(rng, cands)
    if h is None:
        return None
    i, _ = h.doubles[0]
    more = h.wager + rng.choice((1, 100, max(1, h.wager // 2), h.wager))
    new = _clone(a.doc)
    new["events"][i]["amount"] = more
    j = h.settles[0]
    net = a.net(j)
    stake = h.wager + more
    _resettle(new, a, j, stake if net > 0 else -stake if net < 0 else 0)
    return new, [("double_amount", i)]


def _split_wager_differs(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A split for a wager other than the original (the new hand settled on its wager)."""
    if a.dealer_bj:
        return None
    cands = [h for h in a.all_hands() if h.created_by is not None and len(h.settles) == 1]
    h = _pick(rng, cands)
    if h is None:
        return None
    i = h.created_by
    assert i is not None
    amount = h.wager + rng.choice((100, max(1, h.wager // 2), h.wager))
    new = _clone(a.doc)
    new["events"][i]["amount"] = amount
    j = h.settles[0]
    net = a.net(j)
    stake = amount + sum(x for _, x in h.doubles)
    _resettle(new, a, j, stake if net > 0 else -stake if net < 0 else 0)
    return new, [("split_amount", i)]


def _blackjack_settled_early(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A blackjack against a dealer ace or ten is settled before the dealer's second card (NZ r 8.2)."""
    if not a.up_ace_ten or len(a.dealer) < 2:
        return None
    end = a.initial_end()
    second = a.dealer[1][0]
    if end is None or second <= end:
        return None
    cands = [
        h
        for h in a.all_hands()
        if a.is_bj(h) and h.even_money is None and len(h.settles) == 1 and h.settles[0] > second
    ]
    h = _pick(rng, cands)
    if h is None:
        return None
    at = end + 1 if rng.random() < 0.5 else second  # right after the initial deal, or just before the card
    new = _clone(a.doc)
    _move(new["events"], h.settles[0], at)
    return new, [("bj_paid_early", at)]


def _settlement_dropped(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A wager (main, insurance or additional) is never settled."""
    cands = [i for h in a.all_hands() for i in h.settles[:1]]
    cands += [v[0] for v in a.ins_settles.values()]
    cands += [v[0] for v in a.add_settles.values()]
    i = _pick(rng, cands)
    if i is None:
        return None
    new = _clone(a.doc)
    del new["events"][i]
    return new, [("missing_settlement", None, _owed_if_missing(a, i))]


def _owed_if_missing(a: _Round, i: int) -> int | None:
    """What a settlement left out of the record was owed (the engine says so where the record tells)."""
    e = a.events[i]
    if e["bet"] == "insurance":
        return a.net(i)
    if e["bet"] == "additional":
        return a.net(i) if a.net(i) < 0 else None  # a winner's odds are on the layout, which we do not hold
    h = a.hands[_hand_key(e["hand"])]
    if a.dealer_bj and a.split_seat(h.seat):
        return None  # owed by the box as a whole
    if a.dealer_bj and h.doubles and a.ruleset.params.get("dealer_blackjack_collects") != "original_only":
        return -h.stake  # either reading is accepted; the engine quotes the first
    if a.is_bj(h) and not a.dealer_bj:
        num, den = (6, 5) if a.elections.get("blackjack_pays") == "6:5" else (3, 2)
        return h.wager * num // den
    return a.net(i)


def _settled_twice(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A hand's wager, an insurance or an additional wager is settled a second time."""
    cands = [i for h in a.all_hands() if len(h.settles) == 1 for i in h.settles]
    cands += [v[0] for v in a.ins_settles.values() if len(v) == 1]
    cands += [v[0] for v in a.add_settles.values() if len(v) == 1]
    i = _pick(rng, cands)
    if i is None:
        return None
    new = _clone(a.doc)
    new["events"].insert(i + 1, dict(a.events[i]))
    return new, [("settled_twice", i + 1, -a.net(i))]


def _settled_after_even_money(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A hand paid even money is settled again."""
    cands = [h for h in a.all_hands() if h.even_money is not None and not h.settles]
    h = _pick(rng, cands)
    if h is None:
        return None
    new = _clone(a.doc)
    at = len(new["events"])
    new["events"].append(_settle_main(str(h.seat), h.wager * 3 // 2))
    return new, [("settled_twice", at, -(h.wager * 3 // 2))]


def _even_money_wrong(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
    return new, [("even_money_amount", i, h.wager - wrong)]


def _surrender_collected_wrong(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A surrendered hand forfeits other than half its wager."""
    cands = [h for h in a.all_hands() if h.surrendered is not None and len(h.settles) == 1 and h.wager >= 4]
    h = _pick(rng, cands)
    if h is None:
        return None
    j = h.settles[0]
    taken = rng.choice((h.wager, h.wager // 4, 0))
    new = _clone(a.doc)
    new["events"][j]["amount"] = taken
    if taken == 0:
        new["events"][j]["result"] = "push"
    want = min((-(h.wager // 2), -((h.wager + 1) // 2)), key=lambda n: abs(n + taken))
    return new, [("surrender_amount", j, want + taken)]


def _double_face(a: _Round) -> str:
    return str(a.elections.get("double_card") or "face_up")


def _double_card_face_down(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
    return new, [("double_card_face", card[0])]


def _double_card_face_up(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
    return new, [("double_card_face", card[0])]


def _six_five_stands_soft_17(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A 6 to 5 table elects to stand on soft 17."""
    if not a.has_rules or a.elections.get("blackjack_pays") != "6:5":
        return None
    if a.elections.get("dealer_soft_17") == "stand":
        return None
    new = _clone(a.doc)
    new["table"]["rules"]["dealer_soft_17"] = "stand"
    return new, [("elect_6to5_soft17", None)]


def _additional_collected_late(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
    cands = [s for s, v in a.add_settles.items() if len(v) == 1 and a.net(v[0]) < 0 and v[0] < later]
    s = _pick(rng, cands)
    if s is None:
        return None
    new = _clone(a.doc)
    at = _move(new["events"], a.add_settles[s][0], later)
    return new, [("additional_timing", at)]


def _dealer_bj_double_collects_all(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Against a dealer blackjack, a doubled hand loses its double too (NJ 19:47-2.10(b))."""
    if not a.dealer_bj or a.ruleset.params.get("dealer_blackjack_collects") != "original_only":
        return None
    cands = [
        h
        for h in a.all_hands()
        if h.doubles and not a.split_seat(h.seat) and len(h.settles) == 1 and a.net(h.settles[0]) == -h.wager
    ]
    h = _pick(rng, cands)
    if h is None:
        return None
    new = _clone(a.doc)
    _resettle(new, a, h.settles[0], -h.stake)
    return new, [("dealer_bj_after_double", h.settles[0], h.stake - h.wager)]


def _dealer_bj_split_collects_all(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """Against a dealer blackjack, a split seat loses its split wagers too (NJ 13:69F-2.11(d))."""
    if not a.dealer_bj or a.ruleset.params.get("dealer_blackjack_collects") != "original_only":
        return None
    cands = [s for s, hs in a.seat_hands.items() if len(hs) > 1 and all(len(h.settles) == 1 for h in hs)]
    s = _pick(rng, cands)
    if s is None:
        return None
    new = _clone(a.doc)
    roles: Roles = []
    for h in a.seat_hands[s]:
        _resettle(new, a, h.settles[0], -h.stake)
        if h.doubles:
            # A double collected from a split hand breaches 19:47-2.10(b) as well.
            roles.append(("dealer_bj_after_double", h.settles[0], h.stake - h.wager))
    # The doubles owed back above, the split wagers are owed back too: all but the original wager.
    owed = (len(a.seat_hands[s]) - 1) * a.wager[s]
    return new, [*roles, ("dealer_bj_after_split", max(h.settles[0] for h in a.seat_hands[s]), owed)]


def _wager_outside_limits(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
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
    out = sum(1 for w in wagers if lo is not None and w < lo or hi is not None and w > hi)
    return new, [("wager_limits", None)] * out


# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    name: str
    fn: Callable[[_Round, random.Random], tuple[Doc, Roles] | None]

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def apply(self, round_: Doc, rng: random.Random) -> tuple[Doc, Expected] | None:
        """The mutated round and its expected findings, or None where this mutation does not apply."""
        return _apply(self, _Round(round_), rng)


# --- The state of play (round-v1.md section 2.1) ------------------------------------------------------------------


def _spare_card(a: _Round, rng: random.Random, most: int = 11) -> str | None:
    """A card the shoe still holds (not dealt as often as the decks hold it), worth at most ``most`` points (an
    ace counted one)."""
    cards = [
        r + s for r in "A23456789TJQK" for s in "CDHS" if _VAL[r] <= most and a.counts.get(r + s, 0) < a.decks
    ]
    return _pick(rng, cards)


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


def _card_after_settlement(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A card (with or without a recorded hit) is dealt to a hand after it was settled; the settlement stands as it
    was, judged by the hand it settled."""
    cands = []
    for h in a.all_hands():
        settled = h.even_money[0] if h.even_money else _one_settle(h)
        if settled is None:
            continue
        after = max([settled, *(i for i, _, _ in a.dealer), *a.dealer_reveals, *(i for i, _ in h.reveals)])
        cands.append((h, after))
    got = _pick(rng, cands)
    card = _spare_card(a, rng)
    if got is None or card is None:
        return None
    h, after = got
    roles = _complete_by_rule(a, h)
    if not roles:
        roles = ["play_after_dealer_bj" if a.dbj_peek is not None else "card_to_complete_hand"]
    new = _clone(a.doc)
    at = after + 1
    inserted = [{"type": "deal", "to": h.name, "card": card}]
    if rng.random() < 0.5:
        inserted.insert(0, {"type": "hit", "hand": h.name})
    new["events"][at:at] = inserted
    return new, [(role, at) for role in roles]


def _hit_after_stand(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """A hand that stood takes a hit and a card that does not bust it; it is settled as it then stood."""
    if a.dealer_bj or len(a.dealer) < 2:
        return None
    cands = []
    for h in a.all_hands():
        if not h.stands or h.doubles or h.surrendered is not None or h.even_money or len(h.settles) != 1:
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
    new = _clone(a.doc)
    ev = new["events"]
    ev[k + 1 : k + 1] = [{"type": "hit", "hand": h.name}, {"type": "deal", "to": h.name, "card": card}]
    held = _Hand(h.seat, h.num, h.wager, cards=[*h.cards, (k + 2, card, "up")])
    _resettle(new, a, h.settles[0] + 2, a.outcome(held, a.dealer_cards))
    return new, [("card_to_complete_hand", k + 1)]


def _late_stand(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """The stand on an incomplete hand is recorded after a card went to another hand (a later split hand of its
    box, a later box, or the dealer): play went on before the hand was complete."""
    end = a.initial_end()
    if end is None or a.dbj_peek is not None:
        return None
    deals = [(i, e["to"]) for i, e in enumerate(a.events) if i > end and e["type"] == "deal"]
    cands = []
    for h in a.all_hands():
        total, _ = _total(h.values)
        aces = (h.created_by is not None or h.splits) and h.values[0][0] == "A"
        if total >= 21 or aces or h.doubles or h.surrendered is not None or h.even_money or not h.settles:
            continue
        if a.is_bj(h):
            continue
        last = max([c[0] for c in h.cards] + h.splits)
        elsewhere = next((i for i, to in deals if i > last and to != h.name and _other(to, h)), None)
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
    return new, [("split_order" if a.split_seat(h.seat) else "play_out_of_turn", at)]


def _other(to: str, h: _Hand) -> bool:
    """Whether a card to ``to`` takes play past hand ``h``: the dealer, a later box, or another hand of its box."""
    if to == "dealer":
        return True
    seat, num = _hand_key(to)
    return seat > h.seat or (seat == h.seat and num != h.num)


def _play_after_dealer_blackjack(a: _Round, rng: random.Random) -> tuple[Doc, Roles] | None:
    """After a peek showed the dealer's blackjack, a hand that is not a blackjack hits and is dealt a card."""
    if a.dbj_peek is None:
        return None
    cands = [h for h in a.all_hands() if not a.is_bj(h) and h.even_money is None]
    h = _pick(rng, cands)
    card = _spare_card(a, rng)
    if h is None or card is None:
        return None
    at = rng.randint(a.dbj_peek + 1, len(a.events))
    inserted = [{"type": "deal", "to": h.name, "card": card}]
    if rng.random() < 0.7:
        inserted.insert(0, {"type": "hit", "hand": h.name})
    new = _clone(a.doc)
    new["events"][at:at] = inserted
    return new, [("play_after_dealer_bj", at)]


def _apply(m: Mutation, a: _Round, rng: random.Random) -> tuple[Doc, Expected] | None:
    out = m.fn(a, rng)
    if out is None:
        return None
    new, roles = out
    bound = a.ruleset.roles
    if not roles or any(r[0] not in bound for r in roles):
        return None
    return new, [(bound[r[0]].rule, *r[1:]) for r in roles]


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
    Mutation("dealer_bj_double_collects_all", _dealer_bj_double_collects_all),
    Mutation("dealer_bj_split_collects_all", _dealer_bj_split_collects_all),
    Mutation("card_after_settlement", _card_after_settlement),
    Mutation("hit_after_stand", _hit_after_stand),
    Mutation("late_stand", _late_stand),
    Mutation("play_after_dealer_blackjack", _play_after_dealer_blackjack),
]


def mutate(round_: Doc, rng: random.Random) -> tuple[Doc, Expected] | None:
    """One mutation applicable to the round, picked at random: the mutated round and the findings it must
    produce. None when no mutation applies."""
    a = _Round(round_)
    for k in rng.sample(range(len(MUTATIONS)), len(MUTATIONS)):
        out = _apply(MUTATIONS[k], a, rng)
        if out is not None:
            return out
    return None
