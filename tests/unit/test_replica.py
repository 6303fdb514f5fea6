"""How the read replica's lag is bounded (app.store.replica), without servers: the positions the checks saw."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.main import StartupError, read_replica, serve
from app.store.replica import Replica

PRIMARY = "postgresql://postgres@127.0.0.1:5432/a"
STANDBY = "postgresql://postgres@127.0.0.1:5433/a"


def replica(samples: list[tuple[int, float]]) -> Replica:
    r = Replica(PRIMARY, STANDBY, max_lag=30)
    r._samples.extend(samples)
    return r


def test_a_standby_at_the_primarys_position_has_no_lag() -> None:
    assert replica([(100, 0.0)])._lag(replayed=100, primary_at=100, now=5.0, age=3600.0) == 0.0


def test_behind_the_lag_is_the_time_since_the_newest_check_the_standby_has_passed() -> None:
    # The primary stood at 100 at t=10, at 200 at t=20, at 300 now (t=25); the standby has replayed 250: it holds
    # all that was committed by t=20, so it is at most 5 s behind, though its last transaction is an hour old
    # (an idle primary's checkpoint record is what it has not replayed).
    r = replica([(100, 10.0), (200, 20.0), (300, 25.0)])
    assert r._lag(replayed=250, primary_at=300, now=25.0, age=3600.0) == pytest.approx(5.0)


def test_behind_the_lag_is_at_most_the_age_of_the_last_transaction_replayed() -> None:
    r = replica([(100, 10.0), (200, 20.0), (300, 25.0)])
    assert r._lag(replayed=150, primary_at=300, now=25.0, age=2.0) == pytest.approx(2.0)


def test_behind_every_position_seen_only_the_age_bounds_it_and_without_one_it_is_unknown() -> None:
    r = replica([(300, 25.0)])
    assert r._lag(replayed=50, primary_at=300, now=25.0, age=42.0) == pytest.approx(42.0)
    assert r._lag(replayed=50, primary_at=300, now=25.0, age=None) is None


def test_a_read_replica_needs_postgresql_on_both_sides() -> None:
    with pytest.raises(ValueError, match="needs PostgreSQL"):
        read_replica(Settings(database_url="sqlite:///x.sqlite3", database_read_url=STANDBY))
    with pytest.raises(ValueError, match="needs PostgreSQL"):
        read_replica(Settings(database_url=PRIMARY, database_read_url="sqlite:///x.sqlite3"))
    assert read_replica(Settings(database_url=PRIMARY)) is None


def test_serve_refuses_a_read_url_it_cannot_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BJAUDIT_DATABASE_URL", "sqlite:///x.sqlite3")
    monkeypatch.setenv("BJAUDIT_DATABASE_READ_URL", STANDBY)
    from app.config import get_settings

    get_settings.cache_clear()
    try:
        with pytest.raises(StartupError, match="BJAUDIT_DATABASE_READ_URL"):
            serve()
    finally:
        get_settings.cache_clear()
