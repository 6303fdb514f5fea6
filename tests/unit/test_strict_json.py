"""Strict JSON for round records (issue 8): a key given twice in an object, NaN or Infinity, an integer out of the
format's range, nesting past 32 levels: each refused with the JSON pointer of the member at fault, in a single
round, a registration, a batch line and `bjaudit audit`. A string that only looks like a key is no key."""

from __future__ import annotations

import doctest
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import app.wire.schema as schema
import app.wire.strict as strict
from app.cli import main
from app.synth.generator import generate_rounds
from app.usecases.batches import audit_lines
from app.usecases.errors import InvalidRound
from app.wire.elections import RegistrationInvalid, parse_registration
from app.wire.schema import MAX_MONEY, RoundInvalid, parse_round, round_from_obj

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
EXAMPLE = (EXAMPLES / "nj-compliant-double.round.json").read_bytes()
SEAT = b'{"seat": 1, "wager": 2500}'
DOUBLE = b'{"type": "double", "hand": "1", "amount": 2500}'  # /events/4
FIRST_DEAL = b'{"type": "deal", "to": "1", "card": "6H"}'  # /events/0


def edited(old: bytes, new: bytes, text: bytes = EXAMPLE) -> bytes:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def refused(text: bytes | str) -> RoundInvalid:
    with pytest.raises(RoundInvalid) as info:
        parse_round(text)
    return info.value


def pointers(exc: RoundInvalid | RegistrationInvalid) -> list[str]:
    return [p["pointer"] for p in exc.problems]


def message_at(exc: RoundInvalid | RegistrationInvalid, where: str) -> str:
    found = [p["message"] for p in exc.problems if p["pointer"] == where]
    assert found, exc.problems
    return found[0]


def test_the_doctests_of_the_strict_module() -> None:
    failed, tried = doctest.testmod(strict, optionflags=doctest.ELLIPSIS)
    assert tried > 10 and failed == 0


# --- a key given twice ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (b'"round_id": "EX-NJ-0001"', b'"round_id": "EX-NJ-0001", "round_id": "EX-NJ-0002"', "/round_id"),
        (b'"jurisdiction": "US-NJ"', b'"jurisdiction": "NZ", "jurisdiction": "US-NJ"', "/jurisdiction"),
        (SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}', "/seats/0/wager"),
        (DOUBLE, b'{"type": "double", "hand": "1", "amount": 5000, "amount": 2500}', "/events/4/amount"),
        (FIRST_DEAL, b'{"type": "stand", "type": "deal", "to": "1", "card": "6H"}', "/events/0/type"),
        (b'"decks": 6', b'"decks": 8, "decks": 6', "/table/rules/decks"),
        (b'"id": "BJ12"', b'"id": "BJ12", "id": "BJ13"', "/table/id"),
    ],
    ids=[
        "top level",
        "top level 2",
        "in a seat",
        "in an event",
        "an event's type",
        "in the rules",
        "in the table",
    ],
)
def test_a_key_given_twice_is_refused_at_its_pointer(old: bytes, new: bytes, where: str) -> None:
    exc = refused(edited(old, new))
    assert pointers(exc) == [where]
    message = message_at(exc, where)
    assert "duplicated" in message and "ambiguous" in message
    assert repr(where.rsplit("/", 1)[1]) in message
    assert exc.round_id == (None if where == "/round_id" else "EX-NJ-0001")  # an ambiguous round_id is no id


def test_the_same_value_twice_is_refused_too() -> None:
    assert pointers(refused(edited(SEAT, b'{"seat": 1, "wager": 2500, "wager": 2500}'))) == ["/seats/0/wager"]


def test_a_key_three_times_is_one_problem_and_every_repeated_key_is_named() -> None:
    text = edited(SEAT, b'{"seat": 1, "seat": 1, "wager": 1, "wager": 2, "wager": 2500}')
    assert pointers(refused(text)) == ["/seats/0/seat", "/seats/0/wager"]


@pytest.mark.parametrize(
    "names",
    [
        (b'"w\\u0061ger"', b'"wager"'),
        (b'"wager"', b'"\\u0077ager"'),
        (b'"\\u0077ager"', b'"wag\\u0065r"'),  # equal only once decoded, neither as written
        (b'"w\\u0061g\\u0065r"', b'"\\u0077\\u0061\\u0067\\u0065\\u0072"'),
    ],
)
def test_keys_equal_once_decoded_are_the_same_key(names: tuple[bytes, bytes]) -> None:
    text = edited(SEAT, b'{"seat": 1, ' + names[0] + b": 1, " + names[1] + b": 2500}")
    assert pointers(refused(text)) == ["/seats/0/wager"]


def test_keys_that_differ_once_decoded_are_not_the_same_key() -> None:
    text = edited(SEAT, b'{"seat": 1, "Wager": 1, "wager": 2500}')  # an unknown field, not a repeated one
    exc = refused(text)
    assert pointers(exc) == ["/seats/0/Wager"] and "unknown field" in exc.problems[0]["message"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (b'{"a/b": 1, "a\\/b": 2}', "/a~1b"),
        (b'{"m~n": {"x": 1, "x": 2}}', "/m~0n/x"),
        (b'{"q\\"k": 1, "q\\u0022k": 2}', '/q"k'),
        ('{"\U0001f0a1": 1, "\\ud83c\\udca1": 2}'.encode(), "/\U0001f0a1"),
        (b'[{"a": 1}, [{"b": 1, "c": {"d": 1, "d": 2}}]]', "/1/0/c/d"),
        (b'{"":1,"":2}', "/"),
    ],
)
def test_the_pointer_of_a_repeated_key_is_rfc_6901(text: bytes, where: str) -> None:
    assert [p["pointer"] for p in strict.scan(text, max_int=MAX_MONEY)] == [where]


@pytest.mark.parametrize(
    "layout",
    [
        lambda t: t.replace(b'"wager": 1,', b'"wager" : 1,'),
        lambda t: t.replace(b'"wager": 1,', b'"wager"\n\t :\r\n 1,'),
        lambda t: (
            json.dumps(json.loads(t), indent=2)
            .encode()
            .replace(b'"wager": 2500', b'"wager": 1, "wager": 2500')
        ),
    ],
    ids=["a space before the colon", "any whitespace", "pretty-printed"],
)
def test_whitespace_around_a_repeated_key_hides_nothing(layout: Callable[[bytes], bytes]) -> None:
    text = layout(edited(SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}'))
    assert b'"wager"' in text
    assert pointers(refused(text)) == ["/seats/0/wager"]


@pytest.mark.parametrize(
    "note",
    [
        '"wager": 1, "wager": 2',  # a string that looks like members
        'he said "wager": 1',
        '":":":',
        'a key \\ and a quote " : then more',
        "ends with a backslash \\",
        '\\\\":',
        "w\\u0061ger",
    ],
)
def test_a_string_that_only_looks_like_a_key_is_accepted(note: str, monkeypatch: pytest.MonkeyPatch) -> None:
    looks: list[list[strict.Problem]] = []
    scans: list[object] = []
    real_look, real_scan = schema.repeated_keys, strict.scan

    def look(*args: Any, **kwargs: Any) -> list[strict.Problem]:
        found = real_look(*args, **kwargs)
        looks.append(found)
        return found

    monkeypatch.setattr(schema, "repeated_keys", look)
    monkeypatch.setattr(strict, "scan", lambda *a, **k: scans.append(a) or real_scan(*a, **k))
    doc = json.loads(EXAMPLE)
    doc["events"][0]["note"] = note
    doc["events"][1]["note"] = note
    for text in (json.dumps(doc).encode(), orjson.dumps(doc), json.dumps(doc, indent=1).encode()):
        r = parse_round(text)
        assert r == round_from_obj(doc)
    # the fast count may look closer (a quote and a colon inside a string); it never refuses by itself, and with
    # nothing repeated the slow scan for pointers never runs
    assert all(found == [] for found in looks) and not scans
    if '":' in json.dumps(note):
        assert looks


def test_a_repeated_key_beside_a_schema_problem_is_named_with_it() -> None:
    text = edited(SEAT, b'{"seat": 1, "wager": 1, "wager": "2500"}')
    exc = refused(text)
    assert pointers(exc) == ["/seats/0/wager", "/seats/0/wager"]
    assert "duplicated" in exc.problems[0]["message"] and "integer" in exc.problems[1]["message"]
    text = edited(
        b'"EX-NJ-0001"', b'"EX-NJ-0001", "round_id": "X"', edited(SEAT, b'{"seat": 0, "wager": 25}')
    )
    exc = refused(text)
    assert pointers(exc) == ["/round_id", "/seats/0/seat"] and exc.round_id is None


def test_a_repeated_key_in_text_that_breaks_off_is_still_named() -> None:
    exc = refused(edited(SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}')[:-40])
    assert pointers(exc) == ["/seats/0/wager", ""]
    assert exc.problems[1]["message"].startswith("malformed JSON")


def test_str_text_is_read_as_strictly_as_bytes() -> None:
    text = edited(SEAT, b'{"seat": 1, "w\\u0061ger": 1, "wager": 2500}').decode()
    assert pointers(refused(text)) == ["/seats/0/wager"]


# --- NaN and Infinity ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_are_refused_at_their_pointer(literal: bytes) -> None:
    exc = refused(edited(SEAT, b'{"seat": 1, "wager": ' + literal + b"}"))
    assert pointers(exc) == ["/seats/0/wager"]
    assert literal.decode() in exc.problems[0]["message"]
    exc = refused(edited(DOUBLE, b'{"type": "double", "hand": "1", "amount": ' + literal + b"}"))
    assert pointers(exc) == ["/events/4/amount"]
    # where the schema has nothing to say of the value itself, the value is named for what it is
    exc = refused(
        edited(b'"jurisdiction": "US-NJ"', b'"jurisdiction": "US-NJ", "extra": [1, ' + literal + b"]")
    )
    assert pointers(exc) == ["/extra/1", "/extra"]
    assert exc.problems[0]["message"] == strict.nonfinite_message(literal.decode())
    exc = refused(
        edited(FIRST_DEAL, b'{"type": "deal", "to": "1", "card": "6H", "x": {"y": ' + literal + b"}}")
    )
    assert pointers(exc) == ["/events/0/x/y", "/events/0/x"]


def test_nan_in_text_that_breaks_off_is_named_with_the_break() -> None:
    exc = refused(edited(SEAT, b'{"seat": 1, "wager": NaN}')[:-60])
    assert "/seats/0/wager" in pointers(exc) and "" in pointers(exc)


@pytest.mark.parametrize("literal", [b"NaN", b"-Infinity"])
def test_a_document_that_is_only_nan_is_refused(literal: bytes) -> None:
    exc = refused(literal)
    assert pointers(exc) == [""] and exc.round_id is None


# --- integers out of range -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "digits",
    [str(2**63), str(2**64), "-" + str(2**64), "9" * 30, "9" * 4300, "9" * 4301, "1" + "0" * 100_000],
    ids=["2**63", "2**64", "-2**64", "30 digits", "4300 digits", "4301 digits", "100001 digits"],
)
def test_an_integer_of_any_size_is_named_and_crashes_nothing(digits: str) -> None:
    for old, new, where in [
        (SEAT, b'{"seat": 1, "wager": %s}', "/seats/0/wager"),
        (DOUBLE, b'{"type": "double", "hand": "1", "amount": %s}', "/events/4/amount"),
        (b'"decks": 6', b'"decks": %s', "/table/rules/decks"),
        (b'"jurisdiction": "US-NJ"', b'"jurisdiction": "US-NJ", "extra": {"n": [%s]}', "/extra/n/0"),
    ]:
        exc = refused(edited(old, new % digits.encode()))
        assert where in pointers(exc), exc.problems
        assert str(exc)  # the exception renders


def test_an_integer_past_the_money_range_is_named_where_no_field_bounds_it() -> None:
    text = edited(
        b'"jurisdiction": "US-NJ"', b'"jurisdiction": "US-NJ", "n": [1000000000001, -1000000000001]'
    )
    exc = refused(text)
    assert pointers(exc) == ["/n/0", "/n/1", "/n"]
    assert "out of range" in exc.problems[0]["message"] and "1000000000001" in exc.problems[0]["message"]
    # at the limit: the schema alone speaks (an unknown field), there is nothing out of range
    exc = refused(text.replace(b"1000000000001", b"1000000000000"))
    assert pointers(exc) == ["/n"]


def test_the_schema_says_what_a_money_field_may_hold() -> None:
    exc = refused(edited(SEAT, b'{"seat": 1, "wager": 10000000000000}'))
    assert exc.problems == [
        {
            "pointer": "/seats/0/wager",
            "message": "must be at most 1000000000000 minor units, not 10000000000000",
        }
    ]


def test_a_huge_integer_in_a_decoded_value_crashes_nothing() -> None:
    doc = json.loads(EXAMPLE)
    doc["seats"][0]["wager"] = 10**5000
    doc["extra"] = [-(10**5000)]
    with pytest.raises(RoundInvalid) as info:
        round_from_obj(doc)
    assert pointers(info.value) == ["/extra/0", "/seats/0/wager", "/extra"]
    assert "of about 5001 digits" in info.value.problems[0]["message"]


# --- nesting -------------------------------------------------------------------------------------------------------


def nested(depth: int, kind: str = "array") -> bytes:
    return (b"[" * depth + b"]" * depth) if kind == "array" else (b'{"a":' * depth + b"1" + b"}" * depth)


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (b'"jurisdiction": "US-NJ"', b'"jurisdiction": "US-NJ", "extra": %s', "/extra"),
        (SEAT, b'{"seat": 1, "wager": %s}', "/seats/0/wager"),
        (FIRST_DEAL, b'{"type": "deal", "to": "1", "card": %s}', "/events/0/card"),
    ],
    ids=["top level", "in a seat", "in an event"],
)
@pytest.mark.parametrize("depth", [40, 300, 100_000])
@pytest.mark.parametrize("kind", ["array", "object"])
def test_nesting_past_32_levels_is_refused_at_the_first_container_past_it(
    old: bytes, new: bytes, where: str, depth: int, kind: str
) -> None:
    exc = refused(edited(old, new % nested(depth, kind)))
    above = where.count("/")  # the containers above the value: the value itself is at depth above + 1
    segment = "/0" if kind == "array" else "/a"
    first_past = where + segment * (strict.MAX_DEPTH - above)
    assert first_past in pointers(exc), exc.problems
    assert message_at(exc, first_past) == strict.depth_message(strict.MAX_DEPTH)


def test_32_levels_are_not_too_deep() -> None:
    text = edited(b'"jurisdiction": "US-NJ"', b'"jurisdiction": "US-NJ", "extra": %s' % nested(31))
    assert pointers(refused(text)) == ["/extra"]  # at depth 2 to 32: an unknown field, nothing more
    assert strict.scan(nested(32), max_int=1) == []
    assert strict.scan(nested(33), max_int=1)[0]["pointer"] == "/0" * 32


def test_a_deep_decoded_value_crashes_nothing() -> None:
    deep: list[Any] = []
    for _ in range(sys.getrecursionlimit() * 10):
        deep = [deep]
    doc = json.loads(EXAMPLE)
    doc["extra"] = deep
    with pytest.raises(RoundInvalid) as info:
        round_from_obj(doc)
    assert "/extra" + "/0" * 31 in pointers(info.value)


# --- what stays accepted --------------------------------------------------------------------------------------------


def _legal_texts() -> list[bytes]:
    texts = [p.read_bytes() for p in sorted(EXAMPLES.glob("*.round.json"))]
    texts += [orjson.dumps(d) for d in generate_rounds(150, 31)]
    return texts


@pytest.mark.parametrize(
    "layout",
    [
        lambda t: t,
        lambda t: json.dumps(json.loads(t)).encode(),
        lambda t: json.dumps(json.loads(t), indent=2).encode(),
        lambda t: json.dumps(json.loads(t), ensure_ascii=True, separators=(" ,", " : ")).encode(),
    ],
    ids=["as written", "json.dumps", "indented", "spaced"],
)
def test_legal_rounds_are_accepted_and_take_the_fast_path(layout: Callable[[bytes], bytes]) -> None:
    for raw in _legal_texts():
        text = layout(raw)
        model = schema.RoundModel.model_validate_json(text)
        assert strict.key_tokens(text) == schema._members(model)  # no closer look for a plain round
        assert parse_round(text) == round_from_obj(json.loads(raw))


def test_every_optional_member_is_counted() -> None:
    doc = json.loads(EXAMPLE)
    doc.update(dealer_id="E1", shoe_id="S1")
    doc["seats"] = [{"seat": 1, "wager": 2500, "additional_wager": {"kind": "seven", "amount": 100}}]
    doc["events"][0].update(at="2026-11-30T22:10:00-05:00", note="n")
    doc["events"][3]["face"] = "down"
    text = orjson.dumps(doc)
    assert strict.key_tokens(text) == schema._members(schema.RoundModel.model_validate_json(text))
    parse_round(text)
    text = edited(b'"amount":100}', b'"amount":100,"amount":100}', text)
    assert pointers(refused(text)) == ["/seats/0/additional_wager/amount"]


# --- the other readers of rounds -----------------------------------------------------------------------------------

REGISTRATION = b'{"jurisdiction": "US-NJ", "effective_from": "2026-12-01T00:00:00Z", "rules": {"decks": 6}, "reason": "r"}'


def test_a_registration_is_read_as_strictly_as_a_round() -> None:
    assert parse_registration(REGISTRATION).rules == {"decks": 6}
    for new, where in [
        (b'{"decks": 6, "d\\u0065cks": 8}', "/rules/decks"),
        (b'{"decks": NaN}', "/rules/decks"),
        (b'{"decks": 6, "x": [99999999999999999999]}', "/rules/x/0"),
        (b'{"decks": %s}' % nested(300), "/rules/decks" + "/0" * 30),
    ]:
        with pytest.raises(RegistrationInvalid) as info:
            parse_registration(edited(b'{"decks": 6}', new, REGISTRATION))
        assert where in pointers(info.value), info.value.problems
    with pytest.raises(RegistrationInvalid) as info:
        parse_registration(edited(b'"reason": "r"', b'"reason": "r", "reason": "s"', REGISTRATION))
    assert pointers(info.value) == ["/reason"]


def test_a_batch_line_is_read_as_strictly_as_a_round() -> None:
    dup = edited(SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}').replace(b"\n", b"")
    nan = edited(SEAT, b'{"seat": 1, "wager": NaN}').replace(b"\n", b"")
    chunk = b"\n".join([EXAMPLE.replace(b"\n", b""), dup, nan, b'{"round_id": "Q", "a": 1, "a": 2}'])
    got = list(audit_lines(chunk, 10))
    assert [n for n, _, _ in got] == [10, 11, 12, 13]
    assert not isinstance(got[0][2], InvalidRound)
    errors = [r.errors for _, _, r in got[1:] if isinstance(r, InvalidRound)]
    assert len(errors) == 3 and all(errors)
    assert errors[0] == [{"pointer": "/seats/0/wager", "detail": strict.duplicate_message("wager")}]
    assert errors[1][0]["pointer"] == "/seats/0/wager" and "NaN" in errors[1][0]["detail"]
    assert errors[2][0]["pointer"] == "/a"


def run_cli(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[dict[str, Any]]]:
    code = main(["audit", str(path)])
    return code, [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_bjaudit_audit_reads_ndjson_lines_strictly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = EXAMPLE.replace(b"\n", b"")
    nan_first = edited(SEAT, b'{"seat": 1, "wager": NaN}').replace(b"\n", b"")
    dup = edited(SEAT, b'{"seat": 1, "w\\u0061ger": 1, "wager": 2500}').replace(b"\n", b"")
    path = tmp_path / "rounds.ndjson"
    path.write_bytes(b"\n".join([nan_first, good, dup]) + b"\n")
    code, lines = run_cli(capsys, path)
    assert code == 2
    assert [line.get("verdict") for line in lines] == [None, "compliant", None]  # one line each, as NDJSON
    assert lines[0]["error"]["errors"][0]["pointer"] == "/seats/0/wager"
    assert lines[2]["error"]["errors"] == [
        {"pointer": "/seats/0/wager", "detail": strict.duplicate_message("wager")}
    ]
    assert lines[2]["source"].endswith(":3")


def test_bjaudit_audit_reads_each_element_of_an_array_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dup = edited(SEAT, b'{"seat": 1, "wager": 1, "wager": 2500}')
    big = edited(SEAT, b'{"seat": 1, "wager": 100000000000000000000}')
    path = tmp_path / "rounds.json"
    path.write_bytes(b"[\n" + b",\n".join([EXAMPLE, dup, big]) + b"\n]\n")
    code, lines = run_cli(capsys, path)
    assert code == 2
    assert lines[0]["verdict"] == "compliant"
    assert lines[1]["source"].endswith("[1]") and lines[1]["error"]["status"] == 422
    assert lines[1]["error"]["errors"] == [
        {"pointer": "/seats/0/wager", "detail": strict.duplicate_message("wager")}
    ]
    assert lines[2]["source"].endswith("[2]")
    assert lines[2]["error"]["errors"][0]["pointer"] == "/seats/0/wager"


@pytest.mark.parametrize("body", [b"[1, 2,", b"[NaN, {}] x", b"[" * 5000 + b"]" * 5000, b"[]", b"[\xff]"])
def test_an_array_file_that_is_not_json_is_one_unreadable_record_or_none(
    body: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rounds.json"
    path.write_bytes(body)
    code, lines = run_cli(capsys, path)
    assert all(line["error"]["status"] == 422 for line in lines)
    assert code == (0 if body == b"[]" else 2)
