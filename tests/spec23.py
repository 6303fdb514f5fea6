"""Records with the events of round-v1 section 2.3 (burns, voids, corrections), for the service's tests: each
says in its docstring what its audit holds (written from the spec)."""

from __future__ import annotations

import json
from typing import Any

from tests.builders import a_round, burn, deal, reveal, seat, settle, stand, void


def _record(round_id: str, played_at: str, events: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    doc = a_round("US-NJ", seats=[seat(1, 1000)], events=events, played_at=played_at, round_id=round_id)
    doc["table"] = {"id": fields.pop("table", "T1"), "rules": doc["table"]["rules"]}
    doc.update({k: v for k, v in fields.items() if v is not None})
    return doc


def voided(
    round_id: str, played_at: str, reason: str = "misdeal", *, dealt_after: bool = False, **fields: Any
) -> bytes:
    """A round declared void after the first cards (a burn before them), its wager returned: compliant, with the
    audit's ``void`` at event 4; ``dealt_after``: a card dealt to the dealer after the void (event 5), an
    uncited:play-after-void finding."""
    events = [
        burn("5S"),
        deal("1", "TH"),
        deal("dealer", "9C"),
        deal("1", "8D"),
        void(reason),
        *([deal("dealer", "7S")] if dealt_after else []),
        settle("1", "void", 0),
    ]
    return json.dumps(_record(round_id, played_at, events, **fields)).encode()


def corrected(round_id: str, played_at: str, corrected_to: int, **fields: Any) -> bytes:
    """The player's 18 beats the dealer's 17 and is paid 500 of the 1000 due (event 7); the table corrects it to
    ``corrected_to`` (event 8): one finding at event 7 with ``corrected_by`` 8, ``corrected_actual`` ``corrected_to``
    and ``amount_delta`` 1000 - ``corrected_to`` (what is still owed)."""
    events = [
        deal("1", "TH"),
        deal("dealer", "9C"),
        deal("1", "8D"),
        deal("dealer", "8S", "down"),
        stand("1"),
        reveal("dealer", "8S"),
        burn("2C"),  # the dealer's hand is complete: the shoe's business, no finding
        settle("1", "win", 500),
        settle("1", "win", corrected_to, corrects=7),
    ]
    return json.dumps(_record(round_id, played_at, events, **fields)).encode()


def burned_in_play(round_id: str, played_at: str, **fields: Any) -> bytes:
    """A card burned between the player's cards: uncited:card-burned-during-play at event 2, nothing owed."""
    events = [
        deal("1", "TH"),
        deal("dealer", "9C"),
        burn("4D", "up"),
        deal("1", "8D"),
        deal("dealer", "8S", "down"),
        stand("1"),
        reveal("dealer", "8S"),
        settle("1", "win", 1000),
    ]
    return json.dumps(_record(round_id, played_at, events, **fields)).encode()
