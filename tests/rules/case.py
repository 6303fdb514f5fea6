"""A rule test case: a round, and what the rule must do with it (fire at an event, or stay quiet)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    rule: str
    """The citation (``Finding.rule``) this case is about, e.g. ``"13:69F-2.12(a)1"`` or ``"uncited:surrender"``."""
    name: str
    """What the case shows, in a few words (becomes part of the test id)."""
    round: dict[str, Any]
    fires_at: int | None = None
    """For a firing case: the 0-based event index of the finding (None for a finding of an absence)."""
    quiet: bool = False
    """A close variant on which no finding at all may be reported (the rule stays quiet, and so does every other)."""
    role: str | None = None
    """The check role the case exercises (see ``app.domain.checks``); firing cases name one."""
    also: tuple[tuple[str, int | None], ...] = field(default_factory=tuple)
    """Further (rule, event) findings the same fault must produce (e.g. two provisions breached by one card)."""


def fire(
    rule: str,
    name: str,
    round_: dict[str, Any],
    at: int | None,
    role: str,
    also: tuple[tuple[str, int | None], ...] = (),
) -> Case:
    return Case(rule=rule, name=name, round=round_, fires_at=at, role=role, also=also)


def quiet(rule: str, name: str, round_: dict[str, Any]) -> Case:
    return Case(rule=rule, name=name, round=round_, quiet=True)
