"""Audit one round: resolve the table's elections, replay the events (the state machine judges each as it arrives),
then run the ruleset's end-of-round checks on the state it leaves.

Findings come in a documented order: findings about the table's elections (no event, no hand) first, then by event,
then findings with no event but a hand (an absence, a box's wager); within one event by rule, in the order the checks
made them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.domain.model import Round
from app.domain.replay import Trace, replay
from app.domain.rules import Ctx, Finding, Rule, Ruleset

Verdict = Literal["compliant", "violations", "unreplayable"]
ElectionsSource = Literal["record", "registered", "defaults"]

RECORD_RULE = Rule(
    rule="record",
    citation="Recorded round format v1 (not a regulation): the record contradicts itself",
    citation_status="uncited",
    title="The round record contradicts itself",
    category="record",
    paraphrase="The events cannot all have happened as recorded, so the round cannot be replayed past this point.",
)


@dataclass(frozen=True, slots=True)
class AuditResult:
    round_id: str
    jurisdiction: str
    verdict: Verdict
    ruleset: str
    engine_version: str
    elections_source: ElectionsSource
    elections: dict[str, Any]
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_id": self.round_id,
            "jurisdiction": self.jurisdiction,
            "verdict": self.verdict,
            "ruleset": self.ruleset,
            "engine_version": self.engine_version,
            "elections_source": self.elections_source,
            "elections": self.elections,
            "findings": [f.to_dict() for f in self.findings],
        }


def resolve_elections(
    round_: Round,
    ruleset: Ruleset,
    registered: Mapping[str, Any] | None,
    what_if: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], ElectionsSource]:
    """The elections an audit applies: the ruleset's defaults, overridden by the record's (else the registered
    ones), overridden by a what-if audit's; and where the record's or registered ones came from."""
    given: Mapping[str, Any]
    if round_.rules is not None:
        given, source = round_.rules, "record"
    elif registered is not None:
        given, source = registered, "registered"
    else:
        given, source = {}, "defaults"
    elections = dict(ruleset.elected_defaults)
    elections.update(given)
    elections.update(what_if or {})
    return elections, source  # type: ignore[return-value]


def audit(
    round_: Round,
    ruleset: Ruleset,
    engine_version: str,
    registered: Mapping[str, Any] | None = None,
    what_if: Mapping[str, Any] | None = None,
) -> AuditResult:
    """Audit the round under ``ruleset``, by the elections :func:`resolve_elections` gives."""
    elections, source = resolve_elections(round_, ruleset, registered, what_if)
    ctx = Ctx(ruleset.roles, ruleset.params)
    trace = replay(round_, elections, ctx)
    verdict: Verdict
    if trace.problems:
        # The record contradicts itself: report where, and keep what was established before the first
        # contradiction, by replaying only the events before it (section 2.1).
        record = [
            Finding(RECORD_RULE, p.event, p.hand, p.message, p.expected, p.actual) for p in trace.problems
        ]
        ctx = Ctx(ruleset.roles, ruleset.params)
        trace = replay(round_, elections, ctx, stop=min(p.event for p in trace.problems))
        _judge(trace, ctx, ruleset)
        findings = tuple(sorted([*record, *ctx.findings], key=_order))
        verdict = "unreplayable"
    else:
        _judge(trace, ctx, ruleset)
        findings = tuple(sorted(ctx.findings, key=_order))
        verdict = "violations" if findings else "compliant"
    return AuditResult(
        round_id=round_.round_id,
        jurisdiction=round_.jurisdiction,
        verdict=verdict,
        ruleset=ruleset.name,
        engine_version=engine_version,
        elections_source=source,
        elections=elections,
        findings=findings,
    )


def _judge(trace: Trace, ctx: Ctx, ruleset: Ruleset) -> None:
    """The end-of-round checks, on the state the replay left."""
    if ruleset.elections_check is not None:
        ruleset.elections_check(trace, ctx)
    for check in ruleset.checks:
        check(trace, ctx)


def _order(f: Finding) -> tuple[int, int, str]:
    # Findings about the table (no event, no hand: its elections) first, then by event; findings with no event but
    # a hand (an absence, or a box's wager) last. Whatever rule's category the table's finding cites.
    if f.event is None:
        return (0 if f.hand is None else 2, 0, f.rule.rule)
    return (1, f.event, f.rule.rule)
