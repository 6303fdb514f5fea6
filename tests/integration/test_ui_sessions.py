"""A workbench session ended twice at once (a logout in two tabs) is recorded once, and neither logout fails."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.store import ui_sessions


def test_two_logouts_of_one_session_at_once_both_succeed(engine: Engine) -> None:
    now = datetime.now(UTC)
    later = now + timedelta(hours=8)
    failures: list[BaseException] = []
    with Session(engine) as first:
        ui_sessions.end(first, "n" * 32, later, now)  # its row written, not committed yet

        def second() -> None:
            try:
                with Session(engine) as other:
                    ui_sessions.end(other, "n" * 32, later, now)  # waits for the first, then finds its row
                    other.commit()
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        worker = threading.Thread(target=second)
        worker.start()
        worker.join(0.3)  # it waits on the first's row (PostgreSQL) or lock (SQLite)
        first.commit()
        worker.join(10)
    assert not worker.is_alive() and failures == []
    with engine.connect() as conn:
        assert (
            conn.execute(
                text("SELECT count(*) FROM ended_sessions WHERE nonce = :n"), {"n": "n" * 32}
            ).scalar_one()
            == 1
        )
    with Session(engine) as s:
        assert ui_sessions.ended(s, "n" * 32)
