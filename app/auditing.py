"""The audit use case as the API, the CLI and the batch worker call it: pick the ruleset, run the engine, and
describe the rule catalogue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.domain.engine import AuditResult, audit
from app.domain.model import Round
from app.domain.rules import Rule, Ruleset
from app.jurisdictions import RULESETS, ruleset_for

ENGINE_VERSION = "0.1.0"

__all__ = ["ENGINE_VERSION", "AuditResult", "audit_round", "catalogue", "rule_details"]


def audit_round(round_: Round, registered_elections: Mapping[str, Any] | None = None) -> AuditResult:
    """Audit one validated round. Raises :class:`app.domain.errors.AuditError` when no rules apply to it."""
    return audit(
        round_, ruleset_for(round_.jurisdiction, round_.played_at), ENGINE_VERSION, registered_elections
    )


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
