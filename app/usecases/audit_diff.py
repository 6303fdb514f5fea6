"""What changed between two audits of one round: findings added, removed and changed. Pure.

A finding is the same finding in both audits when its rule, event and hand are the same (a re-audit by a newer
engine may word it differently, or find a different amount, and it is still that finding, changed); several
findings with the same three are paired in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Finding = Mapping[str, Any]


def finding_key(f: Finding) -> tuple[str, int | None, str | None]:
    """The identity of a finding across audits.

    >>> finding_key({"rule": "19:47-2.10(b)", "event": 7, "hand": "seat2"})
    ('19:47-2.10(b)', 7, 'seat2')
    """
    return (str(f["rule"]), f.get("event"), f.get("hand"))


def diff_findings(before: Sequence[Finding], after: Sequence[Finding]) -> dict[str, list[Any]]:
    """``added`` (in ``after`` only), ``removed`` (in ``before`` only) and ``changed`` (``{"before", "after"}``
    pairs of the same finding that differ), each in the order of the audit it comes from.

    >>> a = {"rule": "R1", "event": 3, "hand": None, "amount_delta": 500}
    >>> b = {"rule": "R2", "event": 5, "hand": None}
    >>> d = diff_findings([a, b], [{**a, "amount_delta": 250}, {"rule": "R3", "event": None, "hand": None}])
    >>> [f["rule"] for f in d["added"]], [f["rule"] for f in d["removed"]], d["changed"][0]["after"]["amount_delta"]
    (['R3'], ['R2'], 250)
    >>> diff_findings([a], [dict(a)])
    {'added': [], 'removed': [], 'changed': []}
    """
    unpaired: dict[tuple[str, int | None, str | None], list[Finding]] = {}
    for f in before:
        unpaired.setdefault(finding_key(f), []).append(f)
    added: list[Any] = []
    changed: list[Any] = []
    for f in after:
        same = unpaired.get(finding_key(f))
        if not same:
            added.append(f)
            continue
        old = same.pop(0)
        if dict(old) != dict(f):
            changed.append({"before": old, "after": f})
    paired_out = {id(f) for fs in unpaired.values() for f in fs}
    removed = [f for f in before if id(f) in paired_out]
    return {"added": added, "removed": removed, "changed": changed}


def summary(audit: Mapping[str, Any]) -> dict[str, Any]:
    """What the history of a round says of one of its audits (besides its number, time and job).

    >>> summary({"verdict": "violations", "ruleset": "NJ", "engine_version": "1", "findings": [{}]})
    {'verdict': 'violations', 'ruleset': 'NJ', 'engine_version': '1', 'finding_count': 1}
    """
    return {
        "verdict": audit.get("verdict"),
        "ruleset": audit.get("ruleset"),
        "engine_version": audit.get("engine_version"),
        "finding_count": len(audit.get("findings") or ()),
    }
