"""``bjaudit archive``, ``bjaudit restore`` and ``bjaudit check-archive``: whole months of rounds to verified files
and back, on the configured database (DATABASE_URL, PostgreSQL, as the tables' owner), and an archive file checked
with no database at all. docs/retention.md."""

from __future__ import annotations

import argparse
import functools
import getpass
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import IO, Any

import orjson

EXIT_OK, EXIT_REFUSED, EXIT_CANNOT = 0, 1, 2


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a date (2026-01-01)") from None


def _on_database(command: str, work: Callable[[Any], list[Any]]) -> tuple[int, list[Any]]:
    """Run ``work(db)`` on the configured database: a refusal, or a database that cannot be used, said in one line
    with its exit status (what was done before a refusal stays done, and is returned)."""
    from sqlalchemy.exc import DBAPIError

    from app.cli.integrity import cannot_use_database
    from app.config import get_settings
    from app.store.db import Database
    from app.usecases import retention

    db = Database.from_settings(get_settings())
    done: list[Any] = []
    try:
        done = work(db)
    except retention.RetentionRefused as exc:
        print(f"bjaudit {command}: {exc}", file=sys.stderr)
        return EXIT_REFUSED, done
    except DBAPIError as exc:
        return cannot_use_database(command, exc), done
    finally:
        db.dispose()
    return EXIT_OK, done


def _said(a: Any, verb: str) -> str:
    heads = ", ".join(f"{h['source']} at {h['seq']}" for h in a.heads)
    proofs = f"; {a.proved} with their proofs under the heads of {heads}" if a.heads else ""
    return f"{a.month:%Y-%m}: {a.rounds} rounds, {a.findings} findings {verb} {a.path} (sha256 {a.sha256}){proofs}"


def cmd_archive(args: argparse.Namespace, out: IO[str]) -> int:
    from app.config import get_settings
    from app.usecases import integrity, retention, transparency

    settings = get_settings()
    try:
        key = integrity.load_signing_key(settings.signing_key_file)
    except integrity.SigningKeyUnusable as exc:
        print(f"bjaudit archive: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    status, done = _on_database(
        "archive",
        lambda db: retention.archive(db, args.before, Path(args.to), args.by or getpass.getuser(), key),
    )
    for a in done:
        print(_said(a, "->"), file=out)
        for head in a.heads:
            for failed in transparency.publish(head, settings.witness_sinks):
                print(f"bjaudit archive: the head was not published to a witness: {failed}", file=sys.stderr)
    if status == EXIT_OK and not done:
        print(f"no month partition ends on or before {args.before}", file=out)
    return status


def cmd_restore(args: argparse.Namespace, out: IO[str]) -> int:
    from app.usecases import retention

    def restore_all(db: Any) -> list[Any]:
        done = []
        for name in args.files:
            done.append(retention.restore(db, Path(name)))
            print(_said(done[-1], "restored from"), file=out)
        return done

    return _on_database("restore", restore_all)[0]


def cmd_check_archive(args: argparse.Namespace, out: IO[str]) -> int:
    from app.cli.integrity import public_key_of, replay_offline
    from app.evidence import archive

    trusted = public_key_of(args.public_key) if args.public_key else None
    status = EXIT_OK
    for name in args.files:
        path = Path(name)
        try:
            manifest = orjson.loads(archive.manifest_path(path).read_bytes())
            if args.round is not None:
                status = _one_packet(path, manifest, args.round, args.out, out)
                if status != EXIT_REFUSED or name == args.files[-1]:
                    return status
                continue
            checked = archive.check_file(
                path,
                manifest,
                trusted,
                None if args.no_replay else replay_offline,
                functools.partial(_progress, path.name),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"bjaudit check-archive: {path} cannot be read: {exc!r}", file=sys.stderr)
            return EXIT_CANNOT
        for line in checked.heads:
            out.write(
                f"ok: head of {line}, signed {'by the trusted key' if trusted else 'by the key it carries'}\n"
            )
        for line in checked.listed:
            out.write(f"NOT VALID: {line}\n")
        if checked.problems > len(checked.listed):
            out.write(f"... and {checked.problems - len(checked.listed)} more\n")
        if not archive.has_proofs(manifest):
            proved = "no proofs (archived before format 2): records checked against their SHA-256 only"
        else:
            proved = f"{checked.proved} with evidence valid under the heads"
            if not args.no_replay:
                proved += f", {checked.replayed} audits re-run by this engine and the same"
        verdict = "valid" if not checked.problems else f"NOT valid: {checked.problems} problem(s)"
        out.write(f"{path.name}: {checked.rounds} rounds, {checked.findings} findings; {proved}; {verdict}\n")
        status = status or (EXIT_REFUSED if checked.problems else EXIT_OK)
    return status


def _progress(name: str, n: int) -> None:
    print(f"{name}: {n} rounds checked", file=sys.stderr)


def _one_packet(path: Path, manifest: dict[str, Any], round_id: str, to: str | None, out: IO[str]) -> int:
    from app.evidence import archive

    doc = archive.find_round(path, round_id)
    if doc is None:
        print(f"bjaudit check-archive: no round {round_id!r} in {path.name}", file=sys.stderr)
        return EXIT_REFUSED
    packet = archive.packet_of(doc, manifest) if archive.has_proofs(manifest) else None
    if packet is None:
        print(f"bjaudit check-archive: {path} holds no evidence of round {round_id!r}", file=sys.stderr)
        return EXIT_REFUSED
    data = orjson.dumps(packet, option=orjson.OPT_INDENT_2) + b"\n"
    if to:
        Path(to).write_bytes(data)
    else:
        out.write(data.decode())
    return EXIT_OK


def add_parsers(sub: Any) -> None:
    """``archive``, ``restore`` and ``check-archive``, on the ``bjaudit`` parser's subcommands."""
    a = sub.add_parser(
        "archive",
        help="archive whole months of rounds before a date to verified files, then drop their partitions",
        description="Each month partition of rounds that ends on or before --before is written to DIR as gzip "
        "NDJSON (each round's record, audits, findings, chain entries and their inclusion proofs under a signed "
        "head of its source's log) with a manifest, read back and verified, recorded in the archives table, and "
        "then its partitions are dropped. The heads are signed with BJAUDIT_SIGNING_KEY_FILE and published to "
        "BJAUDIT_WITNESS when set. A month whose chain entries a live webhook subscription has not passed is "
        "refused. PostgreSQL, as the tables' owner. Exit status: 0 done, 1 refused (what was archived before "
        "stays archived), 2 the database or the signing key could not be used.",
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
        description="Check each archive file against its manifest (SHA-256, counts, each record's SHA-256, each "
        "round's inclusion proofs under the manifest's heads, and those heads against the log), make its month's "
        "partitions again and insert its rounds and findings. Exit status: 0 done, 1 refused, 2 the database "
        "could not be used.",
    )
    r.add_argument("files", nargs="+", metavar="FILE", help="bjaudit-rounds-YYYY-MM.ndjson.gz")
    r.set_defaults(func=cmd_restore)
    c = sub.add_parser(
        "check-archive",
        help="check archive files offline: every round's evidence, or write one round's evidence packet",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="With no database and no service: check each file against its manifest (SHA-256, counts), "
        "each record against its SHA-256, each round's evidence (its entries against the record and audits, their "
        "inclusion proofs under the manifest's signed heads, the heads' Ed25519 signatures, against --public-key "
        "when given), and re-run each audit that names this engine's version. With --round, write that round's "
        "evidence packet instead (`bjaudit check-evidence` and docs/check_evidence.py check it). Exit status: "
        "0 valid, 1 not valid (the first problems named, all counted) or no such round, 2 a file cannot be read.",
        epilog="Examples:\n"
        "  bjaudit check-archive /srv/bjaudit-archive/bjaudit-rounds-2024-10.ndjson.gz --public-key bjaudit-public.pem\n"
        "  bjaudit check-archive bjaudit-rounds-2024-10.ndjson.gz --round BOR-1 --out evidence-BOR-1.json",
    )
    c.add_argument(
        "files", nargs="+", metavar="FILE", help="bjaudit-rounds-YYYY-MM.ndjson.gz (its manifest beside it)"
    )
    c.add_argument(
        "--public-key", metavar="FILE", help="the trusted public key: PEM, or the raw key in base64"
    )
    c.add_argument("--no-replay", action="store_true", help="do not re-run the audits")
    c.add_argument(
        "--round", metavar="ID", help="write this round's evidence packet (JSON) instead of checking"
    )
    c.add_argument(
        "--out", metavar="FILE", help="with --round: where the packet goes (default: standard output)"
    )
    c.set_defaults(func=cmd_check_archive)
