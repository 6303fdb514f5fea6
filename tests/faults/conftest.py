"""Fault tests break a PostgreSQL server of their own (tests/throwaway_pg.py), never the shared one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.throwaway_pg import ThrowawayPostgres


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayPostgres]:
    pg = ThrowawayPostgres()
    pg.start()
    try:
        yield pg
    finally:
        with contextlib.suppress(OSError):  # resume a server a failed test left hung
            pg.resume()
        pg.destroy()
