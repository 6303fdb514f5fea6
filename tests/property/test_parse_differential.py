"""The fast round parser against the reference (issue 23): :func:`app.wire.fast.parse_round` must answer every input
exactly as :func:`app.wire.schema.parse_round` (Pydantic plus strict JSON) does.

For each input: both accept and give the same :class:`~app.domain.model.Round` (equal, equal in ``repr``, and of the
same class in every value: an int is not a bool, a timestamp keeps its offset and its tzinfo class, the elections
keep their order), or both refuse with the same ``problems``, the same ``round_id`` and the same message. The fast
path hands what it does not accept to the reference, so its errors are the reference's by construction; what can go
wrong is a record it accepts that the reference refuses, or a round it reads differently. The inputs aim there:

1. legal rounds of the generator (both jurisdictions, random and every-option elections, with and without
   ``table.rules``, ``dealer_id`` and ``shoe_id``; burns, voids, corrections; every card spelling), in three layouts;
2. every fault of the mutator, in each jurisdiction where it applies;
3. edits of valid records, written from ``round-v1.md`` and the model: every member removed and set to a value of
   every JSON type; an unknown member, and a member of another event type, in every object; every key given twice
   (also escaped); integers at and around every bound; booleans for integers and integers for booleans; identifiers
   and notes at their length limits and with every kind of character; card spellings; hand names; timestamps of
   every shape; every literal and its near misses; settles of every combination; the additional wager's shapes;
   lists at their limits; and valid rounds drawn by hypothesis from the whole value space the spec allows;
4. garbage: arbitrary bytes and text (lone surrogates too), every prefix of a record, invalid UTF-8, a BOM,
   whitespace, JSON that is not an object, NaN and Infinity, nesting 10,000 deep, odd number literals.

Every input is given as ``str`` and as ``bytes``. Where the spec says plainly whether a record is read (and what is
read), the case says so too and the reference is held to it, so that each input is what it claims to be. Hypothesis
runs derandomized (a fixed seed per test, no example database), as in the other property tests. The JSON writer, the
comparison and the edge values of the format are in ``tests/property/differential.py``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from copy import deepcopy
from datetime import datetime
from functools import cache
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.model import Round
from app.jurisdictions import RULESETS, ruleset_for
from app.synth.generator import generate_round, generate_rounds, random_elections
from app.synth.mutator import MUTATIONS, Mutation
from app.wire.fast import parse_round as fast_parse_round
from app.wire.schema import MAX_EVENTS, MAX_MONEY, parse_round
from tests.property.differential import (
    ACCEPT,
    BAD_TIMESTAMPS,
    GOOD_TIMESTAMPS,
    JSON_TYPES,
    ODD_INTEGERS,
    RANKS,
    REFUSE,
    SUITS,
    Case,
    Cases,
    Doc,
    Obj,
    Path,
    Raw,
    Then,
    card_spellings,
    check_all,
    escaped,
    get,
    hand_names,
    kept,
    paths,
    pointer,
    put,
    refused_at,
    removed,
    replaced,
    string_values,
    write,
)
from tests.property.test_generated import TARGETED

MAX = MAX_MONEY

DIFF = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ---------------------------------------------------------------------------------------------------------------
# Valid records to edit

TS = "2026-12-01T21:14:05-05:00"
RULES: Doc = {
    "decks": 6,
    "dealt_from": "shoe",
    "dealer_soft_17": "stand",
    "blackjack_pays": "3:2",
    "dealer_second_card": "initial_deal",
    "peek": True,
    "double_after_split": True,
    "double_card": "face_up",
    "resplit": False,
    "resplit_aces": False,
    "boxes": 7,
    "surrender": "late",
    "min_chip": 100,
    "payout_rounding": "down",
    "min_wager": 500,
    "max_wager": 100000,
    "additional_wager": "same_suit",
}
RICH: Doc = {
    "round_id": "BOR-BJ12-20261201-000123",
    "jurisdiction": "US-NJ",
    "played_at": TS,
    "table": {"id": "BJ12", "rules": RULES},
    "seats": [
        {"seat": 1, "wager": 2500},
        {"seat": 4, "wager": 1000, "additional_wager": {"kind": "same_suit", "amount": 100}},
    ],
    "events": [
        {"type": "burn", "card": "7C", "face": "up", "at": "2026-12-01T21:14:05Z"},
        {"type": "deal", "to": "1", "card": "AH", "face": "up", "at": TS, "note": "first card"},
        {"type": "deal", "to": "dealer", "card": "10s", "face": "down", "at": "2026-12-02T02:14:06+00:00"},
        {"type": "peek", "dealer_blackjack": False, "at": "2026-12-01t21:14:07.5-05:00"},
        {"type": "insurance", "seat": 1, "amount": 1250, "note": ""},
        {"type": "even_money", "seat": 4, "amount": 1000},
        {"type": "split", "hand": "1", "amount": 2500},
        {"type": "double", "hand": "1.2", "amount": 2500},
        {"type": "hit", "hand": "1.1"},
        {"type": "stand", "hand": "1"},
        {"type": "surrender", "hand": "4"},
        {"type": "reveal", "to": "dealer", "card": "Ts", "at": "2026-12-02T07:44:08+10:30"},
        {"type": "settle", "bet": "main", "hand": "1", "result": "win", "amount": 2500},
        {"type": "settle", "bet": "main", "hand": "1", "result": "lose", "amount": 2500, "corrects": 12},
        {"type": "settle", "bet": "insurance", "seat": 1, "result": "lose", "amount": 1250},
        {"type": "settle", "bet": "additional", "seat": 4, "result": "push", "amount": 0},
        {"type": "void", "reason": "other", "note": "shoe jammed"},
        {"type": "settle", "bet": "main", "hand": "1.2", "result": "void", "amount": 0, "at": TS},
    ],
    "dealer_id": "E1234",
    "shoe_id": "SHOE-7",
}
"""Every member the format has, once at least (an event of every type): valid to the schema, not a legal game."""

MINIMAL: Doc = {
    "round_id": "R1",
    "jurisdiction": "NZ",
    "played_at": "1995-03-04T09:00:00Z",
    "table": {"id": "T"},
    "seats": [{"seat": 1, "wager": 100}],
    "events": [{"type": "deal", "to": "1", "card": "AS"}],
}
"""Only what is required."""

BASES: dict[str, Doc] = {"rich": RICH, "minimal": MINIMAL}
EVENT_OF = {e["type"]: i for i, e in reversed(list(enumerate(RICH["events"])))}
"""The index of the first event of each type in RICH."""
RICH_TEXT = write(RICH)

EVENT_TYPES = ["deal", "peek", "insurance", "even_money", "double", "split", "surrender", "hit", "stand"]
EVENT_TYPES += ["reveal", "settle", "burn", "void"]
TYPE_FIELDS: dict[str, tuple[set[str], set[str]]] = {  # each event type's required and optional members
    "deal": ({"to", "card"}, {"face"}),
    "peek": ({"dealer_blackjack"}, set()),
    "insurance": ({"seat", "amount"}, set()),
    "even_money": ({"seat", "amount"}, set()),
    "double": ({"hand", "amount"}, set()),
    "split": ({"hand", "amount"}, set()),
    "surrender": ({"hand"}, set()),
    "hit": ({"hand"}, set()),
    "stand": ({"hand"}, set()),
    "reveal": ({"to", "card"}, set()),
    "settle": ({"bet", "result", "amount"}, {"hand", "seat", "corrects"}),
    "burn": ({"card"}, {"face"}),
    "void": ({"reason"}, set()),
}
SETTLE_BETS = ["main", "insurance", "additional"]
RESULTS = ["win", "lose", "push", "surrender", "void"]
KINDS = ["over_13", "under_13", "same_suit", "seven"]
REASONS = ["misdeal", "card_exposed", "shoe_error", "equipment", "other"]


def with_event(event: Any) -> Doc:
    return {**MINIMAL, "events": [event]}


@cache
def legal() -> list[Doc]:
    """Legal rounds of both jurisdictions: tables of random elections (given or left out), tables that give every
    election, and the many-option tables of the property tests (no peek, resplits, face-down doubles, 6 to 5 dealt
    by hand, an NZ table with every option, payouts rounded up)."""
    out = list(generate_rounds(1500, 230023))
    rng = random.Random(23)
    for j in ("US-NJ", "NZ"):
        out += [generate_round(rng, j, elections=random_elections(rng, j)) for _ in range(60)]
    for j, elections, seed, _ in TARGETED:
        out += generate_rounds(150, seed, j, elections=elections)
    return out


@cache
def sources() -> list[Doc]:
    """Rounds to inject the mutator's faults into: the legal rounds, and more of the no-peek table (where a dealer
    blackjack after splits and doubles is common)."""
    j, elections, seed, n = TARGETED[0]
    return [*legal(), *generate_rounds(n, seed + 1, j, elections=elections)]


def test_the_base_records_are_read() -> None:
    cases = Cases()
    cases.doc("rich", RICH, ACCEPT, lambda r: r.rules == RULES and len(r.events) == len(RICH["events"]))
    cases.doc("minimal", MINIMAL, ACCEPT, lambda r: r.rules is None and r.dealer_id is None)
    check_all(cases)


def test_a_round_read_is_its_own() -> None:
    """A round read shares nothing mutable with the next one read from the same text (its elections are a dict):
    changing it changes no later round, from either parser."""
    for parse in (fast_parse_round, parse_round):
        first = parse(RICH_TEXT)
        assert first.rules is not None
        first.rules["decks"] = 99
        first.rules.pop("peek")
        again = parse(RICH_TEXT)
        assert again.rules == RULES and again.rules is not first.rules, parse.__module__


# ---------------------------------------------------------------------------------------------------------------
# 1. Legal rounds of the generator; 2. every fault of the mutator


def test_generated_rounds_are_read_alike() -> None:
    rounds = legal()
    census = {
        "no rules": sum("rules" not in d["table"] for d in rounds),
        "void": sum(any(e["type"] == "void" for e in d["events"]) for d in rounds),
        "corrects": sum(any("corrects" in e for e in d["events"]) for d in rounds),
        "burn": sum(any(e["type"] == "burn" for e in d["events"]) for d in rounds),
        "at": sum(any("at" in e for e in d["events"]) for d in rounds),
        "additional": sum(any("additional_wager" in s for s in d["seats"]) for d in rounds),
        "card spellings": sum(any(e.get("card", "AS")[0] in "1atjqk" for e in d["events"]) for d in rounds),
        "NZ": sum(d["jurisdiction"] == "NZ" for d in rounds),
    }
    assert all(census.values()), census
    held = {rs.name for rulesets in RULESETS.values() for rs in rulesets}
    played = {ruleset_for(d["jurisdiction"], datetime.fromisoformat(d["played_at"])).name for d in rounds}
    assert played == held, f"rulesets without a round: {held - played}"
    cases = Cases()
    for k, doc in enumerate(rounds):
        variants = [doc]
        if k % 4 == 0:  # without table.rules, dealer_id and shoe_id; without shoe_id
            bare = {key: v for key, v in doc.items() if key not in ("dealer_id", "shoe_id")}
            bare["table"] = {"id": doc["table"]["id"]}
            variants += [bare, {key: v for key, v in doc.items() if key != "shoe_id"}]
        for v, variant in enumerate(variants):
            texts: list[bytes | str] = [orjson.dumps(variant)]
            if k % 5 == 0:
                texts += [json.dumps(variant, indent=1, ensure_ascii=True), write(variant, " ")]
            for form, data in enumerate(texts):
                cases.text(f"generated {k}.{v}.{form} {doc['round_id']}", data, ACCEPT)
    check_all(cases, least=2000)


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_every_mutator_fault_is_read_alike(mutation: Mutation) -> None:
    rng = random.Random(f"differential:{mutation.name}")
    cases = Cases()
    for j in ("US-NJ", "NZ"):
        applied = 0
        for doc in sources():
            if doc["jurisdiction"] == j and applied < 6 and (got := mutation.apply(doc, rng)) is not None:
                applied += 1
                cases.text(f"{mutation.name} {j} {applied}", orjson.dumps(got.round), ACCEPT)
    check_all(cases)


# ---------------------------------------------------------------------------------------------------------------
# 3. Edits of valid records

OPTIONAL = {"rules", "additional_wager", "at", "note", "face", "corrects", "dealer_id", "shoe_id"}


@pytest.mark.parametrize("base", BASES)
def test_every_member_removed_or_set_to_every_json_type(base: str) -> None:
    doc = BASES[base]
    cases = Cases()
    for path in list(paths(doc))[1:]:
        optional = path[-1] in OPTIONAL or path[:2] == ("table", "rules") or isinstance(path[-1], int)
        cases.doc(f"{base} without {pointer(path)}", removed(doc, path), None if optional else REFUSE)
        for name, value in JSON_TYPES:
            cases.doc(f"{base} {pointer(path)} = {name}", replaced(doc, path, value))
    check_all(cases, least=100)


OTHER_FIELDS = [
    "to",
    "card",
    "face",
    "dealer_blackjack",
    "seat",
    "amount",
    "hand",
    "bet",
    "result",
    "corrects",
]
OTHER_FIELDS += [
    "reason",
    "at",
    "note",
    "type",
    "x",
    "",
    "Type",
    "TYPE",
    "type ",
    "_k",
    "extra",
    "wager",
    "id",
]


def own_fields(obj: Doc) -> set[str]:
    """The members an object may have when it is an event (of a known type)."""
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in TYPE_FIELDS:
        return set()
    required, optional = TYPE_FIELDS[kind]
    return required | optional | {"at", "note"}


def test_unknown_members_and_members_of_other_types_in_every_object() -> None:
    cases = Cases()
    for base, doc in BASES.items():
        for path in paths(doc):
            obj = get(doc, path)
            if not isinstance(obj, dict):
                continue
            for key in OTHER_FIELDS + [k.upper() for k in obj] + [k + " " for k in obj]:
                if key in obj:
                    continue
                for value in (1, "1", "AS", None):
                    new = deepcopy(doc)
                    get(new, path)[key] = value
                    want = None if key in own_fields(obj) else pointer((*path, key))
                    cases.doc(f"{base} {pointer(path)} + {key!r}: {value!r}", new, want)
    check_all(cases, least=500)


def test_every_key_given_twice() -> None:
    cases = Cases()
    for base, doc in BASES.items():
        for path in paths(doc):
            obj = get(doc, path)
            if not isinstance(obj, dict):
                continue
            for at, (key, value) in enumerate(obj.items()):
                other = "x" if isinstance(value, int) and not isinstance(value, bool) else 7
                for how, second, again in [
                    ("same value", key, value),
                    ("null", key, None),
                    ("other value", key, other),
                    ("escaped", escaped(key), value),
                ]:
                    for where in (at + 1, 0):  # the repeat right after the member, or first of all
                        members = Obj(obj.items())
                        members.insert(where, (second, again))
                        cases.text(
                            f"{base} {pointer(path)} {key!r} twice ({how}, at {where})",
                            put(doc, path, members),
                            REFUSE,
                        )
    check_all(cases, least=300)


INTEGER_FIELDS: list[tuple[str, Path, int, int]] = [  # (base, path, least, most)
    ("rich", ("seats", 0, "seat"), 1, 9),
    ("rich", ("seats", 0, "wager"), 1, MAX),
    ("rich", ("seats", 1, "additional_wager", "amount"), 1, MAX),
    ("rich", ("events", EVENT_OF["insurance"], "seat"), 1, 9),
    ("rich", ("events", EVENT_OF["insurance"], "amount"), 1, MAX),
    ("rich", ("events", EVENT_OF["even_money"], "seat"), 1, 9),
    ("rich", ("events", EVENT_OF["even_money"], "amount"), 0, MAX),
    ("rich", ("events", EVENT_OF["split"], "amount"), 1, MAX),
    ("rich", ("events", EVENT_OF["double"], "amount"), 1, MAX),
    ("rich", ("events", 12, "amount"), 0, MAX),  # a settle: win
    ("rich", ("events", 13, "amount"), 0, MAX),  # lose
    ("rich", ("events", 13, "corrects"), 0, MAX_EVENTS - 1),
    ("rich", ("events", 14, "seat"), 1, 9),
    ("rich", ("table", "rules", "decks"), 1, 8),
    ("rich", ("table", "rules", "boxes"), 1, 9),
    ("rich", ("table", "rules", "min_chip"), 1, MAX),
    ("rich", ("table", "rules", "min_wager"), 1, MAX),
    ("rich", ("table", "rules", "max_wager"), 1, MAX),
    ("minimal", ("seats", 0, "seat"), 1, 9),
    ("minimal", ("seats", 0, "wager"), 1, MAX),
]


def read_at(r: Round, path: Path) -> object:
    """The value read for a member of RICH or MINIMAL (by its location in the record)."""
    if path[0] == "table":
        return (r.rules or {}).get(str(path[-1]))
    if path[0] == "seats":
        s = r.seats[int(path[1])]
        return s.additional.amount if s.additional and len(path) == 4 else getattr(s, str(path[-1]))
    return getattr(r.events[int(path[1])], str(path[-1]))


def reads(path: Path, value: object) -> Then:
    """The value read at ``path`` is ``value``, of the same class (an int is not a bool)."""
    return lambda r: type(read_at(r, path)) is type(value) and read_at(r, path) == value


def test_integers_at_and_around_their_bounds() -> None:
    cases = Cases()
    for base, path, lo, hi in INTEGER_FIELDS:
        where = pointer(path)
        bounds = sorted({lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, 0, 10**12, 10**12 + 1})
        for name, value, number in [(str(n), n, n) for n in bounds] + ODD_INTEGERS:
            ok = number is not None and lo <= number <= hi
            new = replaced(BASES[base], path, value)
            if ok:
                cases.doc(f"{base} {where} = {name}", new, ACCEPT, reads(path, number))
            else:
                cases.doc(f"{base} {where} = {name}", new, refused_at(value, where))
    check_all(cases, least=500)


BOOL_FIELDS: list[Path] = [
    ("events", EVENT_OF["peek"], "dealer_blackjack"),
    ("table", "rules", "peek"),
    ("table", "rules", "double_after_split"),
    ("table", "rules", "resplit"),
    ("table", "rules", "resplit_aces"),
]
NOT_BOOLEANS = [0, 1, Raw("1.0"), Raw("0.0"), "true", "false", "True", None, Raw("True"), [True], {}]


def test_booleans_are_not_integers_and_integers_not_booleans() -> None:
    cases = Cases()
    for path in BOOL_FIELDS:
        for b in (True, False):
            cases.doc(f"{pointer(path)} = {b}", replaced(RICH, path, b), ACCEPT, reads(path, b))
        for value in NOT_BOOLEANS:
            cases.doc(
                f"{pointer(path)} = {value!r}", replaced(RICH, path, value), refused_at(value, pointer(path))
            )
    for base, path, _, _ in INTEGER_FIELDS:
        for b in (True, False):
            cases.doc(f"{base} {pointer(path)} = {b}", replaced(BASES[base], path, b), pointer(path))
    check_all(cases)


ROUND_ID_CHARS = re.compile(r"[A-Za-z0-9._:-]*")


def test_identifiers_and_notes_at_their_limits_and_with_every_kind_of_character() -> None:
    anything: Callable[[str], bool] = lambda c: True  # noqa: E731
    fields: list[tuple[Path, Callable[[str], bool], int, int]] = [
        (("round_id",), lambda c: ROUND_ID_CHARS.fullmatch(c) is not None, 1, 128),
        (("table", "id"), anything, 1, 128),
        (("dealer_id",), anything, 0, 128),
        (("shoe_id",), anything, 0, 128),
        (("events", 1, "note"), anything, 0, 1000),
    ]
    read: dict[Path, Callable[[Round], object]] = {
        ("round_id",): lambda r: r.round_id,
        ("table", "id"): lambda r: r.table_id,
        ("dealer_id",): lambda r: r.dealer_id,
        ("shoe_id",): lambda r: r.shoe_id,
    }
    cases = Cases()
    for path, alphabet_ok, least, most in fields:
        for name, value, ok in string_values(alphabet_ok, least, most) + [
            ("1", 1, False),
            ("null", None, False),
        ]:
            then = None
            if ok and isinstance(value, str) and path in read:
                then = (lambda f, v: lambda r: f(r) == v)(read[path], value)
            want = ACCEPT if ok else REFUSE if isinstance(value, Raw) else pointer(path)
            cases.doc(f"{pointer(path)} = {name}", replaced(RICH, path, value), want, then)
    check_all(cases, least=300)


def test_card_spellings() -> None:
    cases = Cases()
    for path in [
        ("events", EVENT_OF["deal"], "card"),
        ("events", EVENT_OF["reveal"], "card"),
        ("events", 0, "card"),
    ]:
        for spelled, card in card_spellings():
            new = replaced(RICH, path, spelled)
            if card is None:
                cases.doc(f"{pointer(path)} = {spelled!r}", new, pointer(path))
            else:
                cases.doc(f"{pointer(path)} = {spelled!r}", new, ACCEPT, reads(path, card))
    check_all(cases, least=300)


def test_hand_names() -> None:
    cases = Cases()
    hand_fields = [("events", EVENT_OF[t], "hand") for t in ("split", "double", "hit", "stand", "surrender")]
    hand_fields.append(("events", 12, "hand"))  # a main settle
    not_players = [("dealer", None), ("Dealer", None), ("DEALER", None)]
    for path in hand_fields:
        for name, hand in hand_names() + not_players:
            new = replaced(RICH, path, name)
            if hand is None:
                cases.doc(f"{pointer(path)} = {name!r}", new, pointer(path))
            else:
                cases.doc(f"{pointer(path)} = {name!r}", new, ACCEPT, reads(path, hand))
    targets: list[tuple[str, Any]] = [*hand_names(), ("dealer", "dealer"), ("Dealer", None), ("DEALER", None)]
    targets += [("dealer\n", None), (" dealer", None), ("dealer ", None), ("dealers", None), ("deale", None)]
    for path in [("events", EVENT_OF["deal"], "to"), ("events", EVENT_OF["reveal"], "to")]:
        for name, target in targets:
            new = replaced(RICH, path, name)
            if target is None:
                cases.doc(f"{pointer(path)} = {name!r}", new, pointer(path))
            else:
                cases.doc(f"{pointer(path)} = {name!r}", new, ACCEPT, reads(path, target))
    check_all(cases, least=500)


def test_timestamps_of_every_shape() -> None:
    cases = Cases()
    for path in (
        ("played_at",),
        ("events", 1, "at"),
        ("events", EVENT_OF["void"], "at"),
    ):  # void's "at" added
        for ts in GOOD_TIMESTAMPS:
            then = kept(ts) if path == ("played_at",) else None
            cases.doc(f"{pointer(path)} = {ts!r}", replaced(RICH, path, ts), ACCEPT, then)
        for value in [*BAD_TIMESTAMPS, 1700000000, Raw("1.7e9"), None, True, [], {}]:
            cases.doc(f"{pointer(path)} = {value!r}", replaced(RICH, path, value), pointer(path))
        cases.doc(f"{pointer(path)} leap second", replaced(RICH, path, "2016-12-31T23:59:60Z"))
    check_all(cases, least=300)


LITERALS: dict[Path, list[str]] = {
    ("jurisdiction",): ["US-NJ", "NZ"],
    ("events", EVENT_OF["deal"], "face"): ["up", "down"],
    ("events", EVENT_OF["burn"], "face"): ["up", "down"],
    ("events", EVENT_OF["void"], "reason"): REASONS,
    ("events", 12, "result"): [
        "win",
        "lose",
        "push",
        "surrender",
        "void",
    ],  # amount 2500: push and void refused
    ("events", 14, "bet"): ["insurance", "additional"],
    ("seats", 1, "additional_wager", "kind"): KINDS,
    ("table", "rules", "dealt_from"): ["shoe", "hand"],
    ("table", "rules", "dealer_soft_17"): ["stand", "hit"],
    ("table", "rules", "blackjack_pays"): ["3:2", "6:5"],
    ("table", "rules", "dealer_second_card"): ["initial_deal", "after_players"],
    ("table", "rules", "double_card"): ["face_up", "face_down", "player_request"],
    ("table", "rules", "surrender"): ["none", "late"],
    ("table", "rules", "payout_rounding"): ["down", "up"],
    ("table", "rules", "additional_wager"): ["none", "over_under_13", "same_suit", "seven"],
}
ALL_LITERALS = sorted(
    {v for vs in LITERALS.values() for v in vs} | {"main", "US-NV", "AU", "nz", "us-nj", "x", ""}
)


def near_misses(value: str) -> list[str]:
    out = [
        value.upper(),
        value.capitalize(),
        value + "\n",
        value + " ",
        " " + value,
        value + "\x00",
        value[:-1],
    ]
    return out + [
        value + value[-1],
        value.replace("_", "-"),
        value.replace("_", " "),
        value.replace(":", "/"),
    ]


def test_every_literal_and_its_near_misses() -> None:
    cases = Cases()
    for path, legal_values in LITERALS.items():
        read = [v for v in legal_values if not (path[-1] == "result" and v in ("push", "void"))]
        for value in sorted(set(ALL_LITERALS) | {m for v in legal_values for m in near_misses(v)}):
            other_bet = path[-1] == "bet" and value in SETTLE_BETS  # a main settle names a hand, not a seat
            want = (
                ACCEPT if value in read else REFUSE if value in legal_values or other_bet else pointer(path)
            )
            then = reads(path, value) if value in read and path[0] == "table" else None
            cases.doc(f"{pointer(path)} = {value!r}", replaced(RICH, path, value), want, then)
        for name, value in JSON_TYPES:
            cases.doc(f"{pointer(path)} = {name}", replaced(RICH, path, value), pointer(path))
    # the defaults the spec gives: a deal face up, a burn face down, when "face" is left out
    deal, burn = ("events", EVENT_OF["deal"], "face"), ("events", EVENT_OF["burn"], "face")
    cases.doc("deal face left out", removed(RICH, deal), ACCEPT, reads(deal, "up"))
    cases.doc("burn face left out", removed(RICH, burn), ACCEPT, reads(burn, "down"))
    check_all(cases, least=300)


def test_event_types_known_unknown_and_swapped() -> None:
    cases = Cases()
    for i, event in enumerate(RICH["events"]):
        members = set(event) - {"type", "at", "note"}
        for t in EVENT_TYPES + [
            "Deal",
            "DEAL",
            "deal ",
            "deal\n",
            "settlement",
            "shuffle",
            "bet",
            "",
            "type",
        ]:
            required, optional = TYPE_FIELDS.get(t, ({"?"}, set()))
            ok = required <= members <= required | optional
            want = ACCEPT if ok else REFUSE if t in EVENT_TYPES else f"/events/{i}/type"
            cases.doc(f"/events/{i} type {t!r}", replaced(RICH, ("events", i, "type"), t), want)
        for name, value in JSON_TYPES:
            cases.doc(f"/events/{i} type = {name}", replaced(RICH, ("events", i, "type"), value), REFUSE)
        cases.doc(f"/events/{i} without type", removed(RICH, ("events", i, "type")), f"/events/{i}/type")
        last = Obj(sorted(event.items(), key=lambda kv: kv[0] == "type"))
        cases.text(f"/events/{i} type last", put(RICH, ("events", i), last), ACCEPT)
    for name, value in JSON_TYPES + [("a string", "deal"), ("a list of an event", [RICH["events"][1]])]:
        cases.doc(f"an event that is {name}", with_event(value), REFUSE)
    check_all(cases, least=300)


def test_seats_listed_twice_and_every_count() -> None:
    def seats(numbers: list[int]) -> list[Doc]:
        return [{"seat": n, "wager": 100 * (k + 1)} for k, n in enumerate(numbers)]

    cases = Cases()
    for numbers in [[1, 1], [1, 2, 1], [1, 1, 1], [9, 1, 9], [2, 3, 4, 2, 3], [1, 1, 10], [*range(1, 10), 1]]:
        cases.doc(f"seats {numbers}", {**MINIMAL, "seats": seats(numbers)}, REFUSE)
    for numbers in [list(range(1, 10)), list(range(9, 0, -1)), [5], [9, 1], [3, 1, 2]]:
        then = (lambda ns: lambda r: [s.seat for s in r.seats] == ns)(numbers)
        cases.doc(f"seats {numbers}", {**MINIMAL, "seats": seats(numbers)}, ACCEPT, then)
    cases.doc("no seats", {**MINIMAL, "seats": []}, "/seats")
    cases.doc("ten seats", {**MINIMAL, "seats": seats(list(range(1, 11)))}, "/seats")
    cases.doc("seats not a list", {**MINIMAL, "seats": {"seat": 1, "wager": 100}}, "/seats")
    check_all(cases)


def test_lists_at_their_limits_and_one_more() -> None:
    many = [{"type": "deal", "to": "1", "card": RANKS[k % 13] + SUITS[k % 4]} for k in range(MAX_EVENTS + 1)]
    for k in range(0, MAX_EVENTS + 1, 3):
        many[k]["at"] = TS
    bad = {"type": "deal"}
    cases = Cases()
    cases.doc("no events", {**MINIMAL, "events": []}, "/events")
    cases.doc("1999 events", {**MINIMAL, "events": many[:1999]}, ACCEPT)
    cases.doc(
        "2000 events", {**MINIMAL, "events": many[:2000]}, ACCEPT, lambda r: len(r.events) == MAX_EVENTS
    )
    cases.doc("2001 events", {**MINIMAL, "events": many}, "/events")
    cases.doc("2001 events, one bad", {**MINIMAL, "events": [*many[:1000], bad, *many[1000:]]}, REFUSE)
    cases.doc(
        "2000 events, one bad", {**MINIMAL, "events": [*many[:999], bad, *many[1000:2000]]}, "/events/999/to"
    )
    cases.doc("rules empty", {**MINIMAL, "table": {"id": "T", "rules": {}}}, ACCEPT, lambda r: r.rules == {})
    check_all(cases)


def settle_expected(e: Doc) -> str:
    """What the spec says of a settle: main names the hand, the other bets the seat; surrender settles a main bet
    only; push and void move no money."""
    if e["bet"] not in SETTLE_BETS or e["result"] not in RESULTS or e.get("hand") == "dealer":
        return REFUSE
    names = ("hand" in e and "seat" not in e) if e["bet"] == "main" else ("seat" in e and "hand" not in e)
    if (e["bet"] != "main" and e["result"] == "surrender") or (
        e["result"] in ("push", "void") and e["amount"]
    ):
        return REFUSE
    return ACCEPT if names else REFUSE


def test_settles_of_every_combination() -> None:
    cases = Cases()
    for bet in SETTLE_BETS + ["Main", "side", ""]:
        for hand in (None, "1", "dealer"):
            for seat in (None, 1):
                for result in RESULTS + ["won", "Push"]:
                    for amount in (0, 100):
                        for corrects in (None, 0):
                            e: Doc = {"type": "settle", "bet": bet, "result": result, "amount": amount}
                            e |= {
                                k: v
                                for k, v in (("hand", hand), ("seat", seat), ("corrects", corrects))
                                if v is not None
                            }
                            cases.doc(f"settle {e}", with_event(e), settle_expected(e))
    base = {"type": "settle", "bet": "insurance", "seat": 3, "result": "win", "amount": 200, "corrects": 4}
    for key in base:
        cases.doc(
            f"settle without {key}",
            with_event({k: v for k, v in base.items() if k != key}),
            ACCEPT if key == "corrects" else REFUSE,
        )
    rng = random.Random(2323)
    for _ in range(20):  # the members in any order
        items = list(base.items())
        rng.shuffle(items)
        cases.doc(f"settle {items}", with_event(dict(items)), ACCEPT)
    check_all(cases, least=1000)


def test_additional_wager_shapes() -> None:
    path = ("seats", 1, "additional_wager")
    shapes: list[tuple[str, Any, str]] = [(f"kind {k}", {"kind": k, "amount": 100}, ACCEPT) for k in KINDS]
    shapes += [
        ("amount first", Obj([("amount", 100), ("kind", "seven")]), ACCEPT),
        ("largest", {"kind": "seven", "amount": MAX}, ACCEPT),
        ("null", None, pointer(path)),
        ("empty", {}, REFUSE),
        ("no amount", {"kind": "seven"}, REFUSE),
        ("no kind", {"amount": 100}, REFUSE),
        ("amount 0", {"kind": "seven", "amount": 0}, REFUSE),
        ("amount over", {"kind": "seven", "amount": MAX + 1}, REFUSE),
        ("amount a string", {"kind": "seven", "amount": "100"}, REFUSE),
        ("amount 100.0", {"kind": "seven", "amount": Raw("100.0")}, REFUSE),
        ("the table's over_under_13", {"kind": "over_under_13", "amount": 100}, REFUSE),
        ("none", {"kind": "none", "amount": 100}, REFUSE),
        ("Seven", {"kind": "Seven", "amount": 100}, REFUSE),
        ("an extra member", {"kind": "seven", "amount": 100, "seat": 4}, REFUSE),
        ("a list", [{"kind": "seven", "amount": 100}], REFUSE),
        ("a string", "seven", REFUSE),
        ("an amount", 100, REFUSE),
        ("true", True, REFUSE),
    ]
    cases = Cases()
    for name, value, want in shapes:
        then = None
        if want == ACCEPT:
            then = (
                lambda v: lambda r: r.seats[1].additional is not None and r.seats[1].additional.kind == v
            )(get(dict(value), ("kind",)))
        cases.doc(f"additional_wager {name}", replaced(RICH, path, value), want, then)
    cases.doc(
        "additional_wager left out", removed(RICH, path), ACCEPT, lambda r: r.seats[1].additional is None
    )
    check_all(cases)


RULE_VALUES: dict[str, list[Any]] = {
    "decks": list(range(0, 10)),
    "boxes": list(range(0, 11)),
    "peek": [True, False],
    "double_after_split": [True, False],
    "resplit": [True, False],
    "resplit_aces": [True, False],
    "min_chip": [0, 1, 5, 100, MAX, MAX + 1],
    "min_wager": [0, 1, 500, MAX, MAX + 1],
    "max_wager": [0, 1, 100000, MAX, MAX + 1],
    **{str(p[-1]): vs for p, vs in LITERALS.items() if p[:2] == ("table", "rules")},
}
RULE_RANGES = {
    "decks": (1, 8),
    "boxes": (1, 9),
    "min_chip": (1, MAX),
    "min_wager": (1, MAX),
    "max_wager": (1, MAX),
}


def election_ok(key: str, value: Any) -> bool:
    lo, hi = RULE_RANGES.get(key, (None, None))
    return lo is None or lo <= value <= hi


def test_table_rules_every_election_and_wrong_values() -> None:
    cases = Cases()
    path = ("table", "rules")
    for key, values in RULE_VALUES.items():
        for v in values:
            ok = election_ok(key, v)
            then = (lambda k, x: lambda r: r.rules == {k: x} and type((r.rules or {})[k]) is type(x))(key, v)
            alone = {**MINIMAL, "table": {"id": "T", "rules": {key: v}}}
            cases.doc(
                f"rules {{{key}: {v!r}}}",
                alone,
                ACCEPT if ok else f"/table/rules/{key}",
                then if ok else None,
            )
        for name, v in JSON_TYPES + [("NaN", Raw("NaN")), ("a huge integer", 10**30)]:
            cases.doc(f"rules {key} = {name}", replaced(RICH, (*path, key), v))
    for name, v in JSON_TYPES:
        cases.doc(f"rules = {name}", replaced(RICH, path, v), None if isinstance(v, dict) else pointer(path))
    rng = random.Random(17)
    for _ in range(40):  # any subset, in any order
        keys = rng.sample(list(RULES), rng.randint(1, len(RULES)))
        then = (lambda ks: lambda r: set(r.rules or {}) == set(ks))(keys)
        cases.doc(f"rules {keys}", replaced(RICH, path, {k: RULES[k] for k in keys}), ACCEPT, then)
    for key in ("Decks", "deck", "decks ", "soft_17", "dealer_blackjack", "id", "x", ""):
        cases.doc(f"rules + {key!r}", replaced(RICH, (*path, key), 6), f"/table/rules/{key}")
    check_all(cases, least=200)


# Valid rounds drawn from the whole value space the spec allows: the same round must be read from each.

ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"


@st.composite
def timestamps(draw: st.DrawFn) -> str:
    y = draw(st.integers(2, 9998))
    mo = draw(st.integers(1, 12))
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    d = draw(st.integers(1, [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]))
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    frac = draw(st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=9).map(lambda f: "." + f)))
    hh_mm = st.tuples(st.sampled_from("+-"), st.integers(0, 23), st.integers(0, 59))
    off = draw(st.one_of(st.sampled_from("Zz"), hh_mm.map(lambda o: f"{o[0]}{o[1]:02d}:{o[2]:02d}")))
    return f"{y:04d}-{mo:02d}-{d:02d}{draw(st.sampled_from('Tt'))}{h:02d}:{mi:02d}:{s:02d}{frac}{off}"


CARDS = st.sampled_from([c for c, card in card_spellings() if card is not None])
HANDS = st.sampled_from([h for h, hand in hand_names() if hand is not None])
TARGETS = st.one_of(HANDS, st.just("dealer"))
AMOUNTS = st.one_of(st.integers(1, MAX), st.sampled_from([1, 100, 2500, MAX]))
MONEY = st.one_of(st.just(0), AMOUNTS)
SEAT = st.integers(1, 9)
FACE = {"face": st.sampled_from(["up", "down"])}
CORRECTS = {"corrects": st.integers(0, MAX_EVENTS - 1)}
EVENT_FIELDS: dict[str, st.SearchStrategy[Doc]] = {
    "deal": st.fixed_dictionaries({"to": TARGETS, "card": CARDS}, optional=FACE),
    "peek": st.fixed_dictionaries({"dealer_blackjack": st.booleans()}),
    "insurance": st.fixed_dictionaries({"seat": SEAT, "amount": AMOUNTS}),
    "even_money": st.fixed_dictionaries({"seat": SEAT, "amount": MONEY}),
    "double": st.fixed_dictionaries({"hand": HANDS, "amount": AMOUNTS}),
    "split": st.fixed_dictionaries({"hand": HANDS, "amount": AMOUNTS}),
    "surrender": st.fixed_dictionaries({"hand": HANDS}),
    "hit": st.fixed_dictionaries({"hand": HANDS}),
    "stand": st.fixed_dictionaries({"hand": HANDS}),
    "reveal": st.fixed_dictionaries({"to": TARGETS, "card": CARDS}),
    "settle": st.one_of(
        st.fixed_dictionaries(
            {"bet": st.just("main"), "hand": HANDS, "result": st.sampled_from(["win", "lose", "surrender"])}
            | {"amount": MONEY},
            optional=CORRECTS,
        ),
        st.fixed_dictionaries(
            {"bet": st.sampled_from(["insurance", "additional"]), "seat": SEAT}
            | {"result": st.sampled_from(["win", "lose"]), "amount": MONEY},
            optional=CORRECTS,
        ),
        st.fixed_dictionaries(
            {
                "bet": st.just("main"),
                "hand": HANDS,
                "result": st.sampled_from(["push", "void"]),
                "amount": st.just(0),
            },
            optional=CORRECTS,
        ),
        st.fixed_dictionaries(
            {"bet": st.sampled_from(["insurance", "additional"]), "seat": SEAT}
            | {"result": st.sampled_from(["push", "void"]), "amount": st.just(0)},
            optional=CORRECTS,
        ),
    ),
    "burn": st.fixed_dictionaries({"card": CARDS}, optional=FACE),
    "void": st.fixed_dictionaries({"reason": st.sampled_from(REASONS)}),
}
COMMON = st.fixed_dictionaries({}, optional={"at": timestamps(), "note": st.text(max_size=30)})


@st.composite
def valid_events(draw: st.DrawFn) -> Doc:
    kind = draw(st.sampled_from(EVENT_TYPES))
    items = [("type", kind), *draw(EVENT_FIELDS[kind]).items(), *draw(COMMON).items()]
    return dict(draw(st.permutations(items)))


@st.composite
def valid_rounds(draw: st.DrawFn) -> Doc:
    seats = []
    for n in draw(st.lists(SEAT, min_size=1, max_size=9, unique=True)):
        s: Doc = {"seat": n, "wager": draw(AMOUNTS)}
        if draw(st.booleans()):
            s["additional_wager"] = {"kind": draw(st.sampled_from(KINDS)), "amount": draw(AMOUNTS)}
        seats.append(s)
    table: Doc = {"id": draw(st.text(min_size=1, max_size=128))}
    if draw(st.booleans()):
        rules = {k: draw(st.sampled_from(vs)) for k, vs in RULE_VALUES.items() if draw(st.booleans())}
        table["rules"] = dict(draw(st.permutations([(k, v) for k, v in rules.items() if election_ok(k, v)])))
    doc: Doc = {
        "round_id": draw(st.text(ID_CHARS, min_size=1, max_size=128)),
        "jurisdiction": draw(st.sampled_from(["US-NJ", "NZ"])),
        "played_at": draw(timestamps()),
        "table": table,
        "seats": seats,
        "events": draw(st.lists(valid_events(), min_size=1, max_size=25)),
    }
    for key in ("dealer_id", "shoe_id"):
        if draw(st.booleans()):
            doc[key] = draw(st.text(max_size=128))
    return dict(draw(st.permutations(list(doc.items()))))


@settings(DIFF, max_examples=300)
@given(valid_rounds(), st.sampled_from(["", " ", "\n  "]), st.booleans(), st.booleans())
def test_valid_rounds_from_the_whole_value_space(doc: Doc, space: str, ascii: bool, as_bytes: bool) -> None:
    text = write(doc, space, ascii)
    check_all([Case("a drawn round", text.encode() if as_bytes else text, ACCEPT, kept(doc["played_at"]))])


# ---------------------------------------------------------------------------------------------------------------
# 4. Garbage


def test_every_prefix_of_a_record() -> None:
    raw = RICH_TEXT.encode()
    cases = Cases()
    for n in range(len(raw)):
        cases.text(f"prefix {n}", raw[:n], REFUSE)
    for n in range(1, len(RICH_TEXT), 11):
        cases.text(f"suffix {n}", RICH_TEXT[n:], REFUSE)
    cases.text("whole", raw, ACCEPT)
    check_all(cases, least=1000)


BAD_UTF8 = [
    b"\xff",
    b"\xfe",
    b"\xc3",
    b"\xc3\x28",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
]
BAD_UTF8 += [b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80", b"\xf0\x9f\x98", b"\xf8\x88\x80\x80\x80"]
AROUND: list[tuple[str, str, str, bool | None]] = [  # (name, before, after, whether the spec reads it)
    ("BOM", "\ufeff", "", None),
    ("BOM twice", "\ufeff\ufeff", "", False),
    ("JSON whitespace", " \t\r\n", "\n \t\r", True),
    ("form feed", "\x0c", "", False),
    ("vertical tab", "\x0b", "", False),
    ("no-break space", "\u00a0", "", False),
    ("line separator", "", "\u2028", False),
    ("NUL after", "", "\x00", False),
    ("NUL before", "\x00", "", False),
    ("a second object", "", "{}", False),
    ("a comma after", "", ",", False),
    ("text after", "", "x", False),
    ("a comment", "/*x*/", "", False),
    ("a line comment after", "", "//x", False),
    ("in an array", "[", "]", False),
]


def test_encodings_whitespace_and_what_is_not_an_object() -> None:
    raw = RICH_TEXT.encode()
    cases = Cases()
    for bad in BAD_UTF8:
        for target in (
            b'"E1234"',
            b'"first card"',
            b'"BJ12"',
            b'"BOR-BJ12-20261201-000123"',
            b'"AH"',
            b'"deal"',
        ):
            for at in (1, len(target) - 1):
                cases.text(
                    f"{bad!r} in {target!r}", raw.replace(target, target[:at] + bad + target[at:], 1), REFUSE
                )
        cases.text(f"{bad!r} before the record", bad + raw, REFUSE)
        cases.text(f"{bad!r} after the record", raw + bad, REFUSE)
        cases.text(
            f"{bad!r} between members",
            raw.replace(b',"jurisdiction"', b"," + bad + b'"jurisdiction"'),
            REFUSE,
        )
    for name, before, after, ok in AROUND:
        want = None if ok is None else ACCEPT if ok else REFUSE
        cases.text(f"{name} around", before + RICH_TEXT + after, want)
    s = RICH_TEXT
    cases.text("UTF-16", s.encode("utf-16"), REFUSE)
    cases.text("UTF-16-LE", s.encode("utf-16-le"), REFUSE)
    cases.text("UTF-32", s.encode("utf-32"), REFUSE)
    cases.text("Latin-1 é in a note", s.replace("first card", "caf\u00e9").encode("latin-1"), REFUSE)
    cases.text("a lone surrogate raw in a note", s.replace("first card", "first \ud800 card"), REFUSE)
    cases.text("a lone surrogate raw in a key", s.replace('"note"', '"no\udc00te"', 1), REFUSE)
    cases.text("a lone surrogate raw outside strings", s[:-1] + "\ud800}", REFUSE)
    cases.text(
        "surrogate halves raw, in pair order", s.replace("first card", "first \ud83d\ude00 card"), REFUSE
    )
    cases.text("a trailing comma in an object", s.replace('"E1234",', '"E1234",,', 1), REFUSE)
    cases.text("a trailing comma at the end", s[:-1] + ",}", REFUSE)
    cases.text("a trailing comma in a list", s.replace("}],", "},],", 1), REFUSE)
    cases.text("single quotes", s.replace('"E1234"', "'E1234'"), REFUSE)
    cases.text("an unquoted key", s.replace('"dealer_id"', "dealer_id"), REFUSE)
    cases.text("a key with an escape", s.replace('"dealer_id"', '"\\u0064ealer_id"'), ACCEPT)
    every = re.sub(r'"([a-z_]+)":', lambda m: '"' + "".join(f"\\u{ord(c):04x}" for c in m[1]) + '":', s)
    cases.text("every key in escapes", every, ACCEPT)
    cases.text(
        "a card in escapes", s.replace('"AH"', '"\\u0041\\u0048"'), ACCEPT, reads(("events", 1, "card"), "AH")
    )
    cases.text("a type with an escape", s.replace('"deal"', '"d\\u0065al"'), ACCEPT)
    cases.text("a hand with an escape", s.replace('"1.2"', '"1\\u002e2"'), ACCEPT)
    cases.text("a pointer character in a key", s.replace('"shoe_id"', '"sh/oe~id"'), "/sh~1oe~0id")
    for name, value in [("array", []), ("array of the round", [RICH]), ("number", 1), ("string", "x")]:
        cases.doc(f"not an object: {name}", value, REFUSE)
    for name, value in [("null", None), ("true", True), ("empty object", {}), ("float", 2.5)]:
        cases.doc(f"not an object: {name}", value, REFUSE)
    for name, text in [("empty", ""), ("blank", "  \n"), ("only {", "{"), ("only }", "}"), ("{}{}", "{}{}")]:
        cases.text(name, text, REFUSE)
    check_all(cases, least=150)


def test_nonfinite_numbers_odd_literals_and_deep_nesting() -> None:
    cases = Cases()
    literals = ["NaN", "Infinity", "-Infinity", "nan", "inf", "-inf", "1e400", "-1e400", "-0", "0.0", "1E2"]
    literals += ["1e-400", "1" * 400, "-" + "9" * 5000, "1" * 5000]
    where: list[Path] = [("seats", 0, "wager"), ("events", 12, "amount"), ("table", "rules", "decks")]
    where += [("round_id",), ("dealer_id",), ("events", 1, "note")]
    for lit in literals:
        for path in where:
            read = (
                lit == "-0" and path[-1] == "amount"
            )  # the integer 0: a win of 0 is a settle the schema reads
            cases.doc(
                f"{pointer(path)} = {lit[:20]}", replaced(RICH, path, Raw(lit)), None if read else REFUSE
            )
        cases.doc(f"an unknown member = {lit[:20]}", {**RICH, "x": Raw(lit)}, REFUSE)
        cases.text(f"the document is {lit[:20]}", lit, REFUSE)
    for depth in (30, 31, 32, 33, 100, 10_000):
        arrays = Raw("[" * depth + "]" * depth)
        objects = Raw('{"a":' * depth + "1" + "}" * depth)
        for name, deep in [("arrays", arrays), ("objects", objects)]:
            for path in [("note",), ("events", 1, "note"), ("table", "rules", "decks"), ("seats", 0)]:
                doc = {**RICH, "note": deep} if path == ("note",) else replaced(RICH, path, deep)
                cases.doc(f"{depth} deep {name} at {pointer(path)}", doc, REFUSE)
            cases.text(f"the document is {depth} deep {name}", deep.text, REFUSE)
        cases.text(f"{depth} deep, unclosed arrays", "[" * depth, REFUSE)
        cases.text(f"{depth} deep, unclosed objects", '{"a":' * depth, REFUSE)
    check_all(cases, least=100)


# ---------------------------------------------------------------------------------------------------------------
# Hypothesis: garbage, and damaged records

CHARACTERS = st.one_of(
    st.characters(codec=None, exclude_categories=()),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),  # lone surrogates
    st.sampled_from('{}[]":,\\ 0123456789eE.-'),
)


@settings(DIFF, max_examples=200)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(raw: bytes) -> None:
    check_all([Case("bytes", raw)])


@settings(DIFF, max_examples=200)
@given(st.text(alphabet=CHARACTERS, max_size=400))
def test_arbitrary_text_even_with_lone_surrogates(text: str) -> None:
    check_all([Case("text", text)])


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(DIFF, max_examples=150)
@given(JSON_VALUES)
def test_arbitrary_json_values(value: Any) -> None:
    check_all([Case("a JSON value", write(value))])


EDGE_VALUES = st.one_of(
    JSON_VALUES,
    st.sampled_from([v for _, v, _ in ODD_INTEGERS] + [v for _, v in JSON_TYPES]),
    st.sampled_from([c for c, _ in card_spellings()] + [h for h, _ in hand_names()] + ["dealer"]),
    st.sampled_from(GOOD_TIMESTAMPS + BAD_TIMESTAMPS),
    st.sampled_from(ALL_LITERALS + EVENT_TYPES + RESULTS + KINDS + REASONS + SETTLE_BETS),
    st.integers(-2, 12),
    st.integers(MAX - 2, MAX + 2),
)


@st.composite
def damaged(draw: st.DrawFn) -> str:
    """A valid record (RICH, MINIMAL or a legal round) with one to three edits: a member set, removed, added or
    given twice; an element removed or repeated."""
    doc = deepcopy(draw(st.sampled_from([RICH, MINIMAL, *legal()[:5]])))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(list(paths(doc))))
        target = get(doc, where)
        op = draw(st.sampled_from(["set", "set", "remove", "add", "twice"]))
        if op == "set" and where:
            get(doc, where[:-1])[where[-1]] = draw(EDGE_VALUES)
        elif op == "remove" and where:
            del get(doc, where[:-1])[where[-1]]
        elif op == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(OTHER_FIELDS))] = draw(EDGE_VALUES)
        elif op == "add" and isinstance(target, list) and target:
            target.insert(draw(st.integers(0, len(target))), deepcopy(draw(st.sampled_from(target))))
        elif op == "twice" and isinstance(target, dict) and target:
            key = draw(st.sampled_from(sorted(target)))
            members = Obj(target.items())
            again = draw(st.one_of(st.just(target[key]), EDGE_VALUES))
            members.insert(
                draw(st.integers(0, len(members))), (draw(st.sampled_from([key, escaped(key)])), again)
            )
            return put(doc, where, members)
    return write(doc, draw(st.sampled_from(["", " "])), draw(st.booleans()))


@settings(DIFF, max_examples=400)
@given(damaged(), st.booleans())
def test_damaged_records(text: str, as_bytes: bool) -> None:
    check_all([Case("damaged", text.encode("utf-8", "surrogatepass") if as_bytes else text)])
