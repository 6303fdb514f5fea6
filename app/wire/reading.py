"""Reading rounds from files: one JSON object, a JSON array of objects, or NDJSON (one object per line), each
plain or gzipped (recognised by its first bytes, whatever the file is called).

NDJSON is read line by line, so a file of any size streams in constant memory. ``-`` is standard input.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

import orjson


@dataclass(frozen=True, slots=True)
class RecordText:
    where: str
    """``path:line`` for NDJSON, ``path[index]`` for an array element, ``path`` for a whole file."""
    text: bytes
    """The record's bytes exactly as written in the file."""


class UnreadableFile(Exception):
    """A file that cannot be read as rounds at all (a gzip stream cut off or corrupt)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")


_GZIP_MAGIC = b"\x1f\x8b"


def read_records(paths: Iterable[str]) -> Iterator[RecordText]:
    for path in paths:
        if path == "-":
            yield from _read_maybe_gzipped(sys.stdin.buffer, "<stdin>")
        else:
            with open(path, "rb") as f:
                yield from _read_maybe_gzipped(f, path)


def _read_maybe_gzipped(f: IO[bytes], name: str) -> Iterator[RecordText]:
    peek = getattr(f, "peek", None)
    head = peek(2)[:2] if peek is not None else b""
    if head != _GZIP_MAGIC:
        yield from _read(f, name)
        return
    try:
        with gzip.GzipFile(fileobj=f, mode="rb") as unzipped:
            yield from _read(unzipped, name)
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        raise UnreadableFile(name, f"not a whole gzip file ({exc or type(exc).__name__})") from None


def _read(f: IO[bytes] | gzip.GzipFile, name: str) -> Iterator[RecordText]:
    first = f.readline()
    lineno = 1
    while first and not first.strip():
        first = f.readline()
        lineno += 1
    if not first:
        return
    head = first.lstrip()
    if head.startswith(b"["):
        yield from _array(first + f.read(), name)
        return
    if head.startswith(b"{") and _is_whole_object(first):
        yield RecordText(f"{name}:{lineno}", first)
        for line in f:
            lineno += 1
            if line.strip():
                yield RecordText(f"{name}:{lineno}", line)
        return
    yield RecordText(name, first + f.read())


def _is_whole_object(line: bytes) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        pass
    try:  # an object to a lenient reader (NaN, an integer past 64 bits): a record of its own, refused on its own
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _array(data: bytes, name: str) -> Iterator[RecordText]:
    """Each element as the text it is in the file, read as strictly as any record (decoded and re-encoded, an
    element would lose the first of two equal keys)."""
    try:
        items = list(_elements(data.decode()))
    except (ValueError, RecursionError):
        yield RecordText(name, data)  # let the parser report where the JSON breaks
        return
    for i, item in enumerate(items):
        yield RecordText(f"{name}[{i}]", item.encode())


_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, i: int) -> int:
    """The index of the first non-whitespace character from ``i``."""
    m = _WS.match(text, i)
    return m.end() if m else i


def _elements(text: str) -> Iterator[str]:
    """The text of each element of a JSON array (ValueError if ``text`` is not one)."""
    decoder = json.JSONDecoder()
    i = _skip(text, 0)
    if text[i : i + 1] != "[":
        raise ValueError("not a JSON array")
    i = _skip(text, i + 1)
    if text[i : i + 1] == "]":
        i += 1
    else:
        while True:
            _, end = decoder.raw_decode(text, i)
            yield text[i:end]
            i = _skip(text, end)
            if text[i : i + 1] == "]":
                i += 1
                break
            if text[i : i + 1] != ",":
                raise ValueError("expected ',' or ']'")
            i = _skip(text, i + 1)
    if text[i:].strip(" \t\n\r"):
        raise ValueError("text after the array")
