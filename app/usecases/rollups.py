"""Keeping the reports' rollups up to date (app/store/rollups.py): the service and every worker roll the chains of
the sources that moved, every BJAUDIT_ROLLUP_INTERVAL_SECONDS, one transaction per pass. Rollers never wait for one
another (PostgreSQL: a source held by one is skipped by the others), and a report never waits for them (it adds
what they have not rolled yet)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from app.store import rollups
from app.store.db import Database

log = logging.getLogger("bjaudit.rollups")


def roll_behind(db: Database, budget_seconds: float = 5.0) -> int:
    """Roll every source that is behind until it is up to date, or for about ``budget_seconds``; the entries added."""
    added = 0
    until = time.monotonic() + budget_seconds
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


async def keep_rolling(db: Database, interval: float, stop: asyncio.Event) -> None:
    """Roll what moved every ``interval`` seconds until ``stop`` is set (a pass in progress finishes)."""
    while not stop.is_set():
        try:
            await asyncio.to_thread(roll_behind, db)
        except Exception as exc:  # noqa: BLE001 - a database away: reports read the raw rows meanwhile
            log.warning(
                "the report rollups could not be brought up to date: %s",
                str(exc).splitlines()[0] if str(exc) else repr(exc),
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
