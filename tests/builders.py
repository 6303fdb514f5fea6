"""Builders of wire-format rounds for tests: small functions, not factories.

r = a_round("US-NJ", seats=[seat(1, 2500)], events=[deal("1", "6H"), deal("dealer", "9C"), ...])
assert fired(r) == [("13:69F-2.12(b)1", 7)]
"""

from __future__ import annotations

from typing import Any

from app.usecases.auditing import audit_round
from app.wire.schema import round_from_obj

NJ_DATE = "2026-11-30T22:10:00-05:00"
NZ_DATE = "1995-03-04T21:00:00+12:00"
NJ_RULES: dict[str, Any] = {
    "decks": 6,
    "dealer_soft_17": "stand",
    "blackjack_pays": "3:2",
    "dealer_second_card": "initial_deal",
    "peek": True,
}
NZ_RULES: dict[str, Any] = {
    "decks": 6,
    "dealer_soft_17": "stand",
    "blackjack_pays": "3:2",
    "dealer_second_card": "after_players",
    "min_chip": 100,
}


def seat(n: int, wager: int, additional: tuple[str, int] | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"seat": n, "wager": wager}
    if additional:
        s["additional_wager"] = {"kind": additional[0], "amount": additional[1]}
    return s


def a_round(
    jurisdiction: str = "US-NJ",
    *,
    seats: list[dict[str, Any]] | None = None,
    events: list[dict[str, Any]],
    rules: dict[str, Any] | None = None,
    extra_rules: dict[str, Any] | None = None,
    played_at: str | None = None,
    round_id: str = "TEST-1",
) -> dict[str, Any]:
    """A round; ``rules`` replaces the jurisdiction's test elections, ``extra_rules`` amends them."""
    base = dict(NJ_RULES if jurisdiction == "US-NJ" else NZ_RULES) if rules is None else dict(rules)
    base.update(extra_rules or {})
    return {
        "round_id": round_id,
        "jurisdiction": jurisdiction,
        "played_at": played_at or (NJ_DATE if jurisdiction == "US-NJ" else NZ_DATE),
        "table": {"id": "T1", "rules": base},
        "seats": seats if seats is not None else [seat(1, 2500)],
        "events": events,
    }


def deal(to: str, card: str, face: str = "up") -> dict[str, Any]:
    d = {"type": "deal", "to": to, "card": card}
    if face != "up":
        d["face"] = face
    return d


def reveal(to: str, card: str) -> dict[str, Any]:
    return {"type": "reveal", "to": to, "card": card}


def peek(dealer_blackjack: bool) -> dict[str, Any]:
    return {"type": "peek", "dealer_blackjack": dealer_blackjack}


def hit(hand: str) -> dict[str, Any]:
    return {"type": "hit", "hand": hand}


def stand(hand: str) -> dict[str, Any]:
    return {"type": "stand", "hand": hand}


def double(hand: str, amount: int) -> dict[str, Any]:
    return {"type": "double", "hand": hand, "amount": amount}


def split(hand: str, amount: int) -> dict[str, Any]:
    return {"type": "split", "hand": hand, "amount": amount}


def surrender(hand: str) -> dict[str, Any]:
    return {"type": "surrender", "hand": hand}


def insurance(seat_no: int, amount: int) -> dict[str, Any]:
    return {"type": "insurance", "seat": seat_no, "amount": amount}


def even_money(seat_no: int, amount: int) -> dict[str, Any]:
    return {"type": "even_money", "seat": seat_no, "amount": amount}


def _corrects(event: dict[str, Any], corrects: int | None) -> dict[str, Any]:
    """A ``settle`` that corrects the settlement at event ``corrects`` (round-v1.md section 2.3), if given."""
    if corrects is not None:
        event["corrects"] = corrects
    return event


def settle(hand: str, result: str, amount: int, *, corrects: int | None = None) -> dict[str, Any]:
    return _corrects(
        {"type": "settle", "bet": "main", "hand": hand, "result": result, "amount": amount}, corrects
    )


def settle_insurance(
    seat_no: int, result: str, amount: int, *, corrects: int | None = None
) -> dict[str, Any]:
    return _corrects(
        {"type": "settle", "bet": "insurance", "seat": seat_no, "result": result, "amount": amount}, corrects
    )


def settle_additional(
    seat_no: int, result: str, amount: int, *, corrects: int | None = None
) -> dict[str, Any]:
    return _corrects(
        {"type": "settle", "bet": "additional", "seat": seat_no, "result": result, "amount": amount}, corrects
    )


def burn(card: str, face: str = "down") -> dict[str, Any]:
    """A card leaves the shoe and is discarded, belonging to no hand (round-v1.md section 2.3)."""
    b = {"type": "burn", "card": card}
    if face != "down":
        b["face"] = face
    return b


def void(reason: str) -> dict[str, Any]:
    """The round is declared void (round-v1.md section 2.3): misdeal, card_exposed, shoe_error, equipment, other."""
    return {"type": "void", "reason": reason}


def audit(round_dict: dict[str, Any]) -> dict[str, Any]:
    return audit_round(round_from_obj(round_dict)).to_dict()


def fired(round_dict: dict[str, Any]) -> list[tuple[str, int | None]]:
    """(rule, event) of every finding, in the engine's order."""
    return [(f["rule"], f["event"]) for f in audit(round_dict)["findings"]]


def rules_fired(round_dict: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in audit(round_dict)["findings"]}
