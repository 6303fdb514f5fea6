"""Strict JSON: what a record must be, beyond the JSON that a lenient reader takes, for every reader to see the
same round.

A lenient reader (orjson, pydantic, Python's ``json``) takes the last of two members of the same name, where
another reader takes the first: ``{"wager": 1, "wager": 2500}`` is two different rounds, ambiguous evidence. This
module finds, each with the RFC 6901 JSON pointer of the member at fault:

- a key given twice in one object (compared after decoding: ``"w\\u0061ger"`` is ``"wager"``);
- ``NaN``, ``Infinity`` or ``-Infinity``, which are not JSON;
- an integer beyond the range of the format's numbers (no amount or count of a round is that large; an integer of
  any length is named, never converted);
- nesting deeper than :data:`MAX_DEPTH` (the format's own depth is 4).

Public surface::

    key_tokens(raw)         at least the number of member names in JSON text: two C passes over the bytes
    scan(data, max_int)     the exact check of JSON text: list of Problem, [] when it is strict
    value_faults(v, loc)    the same checks of an already-decoded value (no duplicates left to find there)
    loads_marking_duplicates(data)  decode with Python's json, and say whether some object repeated a key
    repeated_keys(raw, max_int)     the closer look when key_tokens disagrees: a decode, then scan if needed
    pointer(loc)            RFC 6901 pointer of a location
    Problem                 TypedDict {pointer, message}

The cost stays off the happy path: a caller compares :func:`key_tokens` of the raw text with the number of
members it decoded, and looks closer (:func:`repeated_keys`) only when they differ; :func:`scan` (pure Python, some
200 µs for a round of 1.4 KB) runs only when a key is repeated, or when the text is not JSON to the parser.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from typing_extensions import TypedDict

__all__ = [
    "MAX_DEPTH",
    "Problem",
    "key_tokens",
    "loads_marking_duplicates",
    "merged",
    "pointer",
    "repeated_keys",
    "scan",
    "value_faults",
]

MAX_DEPTH = 32
"""The deepest nesting of objects and arrays accepted (the document itself is at depth 1; a round's deepest member,
``/seats/0/additional_wager``, is at depth 3 and is an object: depth 4)."""
MAX_FAULTS = 100
"""At most this many problems are reported by one :func:`scan` (a record of 10,000 repeated keys gets 100)."""


class Problem(TypedDict):
    """One validation problem."""

    pointer: str
    """RFC 6901 JSON pointer of the bad value (``"/events/7/card"``); ``""`` for the whole document."""
    message: str
    """What is wrong, in plain words."""


def pointer(loc: Iterable[str | int]) -> str:
    """RFC 6901 JSON pointer of a location.

    >>> pointer(("events", 7, "card"))
    '/events/7/card'
    >>> pointer(["a/b", "m~n"])
    '/a~1b/m~0n'
    >>> pointer(())
    ''
    """
    return "".join("/" + str(seg).replace("~", "~0").replace("/", "~1") for seg in loc)


# --- messages --------------------------------------------------------------------------------------------------


_DUPLICATED = (
    " is duplicated in this object: the record is ambiguous (a reader keeping the first value and one keeping the "
    "last see different rounds); send each key once"
)


def duplicate_message(key: str) -> str:
    """
    >>> duplicate_message("wager")
    "key 'wager' is duplicated in this object: the record is ambiguous (a reader keeping the first value and one keeping the last see different rounds); send each key once"
    """
    return f"key {_shown_key(key)}{_DUPLICATED}"


def _shown_key(key: str) -> str:
    return repr(key) if len(key) <= 40 else f"{key[:40]!r}... ({len(key)} characters)"


def nonfinite_message(literal: str) -> str:
    """
    >>> nonfinite_message("-Infinity")
    '-Infinity is not JSON (JSON numbers are finite, and NaN and Infinity are not numbers in JSON)'
    """
    return f"{literal} is not JSON (JSON numbers are finite, and NaN and Infinity are not numbers in JSON)"


def big_int_message(written: str, max_int: int) -> str:
    """``written``: the integer as the text writes it (a sign, then digits), or :func:`int_shown` of it.

    >>> big_int_message("10000000000000", 10**12)
    'the integer 10000000000000 is out of range: no amount or count in a record is over 1000000000000'
    >>> big_int_message("-" + "9" * 400, 10**12)
    'the integer -999... (a 400-digit integer) is out of range: no amount or count in a record is over 1000000000000'
    """
    n = len(written.lstrip("-"))
    shown = (
        written
        if n <= 40 or not written[-1].isdigit()
        else f"{written[: 4 if written[0] == '-' else 3]}... (a {n}-digit integer)"
    )
    return f"the integer {shown} is out of range: no amount or count in a record is over {max_int}"


def int_shown(v: int) -> str:
    """A decoded integer as JSON writes it; past the 4300 digits that str() writes, its size only.

    >>> int_shown(-12)
    '-12'
    >>> int_shown(10**5000)
    'of about 5001 digits'
    """
    try:
        return str(v)
    except ValueError:
        return f"of about {math.floor(math.log10(abs(v))) + 1} digits"


def depth_message(max_depth: int) -> str:
    """
    >>> depth_message(32)
    'nested deeper than 32 levels of objects and arrays (a round has 4 at most): the record is refused unread'
    """
    return (
        f"nested deeper than {max_depth} levels of objects and arrays (a round has 4 at most): the record is "
        "refused unread"
    )


# --- the fast count ----------------------------------------------------------------------------------------------

_JSON_WS = b" \t\n\r"


def key_tokens(raw: bytes) -> int:
    """An upper bound on the number of member names in JSON text, exact unless a string holds a quote followed by
    a colon: every name ends with ``"`` then (whitespace and) ``:``. Two passes in C (delete JSON whitespace, count
    ``":``), no decoding, no regex. Its only use: when it equals the number of members that a decoder kept, no key
    was repeated (a repeated key makes the text hold more names than the decoded objects). It proves nothing when
    they differ.

    >>> key_tokens(b'{"a": 1, "b" :{"c":"x"}}')
    3
    >>> key_tokens(b'{"a": 1, "a": 2}')  # decoded: one member
    2
    >>> key_tokens(b'{"note": "he said \\\\"no\\\\": twice"}')  # a quote-colon inside a string counts too
    2
    """
    return raw.translate(None, _JSON_WS).count(b'":')


# --- the exact scan ----------------------------------------------------------------------------------------------

# One token a match: a string (a member name when a colon follows), a number, punctuation, a literal, a non-JSON
# literal, or anything else (the text stops being JSON there). Strings are matched from their opening quote, so the
# scan never starts inside one.
_TOKEN = re.compile(
    rb"""[ \t\n\r]*(?:
      (?P<string>"[^"\\]*(?:\\.[^"\\]*)*")(?P<name>[ \t\n\r]*:)?
    | (?P<number>-?(?:0|[1-9][0-9]*)(?P<fraction>(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?))
    | (?P<open>[{\[])
    | (?P<close>[}\]])
    | (?P<comma>,)
    | (?P<literal>true|false|null)
    | (?P<nonfinite>-?Infinity|NaN)
    | (?P<other>.)
    )""",
    re.VERBOSE | re.DOTALL,
)


def _decode_name(token: bytes) -> str | None:
    """A member name as decoded, or None when it is not a JSON string of valid Unicode."""
    try:
        name = token[1:-1].decode() if b"\\" not in token else json.loads(token, strict=False)
        name.encode()  # a lone surrogate (\\ud800) is no character
    except (ValueError, UnicodeError):
        return None
    return name if isinstance(name, str) else None


def scan(data: bytes | str, *, max_int: int, max_depth: int = MAX_DEPTH) -> list[Problem]:
    """The problems of strict JSON in ``data``, each at the pointer of the member at fault; ``[]`` when there is
    none. Exact for JSON text; text that stops being JSON is read up to where it stops (the parser says why).

    >>> scan(b'{"seats": [{"seat": 1, "wager": 1, "w\\\\u0061ger": 2500}]}', max_int=10**12)[0]["pointer"]
    '/seats/0/wager'
    >>> [p["pointer"] for p in scan(b'{"a": [1, NaN, {"b": -Infinity}], "c": 123456789012345}', max_int=10**12)]
    ['/a/1', '/a/2/b', '/c']
    >>> scan(b'{"note": "a \\\\"key\\\\": here", "note2": "\\\\":"}', max_int=10**12)
    []
    >>> scan(b'[' * 40 + b']' * 40, max_int=1, max_depth=32)[0]["pointer"]
    '/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0'
    """
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    faults: list[Problem] = []
    # per open container, innermost last: the names so far (None: an array), and the member being read
    keys: list[dict[str, int] | None] = []
    path: list[str | int] = []
    deep = 0  # > 0 inside a container past max_depth: its content is skipped
    expect = "value"  # what may come next: "value", "name", or "after" (a comma or a close, after a value)
    just_opened = False  # right after { or [: a close may come instead

    def fault(message: str) -> None:
        if len(faults) < MAX_FAULTS:
            faults.append({"pointer": pointer(path), "message": message})

    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if deep:  # inside a container past the limit: only its brackets count (strings keep the scan in step)
            if kind == "open":
                deep += 1
            elif kind == "close":
                deep -= 1
                if not deep:
                    expect = "after"
            elif kind == "other":
                break
            continue
        if kind == "name":
            if expect != "name":
                break
            name = _decode_name(m["string"])
            if name is None:
                break
            seen = keys[-1]
            assert seen is not None
            n = seen.get(name, 0) + 1
            seen[name] = n
            path[-1] = name
            if n == 2:
                fault(duplicate_message(name))
            expect, just_opened = "value", False
            continue
        if kind == "close":
            bracket = m["close"]
            if not keys or (expect != "after" and not just_opened):
                break
            if (bracket == b"}") != (keys[-1] is not None):
                break
            keys.pop()
            path.pop()
            expect, just_opened = "after", False
            continue
        if kind == "comma":
            if expect != "after" or not keys:
                break
            if keys[-1] is None:
                idx = path[-1]
                assert isinstance(idx, int)
                path[-1] = idx + 1
                expect = "value"
            else:
                expect = "name"
            just_opened = False
            continue
        if expect != "value":  # every other token is a value
            break
        just_opened = False
        if kind == "open":
            if len(keys) + 1 > max_depth:
                fault(depth_message(max_depth))
                deep = 1
                continue
            obj = m["open"] == b"{"
            keys.append({} if obj else None)
            path.append("" if obj else 0)
            expect, just_opened = ("name" if obj else "value"), True
            continue
        if kind == "number":
            if not m["fraction"]:
                digits = m["number"].decode()
                if len(digits.lstrip("-")) > len(str(max_int)) or abs(int(digits)) > max_int:
                    fault(big_int_message(digits, max_int))
        elif kind == "nonfinite":
            fault(nonfinite_message(m["nonfinite"].decode()))
        elif kind not in ("string", "literal"):
            break
        expect = "after"  # with no container open, nothing may follow
    return faults


# --- an already-decoded value ----------------------------------------------------------------------------------


def value_faults(
    value: object,
    loc: tuple[str | int, ...] | list[str | int] = (),
    *,
    max_int: int,
    max_depth: int = MAX_DEPTH,
) -> list[Problem]:
    """The same problems in a decoded JSON value found at ``loc`` (a float NaN or infinity, an integer out of
    range, nesting too deep); a key cannot be repeated there any more. Iterative: any depth is safe.

    >>> value_faults({"a": [1, float("nan")], "b": 10**20}, max_int=10**12)  # doctest: +NORMALIZE_WHITESPACE
    [{'pointer': '/a/1', 'message': 'NaN is not JSON (JSON numbers are finite, and NaN and Infinity are not numbers
    in JSON)'}, {'pointer': '/b', 'message': 'the integer 100000000000000000000 is out of range: no amount or count
    in a record is over 1000000000000'}]
    >>> value_faults([[[1]]], ("events", 3), max_int=10, max_depth=4)[0]["pointer"]
    '/events/3/0/0'
    """
    faults: list[Problem] = []
    stack: list[tuple[object, list[str | int]]] = [(value, list(loc))]
    while stack and len(faults) < MAX_FAULTS:
        v, where = stack.pop()
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, int):
            if v > max_int or v < -max_int:
                faults.append({"pointer": pointer(where), "message": big_int_message(int_shown(v), max_int)})
            continue
        if isinstance(v, float):
            if not math.isfinite(v):
                literal = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
                faults.append({"pointer": pointer(where), "message": nonfinite_message(literal)})
            continue
        if isinstance(v, dict | list | tuple):
            if len(where) + 1 > max_depth:
                faults.append({"pointer": pointer(where), "message": depth_message(max_depth)})
                continue
            items: Iterable[tuple[Any, object]] = v.items() if isinstance(v, dict) else enumerate(v)
            stack.extend((member, [*where, key]) for key, member in reversed(list(items)))
    return faults


# --- duplicates, by a decoder ------------------------------------------------------------------------------------


class _Marked:
    """object_pairs_hook that notes whether any object repeated a key."""

    __slots__ = ("repeated",)

    def __init__(self) -> None:
        self.repeated = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            self.repeated = True
        return obj


def repeated_keys(raw: bytes | str, *, max_int: int) -> list[Problem]:
    """The closer look when :func:`key_tokens` disagrees with the members a decoder kept: one decode with Python's
    json that notes a repeated key (a quote and a colon inside a string make the count disagree too, and then
    nothing is repeated), and :func:`scan` for the pointers only if one was.

    >>> repeated_keys(b'{"note": "say \\\\"x\\\\": y"}', max_int=1)
    []
    >>> repeated_keys(b'{"a": {"b": 1, "b": 2}}', max_int=1)[0]["pointer"]
    '/a/b'
    """
    try:
        _, repeated = loads_marking_duplicates(raw)
    except (ValueError, RecursionError):
        repeated = True
    return scan(raw, max_int=max_int) if repeated else []


def loads_marking_duplicates(data: bytes | str) -> tuple[Any, bool]:
    """Decode JSON text with Python's json (which takes NaN, Infinity and integers of up to 4300 digits), and say
    whether an object repeated a key. Raises ValueError (RecursionError past Python's depth) when it cannot.

    >>> loads_marking_duplicates(b'{"a": {"b": 1, "b": 2}}')
    ({'a': {'b': 2}}, True)
    >>> loads_marking_duplicates('{"a": 1, "b": [NaN]}')
    ({'a': 1, 'b': [nan]}, False)
    """
    hook = _Marked()
    return json.loads(data, object_pairs_hook=hook), hook.repeated


# --- with the schema's problems --------------------------------------------------------------------------------


def merged(faults: list[Problem], problems: list[Problem]) -> list[Problem]:
    """The problems of strict JSON first, then the schema's. A repeated key is always reported; a value's own fault
    (NaN, an integer out of range, nesting) only where the schema has nothing to say at its pointer (the schema
    knows the field, and says what it must be).

    >>> merged(
    ...     [{"pointer": "/a", "message": duplicate_message("a")}, {"pointer": "/b", "message": "NaN ..."}],
    ...     [{"pointer": "/a", "message": "must be a string"}, {"pointer": "/b", "message": "must be an integer"}],
    ... )  # doctest: +ELLIPSIS
    [{'pointer': '/a', 'message': "key 'a' is duplicated..."}, {'pointer': '/a', ...}, {'pointer': '/b', ...}]
    """
    if not faults:
        return problems
    said = {p["pointer"] for p in problems}
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for p in faults:
        if p["pointer"] in said and not p["message"].endswith(_DUPLICATED):
            continue
        if (p["pointer"], p["message"]) not in seen:
            seen.add((p["pointer"], p["message"]))
            out.append(p)
    return out + [p for p in problems if (p["pointer"], p["message"]) not in seen]
