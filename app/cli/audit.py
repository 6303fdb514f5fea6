"""``bjaudit audit``: rounds audited offline, from files, one result per round (NDJSON or a readable report).

It imports the engine, the round format's fast reader and nothing of the service (no database, no web framework,
no Pydantic unless a record is refused): ``tests/unit/test_cli_startup.py`` pins that.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import IO, Any

import orjson

from app.cli import EXIT_COMPLIANT, EXIT_FINDINGS, EXIT_UNREADABLE
from app.domain.checks.words import money
from app.domain.model import Round
from app.jurisdictions import RULESETS
from app.usecases import offline
from app.usecases.errors import ServiceError, problem_body
from app.usecases.what_if import WhatIf, what_if
from app.wire.reading import RecordText, UnreadableFile, read_records


def _audit_one(rec: RecordText, asked: WhatIf | None = None) -> tuple[dict[str, Any], int]:
    """One output line for one input record, and the exit status it calls for."""
    try:
        done = offline.audit(rec.text, None, asked)
    except ServiceError as exc:
        line = {
            "round_id": exc.extra.get("round_id"),
            "source": rec.where,
            "error": problem_body(exc),
        }
        return line, EXIT_UNREADABLE
    _warn_if_ahead(done.round, rec.where)
    result = done.result
    return result, (EXIT_COMPLIANT if result["verdict"] == "compliant" else EXIT_FINDINGS)


def _warn_if_ahead(rnd: Round, where: str) -> None:
    """The offline audit has no moment of receipt: a round played more than 5 minutes after now, which the service
    would refuse (round-v1 section 2.3), is audited with a warning on stderr."""
    now = datetime.now(UTC).replace(microsecond=0)
    ahead = offline.too_far_ahead(rnd, now)
    if ahead is not None:
        print(
            f"bjaudit: warning: round {rnd.round_id} ({where}): played_at {rnd.played_at.isoformat()} is "
            f"{offline.duration(ahead)} after now ({offline.iso_utc(now)}): it cannot have been played yet, "
            "and the service would refuse it; audited anyway",
            file=sys.stderr,
        )


def _what_if(args: argparse.Namespace) -> WhatIf | None:
    """The what-if of --ruleset and --elections; :class:`ServiceError` when one cannot be used."""
    return what_if(args.ruleset, args.elections)


def audit_files(args: argparse.Namespace, out: IO[str]) -> int:
    try:
        asked = _what_if(args)
    except ServiceError as exc:
        print(f"bjaudit: {exc.detail}", file=sys.stderr)
        for e in exc.errors or ():
            where = f" {e['pointer']}" if e.get("pointer") else ""
            print(f"  --{e['parameter']}{where}: {e['detail']}", file=sys.stderr)
        return EXIT_UNREADABLE
    status = EXIT_COMPLIANT
    counts = {"compliant": 0, "violations": 0, "unreplayable": 0, "error": 0}
    try:
        for rec in read_records(args.paths):
            line, code = _audit_one(rec, asked)
            status = max(status, code)
            counts["error" if "error" in line else line["verdict"]] += 1
            if args.format == "text":
                out.write(_text(line))
            else:
                out.write(orjson.dumps(line).decode() + "\n")
    except UnreadableFile as exc:
        print(f"bjaudit: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.format == "text":
        total = sum(counts.values())
        out.write(
            f"{total} round{'s' if total != 1 else ''}: {counts['compliant']} compliant, {counts['violations']} with "
            f"violations, {counts['unreplayable']} unreplayable, {counts['error']} unreadable\n"
        )
    return status


def _text(line: dict[str, Any]) -> str:
    if "error" in line:
        err = line["error"]
        rows = [f"{line.get('round_id') or '(no round_id)'}  UNREADABLE  ({line['source']}): {err['detail']}"]
        rows += [f"    {_where(e)}: {e['detail']}" for e in err.get("errors", [])]
        return "\n".join(rows) + "\n\n"
    elections = f"elections from {line['elections_source']}"
    if "elections_what_if" in line:
        elections += f", what-if {orjson.dumps(line['elections_what_if']).decode()}"
    head = f"{line['round_id']}  {line['jurisdiction']}  {line['verdict'].upper()}  ({line['ruleset']}; {elections})"
    if "ruleset_in_force" in line:
        head += "  WHAT-IF: " + (
            "the ruleset in force" if line["ruleset_in_force"] else "NOT the ruleset in force at played_at"
        )
    rows = [head]
    if line.get("void"):
        void = line["void"]
        rows.append(f"  VOID at event {void['event']} ({void['reason'].replace('_', ' ')})")
    currency = _currency(line["jurisdiction"])
    for f in line["findings"]:
        where = f"event {f['event']}" if f["event"] is not None else "no event"
        rows.append(f"  {where:<9} {f['hand'] or '':<7} {f['rule']} [{f['citation_status']}]  {f['title']}")
        rows.append(f"            {f['message']}")
        expected, actual = f["expected"], f["actual"]
        if _is_net(expected) and _is_net(actual):  # the player's net on a bet (section 2.2)
            tail = f"expected: {_net(expected, currency)}   actual: {_net(actual, currency)}"
        else:
            tail = f"expected: {expected}   actual: {actual}"
        if f.get("corrected_by") is not None:
            tail += f"   corrected at event {f['corrected_by']}: {_net(f['corrected_actual'], currency)}"
        if f.get("amount_delta") is not None:
            delta = f["amount_delta"]
            tail += "   " + (
                f"owed to the player: {money(delta, currency)}"
                if delta >= 0
                else f"owed by the player: {money(-delta, currency)}"
            )
        rows.append(f"            {tail}")
    return "\n".join(rows) + "\n\n"


def _is_net(value: Any) -> bool:
    return type(value) is int


def _net(net: int, currency: str) -> str:
    """A net to the player in words: ``+$37.50`` paid, ``-$25.00`` collected, ``$0.00``."""
    return ("+" if net > 0 else "") + money(net, currency)


def _currency(jurisdiction: str) -> str:
    rulesets = RULESETS.get(jurisdiction)
    return str(rulesets[0].params.get("currency", "")) if rulesets else ""


def _where(e: dict[str, Any]) -> str:
    if "parameter" in e:
        return f"--{e['parameter']}" + (f" {e['pointer']}" if e.get("pointer") else "")
    return str(e.get("pointer") or "/")
