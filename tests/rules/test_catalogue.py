"""Every rule's metadata, pinned: its number, citation, citation status, category, the numbers it is also cited as,
the elections it depends on, the dates it is in force, whether it is checkable, and the check roles that cite it.

``catalogue.tsv`` is the reviewed statement of them, checked line by line against ``shared/regulations`` (the SEED /
FOUND / XREF status of each provision, its history notes for the dates). A change to any of them is a deliberate
edit of that file, never a side effect.
"""

from __future__ import annotations

import csv
from pathlib import Path

from app.jurisdictions import RULESETS

CATALOGUE = Path(__file__).with_name("catalogue.tsv")
COLUMNS = [
    "jurisdiction",
    "rule",
    "citation",
    "status",
    "category",
    "also_cited_as",
    "elections",
    "effective",
    "until",
    "checkable",
    "roles",
]


def rows_from_code() -> list[list[str]]:
    rows = []
    for jurisdiction, rulesets in sorted(RULESETS.items()):
        for rs in rulesets:
            roles: dict[str, list[str]] = {}
            for role, rule in rs.roles.items():
                roles.setdefault(rule.rule, []).append(role)
            for r in rs.catalogue:
                rows.append(
                    [
                        jurisdiction,
                        r.rule,
                        r.citation,
                        r.citation_status,
                        r.category,
                        " ".join(r.also_cited_as),
                        " ".join(r.elections),
                        str(r.effective or ""),
                        str(r.until or ""),
                        "yes" if r.checkable else "no",
                        " ".join(sorted(roles.get(r.rule, []))),
                    ]
                )
    return rows


def test_every_rule_matches_the_reviewed_catalogue() -> None:
    with CATALOGUE.open(newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        assert next(reader) == COLUMNS
        pinned = [row for row in reader if row]
    code = rows_from_code()
    by_key = {(r[0], r[1]): r for r in pinned}
    for row in code:
        key = (row[0], row[1])
        assert key in by_key, f"{key} is not in {CATALOGUE.name}"
        assert dict(zip(COLUMNS, row, strict=True)) == dict(zip(COLUMNS, by_key[key], strict=True)), key
    assert [r[:2] for r in code] == [r[:2] for r in pinned], "rules added, removed or reordered"


def test_each_ruleset_names_its_instrument_and_dates() -> None:
    described = {
        (rs.jurisdiction, rs.name, str(rs.effective), str(rs.until))
        for rss in RULESETS.values()
        for rs in rss
    }
    assert described == {
        ("US-NJ", "US-NJ 13:69F as of 2024-09-16", "2024-09-16", "None"),
        ("NZ", "NZ Gazette 1994 No 112 Blackjack Rules", "1994-10-31", "1998-01-28"),
    }
