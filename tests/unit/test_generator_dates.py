"""When generated rounds are played: in the past, before an ``end`` (round-v1 section 2.3: a round played more than 5
minutes after it was received is refused). The library's default end is a fixed instant, so that a seed's rounds
never move with the clock; ``bjaudit generate`` passes the current time (tests/unit/test_cli.py)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.synth.generator import DEFAULT_END, VALIDITY, earliest_end, generate_round, generate_rounds


def instants(doc: dict[str, Any]) -> list[datetime]:
    """The round's played_at and its events' stamps."""
    return [datetime.fromisoformat(doc["played_at"])] + [
        datetime.fromisoformat(e["at"]) for e in doc["events"] if "at" in e
    ]


def test_by_default_every_round_is_played_before_a_fixed_instant_in_the_past() -> None:
    assert datetime(2026, 11, 30, tzinfo=UTC) < DEFAULT_END < datetime(2026, 12, 2, tzinfo=UTC)
    docs = list(generate_rounds(1500, 20261204, "US-NJ"))
    latest = max(t for d in docs for t in instants(d))
    assert latest < DEFAULT_END
    assert latest > DEFAULT_END - timedelta(days=60)  # the window reaches it
    assert list(generate_rounds(200, 20261204, "US-NJ")) == docs[:200]  # no clock in it
    rng = random.Random(5)
    assert all(max(instants(generate_round(rng, "US-NJ"))) < DEFAULT_END for _ in range(200))


def test_an_end_bounds_every_round_and_its_events() -> None:
    end = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    docs = list(generate_rounds(1000, 7, "US-NJ", end=end))
    assert max(t for d in docs for t in instants(d)) < end
    assert min(datetime.fromisoformat(d["played_at"]) for d in docs) >= VALIDITY["US-NJ"][0]
    assert list(generate_rounds(1000, 7, "US-NJ", end=end)) == docs
    assert all(max(instants(generate_round(random.Random(i), "US-NJ", end=end))) < end for i in range(100))


def test_new_zealand_rounds_end_with_their_rules_whatever_the_end() -> None:
    now = datetime.now(UTC)
    assert list(generate_rounds(300, 3, "NZ", end=now)) == list(generate_rounds(300, 3, "NZ"))


@pytest.mark.parametrize(
    ("end", "says"),
    [
        (datetime(2024, 9, 16, 12, 0, tzinfo=UTC), "too early for US-NJ rounds"),
        (datetime(2026, 1, 1), "aware"),
    ],
)
def test_an_end_that_cannot_be_used_is_refused(end: datetime, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        next(generate_rounds(5, 1, "US-NJ", end=end))
    with pytest.raises(ValueError, match=says):
        generate_round(random.Random(1), "US-NJ", end=end)


def test_the_earliest_end_leaves_room_for_a_session() -> None:
    for j, (lo, _) in VALIDITY.items():
        end = earliest_end(j)
        assert end > lo
        assert max(t for d in generate_rounds(200, 2, j, end=end) for t in instants(d)) < end


def test_a_floor_keeps_its_tables_dealers_and_year_and_its_rounds_are_legal() -> None:
    """generate_floor (bench-scale's load): a fixed floor shared out among the casinos, each jurisdiction's rounds
    in the span before the end (NZ: before the end of its rules' window), and every round compliant."""
    from app.synth.generator import generate_floor
    from app.usecases.auditing import audit_round
    from app.wire.schema import round_from_obj

    casinos = {"BOR": "US-NJ", "HRA": "US-NJ", "CHC": "NZ"}
    end, span = datetime(2026, 12, 1, tzinfo=UTC), timedelta(days=365)
    made = list(generate_floor(1200, 3, casinos, 12, 6, span, end))
    assert len(made) == 1200 and len({d["round_id"] for _, d in made}) == 1200
    assert made == list(generate_floor(1200, 3, casinos, 12, 6, span, end))
    for code, d in made:
        assert d["jurisdiction"] == casinos[code]
        assert d["table"]["id"].startswith(f"{code}-BJ") and d["dealer_id"].startswith(f"{code}-")
        lo, hi = (
            (end - span, end)
            if code != "CHC"
            else (VALIDITY["NZ"][1] - span - timedelta(hours=5), VALIDITY["NZ"][1])
        )
        assert lo <= datetime.fromisoformat(d["played_at"]) < hi
        assert audit_round(round_from_obj(d)).to_dict()["verdict"] == "compliant", d["round_id"]
    assert len({d["table"]["id"] for _, d in made}) <= 12 and len({d["dealer_id"] for _, d in made}) <= 6
    shoes: dict[str, set[str]] = {}
    for _, d in made:
        shoes.setdefault(d["shoe_id"], set()).add(d["table"]["id"])
    assert all(len(tables) == 1 for tables in shoes.values())  # a shoe is one table's
    with pytest.raises(ValueError):
        list(generate_floor(10, 1, {"X": "FR"}, 4, 4, span, end))
