"""Schemathesis hooks for tests/integration/test_schemathesis.py: bodies for POST /v1/batches.

The document declares the upload as ``application/x-ndjson``, ``format: binary`` (it is read as a stream, not
parsed as one JSON value), which schemathesis cannot generate on its own. These bodies are NDJSON of the kinds a
table system sends and gets wrong: real rounds, rounds with one field changed, JSON that is no round, blank lines and
bytes that are no JSON at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import schemathesis
from hypothesis import strategies as st

NDJSON = "application/x-ndjson"
EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
ROUNDS = [orjson.dumps(orjson.loads(p.read_bytes())) for p in sorted(EXAMPLES.glob("*.round.json"))]
"""The hand-written example rounds, one line each."""


def _changed(raw: bytes, key: str, value: object) -> bytes:
    return json.dumps({**orjson.loads(raw), key: value}).encode()  # (integers of any size: not orjson)


def lines() -> st.SearchStrategy[bytes]:
    """One line of an upload."""
    rounds = st.sampled_from(ROUNDS)
    return st.one_of(
        rounds,
        st.builds(
            _changed,
            rounds,
            st.sampled_from(["round_id", "played_at", "jurisdiction", "seats", "events", "table"]),
            st.one_of(st.none(), st.integers(), st.text(max_size=20), st.lists(st.integers(), max_size=3)),
        ),
        st.just(b""),
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")),
    )


def ndjson_bodies() -> st.SearchStrategy[bytes]:
    """Bodies of POST /v1/batches: up to a dozen lines, a trailing newline or not."""
    return st.builds(
        lambda body, end: b"\n".join(body) + end,
        st.lists(lines(), max_size=12),
        st.sampled_from([b"", b"\n"]),
    )


schemathesis.openapi.media_type(NDJSON, ndjson_bodies())
