"""The read replica (BJAUDIT_DATABASE_READ_URL): a streaming standby of the PostgreSQL primary, and whether it may
serve a read now.

What it serves is decided by the routes (searches, reports, shoes, the workbench's pages: ``UnitOfWork.look``);
here only whether it can. At most once a second (``interval``), one thread asks, on a connection of its own opened
with a short timeout (a standby that hangs marks itself down in that time instead of holding requests):

- the primary's WAL position (``pg_current_wal_lsn()``), first;
- the standby's replay position (``pg_last_wal_replay_lsn()``) and whether it is one (``pg_is_in_recovery()``).

A standby that has replayed the position the primary had is current (lag 0: whatever was committed before the check
is there). Otherwise its lag is at most the smaller of two bounds: the age of the last transaction it replayed
(``pg_last_xact_replay_timestamp()``: what it misses was committed after that), and the time since the newest earlier
check at which the primary stood where the standby stands now, or before (it holds all that was committed by then:
an idle primary's checkpoint record, not yet replayed, does not read as a lag of the time since the last commit).
Over ``max_lag`` seconds, or unknown, it serves nothing until a check finds it back. A read that fails on the
standby (it went down, or a recovery conflict cancelled the query) marks it down until the next check, and the read
is served as BJAUDIT_READ_FALLBACK says.

A read URL that is not a standby (``pg_is_in_recovery()`` false: the primary itself, a pooler in front of it, a
logical replica) is used as it is: its lag cannot be measured and is reported as null.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import psycopg

from app.config import libpq_url

log = logging.getLogger("bjaudit.replica")

CHECK_TIMEOUT_SECONDS = 2
"""How long a check may wait for either server (connecting and answering): a hung standby is down after this."""


@dataclass(frozen=True, slots=True)
class ReplicaState:
    usable: bool
    lag_seconds: float | None
    """None: not known (down, not a standby, or behind by an amount no check can date)."""
    reason: str | None
    """Why it is not usable (or, usable, why its lag is unknown)."""
    checked_at: float
    """time.monotonic() of the check."""

    def as_json(self) -> dict[str, object]:
        lag = None if self.lag_seconds is None else round(self.lag_seconds, 3)
        return {"state": "in_use" if self.usable else "not_used", "lag_seconds": lag, "reason": self.reason}


def _lsn(text: str) -> int:
    """A WAL position (``16/B374D848``) as a number.

    >>> _lsn("16/B374D848") - _lsn("16/B374D000")
    2120
    """
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


class Replica:
    """Whether the standby at ``read_url`` may serve reads, checked against the primary at ``primary_url``."""

    def __init__(
        self, primary_url: str, read_url: str, max_lag: float, *, interval: float = 1.0, history: int = 600
    ) -> None:
        primary, replica = libpq_url(primary_url), libpq_url(read_url)
        if primary is None or replica is None:
            raise ValueError("a read replica needs PostgreSQL for both DATABASE_URL and DATABASE_READ_URL")
        self._primary, self._replica = primary, replica
        self.max_lag = max_lag
        self.interval = interval
        self._samples: deque[tuple[int, float]] = deque(maxlen=history)
        """(primary's WAL position, monotonic time it was read), oldest first: to date a standby's position."""
        self._state: ReplicaState | None = None
        self._checking = threading.Lock()

    def state(self) -> ReplicaState:
        """The standby's state, checked again if the last check is older than ``interval``. While one thread
        checks, the others take the last state (or wait, before the first)."""
        current = self._state
        if current is not None and time.monotonic() - current.checked_at < self.interval:
            return current
        if not self._checking.acquire(blocking=current is None):
            assert current is not None
            return current
        try:
            current = self._state
            if current is None or time.monotonic() - current.checked_at >= self.interval:
                current = self._state = self._check()
            return current
        finally:
            self._checking.release()

    def failed(self, exc: BaseException) -> None:
        """A read on the standby failed: not used again until the next check finds it well."""
        reason = f"a read failed on it: {_first(getattr(exc, 'orig', None) or exc)}"
        self._state = self._logged(ReplicaState(False, None, reason, time.monotonic()))

    def _check(self) -> ReplicaState:
        now = time.monotonic()
        try:
            (position,) = _ask(self._primary, "SELECT pg_current_wal_lsn()::text")
        except psycopg.Error as exc:
            # The primary cannot say where it is: the standby's lag cannot be known (and the primary's own reads
            # will fail as they would without a replica).
            return self._logged(
                ReplicaState(False, None, f"the primary cannot be asked its position: {_first(exc)}", now)
            )
        primary_at = _lsn(position)
        self._samples.append((primary_at, now))
        try:
            recovering, replayed, age = _ask(
                self._replica,
                "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
                "extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8",
            )
        except psycopg.Error as exc:
            return self._logged(ReplicaState(False, None, f"it cannot be reached: {_first(exc)}", now))
        if not recovering:
            return self._logged(
                ReplicaState(
                    True, None, "it is not a standby (not in recovery): its lag cannot be measured", now
                )
            )
        if replayed is None:
            return self._logged(ReplicaState(False, None, "it has replayed nothing yet", now))
        lag = self._lag(_lsn(replayed), primary_at, now, age)
        if lag is None:
            return self._logged(
                ReplicaState(False, None, "it is behind the primary by a time no check can tell", now)
            )
        if lag > self.max_lag:
            reason = f"it is {lag:.1f} s behind the primary (BJAUDIT_READ_MAX_LAG_SECONDS {self.max_lag:g})"
            return self._logged(ReplicaState(False, lag, reason, now))
        return self._logged(ReplicaState(True, lag, None, now))

    def _lag(self, replayed: int, primary_at: int, now: float, age: float | None) -> float | None:
        if replayed >= primary_at:
            return 0.0
        # Two bounds, each at least the lag, the smaller taken. The age of the last transaction it replayed: what
        # it misses was committed after that one. The time since the newest check at which the primary stood at or
        # before where the standby stands now: it holds everything committed before that check.
        bounds = [age] if age is not None else []
        i = bisect.bisect_right([p for p, _ in self._samples], replayed)
        if i > 0:
            bounds.append(now - self._samples[i - 1][1])
        return max(0.0, min(bounds)) if bounds else None

    def _logged(self, state: ReplicaState) -> ReplicaState:
        """``state``, logged when the standby comes into use or goes out of it."""
        before = self._state
        if before is None or before.usable != state.usable:
            if state.usable:
                log.info("read replica in use (lag %s s)", state.lag_seconds)
            else:
                log.warning("read replica not used: %s", state.reason)
        return state


def _ask(conninfo: str, query: str) -> tuple[Any, ...]:
    """One row of ``query`` on a connection of its own, opened and answered within :data:`CHECK_TIMEOUT_SECONDS`."""
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=CHECK_TIMEOUT_SECONDS) as conn:
        conn.execute(f"SET statement_timeout = {CHECK_TIMEOUT_SECONDS * 1000}")
        row = conn.execute(query).fetchone()
    assert row is not None
    return tuple(row)


def _first(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
