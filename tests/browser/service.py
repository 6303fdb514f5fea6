"""A live ``bjaudit serve`` with seeded rounds with findings, for the browser tests (tests/browser) and the README's
screenshots (tools/screenshots.py): generated New Jersey rounds played over the last days, about
:data:`ERROR_RATE` of them with one injected error (app/synth/mutator.py), each submitted with ``POST /v1/rounds``."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import orjson

from app.synth.generator import generate_rounds
from app.synth.mutator import mutate
from tests.live_service import live_key, live_service

SEEDED = 150
ERROR_RATE = 0.45
SEED = 20261203
NEW_YORK = ZoneInfo("America/New_York")


@dataclass
class Live:
    """A live service with seeded rounds."""

    base: str
    key: str
    rounds: list[dict[str, Any]] = field(default_factory=list)
    """The seeded records, as submitted."""
    with_findings: list[str] = field(default_factory=list)
    """Round IDs of the seeded rounds the service found violations in, in the order played."""
    audits: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The service's audit of each seeded round, by round ID, as it answered the submission."""

    def at_an_event(self, round_ids: list[str]) -> str:
        """The first of ``round_ids`` with a finding at an event (not only findings of absences)."""
        return next(r for r in round_ids if any(f["event"] is not None for f in self.audits[r]["findings"]))

    def get(self, path: str, **params: Any) -> httpx.Response:
        answer = httpx.get(
            self.base + path, params=params, headers={"Authorization": f"Bearer {self.key}"}, timeout=30
        )
        answer.raise_for_status()
        return answer


def seeded_rounds(n: int = SEEDED, seed: int = SEED, now: datetime | None = None) -> list[dict[str, Any]]:
    """``n`` generated New Jersey rounds, about :data:`ERROR_RATE` of them with one injected error, played one
    after the other over the days before ``now`` (so that the reports' days have rounds)."""
    now = (now or datetime.now(UTC)).replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    rng = random.Random(f"browser:{seed}")
    out = []
    for i, rnd in enumerate(generate_rounds(n, seed, "US-NJ")):
        if rng.random() < ERROR_RATE:
            mutated = mutate(rnd, rng)
            rnd = mutated[0] if mutated is not None else rnd
        played = (now - timedelta(minutes=53 * (n - i))).astimezone(NEW_YORK)
        rnd["played_at"] = played.isoformat()
        # The round ID names the day it was generated for: the day it is played now.
        rnd["round_id"] = re.sub(r"-\d{8}-", f"-{played:%Y%m%d}-", rnd["round_id"], count=1)
        out.append(rnd)
    return out


def seed(live: Live, n: int = SEEDED) -> None:
    """Submit :func:`seeded_rounds` to the service."""
    headers = {"Authorization": f"Bearer {live.key}", "Content-Type": "application/json"}
    with httpx.Client(base_url=live.base, headers=headers, timeout=30) as client:
        for rnd in seeded_rounds(n):
            answer = client.post("/v1/rounds", content=orjson.dumps(rnd))
            assert answer.status_code == 201, answer.text
            live.rounds.append(rnd)
            live.audits[rnd["round_id"]] = answer.json()
            if answer.json()["verdict"] == "violations":
                live.with_findings.append(rnd["round_id"])
    assert len(live.with_findings) > n * ERROR_RATE / 2, "too few seeded rounds with findings"


@contextmanager
def serving(workdir: Path, url: str, env: dict[str, str] | None = None, n: int = SEEDED) -> Iterator[Live]:
    """A live service on the new database ``url``, seeded with ``n`` rounds."""
    with live_service(workdir, {"DATABASE_URL": url, **(env or {})}) as (base, _):
        service = Live(base=base, key=live_key(workdir))
        seed(service, n)
        yield service
