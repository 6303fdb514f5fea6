"""app.wire.schema: the wire format of a recorded round, its validation problems, and conversion to the domain."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.domain.model import (
    AdditionalWager,
    Burn,
    Deal,
    Double,
    EvenMoney,
    Hit,
    Insurance,
    Peek,
    Reveal,
    Round,
    SeatWager,
    Settle,
    Split,
    Stand,
    Surrender,
    Void,
)
from app.wire.schema import VOID_REASONS, Problem, RoundInvalid, RoundModel, parse_round, round_from_obj

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
"""Our copy of the spec's examples (tests/unit/test_examples.py checks it equals shared/spec/examples)."""


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.round.json"))


BASE: dict[str, Any] = {
    "round_id": "T-0001",
    "jurisdiction": "US-NJ",
    "played_at": "2026-12-01T21:14:05-05:00",
    "table": {"id": "BJ12", "rules": {"decks": 6, "dealer_soft_17": "stand", "blackjack_pays": "3:2"}},
    "seats": [
        {"seat": 1, "wager": 2500},
        {"seat": 4, "wager": 1000, "additional_wager": {"kind": "same_suit", "amount": 100}},
    ],
    "events": [
        {"type": "deal", "to": "1", "card": "6H"},  # 0
        {"type": "deal", "to": "4", "card": "AS"},  # 1
        {"type": "deal", "to": "dealer", "card": "AC"},  # 2
        {"type": "deal", "to": "1", "card": "5D"},  # 3
        {"type": "deal", "to": "4", "card": "KS"},  # 4
        {"type": "deal", "to": "dealer", "card": "7S", "face": "down"},  # 5
        {"type": "insurance", "seat": 1, "amount": 1250},  # 6
        {"type": "even_money", "seat": 4, "amount": 1000},  # 7
        {"type": "peek", "dealer_blackjack": False},  # 8
        {"type": "double", "hand": "1", "amount": 2500},  # 9
        {"type": "deal", "to": "1", "card": "KD"},  # 10
        {"type": "reveal", "to": "dealer", "card": "7S"},  # 11
        {"type": "settle", "bet": "insurance", "seat": 1, "result": "lose", "amount": 1250},  # 12
        {"type": "settle", "bet": "additional", "seat": 4, "result": "win", "amount": 0},  # 13
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000},  # 14
    ],
}


def doc(**changes: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d.update(changes)
    return d


def with_event(i: int, event: dict[str, Any]) -> dict[str, Any]:
    d = doc()
    d["events"][i] = event
    return d


def problems_of(data: dict[str, Any] | list[Any] | str | bytes) -> RoundInvalid:
    text = data if isinstance(data, str | bytes) else json.dumps(data)
    with pytest.raises(RoundInvalid) as info:
        parse_round(text)
    return info.value


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, problems
    return problems[0]


# --------------------------------------------------------------------------------------------------------
# The happy path
# --------------------------------------------------------------------------------------------------------


def test_examples_folder_is_there() -> None:
    assert EXAMPLES.is_dir(), f"spec examples not found at {EXAMPLES}"
    assert example_files(), f"no *.round.json in {EXAMPLES}"


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_every_spec_example_parses(path: Path) -> None:
    raw = path.read_bytes()
    obj = json.loads(raw)
    r = parse_round(raw)
    assert isinstance(r, Round)
    assert r.round_id == obj["round_id"]
    assert r.jurisdiction == obj["jurisdiction"]
    assert r.played_at == datetime.fromisoformat(obj["played_at"])
    assert r.table_id == obj["table"]["id"]
    assert r.rules == obj["table"].get("rules")
    assert [s.seat for s in r.seats] == [s["seat"] for s in obj["seats"]]
    assert len(r.events) == len(obj["events"])
    assert [e.type for e in r.events] == [e["type"] for e in obj["events"]]
    # the same rules from an already-decoded value, and from text
    assert round_from_obj(obj) == r
    assert parse_round(raw.decode()) == r


def test_conversion_to_the_domain() -> None:
    r = parse_round(json.dumps(doc(dealer_id="E123", shoe_id="SHOE-9")))
    assert r.round_id == "T-0001"
    assert r.jurisdiction == "US-NJ"
    assert r.played_at == datetime(2026, 12, 2, 2, 14, 5, tzinfo=UTC)
    assert r.played_at.utcoffset() == timedelta(hours=-5)
    assert r.table_id == "BJ12"
    assert r.rules == {"decks": 6, "dealer_soft_17": "stand", "blackjack_pays": "3:2"}
    assert r.seats == (
        SeatWager(1, 2500),
        SeatWager(4, 1000, AdditionalWager("same_suit", 100)),
    )
    assert r.events == (
        Deal((1, 1), "6H"),
        Deal((4, 1), "AS"),
        Deal("dealer", "AC"),
        Deal((1, 1), "5D"),
        Deal((4, 1), "KS"),
        Deal("dealer", "7S", "down"),
        Insurance(1, 1250),
        EvenMoney(4, 1000),
        Peek(False),
        Double((1, 1), 2500),
        Deal((1, 1), "KD"),
        Reveal("dealer", "7S"),
        Settle("insurance", "lose", 1250, seat=1),
        Settle("additional", "win", 0, seat=4),
        Settle("main", "win", 5000, hand=(1, 1)),
    )
    assert r.dealer_id == "E123"
    assert r.shoe_id == "SHOE-9"
    assert r.extra == {}


def test_optional_parts_absent() -> None:
    d = doc()
    del d["table"]["rules"]
    r = parse_round(json.dumps(d))
    assert r.rules is None
    assert r.dealer_id is None and r.shoe_id is None


def test_rules_keep_exactly_the_elections_given() -> None:
    rules = {
        "decks": 8,
        "dealt_from": "shoe",
        "dealer_soft_17": "hit",
        "blackjack_pays": "6:5",
        "dealer_second_card": "after_players",
        "peek": False,
        "double_after_split": False,
        "double_card": "face_down",
        "resplit": True,
        "resplit_aces": False,
        "boxes": 7,
        "surrender": "late",
        "min_chip": 100,
        "payout_rounding": "up",
        "min_wager": 500,
        "max_wager": 100000,
        "additional_wager": "over_under_13",
    }
    r = parse_round(json.dumps(doc(table={"id": "BJ1", "rules": rules})))
    assert r.rules == rules
    assert parse_round(json.dumps(doc(table={"id": "BJ1", "rules": {}}))).rules == {}


def test_remaining_event_kinds() -> None:
    events = [
        {"type": "deal", "to": "2", "card": "8H"},
        {"type": "deal", "to": "2", "card": "8S"},
        {"type": "split", "hand": "2", "amount": 1000},
        {"type": "hit", "hand": "2.1"},
        {"type": "stand", "hand": "2.2"},
        {"type": "surrender", "hand": "3"},
        {"type": "settle", "bet": "main", "hand": "3", "result": "surrender", "amount": 500},
        {"type": "settle", "bet": "main", "hand": "2.2", "result": "push", "amount": 0},
    ]
    r = parse_round(json.dumps(doc(events=events)))
    assert r.events[2:] == (
        Split((2, 1), 1000),
        Hit((2, 1)),
        Stand((2, 2)),
        Surrender((3, 1)),
        Settle("main", "surrender", 500, hand=(3, 1)),
        Settle("main", "push", 0, hand=(2, 2)),
    )


# --------------------------------------------------------------------------------------------------------
# What real tables also record (section 2.3): burns, voided rounds, corrections; payout_rounding (2.2, 3)
# --------------------------------------------------------------------------------------------------------


def test_burns_voids_and_corrections_convert_to_the_domain() -> None:
    events = [
        {"type": "burn", "card": "10h"},  # 0
        {"type": "burn", "card": "as", "face": "up"},  # 1
        {"type": "burn", "card": "KD", "face": "down"},  # 2
        {"type": "deal", "to": "1", "card": "6H"},  # 3
        {"type": "void", "reason": "misdeal"},  # 4
        {"type": "settle", "bet": "main", "hand": "1", "result": "void", "amount": 0},  # 5
        {"type": "settle", "bet": "insurance", "seat": 1, "result": "void", "amount": 0},  # 6
        {"type": "settle", "bet": "additional", "seat": 4, "result": "void", "amount": 0},  # 7
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 2500, "corrects": 5},  # 8
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 2500, "corrects": 8},  # 9
        {"type": "settle", "bet": "insurance", "seat": 1, "result": "lose", "amount": 0, "corrects": 0},  # 10
    ]
    r = parse_round(json.dumps(doc(events=events)))
    assert r.events == (
        Burn("TH"),
        Burn("AS", "up"),
        Burn("KD", "down"),
        Deal((1, 1), "6H"),
        Void("misdeal"),
        Settle("main", "void", 0, hand=(1, 1)),
        Settle("insurance", "void", 0, seat=1),
        Settle("additional", "void", 0, seat=4),
        Settle("main", "win", 2500, hand=(1, 1), corrects=5),
        Settle("main", "win", 2500, hand=(1, 1), corrects=8),
        Settle("insurance", "lose", 0, seat=1, corrects=0),
    )
    assert r.events[0].face == "down"  # type: ignore[union-attr]
    assert [e.type for e in r.events] == [e["type"] for e in events]
    assert round_from_obj(doc(events=events)) == r
    # a settle without corrects is not a correction, and the two are different events (the cache keeps them apart)
    plain = parse_round(json.dumps(doc(events=[{k: v for k, v in events[8].items() if k != "corrects"}])))
    assert plain.events == (Settle("main", "win", 2500, hand=(1, 1)),)
    assert plain.events[0] != r.events[8]


@pytest.mark.parametrize("reason", ["misdeal", "card_exposed", "shoe_error", "equipment", "other"])
def test_every_void_reason(reason: str) -> None:
    r = parse_round(json.dumps(with_event(3, {"type": "void", "reason": reason})))
    assert r.events[3] == Void(reason)  # type: ignore[arg-type]


@pytest.mark.parametrize("rounding", ["down", "up"])
def test_payout_rounding(rounding: str) -> None:
    rules = {"decks": 6, "min_chip": 100, "payout_rounding": rounding}
    assert parse_round(json.dumps(doc(table={"id": "BJ1", "rules": rules}))).rules == rules


@pytest.mark.parametrize(
    ("i", "event", "pointer", "message"),
    [
        (
            3,
            {"type": "void", "reason": "fire"},
            "/events/3/reason",
            "'fire' is not one of 'misdeal', 'card_exposed', 'shoe_error', 'equipment', 'other'",
        ),
        (3, {"type": "void"}, "/events/3/reason", "required field 'reason' is missing"),
        (3, {"type": "void", "reason": 7}, "/events/3/reason", "7 is not one of 'misdeal', 'card_exposed'"),
        (3, {"type": "void", "reason": "misdeal", "card": "6H"}, "/events/3/card", "unknown field 'card'"),
        (
            3,
            {"type": "burn", "card": "6H", "face": "sideways"},
            "/events/3/face",
            "'sideways' is not one of 'up', 'down'",
        ),
        (3, {"type": "burn", "card": "1H"}, "/events/3/card", "'1H' is not a card"),
        (3, {"type": "burn"}, "/events/3/card", "required field 'card' is missing"),
        (3, {"type": "burn", "card": "6H", "to": "1"}, "/events/3/to", "unknown field 'to'"),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": -1},
            "/events/14/corrects",
            "must be the index of an earlier settle event (0-1999), not -1",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": 2000},
            "/events/14/corrects",
            "must be the index of an earlier settle event (0-1999), not 2000",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": 1.5},
            "/events/14/corrects",
            "must be an integer, not 1.5",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": "3"},
            "/events/14/corrects",
            "must be an integer, not the string '3'",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": True},
            "/events/14/corrects",
            "must be an integer, not true",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": None},
            "/events/14/corrects",
            "must be an integer, not null: leave the field out instead",
        ),
        (
            14,
            {"type": "settle", "bet": "main", "hand": "1", "result": "void", "amount": 100},
            "/events/14/amount",
            "a void settlement returns the wager and moves no money: amount must be 0, not 100",
        ),
        (
            12,
            {"type": "settle", "bet": "insurance", "seat": 1, "result": "void", "amount": 1250},
            "/events/12/amount",
            "a void settlement returns the wager and moves no money: amount must be 0, not 1250",
        ),
    ],
)
def test_bad_burns_voids_and_corrections(i: int, event: dict[str, Any], pointer: str, message: str) -> None:
    exc = problems_of(with_event(i, event))
    p = only(exc.problems)
    assert p["pointer"] == pointer
    assert p["message"].startswith(message), p["message"]
    assert exc.round_id == "T-0001"
    with pytest.raises(RoundInvalid) as info:
        round_from_obj(with_event(i, event))
    assert info.value.problems == exc.problems


def test_a_correction_naming_a_later_event_or_no_settle_is_not_a_schema_error() -> None:
    # whether corrects names an earlier settle of the same bet is the replay's question (a record contradiction)
    event = {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, "corrects": 1999}
    assert parse_round(json.dumps(with_event(14, event))).events[14] == Settle(
        "main", "win", 5000, hand=(1, 1), corrects=1999
    )
    event["corrects"] = 0  # a deal
    assert parse_round(json.dumps(with_event(14, event))).events[14].corrects == 0  # type: ignore[union-attr]


def test_a_bad_payout_rounding() -> None:
    d = doc(table={"id": "BJ1", "rules": {"payout_rounding": "nearest"}})
    assert only(problems_of(d).problems) == {
        "pointer": "/table/rules/payout_rounding",
        "message": "'nearest' is not one of 'down', 'up'",
    }


def test_the_schema_documents_the_new_events() -> None:
    schema = RoundModel.model_json_schema()
    defs = schema["$defs"]
    burn, void, settle = defs["BurnEvent"], defs["VoidEvent"], defs["SettleEvent"]
    assert burn["properties"]["face"]["default"] == "down"
    assert burn["description"] and void["description"]
    assert void["properties"]["reason"]["enum"] == list(VOID_REASONS)
    assert VOID_REASONS == ("misdeal", "card_exposed", "shoe_error", "equipment", "other")
    assert void["properties"]["reason"]["description"]
    assert "void" in settle["properties"]["result"]["enum"]
    corrects = settle["properties"]["corrects"]
    assert corrects["type"] == "integer" and corrects["minimum"] == 0 and corrects["description"]
    rounding = defs["TableRules"]["properties"]["payout_rounding"]
    assert rounding["enum"] == ["down", "up"] and rounding["default"] == "down" and rounding["description"]


def test_at_and_note_are_accepted_and_not_in_the_domain() -> None:
    r = parse_round(
        json.dumps(
            with_event(
                0, {"type": "deal", "to": "1", "card": "6H", "at": "2026-12-01T21:14:06.250Z", "note": "ok"}
            )
        )
    )
    assert r.events[0] == Deal((1, 1), "6H")


@pytest.mark.parametrize(
    ("card", "canonical"),
    [
        ("TH", "TH"),
        ("th", "TH"),
        ("tH", "TH"),
        ("10H", "TH"),
        ("10s", "TS"),
        ("as", "AS"),
        ("qd", "QD"),
        ("Kc", "KC"),
        ("2c", "2C"),
        ("9D", "9D"),
    ],
)
def test_card_aliases_and_lowercase(card: str, canonical: str) -> None:
    r = parse_round(json.dumps(with_event(0, {"type": "deal", "to": "1", "card": card})))
    assert r.events[0] == Deal((1, 1), canonical)
    r = parse_round(json.dumps(with_event(11, {"type": "reveal", "to": "dealer", "card": card})))
    assert r.events[11] == Reveal("dealer", canonical)


@pytest.mark.parametrize(
    ("name", "hand"),
    [("1", (1, 1)), ("3", (3, 1)), ("3.1", (3, 1)), ("3.2", (3, 2)), ("9.64", (9, 64)), ("7.10", (7, 10))],
)
def test_hand_names(name: str, hand: tuple[int, int]) -> None:
    r = parse_round(json.dumps(with_event(0, {"type": "deal", "to": name, "card": "6H"})))
    assert r.events[0] == Deal(hand, "6H")
    r = parse_round(json.dumps(with_event(9, {"type": "double", "hand": name, "amount": 1})))
    assert r.events[9] == Double(hand, 1)


def test_a_hand_of_a_seat_without_a_wager_is_not_a_schema_error() -> None:
    # seat 7 is not in "seats": the replay reports that as a record contradiction, the schema does not
    r = parse_round(
        json.dumps(
            doc(
                events=[
                    {"type": "deal", "to": "7", "card": "6H"},
                    {"type": "insurance", "seat": 8, "amount": 5},
                    {"type": "settle", "bet": "main", "hand": "7.3", "result": "lose", "amount": 10},
                ]
            )
        )
    )
    assert r.events[0] == Deal((7, 1), "6H")


def test_limits_are_inclusive() -> None:
    d = doc(seats=[{"seat": s, "wager": 10**12} for s in range(1, 10)])
    d["events"] = [{"type": "peek", "dealer_blackjack": True}] * 2000
    r = parse_round(json.dumps(d))
    assert len(r.seats) == 9 and len(r.events) == 2000
    assert r.seats[0].wager == 10**12


def test_round_model_json_schema() -> None:
    schema = RoundModel.model_json_schema()
    assert set(schema["required"]) == {"round_id", "jurisdiction", "played_at", "table", "seats", "events"}
    assert schema["additionalProperties"] is False
    assert schema["properties"]["played_at"]["format"] == "date-time"
    assert schema["properties"]["round_id"]["description"]
    assert schema["examples"]
    mapping = schema["properties"]["events"]["items"]["discriminator"]["mapping"]
    assert set(mapping) == {
        "deal",
        "peek",
        "insurance",
        "even_money",
        "double",
        "split",
        "surrender",
        "hit",
        "stand",
        "reveal",
        "settle",
        "burn",
        "void",
    }
    assert all(isinstance(ref, str) for ref in mapping.values())  # OpenAPI wants references here
    # the schema's own example is a valid round
    round_from_obj(schema["examples"][0])


# --------------------------------------------------------------------------------------------------------
# Problems
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", [b'{"round_id": "T-1",', b"", b"{'round_id': 'x'}", b"\xff\xfe", b'{"a": 1} x']
)
def test_malformed_json(text: bytes) -> None:
    exc = problems_of(text)
    p = only(exc.problems)
    assert p["pointer"] == ""
    assert p["message"].startswith("malformed JSON: ")
    assert "line 1 column" in p["message"]
    assert exc.round_id is None


def test_malformed_json_names_line_and_column() -> None:
    p = only(problems_of('{\n  "round_id": "T-1",\n  "seats": [1,\n').problems)
    assert p["pointer"] == ""
    assert "line 4 column 0" in p["message"] or "line 3" in p["message"] or "line 4" in p["message"]


@pytest.mark.parametrize(
    ("value", "kind"),
    [([1, 2], "an array"), ("x", "a string"), (5, "a number"), (None, "null"), (True, "a boolean")],
)
def test_not_an_object(value: object, kind: str) -> None:
    exc = problems_of(json.dumps(value))
    assert only(exc.problems) == {"pointer": "", "message": f"a round must be a JSON object, not {kind}"}
    assert exc.round_id is None


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("2500", "the string '2500'"),
        (2500.5, "2500.5"),
        (2500.0, "2500.0"),
        (True, "true"),
        (None, "null"),
    ],
)
def test_money_must_be_an_integer(value: object, shown: str) -> None:
    d = doc()
    d["seats"][0]["wager"] = value
    assert only(problems_of(d).problems) == {
        "pointer": "/seats/0/wager",
        "message": f"must be an integer count of minor units (cents), not {shown}",
    }


def test_float_amount_in_an_event() -> None:
    p = only(problems_of(with_event(9, {"type": "double", "hand": "1", "amount": 2500.5})).problems)
    assert p == {
        "pointer": "/events/9/amount",
        "message": "must be an integer count of minor units (cents), not 2500.5",
    }


def test_boolean_amount_in_a_settle() -> None:
    event = {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": True}
    p = only(problems_of(with_event(14, event)).problems)
    assert p["pointer"] == "/events/14/amount"
    assert "integer count of minor units" in p["message"] and "true" in p["message"]


def test_money_written_in_exponent_form_is_a_float() -> None:
    raw = json.dumps(doc()).replace('"wager": 2500', '"wager": 2.5e3')
    p = only(problems_of(raw).problems)
    assert p["pointer"] == "/seats/0/wager"
    assert "integer count of minor units" in p["message"]


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (10**15, "at most 1000000000000 minor units, not 1000000000000000"),
        (10**40, "at most 1000000000000 minor units"),
        (-1, "not -1"),
        (0, "positive"),
    ],
)
def test_absurd_wagers(value: int, fragment: str) -> None:
    d = doc()
    d["seats"][1]["wager"] = value
    p = only(problems_of(d).problems)
    assert p["pointer"] == "/seats/1/wager"
    assert fragment in p["message"]


@pytest.mark.parametrize(("value", "ok"), [(0, True), (10**12, True), (10**12 + 1, False), (-5, False)])
def test_settle_amount_range(value: int, ok: bool) -> None:
    d = with_event(14, {"type": "settle", "bet": "main", "hand": "1", "result": "lose", "amount": value})
    if ok:
        assert parse_round(json.dumps(d)).events[14] == Settle("main", "lose", value, hand=(1, 1))
    else:
        assert only(problems_of(d).problems)["pointer"] == "/events/14/amount"


@pytest.mark.parametrize("event_type", ["insurance", "double", "split"])
def test_placed_wagers_must_be_positive(event_type: str) -> None:
    target = {"seat": 1} if event_type == "insurance" else {"hand": "1"}
    p = only(problems_of(with_event(9, {"type": event_type, **target, "amount": 0})).problems)
    assert p == {"pointer": "/events/9/amount", "message": "must be a positive amount of minor units, not 0"}


def test_unknown_event_type_is_one_clear_problem() -> None:
    exc = problems_of(with_event(3, {"type": "shuffle", "card": "6H"}))
    p = only(exc.problems)
    assert p["pointer"] == "/events/3/type"
    assert p["message"].startswith("unknown event type 'shuffle': must be one of deal, peek, insurance")
    assert p["message"].endswith("reveal, settle, burn, void")
    assert exc.round_id == "T-0001"


def test_event_type_of_the_wrong_json_type() -> None:
    p = only(problems_of(with_event(3, {"type": 7, "to": "1", "card": "6H"})).problems)
    assert p["pointer"] == "/events/3/type"
    assert p["message"].startswith("unknown event type 7")


def test_missing_event_type() -> None:
    p = only(problems_of(with_event(2, {"to": "dealer", "card": "AC"})).problems)
    assert p["pointer"] == "/events/2/type"
    assert p["message"].startswith("required field 'type' is missing")


def test_event_that_is_not_an_object() -> None:
    p = only(problems_of(with_event(2, "deal 1 6H")).problems)  # type: ignore[arg-type]
    assert p == {"pointer": "/events/2", "message": "an event must be a JSON object, not 'deal 1 6H'"}


def test_missing_card() -> None:
    assert only(problems_of(with_event(3, {"type": "deal", "to": "1"})).problems) == {
        "pointer": "/events/3/card",
        "message": "required field 'card' is missing",
    }


@pytest.mark.parametrize("card", ["1H", "11H", "ZH", "AX", "A", "AHH", "", "T10", "0H", "1OH"])
def test_bad_card(card: str) -> None:
    p = only(problems_of(with_event(7, {"type": "deal", "to": "1", "card": card})).problems)
    assert p["pointer"] == "/events/7/card"
    assert p["message"] == (
        f"{card!r} is not a card: rank must be one of A 2-9 T J Q K (or 10), suit one of C D H S"
    )


def test_card_of_the_wrong_json_type() -> None:
    p = only(problems_of(with_event(7, {"type": "deal", "to": "1", "card": 10})).problems)
    assert p == {"pointer": "/events/7/card", "message": "must be a string, not 10"}


@pytest.mark.parametrize(
    "hand", ["0", "10", "3.0", "3.65", "3.01", "3.", ".1", "3.1.1", " 3", "a", "-1", "Dealer"]
)
def test_bad_hand(hand: str) -> None:
    p = only(problems_of(with_event(9, {"type": "double", "hand": hand, "amount": 2500})).problems)
    assert p["pointer"] == "/events/9/hand"
    assert p["message"].startswith(f"{hand!r} is not a hand")


def test_bad_deal_target() -> None:
    p = only(problems_of(with_event(0, {"type": "deal", "to": "0", "card": "6H"})).problems)
    assert p["pointer"] == "/events/0/to"
    assert p["message"].startswith("'0' is not a hand: write 'dealer', '<seat>' or '<seat>.<n>'")


def test_hand_given_as_a_number() -> None:
    p = only(problems_of(with_event(9, {"type": "double", "hand": 1, "amount": 2500})).problems)
    assert p == {"pointer": "/events/9/hand", "message": "must be a string, not 1"}


@pytest.mark.parametrize(
    "event",
    [
        {"type": "double", "hand": "dealer", "amount": 2500},
        {"type": "split", "hand": "dealer", "amount": 2500},
        {"type": "hit", "hand": "dealer"},
        {"type": "stand", "hand": "dealer"},
        {"type": "surrender", "hand": "dealer"},
        {"type": "settle", "bet": "main", "hand": "dealer", "result": "win", "amount": 1},
    ],
)
def test_dealer_is_not_a_player_hand(event: dict[str, Any]) -> None:
    p = only(problems_of(with_event(9, event)).problems)
    assert p["pointer"] == "/events/9/hand"
    assert p["message"] == (
        f"'dealer' is not allowed here: a {event['type']} names a player hand such as '3' or '3.2'"
    )


@pytest.mark.parametrize("seat", [0, 10, -1])
def test_event_seat_out_of_range(seat: int) -> None:
    p = only(problems_of(with_event(6, {"type": "insurance", "seat": seat, "amount": 1250})).problems)
    assert p == {"pointer": "/events/6/seat", "message": f"must be a seat number 1-9, not {seat}"}


def test_event_seat_as_a_string() -> None:
    p = only(problems_of(with_event(6, {"type": "insurance", "seat": "1", "amount": 1250})).problems)
    assert p == {"pointer": "/events/6/seat", "message": "must be an integer, not the string '1'"}


@pytest.mark.parametrize(
    ("d", "pointer", "message"),
    [
        (doc(extra=1), "/extra", "unknown field 'extra'"),
        (doc(table={"id": "BJ12", "name": "x"}), "/table/name", "unknown field 'name'"),
        (
            doc(table={"id": "BJ12", "rules": {"dekcs": 6}}),
            "/table/rules/dekcs",
            "unknown rule election 'dekcs'",
        ),
        (
            doc(seats=[{"seat": 1, "wager": 5, "additional_wager": {"kind": "seven", "amount": 1, "x": 0}}]),
            "/seats/0/additional_wager/x",
            "unknown field 'x'",
        ),
        (doc(seats=[{"seat": 1, "wager": 5, "bet": 5}]), "/seats/0/bet", "unknown field 'bet'"),
        (
            with_event(9, {"type": "double", "hand": "1", "ammount": 2500, "amount": 2500}),
            "/events/9/ammount",
            "unknown field 'ammount'",
        ),
        (
            with_event(0, {"type": "deal", "to": "1", "card": "6H", "a/b~c": 1}),
            "/events/0/a~1b~0c",
            "unknown field 'a/b~c'",
        ),
        (
            with_event(8, {"type": "peek", "dealer_blackjack": False, "face": "up"}),
            "/events/8/face",
            "unknown field 'face'",
        ),
    ],
)
def test_unknown_fields(d: dict[str, Any], pointer: str, message: str) -> None:
    assert only(problems_of(d).problems) == {"pointer": pointer, "message": message}


def test_duplicate_seat() -> None:
    d = doc(
        seats=[
            {"seat": 1, "wager": 5},
            {"seat": 4, "wager": 5},
            {"seat": 1, "wager": 7},
            {"seat": 4, "wager": 1},
        ]
    )
    assert problems_of(d).problems == [
        {"pointer": "/seats/2/seat", "message": "seat 1 is listed more than once (also at /seats/0)"},
        {"pointer": "/seats/3/seat", "message": "seat 4 is listed more than once (also at /seats/1)"},
    ]


@pytest.mark.parametrize(
    ("seats", "pointer", "fragment"),
    [
        ([], "/seats", "at least 1 seat"),
        ([{"seat": s, "wager": 1} for s in range(1, 10)] + [{"seat": 1, "wager": 1}], "/seats", "at most 9"),
        ([{"seat": 0, "wager": 1}], "/seats/0/seat", "seat number 1-9, not 0"),
        ([{"wager": 1}], "/seats/0/seat", "required field 'seat' is missing"),
        ({"seat": 1, "wager": 1}, "/seats", "must be an array, not an object"),
        (
            [{"seat": 1, "wager": 1, "additional_wager": {"kind": "pairs", "amount": 1}}],
            "/seats/0/additional_wager/kind",
            "'pairs' is not one of 'over_13', 'under_13', 'same_suit', 'seven'",
        ),
        (
            [{"seat": 1, "wager": 1, "additional_wager": None}],
            "/seats/0/additional_wager",
            "not null: leave the field out instead",
        ),
    ],
)
def test_bad_seats(seats: object, pointer: str, fragment: str) -> None:
    p = only(problems_of(doc(seats=seats)).problems)
    assert p["pointer"] == pointer
    assert fragment in p["message"]


@pytest.mark.parametrize(
    ("played_at", "fragment"),
    [
        ("2026-12-01T21:14:05", "has no UTC offset"),
        ("2026-12-01T21:14:05.5", "has no UTC offset"),
        ("2026-12-01", "is a date, not a timestamp"),
        ("2026-12-01 21:14:05Z", "is not an RFC 3339 timestamp"),
        ("2026-12-01T21:14Z", "is not an RFC 3339 timestamp"),
        ("2026-12-01T21:14:05+0500", "is not an RFC 3339 timestamp"),
        ("1700000000", "is not an RFC 3339 timestamp"),
        ("yesterday", "is not an RFC 3339 timestamp"),
        ("2026-02-30T21:14:05Z", "is not a real date and time"),
        ("2026-12-01T25:14:05Z", "is not a real date and time"),
    ],
)
def test_bad_played_at(played_at: str, fragment: str) -> None:
    p = only(problems_of(doc(played_at=played_at)).problems)
    assert p["pointer"] == "/played_at"
    assert fragment in p["message"]
    assert repr(played_at) in p["message"]


@pytest.mark.parametrize("played_at", [1700000000, 1700000000.5, None, True])
def test_numeric_played_at(played_at: object) -> None:
    p = only(problems_of(doc(played_at=played_at)).problems)
    assert p["pointer"] == "/played_at"
    assert "RFC 3339" in p["message"] or "string" in p["message"]


@pytest.mark.parametrize(
    "played_at",
    [
        "2026-12-01T21:14:05Z",
        "2026-12-01t21:14:05z",
        "2026-12-01T21:14:05.123456789+12:45",
        "2026-12-01T21:14:05-00:00",
        "2028-02-29T00:00:00+14:00",
    ],
)
def test_good_played_at(played_at: str) -> None:
    r = parse_round(json.dumps(doc(played_at=played_at)))
    assert r.played_at.tzinfo is not None


def test_bad_event_timestamp() -> None:
    p = only(
        problems_of(
            with_event(1, {"type": "deal", "to": "4", "card": "AS", "at": "2026-12-01T21:14:05"})
        ).problems
    )
    assert p["pointer"] == "/events/1/at"
    assert "no UTC offset" in p["message"]


def test_push_with_an_amount() -> None:
    event = {"type": "settle", "bet": "main", "hand": "1", "result": "push", "amount": 2500}
    assert only(problems_of(with_event(14, event)).problems) == {
        "pointer": "/events/14/amount",
        "message": "a push moves no money: amount must be 0, not 2500",
    }


def test_settle_main_with_seat_instead_of_hand() -> None:
    event = {"type": "settle", "bet": "main", "seat": 1, "result": "win", "amount": 5000}
    assert problems_of(with_event(14, event)).problems == [
        {
            "pointer": "/events/14/hand",
            "message": "required field 'hand' is missing: a main settle names the hand it settles",
        },
        {
            "pointer": "/events/14/seat",
            "message": "'seat' is not allowed on a main settle, which names the 'hand'",
        },
    ]


def test_settle_insurance_with_hand_instead_of_seat() -> None:
    event = {"type": "settle", "bet": "insurance", "hand": "1", "result": "lose", "amount": 1250}
    problems = problems_of(with_event(12, event)).problems
    assert [p["pointer"] for p in problems] == ["/events/12/seat", "/events/12/hand"]


def test_surrender_settles_only_a_main_bet() -> None:
    event = {"type": "settle", "bet": "additional", "seat": 4, "result": "surrender", "amount": 50}
    assert only(problems_of(with_event(13, event)).problems) == {
        "pointer": "/events/13/result",
        "message": "'surrender' settles only a main bet, not an additional bet",
    }


@pytest.mark.parametrize(
    ("changes", "pointer", "fragment"),
    [
        ({"bet": "side"}, "/events/14/bet", "'side' is not one of 'main', 'insurance', 'additional'"),
        (
            {"result": "won"},
            "/events/14/result",
            "'won' is not one of 'win', 'lose', 'push', 'surrender', 'void'",
        ),
        ({"bet": None}, "/events/14/bet", "is not one of"),
    ],
)
def test_bad_settle_values(changes: dict[str, Any], pointer: str, fragment: str) -> None:
    event = {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 5000, **changes}
    p = only(problems_of(with_event(14, event)).problems)
    assert p["pointer"] == pointer
    assert fragment in p["message"]


def test_missing_bet() -> None:
    event = {"type": "settle", "hand": "1", "result": "win", "amount": 5000}
    assert only(problems_of(with_event(14, event)).problems) == {
        "pointer": "/events/14/bet",
        "message": "required field 'bet' is missing",
    }


def test_too_many_events() -> None:
    d = doc(events=[{"type": "peek", "dealer_blackjack": False}] * 2001)
    assert only(problems_of(d).problems) == {
        "pointer": "/events",
        "message": "has 2001 events; at most 2000 are allowed",
    }


def test_no_events() -> None:
    p = only(problems_of(doc(events=[])).problems)
    assert p["pointer"] == "/events"
    assert "at least 1 event" in p["message"]


@pytest.mark.parametrize(
    ("changes", "pointer", "fragment"),
    [
        ({"round_id": ""}, "/round_id", "must not be empty"),
        ({"round_id": "a b"}, "/round_id", "'a b' is not a round_id"),
        ({"round_id": "x" * 129}, "/round_id", "at most 128 characters"),
        ({"round_id": 123}, "/round_id", "must be a string, not 123"),
        ({"jurisdiction": "NJ"}, "/jurisdiction", "'NJ' is not one of 'US-NJ', 'NZ'"),
        ({"table": {"rules": {}}}, "/table/id", "required field 'id' is missing"),
        ({"table": {"id": ""}}, "/table/id", "must not be empty"),
        ({"table": {"id": "t", "rules": {"decks": 9}}}, "/table/rules/decks", "at most 8, not 9"),
        (
            {"table": {"id": "t", "rules": {"decks": 6.0}}},
            "/table/rules/decks",
            "must be an integer, not 6.0",
        ),
        ({"table": {"id": "t", "rules": {"peek": "yes"}}}, "/table/rules/peek", "true or false"),
        ({"table": {"id": "t", "rules": {"blackjack_pays": "2:1"}}}, "/table/rules/blackjack_pays", "'2:1'"),
        ({"table": {"id": "t", "rules": {"min_chip": 0}}}, "/table/rules/min_chip", "positive"),
        ({"table": {"id": "t", "rules": {"max_wager": "100"}}}, "/table/rules/max_wager", "minor units"),
        ({"table": {"id": "t", "rules": None}}, "/table/rules", "leave the field out"),
        ({"dealer_id": None}, "/dealer_id", "must be a string, not null: leave the field out instead"),
        ({"shoe_id": "s" * 129}, "/shoe_id", "at most 128 characters"),
    ],
)
def test_bad_top_level_values(changes: dict[str, Any], pointer: str, fragment: str) -> None:
    p = only(problems_of(doc(**changes)).problems)
    assert p["pointer"] == pointer
    assert fragment in p["message"]


def test_missing_top_level_fields() -> None:
    exc = problems_of({"round_id": "R-9"})
    assert {p["pointer"] for p in exc.problems} == {
        "/jurisdiction",
        "/played_at",
        "/table",
        "/seats",
        "/events",
    }
    assert all(p["message"].startswith("required field") for p in exc.problems)
    assert exc.round_id == "R-9"


def test_bad_note() -> None:
    p = only(
        problems_of(with_event(8, {"type": "peek", "dealer_blackjack": True, "note": "n" * 1001})).problems
    )
    assert p["pointer"] == "/events/8/note"


def test_several_problems_are_all_reported() -> None:
    d = doc(jurisdiction="UK", played_at="2026-12-01T21:14:05", unknown=True)
    d["seats"][0]["wager"] = 2500.5
    d["events"][0]["card"] = "1H"
    d["events"][3] = {"type": "shuffle"}
    d["events"][9]["hand"] = "dealer"
    d["events"][14]["result"] = "push"
    exc = problems_of(d)
    assert [p["pointer"] for p in exc.problems] == [
        "/jurisdiction",
        "/played_at",
        "/seats/0/wager",
        "/events/0/card",
        "/events/3/type",
        "/events/9/hand",
        "/events/14/amount",
        "/unknown",
    ]
    assert exc.round_id == "T-0001"
    assert "T-0001" in str(exc) and "and 7 more problems" in str(exc)


def test_round_id_reported_only_when_readable() -> None:
    assert problems_of(doc(jurisdiction="XX")).round_id == "T-0001"
    assert problems_of(doc(round_id="bad id", jurisdiction="XX")).round_id is None
    assert problems_of(doc(round_id=5)).round_id is None
    d = doc(jurisdiction="XX")
    del d["round_id"]
    assert problems_of(d).round_id is None


def test_round_invalid_is_a_value_error() -> None:
    exc = problems_of(doc(jurisdiction="XX"))
    assert isinstance(exc, ValueError)
    assert str(exc) == "invalid round T-0001: /jurisdiction: 'XX' is not one of 'US-NJ', 'NZ'"


def test_round_from_obj_reports_the_same_problems() -> None:
    d = doc(played_at=1700000000, jurisdiction="XX")
    d["events"][14]["amount"] = 5000.0
    d["seats"][0]["wager"] = "2500"
    with pytest.raises(RoundInvalid) as info:
        round_from_obj(d)
    assert info.value.problems == problems_of(d).problems
    assert info.value.round_id == "T-0001"


def test_round_from_obj_rejects_non_objects() -> None:
    with pytest.raises(RoundInvalid) as info:
        round_from_obj([1])
    assert info.value.problems == [{"pointer": "", "message": "a round must be a JSON object, not an array"}]
    assert info.value.round_id is None


def test_parsed_rounds_are_independent() -> None:
    a = parse_round(json.dumps(doc()))
    b = parse_round(json.dumps(doc()))
    assert a == b
    assert a.rules is not b.rules  # each round has its own rules dict


@pytest.mark.parametrize("played_at", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_timestamp_outside_years_1_to_9999_in_utc_is_refused(played_at: str) -> None:
    doc = json.loads((EXAMPLES / "nj-compliant-double.round.json").read_text())
    doc["played_at"] = played_at
    with pytest.raises(RoundInvalid) as info:
        round_from_obj(doc)
    problem = only(info.value.problems)
    assert problem["pointer"] == "/played_at"
    assert "outside the years 1-9999" in problem["message"]
