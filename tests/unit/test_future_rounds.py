"""A round played after it was received (round-v1 section 2.3, last bullet): a ``played_at`` more than 5 minutes after
the moment the service received the round is refused, 422 naming ``/played_at``. The moment of receipt is given to the
use cases explicitly (``received_at``); without one (the golden audits, a re-audit, the offline CLI) nothing is
checked, and the audit stays a pure function of the record."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.usecases import batches, offline
from app.usecases.errors import InvalidRound, RoundInFuture, problem_body

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "examples" / "nj-compliant-double.round.json"
RECEIVED = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def played(at: str, round_id: str = "EX-NJ-0001") -> bytes:
    doc = json.loads(EXAMPLE.read_bytes())
    doc["played_at"] = at
    doc["round_id"] = round_id
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    "at",
    [
        "2026-12-04T12:05:00Z",  # exactly 5 minutes ahead
        "2026-12-04T07:05:00-05:00",  # the same instant, at the table's offset
        "2026-12-05T00:05:00+12:00",  # and another
        "2026-12-04T12:04:59.999999Z",
        "2026-12-04T12:00:00Z",
        "2026-11-30T22:10:00-05:00",
    ],
)
def test_up_to_5_minutes_ahead_is_accepted(at: str) -> None:
    done = offline.audit(played(at), None, None, RECEIVED)
    assert done.result["verdict"] == "compliant"
    assert done.body == offline.audit(played(at)).body  # the check adds nothing to the audit


@pytest.mark.parametrize(
    ("at", "ahead"),
    [
        ("2026-12-04T12:05:00.000001Z", "over 5 minutes"),
        ("2026-12-04T07:05:01-05:00", "5 minutes 1 second"),
        ("2026-12-04T13:00:00Z", "1 hour"),
        ("2026-12-05T14:30:00+12:00", "14 hours 30 minutes"),
        ("2027-12-30T20:00:00-05:00", "391 days 13 hours"),
    ],
)
def test_more_than_5_minutes_ahead_is_refused_naming_played_at(at: str, ahead: str) -> None:
    with pytest.raises(RoundInFuture) as info:
        offline.audit(played(at), None, None, RECEIVED)
    exc = info.value
    assert isinstance(exc, InvalidRound)  # a record the service cannot take, as every 422 of a round
    body = problem_body(exc)
    assert body["status"] == 422
    assert body["type"] == "urn:bjaudit:problem:round-in-future"
    assert body["round_id"] == "EX-NJ-0001"
    assert body["errors"] == [
        {
            "pointer": "/played_at",
            "detail": f"{datetime.fromisoformat(at).isoformat()} is {ahead} after the moment the service received "
            "the round (2026-12-04T12:00:00Z): more than 5 minutes in the future, so it cannot have been played yet",
        }
    ]
    assert ahead in body["detail"] and "5 minutes" in body["detail"]


def test_without_a_moment_of_receipt_nothing_is_checked() -> None:
    far = played("2099-01-01T00:00:00Z")
    assert offline.audit(far).result["round_id"] == "EX-NJ-0001"
    assert offline.read_round(far).played_at == datetime(2099, 1, 1, tzinfo=UTC)


def test_a_record_that_cannot_be_read_says_so_first() -> None:
    doc = json.loads(played("2099-01-01T00:00:00Z"))
    doc["events"][0]["card"] = "1H"
    with pytest.raises(InvalidRound) as info:
        offline.audit(json.dumps(doc), None, None, RECEIVED)
    assert not isinstance(info.value, RoundInFuture)
    assert [e["pointer"] for e in info.value.errors or ()] == ["/events/0/card"]


def test_a_batch_line_in_the_future_is_rejected_alone() -> None:
    lines = [
        played("2026-12-04T11:00:00Z", "F-1"),
        played("2026-12-04T12:06:00Z", "F-2"),
        played("2026-12-04T12:05:00Z", "F-3"),
    ]
    got = list(batches.audit_lines(b"\n".join(lines), 10, None, RECEIVED))
    assert [n for n, _, _ in got] == [10, 11, 12]
    assert [type(a).__name__ for _, _, a in got] == ["Audited", "RoundInFuture", "Audited"]
    problem = problem_body(got[1][2])  # type: ignore[arg-type]
    assert problem["round_id"] == "F-2" and problem["errors"][0]["pointer"] == "/played_at"
    # without a moment of receipt (the golden audits): every line audited, as before
    assert [type(a).__name__ for _, _, a in batches.audit_lines(b"\n".join(lines), 10)] == ["Audited"] * 3


def test_the_leeway_is_5_minutes() -> None:
    assert timedelta(minutes=5) == offline.FUTURE_LEEWAY
