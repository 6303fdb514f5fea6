"""The registry of rules modules: jurisdiction code -> rulesets, each in force from a date."""

from __future__ import annotations

from datetime import datetime

from app.domain.errors import NoRulesetInForce, UnknownJurisdiction
from app.domain.rules import Ruleset
from app.jurisdictions import nj, nz

RULESETS: dict[str, tuple[Ruleset, ...]] = {
    code: tuple(sorted(rulesets, key=lambda r: r.effective, reverse=True))  # newest first
    for code, rulesets in {nj.JURISDICTION: (nj.RULESET,), nz.JURISDICTION: (nz.RULESET,)}.items()
}


def ruleset_for(jurisdiction: str, played_at: datetime) -> Ruleset:
    """The ruleset in force where and when the round was played (the table's local date, never the clock)."""
    rulesets = RULESETS.get(jurisdiction)
    if rulesets is None:
        raise UnknownJurisdiction(
            f"No rules module for jurisdiction {jurisdiction!r}; known: {', '.join(sorted(RULESETS))}.",
            "/jurisdiction",
        )
    day = played_at.date()
    for rs in rulesets:
        if rs.covers(day):
            return rs
    spans = "; ".join(
        f"{rs.name}: from {rs.effective}" + (f" until {rs.until}" if rs.until else "") for rs in rulesets
    )
    raise NoRulesetInForce(
        f"No {jurisdiction} ruleset we hold was in force on {day} (played_at); we hold {spans}.",
        "/played_at",
    )
