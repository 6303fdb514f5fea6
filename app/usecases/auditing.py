"""The audit use case as the API, the CLI and the batch worker call it: pick the ruleset, run the engine, and
describe the rule catalogue."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from app.domain.engine import RECORD_RULE, AuditResult, audit
from app.domain.errors import AuditError
from app.domain.model import Round
from app.domain.rules import Rule, Ruleset
from app.jurisdictions import EVERY_RULESET, RULESETS, alias, ruleset_for

ENGINE_VERSION = "0.2.0"
"""The engine's version, named in every audit. Verification re-runs each stored audit under the version it names
(docs/integrity.md): bump it with ANY change to any audit, so that an audit made before the change is reported as
made by another engine, never as forged. tests/data/golden/engine-version.txt holds the version and the golden
audits' digest: changed audits under the same version fail tests/unit/test_audits_unchanged.py. 0.2.0: the audits
of issue 19 (spec 2.1-2.3), which changed under 0.1.0."""

__all__ = [
    "ENGINE_VERSION",
    "AuditResult",
    "audit_round",
    "catalogue",
    "describe_ruleset",
    "in_force",
    "rule_details",
    "rule_spelling",
    "rulesets",
]


def audit_round(
    round_: Round,
    registered_elections: Mapping[str, Any] | None = None,
    *,
    ruleset: Ruleset | None = None,
    what_if_elections: Mapping[str, Any] | None = None,
) -> AuditResult:
    """Audit one validated round, under the ruleset in force at its played_at (or ``ruleset``, a what-if), by its
    elections (with ``what_if_elections`` over them). Raises :class:`app.domain.errors.AuditError` when no rules
    apply to it."""
    return audit(
        round_,
        ruleset if ruleset is not None else ruleset_for(round_.jurisdiction, round_.played_at),
        ENGINE_VERSION,
        registered_elections,
        what_if_elections,
    )


def in_force(round_: Round, ruleset: Ruleset) -> bool:
    """Whether ``ruleset`` is the one in force where and when the round was played."""
    try:
        return ruleset_for(round_.jurisdiction, round_.played_at) is ruleset
    except AuditError:
        return False


def describe_ruleset(ruleset: Ruleset) -> dict[str, Any]:
    """A ruleset as ``GET /v1/rulesets`` lists it."""
    return {
        "jurisdiction": ruleset.jurisdiction,
        "name": ruleset.name,
        "alias": alias(ruleset),
        "effective": ruleset.effective.isoformat(),
        "until": None if ruleset.until is None else ruleset.until.isoformat(),
    }


def rulesets() -> list[dict[str, Any]]:
    """Every ruleset we hold, with the dates it is in force: by jurisdiction, oldest first."""
    return [describe_ruleset(rs) for rs in EVERY_RULESET]


def _roles(ruleset: Ruleset) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for role, rule in ruleset.roles.items():
        out.setdefault(rule.rule, []).append(role)
    return out


def _describe(ruleset: Ruleset, rule: Rule) -> dict[str, Any]:
    return {
        "jurisdiction": ruleset.jurisdiction,
        "ruleset": ruleset.name,
        "rule": rule.rule,
        "also_cited_as": list(rule.also_cited_as),
        "citation": rule.citation,
        "citation_status": rule.citation_status,
        "title": rule.title,
        "category": rule.category,
        "elections": list(rule.elections),
        "checkable": rule.checkable,
        "not_checkable_reason": rule.not_checkable_reason,
        "paraphrase": rule.paraphrase,
    }


def catalogue(jurisdiction: str | None = None) -> list[dict[str, Any]]:
    """Every rule we know of, checkable or not, by jurisdiction and ruleset."""
    out: list[dict[str, Any]] = []
    for code in sorted(RULESETS):
        if jurisdiction is not None and code != jurisdiction:
            continue
        for rs in RULESETS[code]:
            out.extend(_describe(rs, r) for r in rs.catalogue)
    return out


def rule_details(jurisdiction: str, ruleset: str, rule: str) -> dict[str, Any] | None:
    for rs in RULESETS.get(jurisdiction, ()):
        if rs.name == ruleset:
            for r in rs.catalogue:
                if r.rule == rule:
                    return _describe(rs, r)
    return None


def _rule_key(text: str) -> str:
    """What two spellings of one rule number share: no case, spaces or "N.J.A.C." prefix, and a paragraph number
    with or without its parentheses (``(b)(1)`` and ``(b)1``)."""
    key = re.sub(r"\s+", "", text).casefold().removeprefix("n.j.a.c.")
    return re.sub(r"\((\d+)\)", r"\1", key)


@functools.cache
def _spellings() -> dict[str, str]:
    out = {_rule_key(RECORD_RULE.rule): RECORD_RULE.rule}
    for rulesets in RULESETS.values():
        for rs in rulesets:
            for r in rs.catalogue:
                for name in (r.rule, *r.also_cited_as):
                    out.setdefault(_rule_key(name), name)
                out.setdefault(_rule_key(r.citation), r.rule)
    return out


def rule_spelling(text: str) -> str | None:
    """The catalogue's spelling of a rule number written another usual way, or None when no rule has it.

    >>> rule_spelling("13:69F-2.12(b)(1)"), rule_spelling("N.J.A.C. 19:47-2.10(b)"), rule_spelling("8.2")
    ('13:69F-2.12(b)1', '19:47-2.10(b)', '8.2')
    >>> rule_spelling("Uncited:Insurance"), rule_spelling("13:69F-2.99"), rule_spelling("record")
    ('uncited:insurance', None, 'record')
    """
    return _spellings().get(_rule_key(text))
