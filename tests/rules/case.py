"""A rule test case: a round, and what the rule must do with it (fire at an event, or stay quiet).

A firing case names at least the rule and the event of its finding (``fire``); a case written with ``fires``
states every finding whole (:class:`Want`: rule, event, hand, expected, actual, amount_delta, and for a settlement
the table corrected, corrected_by and corrected_actual), in the engine's documented order, and nothing else may be
reported. A case about a voided round also states the audit's ``void`` object (``round-v1.md`` section 2.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Words:
    """Stands for the wording of a finding that is not about money (its ``expected`` or ``actual``) where neither the
    spec nor an existing check fixes the words: equal to any string that contains each of ``parts`` (what the spec
    does fix: a hand, an event), and to nothing else (never to a number, so it cannot hide money)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: str) -> None:
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and all(p in other for p in self.parts)

    def __hash__(self) -> int:
        return hash(self.parts)

    def __repr__(self) -> str:
        return f"Words({', '.join(map(repr, self.parts))})"


WORDS = Words()
"""Any wording (see :class:`Words`)."""


class Want(NamedTuple):
    """One finding, whole, as the audit result must carry it."""

    rule: str
    event: int | None
    hand: str | None
    expected: Any
    actual: Any
    amount_delta: int | None = None
    corrected_by: int | None = None
    """For a settlement the table corrected (section 2.3): the event of the last correction."""
    corrected_actual: int | None = None
    """... and the player's net after it."""


def want(
    rule: str,
    event: int | None,
    hand: str | None,
    expected: Any,
    actual: Any,
    delta: int | None = None,
    *,
    corrected_by: int | None = None,
    corrected_actual: int | None = None,
) -> Want:
    return Want(rule, event, hand, expected, actual, delta, corrected_by, corrected_actual)


def got(finding: dict[str, Any]) -> Want:
    """The fields of an audit result's finding that a :class:`Want` states."""
    return Want(
        finding["rule"],
        finding["event"],
        finding["hand"],
        finding["expected"],
        finding["actual"],
        finding.get("amount_delta"),
        finding.get("corrected_by"),
        finding.get("corrected_actual"),
    )


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
    findings: tuple[Want, ...] | None = None
    """Every finding, whole and in order, when the case states them (``fires``)."""
    void: dict[str, Any] | None = None
    """The audit's ``void`` object, ``{"event": i, "reason": r}``, for a voided round; None: the audit has no
    ``void`` key."""


def fire(
    rule: str,
    name: str,
    round_: dict[str, Any],
    at: int | None,
    role: str,
    also: tuple[tuple[str, int | None], ...] = (),
) -> Case:
    return Case(rule=rule, name=name, round=round_, fires_at=at, role=role, also=also)


def fires(
    rule: str,
    name: str,
    round_: dict[str, Any],
    role: str,
    *findings: Want,
    void: dict[str, Any] | None = None,
) -> Case:
    """A firing case that states every finding whole, in the engine's order; the first is the rule's own."""
    first = next(f for f in findings if f.rule == rule)
    also = tuple((f.rule, f.event) for f in findings if f is not first)
    return Case(
        rule=rule,
        name=name,
        round=round_,
        fires_at=first.event,
        role=role,
        also=also,
        findings=tuple(findings),
        void=void,
    )


def quiet(rule: str, name: str, round_: dict[str, Any], *, void: dict[str, Any] | None = None) -> Case:
    return Case(rule=rule, name=name, round=round_, quiet=True, void=void)
