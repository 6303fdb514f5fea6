"""The ``bjaudit`` command line.

``bjaudit audit ROUNDS.json ...`` audits rounds offline (one NDJSON result per round on stdout);
``bjaudit audit --ruleset NAME`` audits them as a what-if under another ruleset (or ``--elections``);
``bjaudit rules`` prints the rule catalogue with citation status and coverage, ``bjaudit rulesets`` the rulesets;
``bjaudit serve`` runs the HTTP service, migrating its database first; ``bjaudit worker`` audits uploaded batches
(PostgreSQL job queue);
``bjaudit upload`` sends NDJSON files to a service as batches and waits for them; ``bjaudit generate`` writes
realistic NDJSON batches; ``bjaudit verify`` checks the stored rounds' hash chains (:mod:`app.cli.integrity`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

EXIT_COMPLIANT, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


class UnusableKey(Exception):
    """A ``--public-key`` file that cannot be read, or holds no Ed25519 public key (the message says which and
    why): said in one line, exit 2 (app/cli/integrity.py ``public_key_of``)."""


DEFAULT_URL = "http://127.0.0.1:8000"


class _Version(argparse.Action):
    """``--version``, with the engine's version read only when asked (it imports the engine)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from app import __version__
        from app.usecases.auditing import ENGINE_VERSION

        sys.stdout.write(f"bjaudit {__version__} (engine {ENGINE_VERSION}, round format v1)\n")
        parser.exit()


def cmd_audit(args: argparse.Namespace, out: IO[str]) -> int:
    from app.cli.audit import audit_files

    return audit_files(args, out)


def cmd_rulesets(args: argparse.Namespace, out: IO[str]) -> int:
    import orjson

    from app.usecases.auditing import rulesets

    listed = rulesets()
    if args.format == "json":  # the document GET /v1/rulesets answers
        out.write(orjson.dumps({"rulesets": listed}, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    for rs in listed:
        until = f"until {rs['until']} (exclusive)" if rs["until"] else "with no end we know of"
        out.write(f"{rs['jurisdiction']:<6} {rs['alias']:<17} {rs['name']}\n")
        out.write(f"{'':<6} {'':<17} for rounds played from {rs['effective']} {until}\n")
    return 0


def cmd_rules(args: argparse.Namespace, out: IO[str]) -> int:
    import orjson

    from app.usecases.auditing import catalogue

    rules = catalogue(args.jurisdiction)
    if args.format == "json":  # the document GET /v1/rules answers
        out.write(orjson.dumps({"rules": rules}, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    if args.format == "ndjson":
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
    from app.main import StartupError, serve

    try:
        serve(host=args.host, port=args.port)
    except StartupError as exc:
        print(f"bjaudit serve: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    return 0


def cmd_worker(args: argparse.Namespace, out: IO[str]) -> int:
    import logging

    from app import logs
    from app.config import get_settings
    from app.usecases.batch_queue import CannotStart, run_worker

    settings = get_settings()
    logs.configure(settings.log_format, settings.log_level)
    if not settings.database_url.startswith(("postgres", "postgresql")):
        print(
            "bjaudit worker: the job queue needs PostgreSQL (DATABASE_URL=postgresql://...); with SQLite the "
            "service audits batches in-process.",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    try:
        run_worker(settings, concurrency=args.concurrency)
    except CannotStart as exc:
        print(f"bjaudit worker: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    except Exception:
        logging.getLogger("bjaudit.worker").exception(
            "the worker stopped on an error that is not the database's"
        )
        return 1  # a supervisor (compose: restart unless-stopped) starts it again
    return 0


def cmd_upload(args: argparse.Namespace, out: IO[str]) -> int:
    from app.cli.upload import upload_files

    return upload_files(
        args.paths,
        url=args.url,
        key=_key(args.key),
        results=args.results,
        gzip=args.gzip,
        wait=not args.no_wait,
        out=out,
        err=sys.stderr,
    )


DEFAULT_KEY_FILE = "./var/admin-key"


def _key(given: str | None) -> str | None:
    """The API key to send: the one given, else the one `bjaudit serve` wrote on first start (the quickstart)."""
    if given:
        return given.strip()
    path = os.environ.get("BJAUDIT_ADMIN_KEY_FILE") or DEFAULT_KEY_FILE
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _keys_db() -> Any:
    from app.config import get_settings
    from app.store import migrate
    from app.store.db import Database

    settings = get_settings()
    migrate.upgrade_head(settings.database_url)
    return Database.from_settings(settings)


def cmd_keys(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.cli.integrity import cannot_use_database
    from app.usecases import keys
    from app.usecases.errors import ServiceError

    try:
        db = _keys_db()
    except DBAPIError as exc:
        return cannot_use_database("keys", exc)
    try:
        with db.session() as session:
            if args.keys_command == "create":
                created = keys.create_key(
                    session, None if args.all_sources else args.source, args.scope, args.label
                )
                info = created.info
                print(
                    f"key {info['key_id']} for {'every source' if info['source'] is None else repr(info['source'])}, "
                    f"scopes {' '.join(info['scopes'])}, label {info['label']!r}. It is shown only now; send it as "
                    "'Authorization: Bearer <key>':",
                    file=sys.stderr,
                )
                out.write(created.key + "\n")
            elif args.keys_command == "list":
                items = keys.list_keys(session)
                if args.format == "json":
                    out.write(keys.keys_body(items).decode() + "\n")
                else:
                    for k in items:
                        state = f"revoked {k['revoked_at']}" if k["revoked_at"] else "active"
                        source = "*" if k["source"] is None else k["source"]
                        out.write(
                            f"{k['key_id']}  {source:<20} {','.join(k['scopes']):<18} {state:<32} {k['label']}\n"
                        )
            else:
                info = keys.revoke_key(session, args.key_id)
                print(f"key {info['key_id']} revoked at {info['revoked_at']}", file=out)
    except ServiceError as exc:
        details = "; ".join(f"{e.get('pointer', '')} {e.get('detail', '')}".strip() for e in exc.errors or [])
        print(f"bjaudit keys: {exc.detail}" + (f" ({details})" if details else ""), file=sys.stderr)
        return 2
    except DBAPIError as exc:
        return cannot_use_database("keys", exc)
    finally:
        db.dispose()
    return 0


def cmd_generate(args: argparse.Namespace, out: IO[str]) -> int:
    import random
    from datetime import UTC, datetime

    import orjson

    from app.synth.generator import VALIDITY, earliest_end, generate_rounds
    from app.synth.mutator import mutate
    from app.wire.instants import instant

    until = datetime.now(UTC) if args.until is None else instant(args.until)
    if until is None:
        print(
            f"bjaudit generate: --until {args.until!r}: not a date (2026-12-01) or a timestamp with its offset "
            "(2026-12-01T21:00:00-05:00)",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    for j in (args.jurisdiction,) if args.jurisdiction else tuple(VALIDITY):
        if until < earliest_end(j):
            print(
                f"bjaudit generate: --until {until.isoformat()}: too early for {j} rounds, which the generator "
                f"deals from {VALIDITY[j][0].isoformat()} (give {earliest_end(j).isoformat()} or later)",
                file=sys.stderr,
            )
            return EXIT_UNREADABLE
    rng = random.Random(f"errors:{args.seed}")
    target: IO[bytes]
    target = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")  # noqa: SIM115
    try:
        buf: list[bytes] = []
        for rnd in generate_rounds(args.rounds, args.seed, args.jurisdiction, end=until):
            if args.error_rate and rng.random() < args.error_rate:
                mutated = mutate(rnd, rng)
                if mutated is not None:
                    rnd = mutated[0]
            buf.append(orjson.dumps(rnd))
            if len(buf) >= 1000:
                target.write(b"\n".join(buf) + b"\n")
                buf.clear()
        if buf:
            target.write(b"\n".join(buf) + b"\n")
        target.flush()
    finally:
        if args.output != "-":
            target.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bjaudit",
        description="Audit recorded blackjack rounds against New Jersey and New Zealand rules.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n  bjaudit audit tests/data/examples/nj-dealer-draws-on-hard-17.round.json --format text\n"
        "  cat rounds.ndjson | bjaudit audit - > results.ndjson\n  bjaudit rules --jurisdiction NZ\n"
        "  bjaudit audit nz-2026.round.json --ruleset NZ@1994-10-31   # a what-if: bjaudit rulesets lists them",
    )
    p.add_argument(
        "--version", action=_Version, help="print the version of bjaudit and of its engine, and exit"
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    a = sub.add_parser(
        "audit",
        help="audit rounds from files (JSON object, JSON array or NDJSON, plain or gzipped; - for stdin)",
        description="Audit rounds offline. Writes one audit result per round, in input order, as NDJSON (or a "
        "readable report with --format text). A record that cannot be read gives a line with its round_id (when "
        "readable) and an RFC 9457 problem in 'error'. Exit status: 0 all compliant, 1 any round with findings, "
        "2 any record unreadable.",
    )
    a.add_argument(
        "paths", nargs="+", metavar="PATH", help="file of rounds (plain or gzipped), or - for standard input"
    )
    a.add_argument(
        "--format", choices=["ndjson", "text"], default="ndjson", help="output format (default ndjson)"
    )
    a.add_argument(
        "--ruleset",
        metavar="NAME",
        help="what-if: audit under this ruleset whatever each round's played_at, by its name or alias (bjaudit "
        "rulesets lists them); each result says ruleset_in_force (false: not the ruleset in force when the round "
        "was played). A round of another jurisdiction is an error line.",
    )
    a.add_argument(
        "--elections",
        metavar="JSON",
        help="what-if: table elections over each round's own, a JSON object read as a round's table.rules "
        """(e.g. '{"dealer_soft_17": "hit"}'); each result carries them as elections_what_if""",
    )
    a.set_defaults(func=cmd_audit)

    r = sub.add_parser(
        "rules",
        help="print the rule catalogue",
        description="Print every rule we know of, with "
        "its citation status (verified, unverified, uncited) and whether a round can be checked against it.",
    )
    r.add_argument("--jurisdiction", choices=["US-NJ", "NZ"], help="only this jurisdiction")
    r.add_argument(
        "--format",
        choices=["text", "json", "ndjson"],
        default="text",
        help="text (default), json (one document, as GET /v1/rules answers) or ndjson (one rule per line)",
    )
    r.set_defaults(func=cmd_rules)

    rs = sub.add_parser(
        "rulesets",
        help="list the rulesets: jurisdiction, name, alias, dates in force",
        description="List every ruleset we hold, with its jurisdiction, its name (as audits give it), its alias, and "
        "the dates of the rounds it applies to (the table's local date). A round is audited by the ruleset in force "
        "when it was played; `bjaudit audit --ruleset NAME` (POST /v1/audit?ruleset=NAME) audits it under another.",
    )
    rs.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text (default) or json (one document, as GET /v1/rulesets answers)",
    )
    rs.set_defaults(func=cmd_rulesets)

    s = sub.add_parser(
        "serve",
        help="run the HTTP service",
        description="Migrate the configured database (SQLite "
        "under ./var by default, or DATABASE_URL), then serve the API with uvicorn.",
    )
    s.add_argument("--host", help="address to bind (default: BJAUDIT_HOST, else 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default: BJAUDIT_PORT, else 8000)")
    s.set_defaults(func=cmd_serve)

    w = sub.add_parser(
        "worker",
        help="audit uploaded batches (PostgreSQL job queue)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a batch worker: it takes chunk jobs from the procrastinate queue in PostgreSQL "
        "(DATABASE_URL) until stopped. Run one per core, on as many machines as you like; they share every batch. "
        "At start, and every few seconds, chunks left undone by a dead worker are queued again. It waits for the "
        "database and its schema (logging what for), carries on through database restarts, and exits only on "
        "SIGINT/SIGTERM (0, running chunks finished) or an error that is not the database's (1).",
        epilog="Example:\n  DATABASE_URL=postgresql://bjaudit@db/bjaudit bjaudit worker &\n"
        "  DATABASE_URL=postgresql://bjaudit@db/bjaudit bjaudit worker &",
    )
    w.add_argument(
        "--concurrency", type=int, help="chunks audited at once (default BJAUDIT_BATCH_WORKER_CONCURRENCY, 1)"
    )
    w.set_defaults(func=cmd_worker)

    u = sub.add_parser(
        "upload",
        help="upload NDJSON files to a service as batches and wait for their audit",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Stream each FILE (NDJSON, one round per line; gzipped files are sent as they are) to "
        "POST /v1/batches with a progress line on stderr (rounds, MB/s), then follow the batch's progress and print "
        "its summary. Each file is one batch; uploading the same file again answers the same batch. "
        "Exit status: 0 all compliant, 1 any findings, duplicates or conflicts, 2 any rejected line or failed upload.",
        epilog="Examples:\n  bjaudit upload day.ndjson --results results.ndjson\n"
        "  BJAUDIT_KEY=bja_... bjaudit upload day.ndjson --url http://audit.example:8000 --gzip\n"
        "  bjaudit upload day.ndjson.gz --no-wait",
    )
    u.add_argument("paths", nargs="+", metavar="FILE", help="NDJSON file (or .gz) of rounds")
    u.add_argument(
        "--url",
        default=os.environ.get("BJAUDIT_URL") or DEFAULT_URL,
        help=f"the service's base URL (default: BJAUDIT_URL, else {DEFAULT_URL}, where make run serves)",
    )
    u.add_argument(
        "--key",
        default=os.environ.get("BJAUDIT_KEY"),
        help="API key with the submit scope; the batch is its source's (default: BJAUDIT_KEY, else the first key "
        f"`bjaudit serve` wrote to {DEFAULT_KEY_FILE})",
    )
    u.add_argument("--results", metavar="PATH", help="save the per-line results (NDJSON) here")
    u.add_argument("--gzip", action="store_true", help="compress on the fly (Content-Encoding: gzip)")
    u.add_argument("--no-wait", action="store_true", help="return once uploaded; do not wait for the audit")
    u.set_defaults(func=cmd_upload)

    k = sub.add_parser(
        "keys",
        help="create, list and revoke API keys (on the configured database)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="API keys, made and revoked straight in the database (DATABASE_URL): whoever can run this "
        "holds the database. A key acts for one source (--source) or every source (--all-sources: regulators, "
        "operators), with scopes: submit (rounds, batches, dry runs), read (lookups, searches, batch progress, "
        "integrity), admin (keys, table elections). Only a hash of each key is stored: `create` shows the key once.",
        epilog="Examples:\n  bjaudit keys create --source casino-a --scope submit --label 'BJ pit 3 shoe reader'\n"
        "  bjaudit keys create --all-sources --scope read --label 'DGE auditor J. Smith'\n"
        "  bjaudit keys list\n  bjaudit keys revoke 0123456789abcdef",
    )
    ksub = k.add_subparsers(dest="keys_command", required=True, metavar="{create,list,revoke}")
    kc = ksub.add_parser("create", help="create a key and print it (once) on stdout")
    who = kc.add_mutually_exclusive_group(required=True)
    who.add_argument("--source", help="the source (tenant) the key acts for")
    who.add_argument("--all-sources", action="store_true", help="a key for every source (read, admin)")
    kc.add_argument(
        "--scope",
        action="append",
        required=True,
        choices=["submit", "read", "admin"],
        help="a scope (repeat for several)",
    )
    kc.add_argument("--label", required=True, help="who or what will use it (kept, listed, logged)")
    kl = ksub.add_parser("list", help="list keys (never their secrets)")
    kl.add_argument("--format", choices=["text", "json"], default="text")
    kr = ksub.add_parser("revoke", help="revoke a key, effective at once")
    kr.add_argument("key_id", help="the key's id (bja_<key_id>_...)")
    k.set_defaults(func=cmd_keys)

    from app.cli import integrity as integrity_cli

    integrity_cli.add_parsers(sub)  # verify, integrity, grant-app-role

    from app.cli import retention as retention_cli

    retention_cli.add_parsers(sub)  # archive, restore

    from app.cli import reaudit as reaudit_cli

    reaudit_cli.add_parser(sub)

    g = sub.add_parser(
        "generate",
        help="write realistic rounds as NDJSON (demos, benchmarks)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write N legal rounds from the engine's seeded generator, one per line, in table sessions, "
        "played in the past up to now (or --until); with --error-rate R, about that share of them carries one "
        "injected dealer error (a finding). The same arguments with --until give the same file.",
        epilog="Examples:\n  bjaudit generate --rounds 20000 --seed 1 --error-rate 0.05 > day.ndjson\n"
        "  bjaudit generate --rounds 1000 --seed 7 --jurisdiction NZ --output nz.ndjson",
    )
    g.add_argument("--rounds", type=int, required=True, metavar="N", help="how many rounds")
    g.add_argument("--seed", type=int, default=1, metavar="S", help="random seed (default 1)")
    g.add_argument("--jurisdiction", choices=["US-NJ", "NZ"], help="only this jurisdiction (default: both)")
    g.add_argument(
        "--error-rate", type=float, default=0.0, metavar="R", help="share of rounds with an error (0-1)"
    )
    g.add_argument("--output", default="-", metavar="PATH", help="file to write, or - for stdout (default)")
    g.add_argument(
        "--until",
        metavar="WHEN",
        help="the rounds are played before this instant: a date (midnight UTC) or a timestamp with its offset "
        "(default: now)",
    )
    g.set_defaults(func=cmd_generate)
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
    except UnusableKey as exc:
        print(f"bjaudit {args.command}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
