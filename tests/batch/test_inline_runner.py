"""The in-process runner never gives an accepted chunk up: after its quick retries it tries again later, behind
the other chunks (a review found chunks abandoned while a long SQLite upload held the write lock)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.usecases import batches


def test_a_chunk_that_keeps_failing_is_requeued_until_it_succeeds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int]] = []
    done = threading.Event()

    def flaky(db: Any, batch_id: str, chunk_no: int) -> None:
        calls.append((batch_id, chunk_no))
        if len(calls) < 4:
            raise RuntimeError("database is locked")
        done.set()

    monkeypatch.setattr(batches, "process_chunk", flaky)
    monkeypatch.setattr(batches.time, "sleep", lambda _s: None)
    runner = batches.InlineRunner(db=None, retries=1)  # type: ignore[arg-type]
    runner.requeue_after = 0.01
    try:
        runner.submit([("b1", 0)])
        assert done.wait(5), f"chunk never completed; calls: {calls}"
    finally:
        runner.close()
    assert calls == [("b1", 0)] * 4
