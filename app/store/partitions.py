"""Monthly partitions of ``rounds`` and ``findings`` on PostgreSQL (SQLite keeps plain tables).

Both are partitioned by RANGE of ``played_at``, one partition a UTC month (``rounds_2026_12``, ``findings_2026_12``),
and a DEFAULT partition (``rounds_default``, ``findings_default``) catches any other ``played_at``: the round format
allows the years 1 to 9999, and a legal round is never refused for want of a partition.

Months are created ahead by the database function ``bjaudit_ensure_month`` (the migration defines it, SECURITY
DEFINER: only the tables' owner may add a partition, and the service may run as the application role). The service
and the batch worker call :func:`ensure_ahead` at start and then daily. A month whose range already holds rows in
the DEFAULT partition is skipped, with a warning, not moved: moving them would delete from append-only evidence and
hold the parents locked meanwhile; those rounds stay found where they are (the DEFAULT partition is scanned for the
months it holds), and an operator who wants the month may move them in a maintenance window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime

from sqlalchemy import Connection, Engine, text

log = logging.getLogger(__name__)

PARTITIONED = ("rounds", "findings")
AHEAD_MONTHS = 3
"""Months created past the current one."""
BEHIND_MONTHS = 24
"""Months created before the current one (rounds arrive late: a batch of last month's, a table system's backlog, a
casino's first upload of its past two years). A month must exist before its first round arrives: a round of a month
without partitions goes to DEFAULT, and the month is then never made (see above); empty months cost nothing to keep."""
LOCK_TIMEOUT = "2s"
"""A safety net: making a month takes its locks without waiting (:func:`ensure_months`)."""

_PARTITION_NAME = re.compile(rf"^({'|'.join(PARTITIONED)})_(\d{{4}}_\d{{2}}|default)$")


def is_partition(table_name: str) -> bool:
    """A partition of a partitioned table (not a table of the models: made by :func:`ensure_ahead`, not by the
    migrations alone)."""
    return _PARTITION_NAME.match(table_name) is not None


def month_of_name(table_name: str) -> date | None:
    """The month of a month's table (``rounds_2026_12``, ``findings_2026_12``, attached or detached); None for any
    other name (``rounds_default`` included).

    >>> month_of_name("findings_2026_12"), month_of_name("rounds_default")
    (datetime.date(2026, 12, 1), None)"""
    found = _PARTITION_NAME.match(table_name)
    if found is None or found.group(2) == "default":
        return None
    year, month = found.group(2).split("_")
    return date(int(year), int(month), 1)


def include_name(name: str | None, type_: str, parent_names: Mapping[str, str | None]) -> bool:
    """Alembic's filter of what it compares: the partitions are not tables of the models."""
    return not (type_ == "table" and name is not None and is_partition(name))


def month_of(moment: datetime) -> date:
    return date(moment.year, moment.month, 1)


def add_months(month: date, n: int) -> date:
    """>>> add_months(date(2026, 11, 1), 3)
    datetime.date(2027, 2, 1)"""
    k = month.year * 12 + month.month - 1 + n
    return date(k // 12, k % 12 + 1, 1)


def months(first: date, last: date) -> Iterator[date]:
    month = month_of(datetime(first.year, first.month, 1))
    while month <= last:
        yield month
        month = add_months(month, 1)


BUSY_PAUSE = 0.05
"""Seconds between a maker's tries while the tables it needs are busy."""
PATIENCE = 2.0
"""Seconds a maker tries a busy month for, by default (the service's; a restore waits longer)."""


def ensure_months(
    conn: Connection,
    wanted: Iterator[date] | list[date],
    patience: float = PATIENCE,
    leave_archived: bool = False,
) -> dict[date, str]:
    """Create the partitions of each month of ``wanted`` that does not exist yet; what became of each month
    (``created``, ``exists``, ``skipped`` — rows of it in the DEFAULT partition —, or ``busy``: the tables it needs
    were held by others for ``patience`` seconds). In the caller's transaction.

    The function takes every lock a month needs at once without waiting, or none (migration b2d4f6a8c0e1): a maker
    never stands in a lock's queue, so it cannot deadlock with a store or another maker, and holds nothing while it
    waits here for its next try (but the makers' advisory lock).

    ``leave_archived``: a month archived and not restored is not made (``archived``), checked once its locks are
    held, so that an archive that detached it a moment before is seen (the service's; a restore makes it)."""
    conn.execute(text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'"))
    done: dict[date, str] = {}
    for month in wanted:
        deadline = time.monotonic() + patience
        while True:
            making = conn.begin_nested()
            outcome = str(conn.execute(text("SELECT bjaudit_ensure_month(:m)"), {"m": month}).scalar_one())
            if outcome == "created" and leave_archived and month in archived(conn):
                making.rollback()
                outcome = "archived"
            else:
                making.commit()
            if outcome != "busy" or time.monotonic() >= deadline:
                break
            time.sleep(BUSY_PAUSE)
        if outcome == "skipped":
            log.warning(
                "partitions of %s not created: the DEFAULT partition holds rounds of that month "
                "(they stay there, and are found there)",
                month.strftime("%Y-%m"),
            )
        done[month] = outcome
    return done


def archived(conn: Connection) -> list[date]:
    """The months archived and not restored (``bjaudit archive``, app/usecases/retention.py). They are not made again
    ahead: an empty partition of one would be archived again, and a late round of it is kept in DEFAULT instead."""
    found = conn.execute(text("SELECT DISTINCT month FROM archives WHERE restored_at IS NULL")).scalars()
    return sorted(month_of(m.astimezone(UTC)) for m in found)


def ensure_ahead(engine: Engine, now: datetime | None = None) -> dict[date, str] | None:
    """The months from :data:`BEHIND_MONTHS` before ``now`` to :data:`AHEAD_MONTHS` after it, on PostgreSQL (a
    no-op elsewhere), but those :func:`archived` (``archived``, first); None if it failed. Never fails its caller: a
    month not created now is created at the next call, and rounds of it meanwhile go to the DEFAULT partition."""
    if engine.dialect.name != "postgresql":
        return {}
    current = month_of(now or datetime.now(UTC))
    # In order of need: the current month, those ahead, then those behind, newest first (a failure stops the rest).
    ahead = list(months(current, add_months(current, AHEAD_MONTHS)))
    wanted = ahead + list(
        reversed(list(months(add_months(current, -BEHIND_MONTHS), add_months(current, -1))))
    )
    done: dict[date, str] = {}
    try:
        with engine.connect() as conn:
            done = {month: "archived" for month in archived(conn) if month in wanted}
        for month in wanted:
            if month in done:
                continue
            # A transaction a month: the parents' lock and the function's are held while one month is made, not
            # while all of them are (stores and other makers wait that long at most).
            with engine.begin() as conn:
                done |= ensure_months(conn, [month], leave_archived=True)
            if done[month] == "busy":
                log.warning("monthly partitions: the tables were busy making %s; tried again later", month)
                return None
        return done
    except Exception as exc:  # noqa: BLE001 - the database away, a lock held: the next attempt
        said = str(exc).strip().splitlines()
        log.warning(
            "monthly partitions not created now (tried again later): %s", said[0] if said else repr(exc)
        )
        return None


DAILY = 24 * 3600.0
RETRY = 60.0
"""Seconds to the next attempt after a failed one (a database not reachable or not migrated yet)."""


async def keep_ahead(engine: Engine, stopping: asyncio.Event) -> None:
    """:func:`ensure_ahead` now and then daily, until ``stopping`` is set (the service's and the worker's)."""
    while not stopping.is_set():
        done = await asyncio.to_thread(ensure_ahead, engine)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), DAILY if done is not None else RETRY)
