"""The rule framework: a rule is data (its citation, title, category, the elections it depends on, the dates it is
in force, our paraphrase), a finding is data, and a ruleset is the set of rules in force on a date.

Checks are small generic functions (:mod:`app.domain.checks`) that look at a replayed round and report by *role*
("the dealer drew on a standing total", "a busted hand was paid"). A jurisdiction binds each role it regulates to
one of its rules; a role it leaves unbound is not checked there. That keeps jurisdiction differences in data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from app.domain.replay import Trace

CitationStatus = Literal["verified", "unverified", "uncited"]
Category = Literal[
    "dealing", "player_action", "dealer_draw", "wager", "payout", "timing", "election", "record"
]


@dataclass(frozen=True, slots=True)
class Rule:
    rule: str
    """The provision exactly as its instrument numbers it (``"13:69F-2.12(a)2"``, ``"9.3"``), or for a check of
    the game's fundamentals whose provision we do not hold, an ``uncited:`` key that is never a number."""
    citation: str
    citation_status: CitationStatus
    title: str
    category: Category
    paraphrase: str
    also_cited_as: tuple[str, ...] = ()
    elections: tuple[str, ...] = ()
    effective: date | None = None
    until: date | None = None
    checkable: bool = True
    not_checkable_reason: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    rule: Rule
    event: int | None
    hand: str | None
    message: str
    expected: Any = None
    actual: Any = None
    amount_delta: int | None = None
    corrected_by: int | None = None
    """The event of the table's last correction of the settlement at fault (section 2.3), if it was corrected."""
    corrected_actual: int | None = None
    """The player's net on the bet after that correction: ``amount_delta`` is ``expected`` minus this."""

    def to_dict(self) -> dict[str, Any]:
        r = self.rule
        out: dict[str, Any] = {
            "rule": r.rule,
            "also_cited_as": list(r.also_cited_as),
            "citation": r.citation,
            "citation_status": r.citation_status,
            "title": r.title,
            "category": r.category,
            "event": self.event,
            "hand": self.hand,
            "message": self.message,
            "expected": self.expected,
            "actual": self.actual,
        }
        if self.corrected_by is not None:
            out["corrected_by"] = self.corrected_by
            out["corrected_actual"] = self.corrected_actual
        if self.amount_delta is not None:
            out["amount_delta"] = self.amount_delta
        return out


class Ctx:
    """What a check sees besides the trace: the roles its jurisdiction binds, and the jurisdiction's parameters.

    ``emit(role, ...)`` records a finding citing the rule bound to ``role``; a role the jurisdiction leaves
    unbound records nothing.
    """

    __slots__ = ("roles", "params", "findings")

    def __init__(self, roles: Mapping[str, Rule], params: Mapping[str, Any]) -> None:
        self.roles = roles
        self.params = params
        self.findings: list[Finding] = []

    def bound(self, role: str) -> bool:
        return role in self.roles

    def emit(
        self,
        role: str,
        event: int | None,
        hand: str | None,
        message: str,
        expected: Any = None,
        actual: Any = None,
        amount_delta: int | None = None,
    ) -> None:
        rule = self.roles.get(role)
        if rule is not None:
            self.findings.append(Finding(rule, event, hand, message, expected, actual, amount_delta))


Check = Callable[["Trace", Ctx], None]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The rules of one jurisdiction in force from ``effective`` (until ``until``, when we know it ends)."""

    jurisdiction: str
    name: str
    effective: date
    until: date | None
    roles: Mapping[str, Rule]
    """role -> the rule a finding in that role cites."""
    catalogue: tuple[Rule, ...]
    """Every provision we know of for this ruleset, checkable or not (for coverage reports)."""
    checks: tuple[Check, ...]
    params: Mapping[str, Any]
    """Jurisdiction parameters the generic checks read (e.g. how much a dealer blackjack collects from a doubled
    or split hand)."""
    defaults: Mapping[str, Any]
    """Table elections that apply when neither the record nor the registry gives one (None: no default)."""
    elections_check: Check | None = None
    """Reports table elections the jurisdiction does not permit (findings with no event)."""
    elected_defaults: Mapping[str, Any] = field(init=False)
    """The defaults that are elections (a default of None means "no default"), computed once."""

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "elected_defaults", {k: v for k, v in self.defaults.items() if v is not None}
        )

    def covers(self, on: date) -> bool:
        """Whether the ruleset is in force on that (local) date."""
        return self.effective <= on and (self.until is None or on < self.until)
