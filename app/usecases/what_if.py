"""What-if audits: one round under a ruleset named whatever its played_at, and/or under table elections other than
its own (``POST /v1/audit?ruleset=&elections=``, ``bjaudit audit --ruleset --elections``). Never stored.

The result is the audit's, marked: ``ruleset_in_force`` (whether the ruleset applied is the one in force where and
when the round was played) and, when elections were given, ``elections_what_if`` (those elections, as validated;
``elections`` is what the audit applied with them, ``elections_source`` where the others came from). A stored audit
never carries either mark.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.model import Round
from app.domain.rules import Ruleset
from app.jurisdictions import EVERY_RULESET, alias, ruleset_named
from app.usecases.auditing import audit_round, in_force
from app.usecases.errors import InvalidQuery


@dataclass(frozen=True, slots=True)
class WhatIf:
    ruleset: Ruleset | None = None
    """The ruleset to audit by; None: the one in force at the round's played_at."""
    elections: Mapping[str, Any] | None = None
    """Table elections over the round's own (or registered) ones and the ruleset's defaults."""


def what_if(ruleset: str | None, elections: str | None) -> WhatIf | None:
    """The what-if that ``ruleset`` (a ruleset's name or alias) and ``elections`` (JSON text of table elections, as
    a round's ``table.rules``) ask for; None when neither is given. :class:`InvalidQuery` naming the parameter when
    one cannot be used."""
    if ruleset is None and elections is None:
        return None
    named = None if ruleset is None else _named(ruleset)
    given = None if elections is None else _elections(elections)
    return WhatIf(named, given)


def _named(name: str) -> Ruleset:
    found = ruleset_named(name)
    if found is None:
        known = ", ".join(f"{rs.name!r} (alias {alias(rs)})" for rs in EVERY_RULESET)
        raise InvalidQuery(
            f"No ruleset is named {name!r}. We hold {known}; GET /v1/rulesets and `bjaudit rulesets` list them.",
            errors=[{"parameter": "ruleset", "detail": f"no such ruleset: {name!r}"}],
            extra={"known_rulesets": [rs.name for rs in EVERY_RULESET]},
        )
    return found


def _elections(text: str) -> dict[str, Any]:
    from app.wire.elections import (  # Pydantic: only for a what-if of elections
        ElectionsInvalid,
        parse_elections,
    )

    try:
        return parse_elections(text)
    except ElectionsInvalid as exc:
        n = len(exc.problems)
        raise InvalidQuery(
            f"The what-if elections have {n} problem{'s' if n != 1 else ''}; they are read exactly as a round's "
            "table.rules.",
            errors=[
                {"parameter": "elections", "pointer": p["pointer"], "detail": p["message"]}
                for p in exc.problems
            ],
        ) from None


def audit_what_if(rnd: Round, registered: Mapping[str, Any] | None, asked: WhatIf) -> dict[str, Any]:
    """The marked audit of a round read (``registered``: the elections registered for its table, as for any audit).
    Raises :class:`app.domain.errors.AuditError` as :func:`audit_round` does (``elections`` alone, with no ruleset
    in force), :class:`InvalidQuery` for a ruleset of another jurisdiction."""
    rs = asked.ruleset
    if rs is not None and rs.jurisdiction != rnd.jurisdiction:
        raise InvalidQuery(
            f"The ruleset {rs.name!r} is {rs.jurisdiction}'s; round {rnd.round_id!r} was played in "
            f"{rnd.jurisdiction}: a what-if audits a round under a ruleset of its own jurisdiction.",
            errors=[
                {
                    "parameter": "ruleset",
                    "detail": f"a {rs.jurisdiction} ruleset, for a {rnd.jurisdiction} round",
                }
            ],
            extra={"round_id": rnd.round_id},
        )
    result = audit_round(rnd, registered, ruleset=rs, what_if_elections=asked.elections).to_dict()
    current = rs is None or in_force(rnd, rs)
    out: dict[str, Any] = {}
    for key, value in result.items():
        out[key] = value
        if key == "ruleset":
            out["ruleset_in_force"] = current
        elif key == "elections" and asked.elections is not None:
            out["elections_what_if"] = dict(asked.elections)
    return out
