"""Garbage at the round parser (hypothesis): arbitrary bytes and text, arbitrary JSON values, near-JSON token soup,
and real rounds (app.synth.generator) with random damage (members deleted, repeated, retyped; huge numbers, NaN,
deep nesting, truncation, invalid UTF-8) and random layout.

Whatever comes in, :func:`app.wire.schema.parse_round` either accepts it (and the accepted round, re-serialised and
parsed again, is the same round) or raises :class:`RoundInvalid` with problems that each have a JSON pointer and a
message, and that the service can answer (the problem details of :func:`app.usecases.rounds.read_round` encode with
orjson). Never any other exception. Sharper: a repeated key is always refused at its pointer, and layout alone
(whitespace, escaped key names) never changes a round.

Derandomized (a fixed seed per test, no example database): every run tries the same inputs, so the suite stays
reproducible; raise ``max_examples`` locally to look further.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import orjson
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from app.synth.generator import generate_rounds
from app.usecases.errors import InvalidRound, problem_body
from app.usecases.offline import read_round
from app.wire.schema import MAX_MONEY, RoundInvalid, parse_round
from app.wire.strict import MAX_DEPTH, duplicate_message, pointer, scan

GARBAGE = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ROUNDS: list[dict[str, Any]] = list(generate_rounds(40, 8086))
_POINTER = re.compile(r"(?:/[^/]*)*")


def check(text: bytes | str) -> None:
    """The parser's contract, for any input."""
    try:
        rnd = parse_round(text)
    except RoundInvalid as exc:
        event("refused")
        assert exc.problems, text[:200]
        for p in exc.problems:
            assert set(p) == {"pointer", "message"}, p
            assert isinstance(p["pointer"], str) and _POINTER.fullmatch(p["pointer"]), p
            assert isinstance(p["message"], str) and p["message"], p
        assert exc.round_id is None or isinstance(exc.round_id, str)
        assert str(exc)
        try:
            read_round(text)
        except InvalidRound as err:  # what the API and a batch line answer: it must encode
            assert orjson.dumps(problem_body(err))
        else:
            raise AssertionError("read_round accepted what parse_round refused")
        return
    event("accepted")  # the same round again once decoded and re-encoded, in two layouts
    doc = json.loads(text)
    assert parse_round(orjson.dumps(doc)) == rnd
    assert parse_round(json.dumps(doc, indent=1, ensure_ascii=True)) == rnd


# --- arbitrary input ---------------------------------------------------------------------------------------------


@GARBAGE
@given(st.binary(max_size=3000))
def test_arbitrary_bytes(raw: bytes) -> None:
    check(raw)


CHARACTERS = st.one_of(
    st.characters(codec=None, exclude_categories=()),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),  # lone surrogates
    st.sampled_from('{}[]":,\\ 0123456789eE.-'),
)


@GARBAGE
@given(st.text(alphabet=CHARACTERS, max_size=500))
def test_arbitrary_text_even_with_lone_surrogates(text: str) -> None:
    check(text)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=10), children, max_size=6)
    ),
    max_leaves=40,
)


@GARBAGE
@given(JSON_VALUES)
def test_arbitrary_json_values(value: Any) -> None:
    check(json.dumps(value).encode())  # NaN and Infinity written as Python's json writes them


TOKENS = st.sampled_from(
    [
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b" ",
        b"\n",
        b'"',
        b"\\",
        b'"a"',
        b'"a":',
        b'"\\u0061":',
        b'"b" :',
        b"1",
    ]
    + [b"-0", b"1e400", b"NaN", b"-Infinity", b"true", b"null", b"12345678901234567890", b'"\\"', b'"x\\":"']
    + [b'"round_id":', b'"seats":', b'"events":', b'"wager":', b'"EX-1"', b"\xff", b"\xc3", b"\xed\xa0\x80"]
)


@GARBAGE
@given(st.lists(TOKENS, max_size=80))
def test_token_soup(tokens: list[bytes]) -> None:
    check(b"".join(tokens))


# --- real rounds, damaged ----------------------------------------------------------------------------------------


class Obj(list[tuple[str, Any]]):
    """A JSON object as its members in order: a key may be given twice."""


@dataclass(frozen=True)
class Raw:
    """Text written as it is (NaN, an integer of 5,000 digits)."""

    text: str


def tree(value: Any) -> Any:
    if isinstance(value, dict):
        return Obj((k, tree(v)) for k, v in value.items())
    if isinstance(value, list):
        return [tree(v) for v in value]
    return value


@dataclass(frozen=True)
class Layout:
    space: str
    escape_keys: bool
    ascii: bool


LAYOUTS = st.builds(
    Layout, st.sampled_from(["", " ", "\n", " \t\r\n ", "\n    "]), st.booleans(), st.booleans()
)


def _key(k: str, layout: Layout) -> str:
    if layout.escape_keys:
        return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in k) + '"'
    return json.dumps(k, ensure_ascii=layout.ascii)


def write(node: Any, layout: Layout) -> str:
    sp = layout.space
    if isinstance(node, Obj):
        return (
            "{"
            + sp
            + ("," + sp).join(f"{_key(k, layout)}{sp}:{sp}{write(v, layout)}" for k, v in node)
            + sp
            + "}"
        )
    if isinstance(node, list):
        return "[" + sp + ("," + sp).join(write(v, layout) for v in node) + sp + "]"
    if isinstance(node, Raw):
        return node.text
    return json.dumps(node, ensure_ascii=layout.ascii)


def containers(node: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every object and array of a tree with its location, document order, down to depth 40 (damage never goes
    deeper: one deep value inside another would only test this file's recursion)."""
    out: list[tuple[tuple[str | int, ...], Any]] = []
    if len(path) > 40:
        return out
    if isinstance(node, Obj):
        out.append((path, node))
        for k, v in node:
            out += containers(v, (*path, k))
    elif isinstance(node, list):
        out.append((path, node))
        for i, v in enumerate(node):
            out += containers(v, (*path, i))
    return out


def nested(depth: int, obj: bool) -> Any:
    node: Any = 0
    for _ in range(depth):
        node = Obj([("a", node)]) if obj else [node]
    return node


BAD_VALUES = st.one_of(
    JSON_VALUES.map(tree),
    st.integers(min_value=13, max_value=5000).map(lambda n: Raw("9" * n)),
    st.integers(min_value=13, max_value=5000).map(lambda n: Raw("-1" + "0" * n)),
    st.sampled_from([Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e400"), Raw("-0.0")]),
    st.builds(nested, st.integers(min_value=1, max_value=300), st.booleans()),  # the parser stops at 255
)


def damage(data: st.DataObject, node: Any) -> None:
    """One random change to a member of the tree, in place."""
    places = [(p, c) for p, c in containers(node) if c]
    if not places:
        return
    _, target = data.draw(st.sampled_from(places))
    i = data.draw(st.integers(0, len(target) - 1))
    how = data.draw(st.sampled_from(["delete", "repeat", "retype"]))
    if how == "delete":
        del target[i]
    elif how == "repeat" and isinstance(target, Obj):
        key = target[i][0]
        target.insert(data.draw(st.integers(0, len(target))), (key, data.draw(BAD_VALUES)))
    elif isinstance(target, Obj):
        target[i] = (target[i][0], data.draw(BAD_VALUES))
    else:
        target[i] = data.draw(BAD_VALUES)


@settings(GARBAGE, max_examples=300)
@given(st.data())
def test_real_rounds_damaged(data: st.DataObject) -> None:
    node = tree(ROUNDS[data.draw(st.integers(0, len(ROUNDS) - 1))])
    for _ in range(data.draw(st.integers(1, 4))):
        damage(data, node)
    raw = write(node, data.draw(LAYOUTS)).encode("utf-8", "surrogatepass")
    cut = data.draw(st.sampled_from(["none", "truncate", "bad utf-8"]))
    if cut == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    elif cut == "bad utf-8":
        at = data.draw(st.integers(0, len(raw)))
        raw = (
            raw[:at]
            + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf4\x90"]))
            + raw[at:]
        )
    check(raw)


@settings(GARBAGE, max_examples=200)
@given(st.data())
def test_a_repeated_key_is_always_refused_at_its_pointer(data: st.DataObject) -> None:
    node = tree(ROUNDS[data.draw(st.integers(0, len(ROUNDS) - 1))])
    objects = [(p, c) for p, c in containers(node) if isinstance(c, Obj) and c]
    where, target = data.draw(st.sampled_from(objects))
    key, value = target[data.draw(st.integers(0, len(target) - 1))]
    again = data.draw(st.one_of(st.just(value), BAD_VALUES))
    target.insert(data.draw(st.integers(0, len(target))), (key, again))
    raw = write(node, data.draw(LAYOUTS)).encode()
    try:
        parse_round(raw)
    except RoundInvalid as exc:
        assert {"pointer": pointer((*where, key)), "message": duplicate_message(key)} in exc.problems, (
            exc.problems
        )
    else:
        raise AssertionError(f"a repeated {key!r} at {pointer(where)} was accepted")


@settings(GARBAGE, max_examples=100)
@given(st.integers(0, len(ROUNDS) - 1), LAYOUTS)
def test_layout_alone_never_changes_a_round(index: int, layout: Layout) -> None:
    doc = ROUNDS[index]
    assert parse_round(write(tree(doc), layout).encode()) == parse_round(orjson.dumps(doc))


def expected_faults(node: Any, path: tuple[str | int, ...] = ()) -> list[str]:
    """What :func:`scan` must find in a tree (a decoder's reading, kept as pairs), as pointers."""
    if isinstance(node, float) and not math.isfinite(node):
        return [pointer(path)]
    if isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_MONEY:
        return [pointer(path)]
    out: list[str] = []
    if isinstance(node, Obj):
        keys = [k for k, _ in node]
        out += [pointer((*path, k)) for k in dict.fromkeys(keys) if keys.count(k) > 1]
        for k, v in node:
            out += expected_faults(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += expected_faults(v, (*path, i))
    return out


def depth(node: Any) -> int:
    if isinstance(node, Obj):
        return 1 + max((depth(v) for _, v in node), default=0)
    if isinstance(node, list):
        return 1 + max((depth(v) for v in node), default=0)
    return 0


@settings(GARBAGE, max_examples=300)
@given(JSON_VALUES, st.data())
def test_the_scan_finds_exactly_what_a_decoder_would(value: Any, data: st.DataObject) -> None:
    node = tree(value)
    objects = [c for _, c in containers(node) if isinstance(c, Obj) and c]
    for _ in range(data.draw(st.integers(0, 3)) if objects else 0):
        target = data.draw(st.sampled_from(objects))
        key, _ = target[data.draw(st.integers(0, len(target) - 1))]
        target.insert(data.draw(st.integers(0, len(target))), (key, data.draw(JSON_VALUES.map(tree))))
    if depth(node) > MAX_DEPTH:
        return
    found = scan(write(node, data.draw(LAYOUTS)).encode("utf-8", "surrogatepass"), max_int=MAX_MONEY)
    assert sorted(p["pointer"] for p in found) == sorted(expected_faults(node))
