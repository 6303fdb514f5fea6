"""What the workbench's pages show, built from the use cases' answers: pure functions, no I/O, no framework.

The templates only lay these out. Money is in minor units everywhere below the page; here it becomes currency
(``$25.00``, ``NZ$12.50``). Times keep the offset the record gives them (the table's local time).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

from app.domain.cards import hand_total, is_natural
from app.wire.forms import canonical_card

CURRENCIES = {"US-NJ": "$", "NZ": "NZ$"}
"""The currency of each jurisdiction's amounts (round-v1: money is an integer count of its minor unit, cents)."""
SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
MONEY_ELECTIONS = frozenset({"min_chip", "min_wager", "max_wager"})


# --- money, times, links -------------------------------------------------------------------------------------


def money(amount: int | None, jurisdiction: str | None) -> str:
    """An amount in minor units as currency; no symbol when the jurisdiction (so the currency) is not one.

    >>> money(2500, "US-NJ"), money(1250, "NZ"), money(-5, "US-NJ"), money(123456, None), money(None, "NZ")
    ('$25.00', 'NZ$12.50', '-$0.05', '1,234.56', '')
    """
    if amount is None:
        return ""
    sign = "-" if amount < 0 else ""
    units, cents = divmod(abs(amount), 100)
    return f"{sign}{CURRENCIES.get(jurisdiction or '', '')}{units:,}.{cents:02d}"


def to_player(amount: int, jurisdiction: str | None) -> str:
    """A net amount for the player in words.

    >>> to_player(3750, "US-NJ"), to_player(-2500, "US-NJ"), to_player(0, "NZ")
    ('$37.50 paid to the player', '$25.00 collected from the player', 'nothing changes hands')
    """
    if amount > 0:
        return f"{money(amount, jurisdiction)} paid to the player"
    if amount < 0:
        return f"{money(-amount, jurisdiction)} collected from the player"
    return "nothing changes hands"


def owed(delta: int, jurisdiction: str | None) -> str:
    """A finding's ``amount_delta`` in words (round-v1 section 4: + owed to the player, - owed by the player).

    >>> owed(2500, "US-NJ"), owed(-500, "NZ"), owed(0, "US-NJ")
    ('$25.00 owed to the player', 'NZ$5.00 owed by the player', 'nothing owed either way')
    """
    if delta > 0:
        return f"{money(delta, jurisdiction)} owed to the player"
    if delta < 0:
        return f"{money(-delta, jurisdiction)} owed by the player"
    return "nothing owed either way"


def percent(rate: float | None) -> str:
    """A report's rate (a fraction) for people: to one decimal place from 1%, two significant digits below; a dash
    where there is none (no rounds, or by rule).

    >>> percent(0.333333), percent(0.666667), percent(0.0), percent(1.0), percent(0.000125), percent(None)
    ('33.3%', '66.7%', '0%', '100%', '0.013%', '—')
    """
    if rate is None:
        return "\u2014"
    pct = rate * 100
    text = f"{pct:.1f}".removesuffix(".0") if pct >= 1 or pct == 0 else f"{pct:.2g}"
    return f"{text}%"


def local_time(text: str | None) -> str:
    """An RFC 3339 time as the table saw it: its own offset kept (``Z`` is UTC).

    >>> local_time("2026-11-30T22:15:00-05:00"), local_time("2026-12-01T03:15:00Z"), local_time("junk")
    ('2026-11-30 22:15:00 (UTC-05:00)', '2026-12-01 03:15:00 (UTC)', 'junk')
    """
    if not text:
        return ""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return text
    if when.tzinfo is None:
        return text
    offset = when.utcoffset() or timedelta(0)
    if offset == timedelta(0):
        zone = "UTC"
    else:
        minutes = int(offset.total_seconds() // 60)
        zone = f"UTC{'+' if minutes > 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return f"{when.strftime('%Y-%m-%d %H:%M:%S')} ({zone})"


def slug(text: str) -> str:
    """
    >>> slug("US-NJ@2024-09-16 19:47-2.10(b)")
    'US-NJ-2024-09-16-19-47-2-10-b'
    """
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def rule_anchor(ruleset_alias: str, rule: str) -> str:
    """The ``id`` of a rule's row in the catalogue page (unique across rulesets).

    >>> rule_anchor("NZ@1994-10-31", "9.3")
    'rule-NZ-1994-10-31-9-3'
    """
    return "rule-" + slug(f"{ruleset_alias} {rule}")


def rule_href(jurisdiction: str, ruleset_alias: str | None, rule: str) -> str:
    """Where a finding's rule is described: its row of the catalogue page.

    >>> rule_href("US-NJ", "US-NJ@2024-09-16", "19:47-2.10(b)")
    '/ui/rules?jurisdiction=US-NJ#rule-US-NJ-2024-09-16-19-47-2-10-b'
    """
    base = "/ui/rules?" + urlencode({"jurisdiction": jurisdiction})
    return base if ruleset_alias is None else f"{base}#{rule_anchor(ruleset_alias, rule)}"


_INVISIBLE = {
    c: f"\u2039U+{c:04X}\u203a"
    for c in (
        *range(0x00, 0x09),
        *range(0x0B, 0x20),
        *range(0x7F, 0xA0),
        0x061C,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        0x2028,
        0x2029,
    )
}


def visible(value: object) -> object:
    """A value as the workbench shows it: control characters and the bidirectional formatting characters (which
    reorder what follows them: an ID with U+202E reads backwards) written out as ‹U+202E›. Other values as they are.

    >>> visible("BJ\u202e21"), visible(7)
    ('BJ‹U+202E›21', 7)
    """
    return value.translate(_INVISIBLE) if isinstance(value, str) else value


def round_href(
    round_id: str, source: str | None = None, jurisdiction: str | None = None, tail: str = ""
) -> str:
    """A round's page (``tail`` "/record": its record's bytes), narrowed to one source and jurisdiction.

    >>> round_href("R 1/2", "casino-a", "NZ"), round_href("R1", tail="/record")
    ('/ui/rounds/R%201%2F2?source=casino-a&jurisdiction=NZ', '/ui/rounds/R1/record')
    """
    query = {k: v for k, v in (("source", source), ("jurisdiction", jurisdiction)) if v}
    return f"/ui/rounds/{quote(round_id, safe='')}{tail}" + (f"?{urlencode(query)}" if query else "")


# --- cards and hands -----------------------------------------------------------------------------------------


@dataclass
class CardView:
    code: str
    """As the record writes it (``data-card``)."""
    rank: str
    suit: str
    symbol: str
    color: str
    suit_name: str
    down: bool = False
    """Dealt face down and never turned up: drawn as a card's back."""


def card_view(code: str, down: bool = False) -> CardView:
    """
    >>> c = card_view("10h"); (c.code, c.rank, c.symbol, c.color)
    ('10h', '10', '♥', 'red')
    """
    canon = canonical_card(code)
    if canon is None:
        return CardView(code, "?", "", "", "black", "unknown", down)
    rank = "10" if canon[0] == "T" else canon[0]
    suit = canon[1]
    return CardView(
        code, rank, suit, SUIT_SYMBOLS[suit], "red" if suit in "DH" else "black", SUIT_NAMES[suit], down
    )


def hand_key(name: str) -> str:
    """``"3"`` and ``"3.1"`` are one hand (round-v1 section 1).

    >>> hand_key("3"), hand_key("3.1"), hand_key("3.2"), hand_key("dealer")
    ('3.1', '3.1', '3.2', 'dealer')
    """
    if name == "dealer":
        return name
    seat, _, n = name.partition(".")
    return f"{seat}.{n or 1}"


@dataclass
class HandView:
    key: str
    label: str = ""
    cards: list[CardView] = field(default_factory=list)
    doubled: int = 0
    from_split: bool = False
    surrendered: bool = False
    settlements: list[str] = field(default_factory=list)
    total: str = ""
    outcome: str = ""
    stake: int | None = None
    """The wager the hand was dealt with (the seat's, or the split's), before any double."""


@dataclass
class BurnView:
    """A burned card: it left the shoe and belongs to no hand (round-v1 section 2.3)."""

    event: int
    card: CardView
    face: str
    """``face down`` or ``face up``, as the record says it was burned."""


@dataclass
class VoidView:
    """The round declared void (round-v1 section 2.3): no hand wins or loses."""

    event: int | None
    """The ``void`` event (None: the audit says so, the record's events do not)."""
    reason: str
    """In words: ``misdeal``, ``card exposed``, ``shoe error``, ``equipment``, ``other``."""
    returned: list[str]
    """The wagers returned after it (``settle`` with ``result: "void"``), in words, in the order settled."""


@dataclass
class SeatView:
    seat: int
    wager: int | None
    hands: list[HandView]
    side: list[str]
    """Insurance, even money and additional wagers, in words."""


@dataclass
class TableView:
    dealer: HandView
    seats: list[SeatView]
    burned: list[BurnView] = field(default_factory=list)
    """Burned cards, apart from the hands, in the order burned."""


def _total(cards: Sequence[CardView], from_split: bool) -> str:
    canon = [canonical_card(c.code) for c in cards]
    known = [c for c in canon if c is not None]
    if not known:
        return "no cards"
    if len(known) != len(canon):
        return "?"
    total, soft = hand_total(known)
    if not from_split and is_natural(known):
        return "blackjack"
    if total > 21:
        return f"{total}, bust"
    return f"{total}{' soft' if soft else ''}"


def _seat_of(key: str) -> int | None:
    head = key.partition(".")[0]
    return int(head) if head.isdigit() else None


def _settle_text(ev: Mapping[str, Any], jurisdiction: str | None) -> str:
    result = str(ev.get("result", "?"))
    amount = ev.get("amount")
    if result == "void":
        return "void: wager returned" if not amount else f"void: {money(amount, jurisdiction)} moved"
    if not isinstance(amount, int) or result == "push" or amount == 0:
        return result if result != "lose" or amount else "push (stake returned)"
    verb = "paid" if result == "win" else "collected"
    return f"{result}: {money(amount, jurisdiction)} {verb}"


class _Table:
    """The hands as the record deals them (what the table did, right or wrong): a split moves the hand's second card
    to a new hand ``<seat>.<m>``, m one more than the seat's hands so far (round-v1 section 1)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self.jurisdiction = record.get("jurisdiction")
        self.hands: dict[str, HandView] = {"dealer": HandView("dealer", "Dealer")}
        self.seats: dict[int, SeatView] = {}
        self.side_stakes: dict[tuple[int, str], int] = {}
        """(seat, "insurance" or "additional") -> the amount wagered."""
        for s in record.get("seats") or ():
            if isinstance(s, Mapping) and isinstance(s.get("seat"), int):
                n = s["seat"]
                wager = s.get("wager") if isinstance(s.get("wager"), int) else None
                view = self.seats[n] = SeatView(n, wager, [], [])
                extra = s.get("additional_wager")
                if isinstance(extra, Mapping):
                    kind = str(extra.get("kind", "")).replace("_", " ")
                    view.side.append(
                        f"additional wager ({kind}): {money(extra.get('amount'), self.jurisdiction)}"
                    )
                    if isinstance(extra.get("amount"), int):
                        self.side_stakes[(n, "additional")] = extra["amount"]
                self._hand(f"{n}.1").stake = wager  # the box's first hand, in seat order
        self.burned: list[BurnView] = []
        self.void: tuple[int, str] | None = None
        self.returned: list[str] = []
        self.settled: dict[int, tuple[list[str], int, str]] = {}
        """Each settlement's event -> where its words are (a hand's or a seat's list, the index) and the words, so
        that a correction (``corrects``) is written beside the settlement it replaces."""
        self.index = 0

    def _hand(self, name: str) -> HandView:
        key = hand_key(name)
        hand = self.hands.get(key)
        if hand is None:
            hand = self.hands[key] = HandView(key)
            seat = _seat_of(key)
            if seat is not None:
                if seat not in self.seats:
                    self.seats[seat] = SeatView(seat, None, [], [])
                self.seats[seat].hands.append(hand)
        return hand

    def apply(self, ev: Mapping[str, Any]) -> list[CardView]:
        """Play one event (the next of the record's); the cards it shows (a deal's, a reveal's, a burn's)."""
        index, self.index = self.index, self.index + 1
        kind = ev.get("type")
        j = self.jurisdiction
        if kind == "burn" and isinstance(ev.get("card"), str):
            face = "face up" if ev.get("face") == "up" else "face down"
            self.burned.append(BurnView(index, card_view(ev["card"]), face))
            return [card_view(ev["card"])]
        if kind == "void":
            self.void = (index, str(ev.get("reason", "?")).replace("_", " "))
            return []
        if kind == "settle":
            self._settle(index, ev)
            return []
        if kind == "deal" and isinstance(ev.get("to"), str) and isinstance(ev.get("card"), str):
            card = card_view(ev["card"], down=ev.get("face") == "down")
            self._hand(ev["to"]).cards.append(card)
            return [card_view(ev["card"], down=card.down)]
        if kind == "reveal" and isinstance(ev.get("to"), str) and isinstance(ev.get("card"), str):
            want = canonical_card(ev["card"])
            for c in self._hand(ev["to"]).cards:
                if c.down and canonical_card(c.code) == want:
                    c.down = False
                    break
            return [card_view(ev["card"])]
        hand_name = ev.get("hand")
        if kind == "split" and isinstance(hand_name, str):
            hand = self._hand(hand_name)
            seat = _seat_of(hand.key)
            if seat is not None:
                new = self._hand(f"{seat}.{len(self.seats[seat].hands) + 1}")
                new.from_split = hand.from_split = True
                new.stake = ev.get("amount") if isinstance(ev.get("amount"), int) else None
                if len(hand.cards) >= 2:
                    new.cards.append(hand.cards.pop(1))
        elif kind == "double" and isinstance(hand_name, str) and isinstance(ev.get("amount"), int):
            self._hand(hand_name).doubled += ev["amount"]
        elif kind == "surrender" and isinstance(hand_name, str):
            self._hand(hand_name).surrendered = True
        elif kind in ("insurance", "even_money") and isinstance(ev.get("seat"), int):
            seat_view = self.seats.get(ev["seat"])
            if kind == "insurance" and isinstance(ev.get("amount"), int):
                self.side_stakes[(ev["seat"], "insurance")] = ev["amount"]
            if seat_view is not None:
                amount = money(ev.get("amount"), j)
                seat_view.side.append(
                    f"insurance of {amount}" if kind == "insurance" else f"even money: {amount} paid"
                )
        return []

    def _settle(self, index: int, ev: Mapping[str, Any]) -> None:
        """A settlement in words, on its hand (main) or its seat (side wagers); a correction beside the settlement it
        replaces (its ``corrects``: the settlement, or an earlier correction of it); a voided wager's return also in
        the list of the returned."""
        bet, hand_name, seat_no = ev.get("bet"), ev.get("hand"), ev.get("seat")
        words = _settle_text(ev, self.jurisdiction)
        if bet == "main" and isinstance(hand_name, str):
            hand = self._hand(hand_name)
            into, whose = hand.settlements, f"the main wager of {self.label(hand_name)}"
            stake = None if hand.stake is None else hand.stake + hand.doubled
        elif isinstance(seat_no, int) and seat_no in self.seats:
            what = "insurance" if bet == "insurance" else "additional wager"
            into, whose = self.seats[seat_no].side, f"seat {seat_no}'s {what}"
            words, stake = f"{what} settled, {words}", self._side_stake(seat_no, bet)
        else:
            return
        if ev.get("result") == "void":
            self.returned.append(whose + (f" ({money(stake, self.jurisdiction)})" if stake else ""))
        replaced = self.settled.get(ev["corrects"]) if isinstance(ev.get("corrects"), int) else None
        if replaced is not None and replaced[0] is into:
            slot, first = replaced[1], replaced[2]
            into[slot] = f"{first}, corrected at #{index} to {_settle_text(ev, self.jurisdiction)}"
            self.settled[index] = (into, slot, first)
            return
        into.append(words)
        self.settled[index] = (into, len(into) - 1, words)

    def _side_stake(self, seat_no: int, bet: Any) -> int | None:
        """The insurance placed, or the additional wager, of a seat (as the record states them)."""
        return self.side_stakes.get((seat_no, str(bet)))

    def label(self, name: str) -> str:
        key = hand_key(name)
        if key == "dealer":
            return "the dealer"
        seat = _seat_of(key)
        one = seat is not None and seat in self.seats and len(self.seats[seat].hands) <= 1
        return f"seat {seat}" if one else f"hand {key}"

    def view(self) -> TableView:
        for key, hand in self.hands.items():
            hand.label = "Dealer" if key == "dealer" else self.label(key).capitalize()
            hand.total = _total(hand.cards, hand.from_split)
            if key == "dealer":
                continue
            parts = []
            if hand.doubled:
                parts.append(f"doubled {money(hand.doubled, self.jurisdiction)}")
            if hand.surrendered:
                parts.append("surrendered")
            parts.extend(hand.settlements or ["not settled"])
            hand.outcome = "; ".join(parts)
        return TableView(self.hands["dealer"], [self.seats[n] for n in sorted(self.seats)], self.burned)


# --- findings ------------------------------------------------------------------------------------------------


@dataclass
class FindingView:
    rule: str
    citation: str
    citation_status: str
    title: str
    category: str
    paraphrase: str | None
    message: str
    hand: str | None
    event: int | None
    expected: str
    actual: str
    amount_delta: int | None
    owed: str | None
    """What ``amount_delta`` says is owed, in words: for a settlement the table corrected, what is still owed."""
    rule_href: str
    corrected_by: int | None = None
    """The event of the table's correction of the settlement at fault (round-v1 section 2.3), if it corrected it."""
    corrected: str | None = None
    """With ``corrected_by``: the player's net after the correction, in words."""


def _value(value: Any, is_money: bool, jurisdiction: str | None) -> str:
    """A finding's expected or actual value in words: money (net to the player) where the finding is about money."""
    if value is None:
        return "\u2014"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if is_money and isinstance(value, int):
        return to_player(value, jurisdiction)
    return str(value)


def finding_view(
    f: Mapping[str, Any],
    rules: Mapping[str, Mapping[str, Any]],
    jurisdiction: str,
    ruleset_alias: str | None,
    label: Any = None,
) -> FindingView:
    rule = str(f.get("rule", "?"))
    info = rules.get(rule) or {}
    raw = f.get("amount_delta")
    delta = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    is_money = delta is not None
    hand = f.get("hand")
    by, after = f.get("corrected_by"), f.get("corrected_actual")
    corrected_by = by if isinstance(by, int) and not isinstance(by, bool) else None
    corrected = None
    if corrected_by is not None:
        corrected = (
            to_player(after, jurisdiction) if isinstance(after, int) else _value(after, False, jurisdiction)
        )
    return FindingView(
        rule=rule,
        citation=str(info.get("citation") or f.get("citation") or rule),
        citation_status=str(info.get("citation_status") or f.get("citation_status") or ""),
        title=str(info.get("title") or f.get("title") or ""),
        category=str(f.get("category") or ""),
        paraphrase=info.get("paraphrase"),
        message=str(f.get("message") or ""),
        hand=(label(hand) if label is not None else hand) if isinstance(hand, str) else None,
        event=f.get("event") if isinstance(f.get("event"), int) else None,
        expected=_value(f.get("expected"), is_money, jurisdiction),
        actual=_value(f.get("actual"), is_money, jurisdiction),
        amount_delta=delta,
        owed=None if delta is None else owed(delta, jurisdiction),
        rule_href=rule_href(jurisdiction, ruleset_alias, rule),
        corrected_by=corrected_by,
        corrected=corrected,
    )


# --- the timeline --------------------------------------------------------------------------------------------


@dataclass
class EventView:
    index: int
    type: str
    text: str
    cards: list[CardView]
    at: str
    note: str | None
    findings: list[FindingView] = field(default_factory=list)
    compare: list[FindingView] = field(default_factory=list)


def describe(ev: Mapping[str, Any], label: Any, jurisdiction: str | None) -> str:
    """What an event says happened, in words (``label`` names a hand)."""
    kind = str(ev.get("type", "?"))
    j = jurisdiction
    amount = ev.get("amount")
    if kind == "deal":
        face = "face down" if ev.get("face") == "down" else "face up"
        return f"Card dealt to {label(str(ev.get('to')))}, {face}"
    if kind == "reveal":
        return f"Face-down card of {label(str(ev.get('to')))} turned up"
    if kind == "peek":
        found = "blackjack" if ev.get("dealer_blackjack") else "no blackjack"
        return f"The dealer checked the hole card: {found}"
    if kind == "insurance":
        return f"Seat {ev.get('seat')} places insurance of {money(amount, j)}"
    if kind == "even_money":
        return f"Seat {ev.get('seat')} takes even money: {money(amount, j)} paid"
    if kind == "double":
        return f"{label(str(ev.get('hand'))).capitalize()} doubles down: {money(amount, j)} more"
    if kind == "split":
        return f"{label(str(ev.get('hand'))).capitalize()} splits: {money(amount, j)} on the new hand"
    if kind == "surrender":
        return f"{label(str(ev.get('hand'))).capitalize()} surrenders"
    if kind == "hit":
        return f"{label(str(ev.get('hand'))).capitalize()} asks for a card (hit)"
    if kind == "stand":
        return f"{label(str(ev.get('hand'))).capitalize()} stands"
    if kind == "settle":
        bet = ev.get("bet")
        if bet == "main":
            whose = f"the main wager of {label(str(ev.get('hand')))}"
        else:
            whose = f"seat {ev.get('seat')}'s {'insurance' if bet == 'insurance' else 'additional wager'}"
        corrects = ev.get("corrects")
        if isinstance(corrects, int) and not isinstance(corrects, bool):
            return f"Settlement #{corrects} corrected: {whose}, {_settle_text(ev, j)}"
        return f"Settled {whose}: {_settle_text(ev, j)}"
    if kind == "burn":
        return f"Card burned, {'face up' if ev.get('face') == 'up' else 'face down'} (on no hand)"
    if kind == "void":
        return f"The round is declared void: {str(ev.get('reason', '?')).replace('_', ' ')}"
    return kind


# --- the round page ------------------------------------------------------------------------------------------


@dataclass
class AuditView:
    audit_no: int | None
    created_at: str
    engine_version: str
    ruleset: str
    verdict: str
    finding_count: int
    reaudit_id: str | None
    added: list[FindingView]
    removed: list[FindingView]
    changed: list[tuple[FindingView, FindingView]]
    first: bool


@dataclass
class CompareView:
    ruleset: str
    in_force: bool
    verdict: str
    finding_count: int
    absences: list[FindingView]


@dataclass
class RoundPage:
    round_id: str
    source: str
    jurisdiction: str
    table_id: str
    dealer_id: str | None
    shoe_id: str | None
    played_at: str
    received_at: str
    verdict: str
    ruleset: str
    ruleset_alias: str | None
    engine_version: str
    elections_source: str
    elections_registration: int | None
    elections: list[tuple[str, str]]
    record_sha256: str
    record_href: str
    evidence_href: str
    table: TableView
    timeline: list[EventView]
    absences: list[FindingView]
    finding_count: int
    audits: list[AuditView]
    compare: CompareView | None
    void: VoidView | None = None


def _election_value(name: str, value: Any, jurisdiction: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name in MONEY_ELECTIONS and isinstance(value, int):
        return money(value, jurisdiction)
    return str(value).replace("_", " ")


def audit_history(
    lookup: Mapping[str, Any], rules: Mapping[str, Mapping[str, Any]], alias: Mapping[str, str], label: Any
) -> list[AuditView]:
    """The round's audits, oldest first: the lookup's ``audits`` (each with what changed from the one before), or,
    from a service that keeps one audit per round, that one."""
    jurisdiction = str(lookup.get("jurisdiction", ""))
    audit = lookup.get("audit") or {}
    listed = lookup.get("audits")
    if not isinstance(listed, list) or not listed:
        return [
            AuditView(
                None,
                local_time(lookup.get("received_at")),
                str(audit.get("engine_version", "")),
                str(audit.get("ruleset", "")),
                str(audit.get("verdict", "")),
                len(audit.get("findings") or ()),
                None,
                [],
                [],
                [],
                True,
            )
        ]
    out = []
    for a in listed:
        rs = str(a.get("ruleset", ""))

        def fv(f: Mapping[str, Any], rs: str = rs) -> FindingView:
            return finding_view(f, rules, jurisdiction, alias.get(rs), label)

        changes = a.get("changes") or None
        out.append(
            AuditView(
                a.get("audit_no"),
                local_time(a.get("created_at")),
                str(a.get("engine_version", "")),
                rs,
                str(a.get("verdict", "")),
                int(a.get("finding_count") or 0),
                a.get("reaudit_id"),
                [fv(f) for f in (changes or {}).get("added") or ()],
                [fv(f) for f in (changes or {}).get("removed") or ()],
                [(fv(c["before"]), fv(c["after"])) for c in (changes or {}).get("changed") or ()],
                changes is None,
            )
        )
    return out


def round_page(
    lookup: Mapping[str, Any],
    aliases: Mapping[str, str],
    compare: Mapping[str, Any] | None = None,
    compare_rules: Mapping[str, Mapping[str, Any]] | None = None,
) -> RoundPage:
    """The round page of a lookup answer (``GET /v1/rounds/{id}``), and optionally of a what-if audit of the same
    round to show beside it. ``aliases``: each ruleset's alias by its name."""
    record: Mapping[str, Any] = lookup.get("record") or {}
    audit: Mapping[str, Any] = lookup.get("audit") or {}
    jurisdiction = str(lookup.get("jurisdiction") or record.get("jurisdiction") or "")
    rules: Mapping[str, Mapping[str, Any]] = lookup.get("rules") or {}
    ruleset = str(audit.get("ruleset", ""))
    alias = aliases.get(ruleset)
    events = [e if isinstance(e, Mapping) else {} for e in record.get("events") or ()]

    table = _Table(record)
    shown = [table.apply(ev) for ev in events]
    table_view = table.view()
    label = table.label

    def fv(
        f: Mapping[str, Any], rules: Mapping[str, Mapping[str, Any]] = rules, alias: Any = alias
    ) -> FindingView:
        return finding_view(f, rules, jurisdiction, alias, label)

    timeline = [
        EventView(
            i,
            str(ev.get("type", "?")),
            describe(ev, label, jurisdiction),
            shown[i],
            local_time(ev.get("at")) if isinstance(ev.get("at"), str) else "",
            ev.get("note") if isinstance(ev.get("note"), str) else None,
        )
        for i, ev in enumerate(events)
    ]
    absences: list[FindingView] = []
    findings = audit.get("findings") or ()
    for f in findings:
        view = fv(f)
        if view.event is not None and 0 <= view.event < len(timeline):
            timeline[view.event].findings.append(view)
        else:
            absences.append(view)

    compare_view = None
    if compare is not None:
        c_alias = aliases.get(str(compare.get("ruleset", "")))
        c_absences = []
        for f in compare.get("findings") or ():
            view = fv(f, compare_rules or {}, c_alias)
            if view.event is not None and 0 <= view.event < len(timeline):
                timeline[view.event].compare.append(view)
            else:
                c_absences.append(view)
        compare_view = CompareView(
            str(compare.get("ruleset", "")),
            bool(compare.get("ruleset_in_force", True)),
            str(compare.get("verdict", "")),
            len(compare.get("findings") or ()),
            c_absences,
        )

    elections = audit.get("elections") or {}
    table_doc = record.get("table") if isinstance(record.get("table"), Mapping) else {}
    return RoundPage(
        round_id=str(lookup.get("round_id", "")),
        source=str(lookup.get("source", "")),
        jurisdiction=jurisdiction,
        table_id=str(lookup.get("table_id") or (table_doc or {}).get("id") or ""),
        dealer_id=record.get("dealer_id") if isinstance(record.get("dealer_id"), str) else None,
        shoe_id=record.get("shoe_id") if isinstance(record.get("shoe_id"), str) else None,
        played_at=local_time(record.get("played_at") or lookup.get("played_at")),
        received_at=local_time(lookup.get("received_at")),
        verdict=str(audit.get("verdict", "")),
        ruleset=ruleset,
        ruleset_alias=alias,
        engine_version=str(audit.get("engine_version", "")),
        elections_source=str(audit.get("elections_source", "")),
        elections_registration=audit.get("elections_registration"),
        elections=[(k, _election_value(k, v, jurisdiction)) for k, v in sorted(elections.items())],
        record_sha256=str(lookup.get("record_sha256", "")),
        record_href=round_href(
            str(lookup.get("round_id", "")), lookup.get("source"), jurisdiction, "/record"
        ),
        evidence_href=round_href(
            str(lookup.get("round_id", "")), lookup.get("source"), jurisdiction, "/evidence"
        ),
        table=table_view,
        timeline=timeline,
        absences=absences,
        finding_count=len(findings),
        audits=audit_history(lookup, rules, aliases, label),
        compare=compare_view,
        void=void_view(audit, table),
    )


def void_view(audit: Mapping[str, Any], table: _Table) -> VoidView | None:
    """The round's void, as its audit says it (else as its record does), with the wagers returned after it."""
    said = audit.get("void")
    if isinstance(said, Mapping):
        event = said.get("event") if isinstance(said.get("event"), int) else None
        return VoidView(event, str(said.get("reason", "?")).replace("_", " "), table.returned)
    if table.void is not None:
        return VoidView(table.void[0], table.void[1], table.returned)
    return None


# --- reports -------------------------------------------------------------------------------------------------


@dataclass
class Bar:
    day: str
    count: int
    x: float
    y: float
    width: float
    height: float


@dataclass
class Chart:
    width: int
    height: int
    left: int
    bottom: int
    bars: list[Bar]
    y_ticks: list[tuple[float, int]]
    x_labels: list[tuple[float, str]]
    top: int
    total: int
    note: str | None


def _nice(n: int) -> int:
    """The smallest of 1, 2, 5 times a power of ten at or above ``n``.

    >>> [_nice(n) for n in (0, 1, 3, 7, 12, 51, 1000)]
    [1, 1, 5, 10, 20, 100, 1000]
    """
    if n <= 1:
        return 1
    power: int = 10 ** int(math.floor(math.log10(n)))
    for m in (1, 2, 5, 10):
        if m * power >= n:
            return m * power
    return 10 * power


MAX_DAYS = 400


def day_chart(
    counts: Mapping[str, int],
    first: date | None,
    last: date | None,
    width: int = 900,
    height: int = 260,
) -> Chart:
    """A bar chart of findings per day: every day from ``first`` to ``last`` (both included; else the days with
    rounds), at most :data:`MAX_DAYS` (the latest).

    >>> c = day_chart({"2026-11-02": 3}, date(2026, 11, 1), date(2026, 11, 3))
    >>> [(b.day, b.count) for b in c.bars], c.y_ticks[-1], c.total
    ([('2026-11-01', 0), ('2026-11-02', 3), ('2026-11-03', 0)], (30.0, 5), 3)
    """
    known = sorted(counts)
    start = first or (date.fromisoformat(known[0]) if known else None)
    end = last or (date.fromisoformat(known[-1]) if known else None)
    days: list[str] = []
    note = None
    if start is not None and end is not None and start <= end:
        span = (end - start).days + 1
        if span > MAX_DAYS:
            start = end - timedelta(days=MAX_DAYS - 1)
            note = f"The last {MAX_DAYS} days of the range are drawn."
        days = [(start + timedelta(days=i)).isoformat() for i in range(min(span, MAX_DAYS))]
    left, bottom, top, right = 48, 40, 30, 10
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = _nice(max((counts.get(d, 0) for d in days), default=0))
    slot = plot_w / max(len(days), 1)
    bars = []
    for i, d in enumerate(days):
        n = counts.get(d, 0)
        h = plot_h * n / peak
        bars.append(Bar(d, n, left + i * slot + slot * 0.1, top + plot_h - h, max(slot * 0.8, 1.0), h))
    ticks = [(top + plot_h - plot_h * v / peak, v) for v in sorted({0, peak // 2, peak}) if v or peak]
    step = max(1, math.ceil(len(days) / 8))
    labels = [(left + i * slot + slot / 2, d) for i, d in enumerate(days) if i % step == 0]
    return Chart(
        width, height, left, top + plot_h, bars, ticks, labels, top, sum(b.count for b in bars), note
    )


def findings_by_key(groups: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Findings per group of a summary report (per day, per rule ...), its null group left out."""
    return {str(g["key"]): int(g["findings"]) for g in groups if g.get("key") is not None}


def default_range(today: date, days: int = 30) -> tuple[str, str]:
    """The last ``days`` days, today included (``to`` is exclusive, as the API reads it).

    >>> default_range(date(2026, 12, 1))
    ('2026-11-01', '2026-12-02')
    """
    return (today - timedelta(days=days)).isoformat(), (today + timedelta(days=1)).isoformat()


def utc_today() -> date:
    return datetime.now(UTC).date()


# --- alerts (the pit page) ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AlertView:
    """An alert as the pit page and the round page show it."""

    id: str
    round_id: str
    table_id: str
    where: str
    """The seat and hand (``seat 2, hand 2.1``), the dealer, or the round."""
    rule: str
    title: str
    message: str
    owed: str
    """The money owed in words; empty for a finding not about money."""
    amount_owed: int | None
    played: str
    href: str
    corrected: bool
    acknowledged_at: str | None
    acknowledged_by: str | None
    note: str | None

    @property
    def closed(self) -> bool:
        """Corrected by the table (a correction closes the alert) or acknowledged by a supervisor."""
        return self.corrected or self.acknowledged_at is not None


def where_at_table(seat: int | None, hand: str | None) -> str:
    """Where at the table a finding is.

    >>> where_at_table(2, "2.1"), where_at_table(None, "dealer"), where_at_table(None, None), where_at_table(3, "3")
    ('seat 2, hand 2.1', 'dealer', 'the round', 'seat 3')
    """
    if seat is not None:
        return f"seat {seat}" + (f", hand {hand}" if hand and hand != str(seat) else "")
    return hand or "the round"


def alert_view(
    body: Mapping[str, Any], acknowledgement: Mapping[str, Any] | None, jurisdiction: str | None = None
) -> AlertView:
    """An alert's view from its body (:meth:`app.usecases.alerts.Alert.body`) and its acknowledgement (or None)."""
    jurisdiction = jurisdiction or body["jurisdiction"]
    amount = body.get("amount_owed")
    return AlertView(
        id=body["alert_id"],
        round_id=body["round_id"],
        table_id=body["table_id"],
        where=where_at_table(body.get("seat"), body.get("hand")),
        rule=str(body.get("rule") or ""),
        title=str(body.get("title") or ""),
        message=str(body.get("message") or ""),
        owed="" if amount is None else owed(amount, jurisdiction),
        amount_owed=amount,
        played=local_time(body.get("played_at")),
        href=round_href(body["round_id"], body["source"], body["jurisdiction"]),
        corrected=body.get("corrected_by") is not None,
        acknowledged_at=None if acknowledgement is None else local_time(acknowledgement["acknowledged_at"]),
        acknowledged_by=None if acknowledgement is None else acknowledgement["acknowledged_by"],
        note=None if acknowledgement is None else acknowledgement.get("note"),
    )


def duration(seconds: float | None) -> str:
    """A wait for people: seconds under a minute, minutes and seconds under an hour, else hours and minutes.

    >>> duration(4.25), duration(65), duration(3 * 3600 + 125), duration(None)
    ('4.2 s', '1 min 5 s', '3 h 2 min', '—')
    """
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
