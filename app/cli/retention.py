"""``bjaudit archive`` and ``bjaudit restore``: whole months of rounds to verified files and back, on the configured
database (DATABASE_URL, PostgreSQL, as the tables' owner). docs/retention.md."""

from __future__ import annotations

import argparse
import getpass
import sys
from datetime import date
from pathlib import Path
from typing import IO, Any

EXIT_OK, EXIT_REFUSED, EXIT_CANNOT = 0, 1, 2


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a date (2026-01-01)") from None


def cmd_archive(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.cli.integrity import cannot_use_database
    from app.config import get_settings
    from app.store.db import Database
    from app.usecases import retention

    db = Database.from_settings(get_settings())
    try:
        done = retention.archive(db, args.before, Path(args.to), args.by or getpass.getuser())
    except retention.RetentionRefused as exc:
        print(f"bjaudit archive: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except DBAPIError as exc:
        return cannot_use_database("archive", exc)
    finally:
        db.dispose()
    for a in done:
        print(
            f"{a.month:%Y-%m}: {a.rounds} rounds, {a.findings} findings -> {a.path} (sha256 {a.sha256})",
            file=out,
        )
    if not done:
        print(f"no month partition ends on or before {args.before}", file=out)
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.cli.integrity import cannot_use_database
    from app.config import get_settings
    from app.store.db import Database
    from app.usecases import retention

    db = Database.from_settings(get_settings())
    try:
        for name in args.files:
            a = retention.restore(db, Path(name))
            print(
                f"{a.month:%Y-%m}: {a.rounds} rounds, {a.findings} findings restored from {a.path}", file=out
            )
    except retention.RetentionRefused as exc:
        print(f"bjaudit restore: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except DBAPIError as exc:
        return cannot_use_database("restore", exc)
    finally:
        db.dispose()
    return EXIT_OK


def add_parsers(sub: Any) -> None:
    """``archive`` and ``restore``, on the ``bjaudit`` parser's subcommands."""
    a = sub.add_parser(
        "archive",
        help="archive whole months of rounds before a date to verified files, then drop their partitions",
        description="Each month partition of rounds that ends on or before --before is written to DIR as gzip "
        "NDJSON (each round's record, audits, findings and chain entry) with a manifest, read back and verified, "
        "recorded in the archives table, and then its partitions are dropped. A month whose chain entries a live "
        "webhook subscription has not passed is refused. PostgreSQL, as the tables' owner. Exit status: 0 done, "
        "1 refused (what was archived before stays archived), 2 the database could not be used.",
        epilog="Example:\n  bjaudit archive --before 2020-01-01 --to /srv/bjaudit-archive",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("--before", type=_date, required=True, help="archive the months that end on or before it")
    a.add_argument("--to", required=True, metavar="DIR", help="where the files go")
    a.add_argument("--by", help="who archives (kept with the archive; default: the user running it)")
    a.set_defaults(func=cmd_archive)
    r = sub.add_parser(
        "restore",
        help="bring back archived months from their files",
        description="Check each archive file against its manifest (SHA-256, counts, each record's SHA-256), make "
        "its month's partitions again and insert its rounds and findings.",
    )
    r.add_argument("files", nargs="+", metavar="FILE", help="bjaudit-rounds-YYYY-MM.ndjson.gz")
    r.set_defaults(func=cmd_restore)
