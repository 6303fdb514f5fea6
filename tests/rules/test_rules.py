"""Every rule fires on a round that breaks it, at the right event, and stays quiet on a close legal variant.

The cases live in ``cases_nj.py`` and ``cases_nz.py``, named by citation, and in the modules by subject
(``cases_play``, ``cases_edges``; ``cases_sequence``, ``cases_money``, ``cases_records`` for ``round-v1.md``
sections 2.1, 2.2 and 2.3). The last two tests fail when a rule in the registry (or a role a jurisdiction binds) has
no such pair. A voided round's case states the audit's ``void`` object; every other audit has no ``void`` key.
"""

from __future__ import annotations

import pytest

from app.jurisdictions import RULESETS
from tests.builders import audit
from tests.rules import (
    cases_edges,
    cases_money,
    cases_nj,
    cases_nz,
    cases_play,
    cases_records,
    cases_sequence,
)
from tests.rules.case import Case
from tests.rules.case import got as got_whole

_BY_SUBJECT = (cases_play, cases_edges, cases_sequence, cases_money, cases_records)
CASES: dict[str, list[Case]] = {
    "US-NJ": [*cases_nj.CASES, *(c for m in _BY_SUBJECT for c in m.NJ_CASES)],
    "NZ": [*cases_nz.CASES, *(c for m in _BY_SUBJECT for c in m.NZ_CASES)],
}
ALL = [(j, c) for j, cs in CASES.items() for c in cs]


def _id(item: tuple[str, Case]) -> str:
    j, c = item
    return f"{j} {c.rule} {'quiet' if c.quiet else 'fires'}: {c.name}"


@pytest.mark.parametrize("item", ALL, ids=[_id(i) for i in ALL])
def test_rule_case(item: tuple[str, Case]) -> None:
    jurisdiction, case = item
    assert case.round["jurisdiction"] == jurisdiction
    if case.role is not None:  # the role the case names is the one its rule is bound to
        assert any(
            rs.roles.get(case.role, None) is not None and rs.roles[case.role].rule == case.rule
            for rs in RULESETS[jurisdiction]
        ), f"{case.role} is not bound to {case.rule}"
    result = audit(case.round)
    got = [(f["rule"], f["event"]) for f in result["findings"]]
    if case.void is None:  # round-v1.md section 2.3: the audit says "void" only of a voided round
        assert "void" not in result, f"void: {result['void']}"
    else:
        assert result.get("void") == case.void
    if case.quiet:
        assert got == [], f"expected no finding, got {result['findings']}"
        assert result["verdict"] == "compliant"
    elif case.findings is not None:
        assert [got_whole(f) for f in result["findings"]] == list(case.findings), (
            f"findings: {result['findings']}"
        )
        assert result["verdict"] == "violations"
    else:
        want = sorted([(case.rule, case.fires_at), *case.also], key=str)
        assert sorted(got, key=str) == want, f"findings: {result['findings']}"
        assert result["verdict"] == "violations"


@pytest.mark.parametrize("jurisdiction", sorted(RULESETS))
def test_every_checkable_rule_has_a_firing_and_a_quiet_case(jurisdiction: str) -> None:
    cases = CASES[jurisdiction]
    missing = []
    for rs in RULESETS[jurisdiction]:
        for rule in rs.catalogue:
            if not rule.checkable:
                continue
            fires = any(c.rule == rule.rule and not c.quiet for c in cases)
            quiets = any(c.rule == rule.rule and c.quiet for c in cases)
            if not (fires and quiets):
                missing.append(f"{rule.rule} ({'no firing case' if not fires else 'no quiet case'})")
    assert not missing, f"{jurisdiction} rules without a fire/quiet pair: {missing}"


@pytest.mark.parametrize("jurisdiction", sorted(RULESETS))
def test_every_bound_role_has_a_firing_case(jurisdiction: str) -> None:
    cases = CASES[jurisdiction]
    missing = []
    for rs in RULESETS[jurisdiction]:
        for role, rule in rs.roles.items():
            if not any(c.role == role and c.rule == rule.rule and not c.quiet for c in cases):
                missing.append(f"{role} -> {rule.rule}")
    assert not missing, f"{jurisdiction} roles without a firing case: {missing}"


def test_each_check_reports_only_in_the_roles_it_declares() -> None:
    """``checks.ROLES`` decides which end-of-round checks a ruleset runs; a role missing there would silence a rule.
    The replay judges events as they arrive for every ruleset, in ``checks.REPLAY_ROLES``."""
    from typing import Any

    from app.domain import checks
    from app.domain.engine import resolve_elections
    from app.domain.replay import replay
    from app.domain.rules import Ctx
    from app.jurisdictions import ruleset_for
    from app.wire.schema import round_from_obj

    class Recording(Ctx):
        def emit(self, role: str, *args: Any, **kwargs: Any) -> None:
            self.findings.append(role)  # type: ignore[arg-type]

    assert set(checks.ROLES) == set(checks.ALL_CHECKS)
    reported = 0
    for _, case in ALL:
        rnd = round_from_obj(case.round)
        rs = ruleset_for(rnd.jurisdiction, rnd.played_at)
        ctx = Recording(rs.roles, rs.params)
        trace = replay(rnd, resolve_elections(rnd, rs, None)[0], ctx)
        roles = set(ctx.findings)
        reported += len(roles)
        assert roles <= checks.REPLAY_ROLES, f"replay: undeclared {roles - checks.REPLAY_ROLES}"
        for check in checks.ALL_CHECKS:
            ctx = Recording(rs.roles, rs.params)
            check(trace, ctx)
            roles = set(ctx.findings)
            reported += len(roles)
            assert roles <= checks.ROLES[check], f"{check.__name__}: undeclared {roles - checks.ROLES[check]}"
    assert reported > 100
