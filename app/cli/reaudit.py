"""``bjaudit reaudit``: re-run stored rounds with this engine, on the configured database (DATABASE_URL), in the
foreground with a progress line. The re-audit is recorded first (``GET /v1/reaudit/{id}`` follows it too), each
chunk is done in one transaction, and ``--resume ID`` takes up one that was stopped. docs/service.md, "Re-audits"."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from typing import IO, Any

import orjson

from app.wire.instants import instant

EXIT_OK, EXIT_CANNOT = 0, 2

EPILOG = """examples:
  bjaudit reaudit --reason "engine 0.2 corrects the soft-17 check"
  bjaudit reaudit --source casino-a --jurisdiction US-NJ --from 2026-11-01 --to 2026-12-01 --reason "card corrected"
  bjaudit reaudit --resume ra_0123456789abcdef01234567

The final status (JSON, as GET /v1/reaudit/{id} answers it) goes to stdout; progress to stderr."""


def _when(text: str) -> datetime:
    """An RFC 3339 timestamp with offset, or a date (its midnight UTC)."""
    when = instant(text)
    if when is None:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a date (2026-11-01) or a timestamp with offset (2026-11-01T00:00:00-05:00)"
        )
    return when


def _rounds(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of rounds, 1 or more")
    return n


def cmd_reaudit(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.cli.integrity import cannot_use_database
    from app.cli.upload import Progress
    from app.config import get_settings
    from app.store.db import Database
    from app.usecases import reaudits

    if args.resume is None and not (args.reason or "").strip():
        print("bjaudit reaudit: say why with --reason (kept with the re-audit)", file=sys.stderr)
        return EXIT_CANNOT
    if args.played_from and args.played_to and args.played_to <= args.played_from:
        print("bjaudit reaudit: --to must be after --from", file=sys.stderr)
        return EXIT_CANNOT
    try:
        db = Database.from_settings(get_settings())
    except DBAPIError as exc:
        return cannot_use_database("reaudit", exc)
    progress = Progress(sys.stderr)
    reaudit_id: str | None = None
    try:
        if args.resume is not None:
            reaudit_id = args.resume
            with db.reading() as s:
                reaudits.status(s, reaudit_id)  # ReauditNotFound if there is none
        else:
            scope = reaudits.Scope(
                args.source, args.jurisdiction, args.table, args.played_from, args.played_to
            )
            with db.session() as s:
                started = reaudits.start(s, scope, "bjaudit reaudit", args.reason.strip(), args.chunk_rounds)
            reaudit_id = started.reaudit_id
            print(f"re-audit {reaudit_id}: {started.round_count} rounds", file=sys.stderr)
        with db.reading() as s:
            todo = reaudits.pending_chunks(s, reaudit_id)
        began = time.monotonic()
        for n, (rid, chunk_no) in enumerate(todo, 1):
            reaudits.process_chunk(db, rid, chunk_no)  # done already (by a worker): skipped
            with db.reading() as s:
                status: dict[str, Any] = reaudits.status(s, reaudit_id)
            c = status["counts"]
            rate = c["audited"] / max(time.monotonic() - began, 1e-9)
            progress.show(
                f"re-audit {reaudit_id}: {c['audited']:,}/{c['rounds']:,} rounds, {c['changed']:,} changed, "
                f"{c['unreadable']:,} unreadable ({n}/{len(todo)} chunks, {rate:,.0f} rounds/s)",
                force=n == len(todo),
            )
        progress.done()
        with db.reading() as s:
            status = reaudits.status(s, reaudit_id)
    except reaudits.ReauditNotFound as exc:
        print(f"bjaudit reaudit: {exc.detail}", file=sys.stderr)
        return EXIT_CANNOT
    except DBAPIError as exc:
        return cannot_use_database("reaudit", exc)
    except KeyboardInterrupt:
        progress.done()
        if reaudit_id is None:  # stopped while the rounds were being chosen: nothing was started
            print("bjaudit reaudit: stopped; nothing was started.", file=sys.stderr)
        else:
            print(
                "bjaudit reaudit: stopped; the chunks done are kept. Go on with: "
                f"bjaudit reaudit --resume {reaudit_id}",
                file=sys.stderr,
            )
        return 130
    finally:
        db.dispose()
    out.write(orjson.dumps(status).decode() + "\n")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    r = sub.add_parser(
        "reaudit",
        help="re-run stored rounds with this engine; every audit is kept",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Re-audit the stored rounds of the configured database (DATABASE_URL, else the SQLite\n"
        "default) with this engine and rules modules, here in the foreground. A round gets a new audit\n"
        "only when the result differs from its latest; nothing is overwritten. Narrow with the options\n"
        "(default: every round of every source).",
        epilog=EPILOG,
    )
    r.add_argument("--reason", help="why (kept with the re-audit; required unless --resume)")
    r.add_argument("--source", help="only this source's rounds (default: every source's)")
    r.add_argument("--jurisdiction", choices=["US-NJ", "NZ"], help="only this jurisdiction's rounds")
    r.add_argument("--table", help="only this table's rounds")
    r.add_argument(
        "--from",
        dest="played_from",
        type=_when,
        metavar="WHEN",
        help="rounds played at or after (date or RFC 3339)",
    )
    r.add_argument(
        "--to", dest="played_to", type=_when, metavar="WHEN", help="rounds played before (date or RFC 3339)"
    )
    r.add_argument(
        "--chunk-rounds",
        type=_rounds,
        default=1000,
        metavar="N",
        help="rounds per transaction (default 1000)",
    )
    r.add_argument(
        "--resume", metavar="ID", help="go on with a re-audit that was stopped (its other options are kept)"
    )
    r.set_defaults(func=cmd_reaudit)
