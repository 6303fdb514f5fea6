"""The ``bjaudit`` command line.

``bjaudit audit ROUNDS.json ...`` audits rounds offline (one NDJSON result per round on stdout);
``bjaudit rules`` prints the rule catalogue with citation status and coverage; ``bjaudit serve`` runs the HTTP
service, migrating its database first.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

import orjson

from app import services
from app.auditing import catalogue
from app.reading import RecordText, read_records

EXIT_COMPLIANT, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def _audit_one(rec: RecordText) -> tuple[dict[str, Any], int]:
    """One output line for one input record, and the exit status it calls for."""
    text = rec.text if rec.text is not None else orjson.dumps(rec.obj)
    try:
        result = services.audit(text).result
    except services.ServiceError as exc:
        line = {
            "round_id": exc.extra.get("round_id"),
            "source": rec.where,
            "error": services.problem_body(exc),
        }
        return line, EXIT_UNREADABLE
    return result, (EXIT_COMPLIANT if result["verdict"] == "compliant" else EXIT_FINDINGS)


def cmd_audit(args: argparse.Namespace, out: IO[str]) -> int:
    status = EXIT_COMPLIANT
    counts = {"compliant": 0, "violations": 0, "unreplayable": 0, "error": 0}
    for rec in read_records(args.paths):
        line, code = _audit_one(rec)
        status = max(status, code)
        counts["error" if "error" in line else line["verdict"]] += 1
        if args.format == "text":
            out.write(_text(line))
        else:
            out.write(orjson.dumps(line).decode() + "\n")
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
        rows += [f"    {e['pointer'] or '/'}: {e['detail']}" for e in err.get("errors", [])]
        return "\n".join(rows) + "\n\n"
    head = (
        f"{line['round_id']}  {line['jurisdiction']}  {line['verdict'].upper()}  "
        f"({line['ruleset']}; elections from {line['elections_source']})"
    )
    rows = [head]
    for f in line["findings"]:
        where = f"event {f['event']}" if f["event"] is not None else "no event"
        rows.append(f"  {where:<9} {f['hand'] or '':<7} {f['rule']} [{f['citation_status']}]  {f['title']}")
        rows.append(f"            {f['message']}")
        tail = f"expected: {f['expected']}   actual: {f['actual']}"
        if f.get("amount_delta") is not None:
            tail += f"   owed to player: {f['amount_delta']}"
        rows.append(f"            {tail}")
    return "\n".join(rows) + "\n\n"


def cmd_rules(args: argparse.Namespace, out: IO[str]) -> int:
    rules = catalogue(args.jurisdiction)
    if args.format == "json":
        for r in rules:
            out.write(orjson.dumps(r).decode() + "\n")
        return 0
    current = None
    for r in rules:
        if (r["jurisdiction"], r["ruleset"]) != current:
            current = (r["jurisdiction"], r["ruleset"])
            group = [x for x in rules if (x["jurisdiction"], x["ruleset"]) == current]
            checked = sum(1 for x in group if x["checkable"])
            out.write(f"{r['ruleset']}  ({checked} checked, {len(group) - checked} not checkable)\n")
        coverage = "checked" if r["checkable"] else "not checkable"
        out.write(f"  {r['rule']:<36} {r['citation_status']:<10} {coverage:<13} {r['title']}\n")
        if not r["checkable"]:
            out.write(f"  {'':<36} {'':<10} {'':<13} why: {r['not_checkable_reason']}\n")
    return 0


def cmd_serve(args: argparse.Namespace, out: IO[str]) -> int:
    from app.main import serve

    serve(host=args.host, port=args.port)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bjaudit",
        description="Audit recorded blackjack rounds against New Jersey and New Zealand rules.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n  bjaudit audit tests/data/examples/nj-dealer-draws-on-hard-17.round.json --format text\n"
        "  cat rounds.ndjson | bjaudit audit - > results.ndjson\n  bjaudit rules --jurisdiction NZ",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    a = sub.add_parser(
        "audit",
        help="audit rounds from files (JSON object, JSON array or NDJSON; - for stdin)",
        description="Audit rounds offline. Writes one audit result per round, in input order, as NDJSON (or a "
        "readable report with --format text). A record that cannot be read gives a line with its round_id (when "
        "readable) and an RFC 9457 problem in 'error'. Exit status: 0 all compliant, 1 any round with findings, "
        "2 any record unreadable.",
    )
    a.add_argument("paths", nargs="+", metavar="PATH", help="file of rounds, or - for standard input")
    a.add_argument(
        "--format", choices=["ndjson", "text"], default="ndjson", help="output format (default ndjson)"
    )
    a.set_defaults(func=cmd_audit)

    r = sub.add_parser(
        "rules",
        help="print the rule catalogue",
        description="Print every rule we know of, with "
        "its citation status (verified, unverified, uncited) and whether a round can be checked against it.",
    )
    r.add_argument("--jurisdiction", choices=["US-NJ", "NZ"], help="only this jurisdiction")
    r.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    r.set_defaults(func=cmd_rules)

    s = sub.add_parser(
        "serve",
        help="run the HTTP service",
        description="Migrate the configured database (SQLite "
        "under ./var by default, or DATABASE_URL), then serve the API with uvicorn.",
    )
    s.add_argument("--host", help="address to bind (default: BJAUDIT_HOST, else 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default: BJAUDIT_PORT, else 8000)")
    s.set_defaults(func=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args, sys.stdout))
    except BrokenPipeError:
        return EXIT_COMPLIANT
    except FileNotFoundError as exc:
        print(f"bjaudit: {exc.filename}: no such file", file=sys.stderr)
        return EXIT_UNREADABLE


if __name__ == "__main__":
    sys.exit(main())
