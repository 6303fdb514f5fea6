"""Shoe reconciliation, the pure part (app.domain.shoe) and the findings and answer built from it
(app.usecases.shoes), without a database: the cards a record shows, counted across a shoe's rounds against its
decks."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from app.domain.shoe import MAX_DECKS, ShoeRound, Sighting, cards_shown, reconcile
from app.synth.generator import generate_rounds
from app.usecases import shoes
from app.wire.schema import round_from_obj
from tests.builders import a_round, burn, deal, reveal, seat, settle, stand


def hand_of(
    round_id: str, player: tuple[str, str], dealer: tuple[str, str], *draws: str, decks: int | None = 1
) -> ShoeRound:
    """A one-box round: the player's two cards, the dealer's up card and hole card (face down, then revealed),
    then the dealer's draws."""
    events = [
        deal("1", player[0]),
        deal("dealer", dealer[0]),
        deal("1", player[1]),
        deal("dealer", dealer[1], "down"),
        stand("1"),
        reveal("dealer", dealer[1]),
        *(deal("dealer", c) for c in draws),
        settle("1", "lose", 2500),
    ]
    rules = None if decks is None else {"decks": decks}
    doc = a_round(events=events, seats=[seat(1, 2500)], rules=rules, round_id=round_id)
    if rules is None:
        del doc["table"]["rules"]
    return ShoeRound(round_from_obj(doc), decks)


# --- which events show a card ----------------------------------------------------------------------------------


def test_every_deal_shows_a_card_and_a_reveal_is_the_hole_card_seen_again() -> None:
    r = hand_of("R1", ("TH", "8D"), ("6C", "AS"), "2C").round
    assert list(cards_shown(r)) == [(0, "TH"), (1, "6C"), (2, "8D"), (3, "AS"), (6, "2C")]


def test_a_face_down_double_card_is_counted_once_too() -> None:
    doc = a_round(
        events=[
            deal("1", "6H"),
            deal("dealer", "9C"),
            deal("1", "5D"),
            deal("dealer", "7S", "down"),
            {"type": "double", "hand": "1", "amount": 2500},
            deal("1", "KD", "down"),
            reveal("dealer", "7S"),
            deal("dealer", "4C"),
            reveal("1", "KD"),
            settle("1", "win", 5000),
        ],
        extra_rules={"double_card": "face_down"},
    )
    assert [c for _, c in cards_shown(round_from_obj(doc))] == ["6H", "9C", "5D", "7S", "KD", "4C"]


# --- the count ---------------------------------------------------------------------------------------------------


def test_a_clean_shoe_counts_each_card_once_with_the_hole_card_once() -> None:
    done = reconcile(
        [
            hand_of("R1", ("TH", "8D"), ("6C", "AS"), "2C"),
            hand_of("R2", ("9S", "9H"), ("KC", "7D")),
            hand_of("R3", ("AD", "QS"), ("5H", "3C"), "4S", "JD"),
        ]
    )
    assert done.over_counts == ()
    assert done.cards_per_round == (5, 4, 6)
    assert sum(done.cards_seen.values()) == 15
    assert set(done.cards_seen.values()) == {1}  # one deck: the revealed hole cards are not seen twice
    assert list(done.cards_seen)[:4] == ["2C", "3C", "6C", "KC"]  # deck order: clubs first, ace to king
    assert (done.decks, done.allowed, done.decks_stated) == (1, 1, {1: ("R1", "R2", "R3")})


def test_one_copy_more_than_the_decks_hold_names_every_round_it_was_seen_in() -> None:
    done = reconcile(
        [
            hand_of("R1", ("TH", "8D"), ("6C", "AS"), "2C"),
            hand_of("R2", ("9S", "9H"), ("KC", "7D")),
            hand_of("R3", ("8D", "QS"), ("5H", "3C")),  # the 8D of R1 again
        ]
    )
    [over] = done.over_counts
    assert (over.card, over.allowed, over.seen) == ("8D", 1, 2)
    assert over.sightings == (Sighting("R1", 2), Sighting("R3", 0))
    assert over.first_over == Sighting("R3", 0)
    assert done.cards_seen["8D"] == 2


def test_over_counts_come_in_the_order_they_went_past_the_limit() -> None:
    done = reconcile(
        [
            hand_of("R1", ("TH", "8D"), ("6C", "AS"), decks=2),
            hand_of("R2", ("8D", "TH"), ("6C", "AS"), decks=2),
            hand_of("R3", ("5C", "AS"), ("8D", "TH"), decks=2),
        ]
    )
    # (TH was seen first, in R1; but 8D is the first to go past the two copies, in R3)
    assert [(o.card, o.first_over) for o in done.over_counts] == [
        ("8D", Sighting("R3", 1)),
        ("AS", Sighting("R3", 2)),
        ("TH", Sighting("R3", 3)),
    ]


def test_a_card_repeated_within_one_round_counts_against_the_shoe_too() -> None:
    done = reconcile([hand_of("R1", ("TH", "TH"), ("6C", "AS"))])
    [over] = done.over_counts
    assert over.sightings == (Sighting("R1", 0), Sighting("R1", 2))


def test_rounds_that_disagree_on_the_decks_allow_the_most_any_states() -> None:
    rounds = [
        hand_of("R1", ("TH", "8D"), ("6C", "AS"), decks=1),
        hand_of("R2", ("TH", "9H"), ("KC", "7D"), decks=2),
        hand_of("R3", ("TH", "QS"), ("5H", "3C"), decks=1),
    ]
    done = reconcile(rounds)
    assert done.decks_disagree and done.decks is None
    assert done.decks_stated == {1: ("R1", "R3"), 2: ("R2",)}
    assert done.allowed == 2
    assert [(o.card, o.seen) for o in done.over_counts] == [("TH", 3)]


def test_without_any_decks_stated_the_most_a_table_may_use_is_allowed() -> None:
    rounds = [hand_of(f"R{i}", ("TH", "8D"), ("6C", "AS"), decks=None) for i in range(MAX_DECKS)]
    done = reconcile(rounds)
    assert (done.decks, done.allowed, done.decks_stated, done.over_counts) == (None, MAX_DECKS, {}, ())
    done = reconcile([*rounds, hand_of("R8", ("TH", "2D"), ("3C", "4S"), decks=None)])
    assert [(o.card, o.seen, o.first_over) for o in done.over_counts] == [("TH", 9, Sighting("R8", 0))]


def test_an_empty_shoe_counts_nothing() -> None:
    done = reconcile([])
    assert (done.cards_seen, done.cards_per_round, done.over_counts, done.allowed) == ({}, (), (), MAX_DECKS)


def test_the_generators_shoes_reconcile() -> None:
    """The generator deals each shoe from one card supply: none of its shoes over-counts a card."""
    by_shoe: dict[str, list[ShoeRound]] = defaultdict(list)
    for doc in generate_rounds(400, seed=20261203):
        decks = doc["table"].get("rules", {}).get("decks")
        by_shoe[doc["shoe_id"]].append(ShoeRound(round_from_obj(doc), decks))
    assert len(by_shoe) > 5
    for shoe_id, rounds in by_shoe.items():
        done = reconcile(rounds)
        assert done.over_counts == (), shoe_id
        assert not done.decks_disagree, shoe_id
        assert sum(done.cards_per_round) == sum(done.cards_seen.values())


# --- findings ----------------------------------------------------------------------------------------------------


def test_an_over_count_is_an_uncited_finding_naming_its_rounds() -> None:
    done = reconcile([hand_of("R1", ("TH", "8D"), ("6C", "AS")), hand_of("R3", ("8D", "QS"), ("5H", "3C"))])
    [f] = shoes.findings("S1", done)
    assert f["rule"] == "uncited:shoe-card-over-count"
    assert f["citation_status"] == "uncited"
    assert (f["card"], f["expected"], f["actual"]) == ("8D", 1, 2)
    assert f["rounds"] == [
        {"round_id": "R1", "event": 2, "burned": False},
        {"round_id": "R3", "event": 0, "burned": False},
    ]
    assert "1 deck holds only 1 of it" in f["message"]
    assert "R1, R3" in f["message"] and "first in R3 (event 0)" in f["message"]


def test_rounds_disagreeing_on_the_decks_are_a_finding_naming_the_odd_ones() -> None:
    done = reconcile(
        [
            hand_of("R1", ("TH", "8D"), ("6C", "AS"), decks=6),
            hand_of("R2", ("TH", "9H"), ("KC", "7D"), decks=8),
            hand_of("R3", ("TH", "QS"), ("5H", "3C"), decks=6),
        ]
    )
    [f] = shoes.findings("S1", done)
    assert (f["rule"], f["citation_status"], f["category"]) == (
        "uncited:shoe-decks-disagree",
        "uncited",
        "election",
    )
    assert (f["expected"], f["actual"]) == (6, [6, 8])
    assert f["rounds"] == [{"round_id": "R2", "event": None, "decks": 8}]
    assert "6 (2 rounds), 8 (1 round)" in f["message"]


def test_the_shoe_rules_are_uncited_never_numbered() -> None:
    for rule in (shoes.OVER_COUNT, shoes.DECKS_DISAGREE, shoes.UNREADABLE):
        assert rule.rule.startswith("uncited:shoe-")
        assert rule.citation_status == "uncited"


# --- the answer from stored rows ---------------------------------------------------------------------------------


def test_the_answer_lists_the_rounds_with_their_decks_and_cards() -> None:
    docs = {
        "R1": a_round(round_id="R1", events=_events(("TH", "8D"), ("6C", "AS")), rules={"decks": 2}),
        "R2": a_round(round_id="R2", events=_events(("9S", "9H"), ("KC", "7D")), rules={"decks": 2}),
    }
    del docs["R2"]["table"]["rules"]
    rows = [
        SimpleNamespace(
            round_id=rid,
            table_id="T1",
            played_at=datetime(2026, 12, 1, 3, i, tzinfo=UTC),
            record=json.dumps(doc).encode(),
            audit=orjson.dumps(
                {"elections": {"decks": 2}, "elections_source": "registered"} if rid == "R2" else {}
            ).decode(),
        )
        for i, (rid, doc) in enumerate(docs.items())
    ]
    answer = shoes.shoe_answer("S1", "default", "US-NJ", rows)
    assert answer["rounds"] == [
        {
            "round_id": "R1",
            "played_at": "2026-12-01T03:00:00Z",
            "table_id": "T1",
            "decks": 2,
            "decks_source": "record",
            "cards": 4,
            "burned": 0,
        },
        {
            "round_id": "R2",
            "played_at": "2026-12-01T03:01:00Z",
            "table_id": "T1",
            "decks": 2,
            "decks_source": "registered",
            "cards": 4,
            "burned": 0,
        },
    ]
    assert (answer["decks"], answer["copies_allowed"], answer["card_count"], answer["findings"]) == (
        2,
        2,
        8,
        [],
    )


def test_a_stored_record_that_can_no_longer_be_read_is_a_finding_and_not_counted() -> None:
    good = a_round(round_id="R1", events=_events(("TH", "8D"), ("6C", "AS")), rules={"decks": 1})
    # Stored before reads were strict: a key given twice.
    bad = b'{"round_id": "R2", "round_id": "R2", ' + json.dumps(good).encode()[1:].replace(
        b'"R1"', b'"R2"', 1
    )
    rows = [
        SimpleNamespace(
            round_id=rid,
            table_id="T1",
            played_at=datetime(2026, 12, 1, 3, i, tzinfo=UTC),
            record=rec,
            audit="{}",
        )
        for i, (rid, rec) in enumerate([("R1", json.dumps(good).encode()), ("R2", bad)])
    ]
    answer = shoes.shoe_answer("S1", "default", "US-NJ", rows)
    assert [(r["round_id"], r["cards"]) for r in answer["rounds"]] == [("R1", 4), ("R2", None)]
    [f] = answer["findings"]
    assert f["rule"] == "uncited:shoe-round-unreadable"
    assert f["rounds"] == [{"round_id": "R2", "event": None}]
    assert answer["card_count"] == 4


def _events(player: tuple[str, str], dealer: tuple[str, str]) -> list[dict[str, Any]]:
    return [
        deal("1", player[0]),
        deal("dealer", dealer[0]),
        deal("1", player[1]),
        deal("dealer", dealer[1], "down"),
        stand("1"),
        reveal("dealer", dealer[1]),
        settle("1", "lose", 2500),
    ]


@pytest.mark.parametrize(
    ("rules", "audit", "expected"),
    [
        ({"decks": 6}, {"elections": {"decks": 8}, "elections_source": "record"}, (6, "record")),
        (None, {"elections": {"decks": 8}, "elections_source": "registered"}, (8, "registered")),
        (None, {"elections": {"decks": 4}, "elections_source": "defaults"}, (4, "defaults")),
        (None, {"elections": {}, "elections_source": "defaults"}, (None, None)),
        ({"dealer_soft_17": "hit"}, {}, (None, None)),
    ],
)
def test_a_rounds_decks_come_from_its_record_else_its_audit(
    rules: dict[str, Any] | None, audit: dict[str, Any], expected: tuple[int | None, str | None]
) -> None:
    doc = a_round(events=_events(("TH", "8D"), ("6C", "AS")), rules=rules or {})
    if rules is None:
        del doc["table"]["rules"]
    assert shoes.round_decks(round_from_obj(doc), audit) == expected


def test_burned_cards_count_toward_the_shoe_and_are_told_apart() -> None:
    """Round-v1 section 2.3: a burned card counts toward the copies of its card and the cards used, on no hand."""
    one = a_round(
        round_id="R1", events=[burn("8D"), *_events(("TH", "9D"), ("6C", "AS"))], rules={"decks": 1}
    )
    two = a_round(round_id="R2", events=_events(("8D", "QS"), ("5H", "3C")), rules={"decks": 1})
    rows = [
        SimpleNamespace(
            round_id=doc["round_id"],
            table_id="T1",
            played_at=datetime(2026, 12, 1, 3, i, tzinfo=UTC),
            record=json.dumps(doc).encode(),
            audit="{}",
        )
        for i, doc in enumerate((one, two))
    ]
    answer = shoes.shoe_answer("S1", "default", "US-NJ", rows)
    assert [(r["cards"], r["burned"]) for r in answer["rounds"]] == [(5, 1), (4, 0)]
    assert (answer["card_count"], answer["burn_count"], answer["cards_burned"]) == (9, 1, {"8D": 1})
    assert answer["cards_seen"]["8D"] == 2
    [f] = answer["findings"]
    assert f["rounds"] == [
        {"round_id": "R1", "event": 0, "burned": True},
        {"round_id": "R2", "event": 0, "burned": False},
    ]
    assert "(1 of them burned)" in f["message"]
    rnd = round_from_obj(one)
    assert shoes.burns_of(rnd) == {0: "8D"} and [c for _, c in cards_shown(rnd)][0] == "8D"
    assert shoes.burns_of(round_from_obj(two)) == {}
