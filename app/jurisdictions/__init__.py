"""The registry of rules modules: jurisdiction code -> rulesets, each in force from a date.

A round is audited by the ruleset in force where and when it was played (:func:`ruleset_for`); a what-if audit
names another (:func:`ruleset_named`), by its name or its short alias (:func:`alias`)."""

from __future__ import annotations

from datetime import datetime

from app.domain.errors import NoRulesetInForce, UnknownJurisdiction
from app.domain.rules import Ruleset
from app.jurisdictions import nj, nz

RULESETS: dict[str, tuple[Ruleset, ...]] = {
    code: tuple(sorted(rulesets, key=lambda r: r.effective, reverse=True))  # newest first
    for code, rulesets in {nj.JURISDICTION: (nj.RULESET,), nz.JURISDICTION: (nz.RULESET,)}.items()
}

EVERY_RULESET: tuple[Ruleset, ...] = tuple(
    rs for code in sorted(RULESETS) for rs in sorted(RULESETS[code], key=lambda r: r.effective)
)
"""Every ruleset we hold: by jurisdiction code, then oldest first."""


def alias(ruleset: Ruleset) -> str:
    """The ruleset's short name: its jurisdiction and the date it took effect.

    >>> alias(nz.RULESET), alias(nj.RULESET)
    ('NZ@1994-10-31', 'US-NJ@2024-09-16')
    """
    return f"{ruleset.jurisdiction}@{ruleset.effective.isoformat()}"


_NAMED: dict[str, Ruleset] = {n: rs for rs in EVERY_RULESET for n in (rs.name, alias(rs))}


def ruleset_named(name: str) -> Ruleset | None:
    """The ruleset of that name (as audits name it) or alias, whatever the date; None when we hold none.

    >>> ruleset_named("NZ Gazette 1994 No 112 Blackjack Rules") is ruleset_named("NZ@1994-10-31") is nz.RULESET
    True
    """
    return _NAMED.get(name)


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
