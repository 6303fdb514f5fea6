"""Reading rounds from files: one JSON object, a JSON array of objects, or NDJSON (one object per line), each
plain or gzipped (recognised by its first bytes, whatever the file is called).

NDJSON is read line by line, so a file of any size streams in constant memory. ``-`` is standard input.
"""

from __future__ import annotations

import gzip
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
    text: bytes | None = None
    obj: object = None


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
        return False


def _array(data: bytes, name: str) -> Iterator[RecordText]:
    try:
        items = orjson.loads(data)
    except orjson.JSONDecodeError:
        yield RecordText(name, data)  # let the parser report where the JSON breaks
        return
    for i, item in enumerate(items):
        yield RecordText(f"{name}[{i}]", obj=item)
