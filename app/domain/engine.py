"""Audit one round: resolve the table's elections, replay the events (the state machine judges each as it arrives),
then run the ruleset's end-of-round checks on the state it leaves.

Findings come in a documented order: findings about the table's elections (no event, no hand) first, then by event,
then findings with no event but a hand (an absence, a box's wager); within one event by rule, in the order the checks
made them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.domain.checks.words import owed
from app.domain.model import Event, Round
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
    void: tuple[int, str] | None = None
    """The ``void`` event that declared the round void, and its reason (section 2.3)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round_id": self.round_id,
            "jurisdiction": self.jurisdiction,
            "verdict": self.verdict,
            "ruleset": self.ruleset,
            "engine_version": self.engine_version,
            "elections_source": self.elections_source,
            "elections": self.elections,
        }
        if self.void is not None:
            out["void"] = {"event": self.void[0], "reason": self.void[1]}
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


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
    trace, found = _audit_events(round_, elections, ruleset, None)
    verdict: Verdict
    if trace.problems:
        # The record contradicts itself: report where, and keep what was established before the first
        # contradiction, by replaying only the events before it (section 2.1).
        record = [
            Finding(RECORD_RULE, p.event, p.hand, p.message, p.expected, p.actual) for p in trace.problems
        ]
        trace, found = _audit_events(round_, elections, ruleset, min(p.event for p in trace.problems))
        findings = tuple(sorted([*record, *found], key=_order))
        verdict = "unreplayable"
    else:
        findings = tuple(sorted(found, key=_order))
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
        void=trace.void,
    )


def _audit_events(
    round_: Round, elections: dict[str, Any], ruleset: Ruleset, stop: int | None
) -> tuple[Trace, list[Finding]]:
    """Replay the events (before ``stop``), judge the round, and account for the settlements the table corrected."""
    ctx = Ctx(ruleset.roles, ruleset.params)
    trace = replay(round_, elections, ctx, stop)
    _judge(trace, ctx, ruleset)
    if not trace.corrections:
        return trace, ctx.findings
    return trace, _corrected(round_, elections, ruleset, stop, trace, ctx.findings)


def _corrected(
    round_: Round,
    elections: dict[str, Any],
    ruleset: Ruleset,
    stop: int | None,
    trace: Trace,
    found: list[Finding],
) -> list[Finding]:
    """Section 2.3: a settlement the table corrected is judged as usual, and its finding (the dealer's error) stays
    at its event with the last correction's ``corrected_by`` and ``corrected_actual``, its ``amount_delta`` what is
    still owed; a right settlement corrected into a wrong one is a finding at the last correction.

    The money still owed is what the round owes as the table finally settled it: the round is judged again with each
    corrected settlement replaced, in its place, by its last correction, and the money findings of the two
    judgements are matched by rule, event and hand."""
    corrections = trace.corrections
    events: list[Event] = list(round_.events)
    for k, (_, fix) in corrections.items():
        events[k] = dataclasses.replace(fix, corrects=None)
    ctx = Ctx(ruleset.roles, ruleset.params)
    settled = replay(dataclasses.replace(round_, events=tuple(events)), elections, ctx, stop)
    _judge(settled, ctx, ruleset)
    after: dict[tuple[str, int | None, str | None], list[Finding]] = {}
    for f in ctx.findings:
        if f.event in corrections and _about_money(f):
            after.setdefault((f.rule.rule, f.event, f.hand), []).append(f)
    currency = str(ruleset.params.get("currency", "$"))
    before = [f for f in found if f.event in corrections and _about_money(f)]
    index = {id(f): n for n, f in enumerate(before)}
    # The same fault judged twice: by rule, event and hand; else, at one bet's settlement, whatever the rule (the
    # correction may have turned a wrong amount into a wrong way round).
    pairs: dict[int, Finding] = {}
    for n, f in enumerate(before):
        same = after.get((f.rule.rule, f.event, f.hand))
        if same:
            pairs[n] = same.pop(0)
    for n, f in enumerate(before):
        if n not in pairs:
            for (_, at, hand), rest in after.items():
                if at == f.event and hand == f.hand and rest:
                    pairs[n] = rest.pop(0)
                    break
    out: list[Finding] = []
    for f in found:
        if f.event not in corrections or not _about_money(f):
            out.append(f)
            continue
        fix_at = corrections[f.event][0]
        still = pairs.get(index[id(f)])
        delta = (still.amount_delta or 0) if still is not None else 0
        out.append(
            dataclasses.replace(
                f,
                message=f"{f.message} The table corrected it at event {fix_at}: {owed(delta, currency)}.",
                corrected_by=fix_at,
                corrected_actual=f.expected - delta,
                amount_delta=delta,
            )
        )
    for (_, at, _), rest in after.items():
        assert at is not None
        last = corrections[at][0]
        out.extend(
            dataclasses.replace(
                f,
                event=last,
                message=f"{f.message} (This correction's; the settlement it corrects, at event {at}, was right.)",
            )
            for f in rest
        )
    return out


def _about_money(f: Finding) -> bool:
    """A finding about a bet's money: its expected and actual are nets in minor units."""
    return type(f.expected) is int and type(f.actual) is int


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
