"""Keeping the reports' rollups up to date (app/store/rollups.py): the service and every worker roll the chains of
the sources that moved, every BJAUDIT_ROLLUP_INTERVAL_SECONDS, one transaction per pass. Rollers never wait for one
another (PostgreSQL: a source held by one is skipped by the others), and a report never waits for them (it adds
what they have not rolled yet)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence

from app.store import rollups
from app.store.db import Database

log = logging.getLogger("bjaudit.rollups")


def roll_behind(db: Database, budget_seconds: float = 5.0, sources: Sequence[str] | None = None) -> int:
    """Roll every source that is behind (or those of ``sources``) until it is up to date, or for about
    ``budget_seconds``; the entries added."""
    added = 0
    until = time.monotonic() + budget_seconds
    if sources is None:
        with db.reading() as s:
            sources = rollups.behind(s)
    for source in sources:
        while time.monotonic() < until:
            with db.session() as s:
                n = rollups.roll(s, source)
                if n is None:  # another roller has it: its work, not ours
                    s.rollback()
                    break
            added += n
            if n < rollups.PASS_ENTRIES:
                break
    return added


def roll_after_chunk(db: Database, sources: Sequence[str] | None) -> None:
    """What a batch's or a re-audit's chunk does once it is committed: roll its source (``None``: every source
    behind) up to the head. A worker thus adds what it stored before it takes its next chunk (≈ a tenth of what
    storing cost), and a flood of batches cannot leave the rollups behind by more than the chunks in flight; the
    rollers that run every interval only catch up on the rest (single submissions). A failure is logged: the
    chunk is stored, and reports add what is not rolled."""
    try:
        roll_behind(db, CHUNK_BUDGET_SECONDS, sources)
    except Exception as exc:  # noqa: BLE001 - a database away: the next chunk or roller adds it
        log.warning("the report rollups were not rolled after a chunk: %s", _first_line(exc))


CHUNK_BUDGET_SECONDS = 5.0
"""How long a worker rolls after a chunk, at most (a source caught up stops it sooner)."""


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else repr(exc)


async def keep_rolling(db: Database, interval: float, stop: asyncio.Event) -> None:
    """Roll what moved every ``interval`` seconds until ``stop`` is set (a pass in progress finishes)."""
    while not stop.is_set():
        try:
            await asyncio.to_thread(roll_behind, db)
        except Exception as exc:  # noqa: BLE001 - a database away: reports read the raw rows meanwhile
            log.warning("the report rollups could not be brought up to date: %s", _first_line(exc))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
