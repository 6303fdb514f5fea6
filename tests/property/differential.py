"""What the differential test of the round parsers (``test_parse_differential.py``, issue 23) is made of: JSON text
written exactly as wanted, the comparison of the fast parser's outcome with the reference's, and the values at the
edges of ``round-v1.md`` (integers, strings, cards, hands, timestamps) with what the spec says of each.

Public surface::

    Raw, Obj, write(value)         JSON text: a literal as written, a key twice or escaped, any layout
    paths, get, replaced, removed, put, pointer, escaped     locations in a record, and edits of it
    disagreement(data)             the reference's outcome, and how the fast parser's differs (None: it does not)
    Case, Cases, check_all(cases)  inputs with what the spec says of them; every one in str and in bytes
    ACCEPT, REFUSE                 what a case expects (or the JSON pointer of a problem the reference must name)
    JSON_TYPES, ODD_INTEGERS, STRANGE, string_values, card_spellings, hand_names, GOOD_TIMESTAMPS,
    BAD_TIMESTAMPS, kept, refused_at                          the edge values and their readings
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from copy import deepcopy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.model import Round
from app.wire.fast import parse_round as fast_parse_round
from app.wire.schema import RoundInvalid, parse_round

Doc = dict[str, Any]
Path = tuple[str | int, ...]


# ---------------------------------------------------------------------------------------------------------------
# JSON text as wanted: a key twice, a number literal as written, an escaped key


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is: ``NaN``, ``1E2``, ``-0``, ``"\\ud800"``, nesting 10,000 deep."""

    text: str


class Obj(list[tuple[str | Raw, Any]]):
    """A JSON object as its members in order: a key may be given twice, or as Raw text (escaped)."""


def write(value: Any, space: str = "", ascii: bool = False) -> str:
    """JSON text of a value (dicts, lists, Obj, Raw, scalars), ``space`` after every ``,`` and ``:``."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        value = Obj(value.items())
    if isinstance(value, Obj):
        members = [
            f"{write(k) if isinstance(k, Raw) else json.dumps(k, ensure_ascii=ascii)}:{space}{write(v, space, ascii)}"
            for k, v in value
        ]
        return "{" + ("," + space).join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + ("," + space).join(write(v, space, ascii) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)  # 1.0, 1.5 (Raw for NaN, Infinity and exponents)
    return json.dumps(value, ensure_ascii=ascii)  # null, true, false, integers of any size, strings


def paths(value: Any, at: Path = ()) -> Iterator[Path]:
    """Every location in a document, in document order (the document itself first)."""
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*at, i))


def get(doc: Any, path: Path) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def replaced(doc: Doc, path: Path, value: Any) -> Doc:
    out = deepcopy(doc)
    get(out, path[:-1])[path[-1]] = value
    return out


def removed(doc: Doc, path: Path) -> Doc:
    out = deepcopy(doc)
    del get(out, path[:-1])[path[-1]]
    return out


def put(doc: Doc, path: Path, text: Any) -> str:
    """The text of ``doc`` with the value at ``path`` written as ``text`` (an Obj, a Raw...)."""
    marker = "\x00MARK\x00"
    if not path:
        return write(text)
    return write(replaced(doc, path, marker)).replace(json.dumps(marker), write(text), 1)


def pointer(path: Path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def escaped(key: str) -> Raw:
    """The key with its first character written as a \\u escape: the same key to any JSON reader."""
    return Raw('"' + f"\\u{ord(key[0]):04x}" + json.dumps(key)[2:]) if key else Raw('""')


# ---------------------------------------------------------------------------------------------------------------
# The comparison


@dataclass(frozen=True)
class Refused:
    problems: list[dict[str, Any]]
    round_id: str | None
    text: str


@dataclass(frozen=True)
class Raised:
    """An exception other than RoundInvalid (the reference raises none: tests/property/test_parser_garbage.py)."""

    what: str


Outcome = Round | Refused | Raised


def outcome(parse: Callable[[bytes | str], Round], data: bytes | str) -> Outcome:
    try:
        return parse(data)
    except RoundInvalid as exc:
        return Refused(exc.problems, exc.round_id, str(exc))
    except Exception as exc:  # an outcome to compare like the others
        return Raised(f"{type(exc).__name__}: {exc}")


def difference(a: Any, b: Any, at: str = "round") -> str | None:
    """Where two values read first differ, down to the class of every value and the order of every dict."""
    if type(a) is not type(b):
        return f"{at}: {type(a).__name__} {a!r} vs {type(b).__name__} {b!r}"
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        pairs = [(getattr(a, f.name), getattr(b, f.name), f"{at}.{f.name}") for f in dataclasses.fields(a)]
    elif isinstance(a, dict):
        if list(a) != list(b):
            return f"{at}: keys {list(a)} vs {list(b)}"
        pairs = [(a[k], b[k], f"{at}[{k!r}]") for k in a]
    elif isinstance(a, list | tuple):
        if len(a) != len(b):
            return f"{at}: {len(a)} items vs {len(b)}"
        pairs = [(x, y, f"{at}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True))]
    elif isinstance(a, datetime):
        if (a.isoformat(), a.fold, repr(a.tzinfo)) != (b.isoformat(), b.fold, repr(b.tzinfo)):
            return f"{at}: {a!r} vs {b!r}"
        pairs = [(a.tzinfo, b.tzinfo, f"{at}.tzinfo")] if a.tzinfo is not None else []
    elif a != b or repr(a) != repr(b):
        return f"{at}: {a!r} vs {b!r}"
    else:
        pairs = []
    return next((d for x, y, where in pairs if (d := difference(x, y, where))), None)


def shown(o: Outcome) -> str:
    if isinstance(o, Round):
        return f"accepted {o!r}"[:700]
    if isinstance(o, Refused):
        return f"refused {o.problems!r} round_id={o.round_id!r}"[:700]
    return f"raised {o.what}"[:700]


def disagreement(data: bytes | str) -> tuple[Outcome, str | None]:
    """The reference's outcome, and how the fast parser's differs from it (None: it does not)."""
    ref = outcome(parse_round, data)
    fast = outcome(fast_parse_round, data)
    if isinstance(ref, Round) and isinstance(fast, Round):
        d = difference(ref, fast)
        if d is None and (ref != fast or repr(ref) != repr(fast)):
            d = "the rounds differ (== or repr)"
        return ref, None if d is None else f"both accept, but {d}"
    if isinstance(ref, Refused) and isinstance(fast, Refused):
        if ref == fast and repr(ref) == repr(fast):
            return ref, None
        return ref, f"both refuse, differently: reference {shown(ref)}; fast {shown(fast)}"
    if ref == fast:
        return ref, None
    return ref, f"reference {shown(ref)}; fast {shown(fast)}"


ACCEPT = "accept"
REFUSE = "refuse"
Then = Callable[[Round], bool]


@dataclass(frozen=True)
class Case:
    """One input, and what the spec and the model say of it: ``expect`` None (nothing), ACCEPT, REFUSE, or the JSON
    pointer of a problem the reference must report; ``then``, for an accepted round, what must be read."""

    name: str
    data: bytes | str
    expect: str | None = None
    then: Then | None = None

    def forms(self) -> list[bytes | str]:
        """The input as given, then as the other of str and bytes (a str's lone surrogates: their UTF-8 bytes)."""
        if isinstance(self.data, str):
            return [self.data, self.data.encode("utf-8", "surrogatepass")]
        try:
            return [self.data, self.data.decode("utf-8")]
        except UnicodeDecodeError:
            return [self.data]


class Cases(list[Case]):
    def doc(self, name: str, doc: Any, expect: str | None = None, then: Then | None = None) -> None:
        self.append(Case(name, write(doc), expect, then))

    def text(self, name: str, data: bytes | str, expect: str | None = None, then: Then | None = None) -> None:
        self.append(Case(name, data, expect, then))


def unmet(case: Case, ref: Outcome) -> str | None:
    """How the reference's outcome differs from what the case says (None: it does not)."""
    if case.expect is None:
        return None
    if case.expect == ACCEPT:
        if not isinstance(ref, Round):
            return f"the spec reads it; the reference {shown(ref)}"
        if case.then is not None and not case.then(ref):
            return f"the round read is not what the spec says: {ref!r}"[:700]
        return None
    if not isinstance(ref, Refused):
        return f"the spec refuses it; the reference {shown(ref)}"
    if case.expect != REFUSE and case.expect not in [p["pointer"] for p in ref.problems]:
        return f"the reference does not name {case.expect}: {shown(ref)}"
    return None


def check_all(cases: list[Case], least: int = 1) -> None:
    """Every case in both forms; fails listing every disagreement, and every case the reference does not read as
    the case says."""
    assert len(cases) >= least, f"only {len(cases)} cases"
    wrong: list[str] = []
    misread: list[str] = []
    for case in cases:
        for k, data in enumerate(case.forms()):
            ref, d = disagreement(data)
            if d is not None:
                wrong.append(f"{case.name} [{type(data).__name__} {abridged(data)}]: {d}")
            e = unmet(case, ref) if k == 0 else None
            if e is not None:
                misread.append(f"{case.name} [{abridged(data)}]: {e}")
    assert not wrong, f"{len(wrong)} disagreements with the reference:\n" + "\n".join(wrong[:25])
    assert not misread, f"{len(misread)} inputs not read as the spec says:\n" + "\n".join(misread[:25])


def abridged(data: bytes | str) -> str:
    return repr(data) if len(data) <= 400 else f"{data[:250]!r}...{data[-120:]!r} ({len(data)} long)"


# ---------------------------------------------------------------------------------------------------------------
# Values at the edges of round-v1, and what the spec says of each

JSON_TYPES: list[tuple[str, Any]] = [
    ("null", None),
    ("true", True),
    ("false", False),
    ("0", 0),
    ("-1", -1),
    ("1", 1),
    ("1.0", 1.0),
    ("1e3", Raw("1e3")),
    ('""', ""),
    ('"x"', "x"),
    ("[]", []),
    ("{}", {}),
    ("[1]", [1]),
    ('{"a":1}', {"a": 1}),
]


ODD_INTEGERS: list[tuple[str, Any, int | None]] = [  # (name, value, the integer it is, when JSON writes one)
    ("2**31", 2**31, 2**31),
    ("2**53+1", 2**53 + 1, 2**53 + 1),
    ("2**63-1", 2**63 - 1, 2**63 - 1),
    ("2**63", 2**63, 2**63),
    ("2**64", 2**64, 2**64),
    ("2**64+1", 2**64 + 1, 2**64 + 1),
    ("-2**63", -(2**63), -(2**63)),
    ("-2**63-1", -(2**63) - 1, -(2**63) - 1),
    ("10**400", 10**400, 10**400),
    ("-10**400", -(10**400), -(10**400)),
    ("-0", Raw("-0"), 0),
    ("-1", -1, -1),
    ("true", True, None),
    ("false", False, None),
    ("1.0", Raw("1.0"), None),
    ("1e3", Raw("1e3"), None),
    ("1E2", Raw("1E2"), None),
    ("1e0", Raw("1e0"), None),
    ("1E+2", Raw("1E+2"), None),
    ("2500.0", Raw("2500.0"), None),
    ("2.5e3", Raw("2.5e3"), None),
    ("25e2", Raw("25e2"), None),
    ("0.0", Raw("0.0"), None),
    ("-0.0", Raw("-0.0"), None),
    ("0e0", Raw("0e0"), None),
    ("1.5", 1.5, None),
    ("1e400", Raw("1e400"), None),
    ("-1e400", Raw("-1e400"), None),
    ("1e-400", Raw("1e-400"), None),
    ("1000000000000.0", Raw("1000000000000.0"), None),
    ("NaN", Raw("NaN"), None),
    ("Infinity", Raw("Infinity"), None),
    ("-Infinity", Raw("-Infinity"), None),
    ('"1"', "1", None),
    ('"2500"', "2500", None),
    ("null", None, None),
    ("[1]", [1], None),
    ("{}", {}, None),
    ("01", Raw("01"), None),
    ("-01", Raw("-01"), None),
    ("+1", Raw("+1"), None),
    ("1.", Raw("1."), None),
    (".5", Raw(".5"), None),
    ("0x10", Raw("0x10"), None),
    ("1_000", Raw("1_000"), None),
    ("- 1", Raw("- 1"), None),
]


def refused_at(value: Any, where: str) -> str:
    """What the reference must say of a value the field does not take: a problem at the field, or only a refusal
    when the value is not JSON at all (then the text is malformed, at pointer "")."""
    if isinstance(value, Raw):
        try:
            json.loads(value.text, parse_constant=lambda c: 1 / 0)
        except (ValueError, ZeroDivisionError):
            return REFUSE
    return where


# Identifiers and free text: round_id 1-128 of A-Z a-z 0-9 . _ : -; table.id 1-128 of anything; dealer_id and shoe_id
# 0-128 of anything; note 0-1000 of anything. Python's re "$" matches before a final newline: the model's patterns
# match the whole string.
STRANGE = [
    "\u00e9",  # é
    "\u0665",  # an Arabic-Indic digit (\d in Python's re)
    "\uff21",  # fullwidth A
    "\u212a",  # the Kelvin sign (K to a case-insensitive match)
    "\u0131",  # dotless i
    "\u00df",  # ß
    "\U0001f600",  # outside the BMP
    "\u0301",  # a combining accent
    "\x00",
    "\x1f",
    "\x7f",
    "\t",
    "\n",
    "\r",
    " ",
    "\u00a0",
    "\u2028",
    "\ufeff",
    "/",
    "\\",
    '"',
    "~",
    "+",
    ",",
]


def string_values(alphabet_ok: Callable[[str], bool], least: int, most: int) -> list[tuple[str, Any, bool]]:
    """(name, value, whether the field takes it) for a string field of the given alphabet and lengths."""
    out: list[tuple[str, Any, bool]] = []
    for n in sorted({0, 1, least, most - 1, most, most + 1}):
        out.append((f"{n} x 'a'", "a" * n, least <= n <= most))
        out.append(
            (f"{n} x emoji", "\U0001f600" * n, least <= n <= most and (n == 0 or alphabet_ok("\U0001f600")))
        )
    for c in STRANGE:
        for name, s in [
            (f"{c!r}", c),
            (f"abc+{c!r}", "abc" + c),
            (f"{c!r}+abc", c + "abc"),
            (f"a{c!r}c", f"a{c}c"),
        ]:
            out.append((name, s, alphabet_ok(c) and least <= len(s)))
    out += [
        ("abc\\n", "abc\n", alphabet_ok("\n")),
        ("abc\\r\\n", "abc\r\n", alphabet_ok("\n")),
        ("escaped ABC", Raw('"\\u0041BC"'), True),
        ("escaped slash", Raw('"a\\/b"'), alphabet_ok("/")),
        ("escaped pair", Raw('"\\ud83d\\ude00"'), alphabet_ok("\U0001f600")),
        ("escaped NUL", Raw('"a\\u0000"'), alphabet_ok("\x00")),
        ("lone high surrogate", Raw('"a\\ud800"'), False),
        ("lone low surrogate", Raw('"a\\udc00"'), False),
        ("reversed pair", Raw('"\\ude00\\ud83d"'), False),
        ("raw tab in the string", Raw('"a\tb"'), False),
        ("raw newline in the string", Raw('"a\nb"'), False),
        ("bad escape", Raw('"a\\x41"'), False),
        ("short escape", Raw('"a\\u41"'), False),
    ]
    return out


RANKS = "A23456789TJQK"
SUITS = "CDHS"


def card_spellings() -> list[tuple[str, str | None]]:
    """(spelling, the card it is, or None when it is not one)."""
    out: list[tuple[str, str | None]] = []
    for r in RANKS:
        for s in SUITS:
            for rank in {r, r.lower()} | ({"10"} if r == "T" else set()):
                out += [(rank + suit, r + s) for suit in (s, s.lower())]
    bad = [
        "1H",
        "0H",
        "11H",
        "100H",
        "01H",
        "1OH",
        "T",
        "H",
        "AHH",
        "AX",
        "XH",
        "BH",
        "ZS",
        "AH\n",
        " AH",
        "AH ",
    ]
    bad += ["\n10H", "10H\n", "10", "HA", "SA", "\uff21H", "A\uff28", "\u0665H", "\uff34\uff28", "Ah\x00", ""]
    bad += [
        "AH,",
        "tH\r",
        "1 0H",
        "10 H",
        "\u212aS",
        "KS\u0301",
        "2c2c",
        "Ac\n",
        "1\u0660H",
        "10\u0048\u0301",
    ]
    return out + [(b, None) for b in bad]


def hand_names() -> list[tuple[str, tuple[int, int] | None]]:
    """(name, the hand it is, or None when it is not one)."""
    out: list[tuple[str, tuple[int, int] | None]] = []
    for seat in range(1, 10):
        out.append((str(seat), (seat, 1)))
        out += [(f"{seat}.{n}", (seat, n)) for n in (1, 2, 9, 10, 19, 20, 59, 60, 63, 64)]
    bad = ["1.65", "1.01", "0", "10", "1.0", "1.", ".1", "01", "1.1.1", " 1", "1 ", "1\n", "\n1", "-1", "+1"]
    bad += ["1e0", "0.1", "1.00", "9.99", "1.164", "1.100", "1,2", "1.-1", "\u0661", "\uff11", "1.\u0662"]
    bad += ["1.6\u0664", "", "a", "1.1\n", "11", "99", "1.65\n", "0.0", "1.70", "1.99", "1.640"]
    return out + [(b, None) for b in bad]


# Timestamps: RFC 3339 with seconds, an optional fraction of 1-9 digits and an offset (Z, z or +-hh:mm with hh 00-23
# and mm 00-59), T or t between the date and the time; a real date and time; within years 1-9999 once in UTC. The
# offset written is kept: 2026-12-01T21:14:05-05:00 and 2026-12-02T02:14:05Z are one instant but two records.
GOOD_TIMESTAMPS = [
    "2026-12-01T21:14:05-05:00",
    "2026-12-01T21:14:05Z",
    "2026-12-01t21:14:05z",
    "2026-12-01T21:14:05z",
    "2026-12-01t21:14:05Z",
    "2026-12-01T21:14:05+00:00",
    "2026-12-01T21:14:05-00:00",
    "2026-12-01T21:14:05+23:59",
    "2026-12-01T21:14:05-23:59",
    "2026-12-01T21:14:05+13:45",
    "2026-12-01T21:14:05+05:30",
    "2026-12-01T21:14:05+00:01",
    "2026-12-01T21:14:05.5Z",
    "2026-12-01T21:14:05.0Z",
    "2026-12-01T21:14:05.000000Z",
    "2026-12-01T21:14:05.123456Z",
    "2026-12-01T21:14:05.1234567Z",
    "2026-12-01T21:14:05.12345678-05:00",
    "2026-12-01T21:14:05.123456789+05:30",
    "2026-12-01T21:14:05.9999995Z",
    "2026-12-01T21:14:05.999999999Z",
    "2026-12-01T21:14:05.0000005Z",
    "2026-12-01T21:14:05.1234565Z",
    "2026-12-31T23:59:59.999999999Z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T12:00:00+01:00",
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:00:00-01:00",
    "0001-01-01T01:00:00+01:00",
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:59:59.999999999Z",
    "9999-12-31T23:59:59+01:00",
    "9999-12-31T22:59:59-01:00",
    "1970-01-01T00:00:00Z",
    "1994-10-31T00:00:00+13:00",
    "2026-03-08T02:30:00-05:00",  # a local time that New York skipped: the offset decides
    "2026-11-01T01:30:00-04:00",
    "2026-11-01T01:30:00-05:00",
]
BAD_TIMESTAMPS = [
    "2026-12-01T21:14:05.1234567890Z",
    "2026-12-01T21:14:05.12345678901234567890Z",
    "2026-12-01",
    "2026-12-01T21:14:05",
    "2026-12-01T21:14:05.5",
    "2026-12-01 21:14:05Z",
    "2026-12-01_21:14:05Z",
    "2026-12-0121:14:05Z",
    "2026-12-01T21:14Z",
    "2026-12-01T21Z",
    "2026-12-01T21:14:05+24:00",
    "2026-12-01T21:14:05-24:00",
    "2026-12-01T21:14:05+05:60",
    "2026-12-01T21:14:05+0500",
    "2026-12-01T21:14:05+05",
    "2026-12-01T21:14:05+5:00",
    "2026-12-01T21:14:05+05:00:00",
    "2026-12-01T21:14:05 +05:00",
    "2026-12-01T21:14:05UTC",
    "2026-12-01T21:14:05GMT",
    "2026-12-01T21:14:05.Z",
    "2026-12-01T21:14:05,5Z",
    "2026-12-01T21:14:05Z\n",
    "2026-12-01T21:14:05-05:00\n",
    " 2026-12-01T21:14:05Z",
    "2026-12-01T21:14:05Z ",
    "2026-02-30T00:00:00Z",
    "2026-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-12-00T00:00:00Z",
    "2026-12-32T00:00:00Z",
    "2026-12-01T24:00:00Z",
    "2026-12-01T23:60:00Z",
    "2026-12-01T23:59:61Z",
    "2026-12-01T23:59:99Z",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:00:00-05:00",
    "9999-12-31T23:59:59-00:01",
    "+12026-12-01T21:14:05Z",
    "-2026-12-01T21:14:05Z",
    "26-12-01T21:14:05Z",
    "2026-1-01T21:14:05Z",
    "2026-12-1T21:14:05Z",
    "2026-12-01T1:14:05Z",
    "20261201T211405Z",
    "2026-W48-2T21:14:05Z",
    "2026-335T21:14:05Z",
    "\uff12\uff10\uff12\uff16-12-01T21:14:05Z",
    "2026-12-01T21:14:0\u0665Z",
    "1700000000",
    "1700000000.5",
    "",
    "now",
    "2026-12-01T21:14:05ZZ",
    "2026-12-01T21:14:05Z+01:00",
    "2026-12-01T21:14:05+01:00Z",
    "2026-12-01T21:14:05.123456-05:00 ",
    "2026-12-01T21:14:05\u221205:00",  # a minus sign, not a hyphen-minus
    "2026-12-01T21:14:05\u002b05:00\u0000",
]
TIMESTAMP = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d+))?([Zz]|[+-]\d\d:\d\d)", re.ASCII
)


def kept(ts: str) -> Then:
    """played_at is read as written: the date, the time (to the microsecond) and the offset."""
    m = TIMESTAMP.fullmatch(ts)
    assert m, ts
    fields = tuple(int(g) for g in m.groups()[:6])
    sign = 1 if m[8][0] == "+" else -1
    offset = 0 if m[8] in "Zz" else sign * (int(m[8][1:3]) * 3600 + int(m[8][4:6]) * 60)
    micro = int((m[7] or "0")[:6].ljust(6, "0"))

    def read(r: Round) -> bool:
        t = r.played_at
        at = (t.year, t.month, t.day, t.hour, t.minute, t.second)
        got = t.utcoffset()
        return got is not None and got.total_seconds() == offset and at == fields and t.microsecond == micro

    return read
