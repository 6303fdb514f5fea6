"""``bjaudit verify``, ``bjaudit integrity head|public-key``, ``bjaudit grant-app-role``: tamper evidence from the
command line, on the configured database (DATABASE_URL). docs/integrity.md explains them."""

from __future__ import annotations

import argparse
import binascii
import os
import sys
from pathlib import Path
from typing import IO, Any

import orjson

EXIT_OK, EXIT_PROBLEMS, EXIT_CANNOT = 0, 1, 2


def _database() -> Any:
    from app.config import get_settings
    from app.store.db import Database

    return Database.from_settings(get_settings())


def cannot_use_database(command: str, exc: BaseException) -> int:
    """Say in one line why the configured database cannot be used (no traceback); the exit status."""
    from app.config import get_settings
    from app.store.db import explain_connect_error

    print(f"bjaudit {command}: {explain_connect_error(exc, get_settings().database_url)}", file=sys.stderr)
    return EXIT_CANNOT


def public_key_of(name: str) -> bytes:
    """The raw Ed25519 public key in file ``name`` (PEM, or the raw key in base64)."""
    from app.cli import UnusableKey
    from app.usecases import integrity

    try:
        return integrity.read_trusted_key(Path(name).read_text())
    except OSError as exc:
        said = exc.strerror or str(exc)
    except (binascii.Error, UnicodeDecodeError) as exc:  # before ValueError: both are ValueErrors
        said = f"neither a PEM public key nor a raw key in base64 ({exc})"
    except ValueError as exc:
        said = str(exc) or type(exc).__name__
    raise UnusableKey(f"the public key {name} cannot be used: {said}")


def _trusted_key(args: argparse.Namespace) -> tuple[bytes | None, str]:
    """The public key to check a signed head against, and where it came from."""
    from app.config import get_settings
    from app.usecases import integrity

    if args.public_key:
        return public_key_of(args.public_key), args.public_key
    key_file = Path(get_settings().signing_key_file)
    if key_file.exists():
        return integrity.raw_public_key(integrity.load_signing_key(key_file, create=False)), str(key_file)
    return None, ""


def cmd_verify(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.usecases import integrity

    status = EXIT_OK
    source = args.source
    doc: dict[str, Any] | None = None
    if args.head:
        try:
            doc = orjson.loads(Path(args.head).read_bytes())
        except orjson.JSONDecodeError as exc:
            print(f"bjaudit verify: {args.head} is not JSON: {exc}", file=sys.stderr)
            return EXIT_CANNOT
        if not isinstance(doc, dict):
            print(f"bjaudit verify: {args.head} is not a signed head (a JSON object)", file=sys.stderr)
            return EXIT_CANNOT
        trusted, where = _trusted_key(args)
        problems = integrity.check_signature(doc, trusted)
        if problems:
            status = EXIT_PROBLEMS
            out.write(f"head {args.head}: NOT VALID: {'; '.join(problems)}\n")
        else:
            whose = (
                f"the key of {where}" if trusted is not None else "the key it carries (no trusted key given)"
            )
            out.write(
                f"head {args.head}: signature valid ({whose}): source {doc['source']}, entry {doc['seq']}, "
                f"hash {doc['hash']}, exported {doc['exported_at']}\n"
            )
        if args.signature_only:
            return status
        source = source or doc.get("source")
    db = _database()
    try:
        with db.reading() as session:
            if doc is not None and status == EXIT_OK:
                moved = integrity.check_head_in_chain(session, doc)
                if moved:
                    status = EXIT_PROBLEMS
                    out.write(f"head {args.head}: NOT IN THE CHAIN: {'; '.join(moved)}\n")
                else:
                    out.write(f"head {args.head}: the chain still holds it\n")
            state = _State(Path(args.state), _identity())
            since = {} if args.full else state.checkpoints()
            reports = integrity.verify(session, source, since)
            witnessed = (
                [_witness(session, args.witness, r, trusted_key(args)) for r in reports]
                if args.witness
                else []
            )
    except DBAPIError as exc:
        return cannot_use_database("verify", exc)
    finally:
        db.dispose()
    for lines in witnessed:
        for line, bad in lines:
            out.write(line + "\n")
            status = EXIT_PROBLEMS if bad else status
    good = {r.source: r.checkpoint for r in reports if r.ok and r.complete and r.checkpoint is not None}
    if good and not any(bad for lines in witnessed for _, bad in lines):
        state.save(good)
    for report in reports:
        if args.format == "json":
            out.write(orjson.dumps(report.to_dict()).decode() + "\n")
        else:
            out.write(report.summary() + "\n")
            if not report.ok and args.all_problems:
                for problem in report.problems:
                    out.write(f"  {problem.plain()}\n")
        if not report.ok:
            status = EXIT_PROBLEMS
    if not reports and args.format == "text":
        out.write("nothing is stored: no chain to verify\n")
    return status


def _identity() -> str:
    """The database a checkpoint is of: its URL without a password."""
    from sqlalchemy.engine import make_url

    from app.config import get_settings, sqlalchemy_url

    return make_url(sqlalchemy_url(get_settings().database_url)).render_as_string(hide_password=True)


class _State:
    """What ``bjaudit verify`` verified last time, per database and source: kept on the verifier's machine (a file
    the database's owner cannot reach is what makes it worth keeping)."""

    def __init__(self, path: Path, database: str) -> None:
        self.path, self.database = path, database

    def _all(self) -> dict[str, Any]:
        try:
            doc = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def checkpoints(self) -> dict[str, Any]:
        from app.usecases.integrity import Checkpoint

        out = {}
        for source, point in (self._all().get(self.database) or {}).items():
            try:
                out[source] = Checkpoint.from_dict(point)
            except (KeyError, TypeError, ValueError) as exc:
                print(
                    f"bjaudit verify: {self.path}: the checkpoint of {source!r} is unusable ({exc}): "
                    "walking it whole",
                    file=sys.stderr,
                )
        return out

    def save(self, points: dict[str, Any]) -> None:
        from app.files import create_private

        doc = self._all()
        doc.setdefault(self.database, {}).update({s: p.to_dict() for s, p in points.items()})
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".new")
        tmp.unlink(missing_ok=True)
        create_private(tmp, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        tmp.replace(self.path)


def trusted_key(args: argparse.Namespace) -> bytes | None:
    return _trusted_key(args)[0]


def _witness(session: Any, folder: str, report: Any, trusted: bytes | None) -> list[tuple[str, bool]]:
    """Each head a witness holds for the report's source, against the log verified: signed by the trusted key,
    and the log verified is an extension of it (RFC 9162 consistency, against the root this walk computed)."""
    from datetime import datetime

    from app.evidence import merkle
    from app.evidence.packet import check_head
    from app.store import chain, tree
    from app.usecases.integrity import RECEIVED_SLACK

    lines: list[tuple[str, bool]] = []
    files = sorted((Path(folder) / report.source).glob("*.json"))
    top = report.checkpoint
    for f in files:
        try:
            head = orjson.loads(f.read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            lines.append((f"witness {f}: unreadable: {exc}", True))
            continue
        wrong = check_head(head, trusted)
        if not wrong and top is not None:
            seq, root = int(head["seq"]), bytes.fromhex(head["root"])
            if seq > top.seq:
                wrong.append(f"it names {seq} entries, the log verified has {top.seq}: the log was cut")
            else:
                proof = tree.consistency(session, report.source, seq, top.seq)
                if not merkle.verify_consistency(seq, top.seq, root, top.root, proof):
                    wrong.append(
                        "the log verified is not an extension of it: entries up to it were rewritten or removed "
                        "after it was published"
                    )
        if wrong:
            lines.append((f"witness {f}: NOT CONSISTENT: {'; '.join(wrong)}", True))
        else:
            lines.append((f"witness {f}: head of {head['seq']} entries: consistent with the log", False))
    if files and top is not None and not any(bad for _, bad in lines):
        latest = max((orjson.loads(f.read_bytes()) for f in files), key=lambda h: int(h["seq"]))
        last = int(latest["seq"])
        if top.seq > last:
            lines.append(
                (
                    f"witness: entries {last + 1} to {top.seq} of {report.source} are not yet in a published head",
                    False,
                )
            )
            published = datetime.fromisoformat(str(latest["exported_at"]).replace("Z", "+00:00"))
            for seq, label, received in chain.rounds_received_before(
                session, report.source, last, published - RECEIVED_SLACK
            ):
                lines.append(
                    (
                        f"witness: entry {seq}: inserted: {label}: received {chain.timestamp(received)}, before the "
                        f"head of {last} entries was published ({latest['exported_at']}), but not in it: appended "
                        "afterwards",
                        True,
                    )
                )
    if not files:
        lines.append((f"witness: no head of source {report.source} in {folder}", True))
    return lines


def cmd_check_evidence(args: argparse.Namespace, out: IO[str]) -> int:
    from app.evidence import packet

    try:
        doc = orjson.loads(Path(args.file).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        print(f"bjaudit check-evidence: {args.file} cannot be read as JSON: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    trusted = public_key_of(args.public_key) if args.public_key else None
    problems, done = packet.check(doc, trusted, None if args.no_replay else replay_offline)
    for line in done:
        out.write(f"ok: {line}\n")
    for line in problems:
        out.write(f"NOT VALID: {line}\n")
    out.write("evidence valid\n" if not problems else f"evidence NOT valid: {len(problems)} problem(s)\n")
    return EXIT_PROBLEMS if problems else EXIT_OK


def replay_offline(record: bytes, elections_id: int | None, rules: str | None) -> tuple[str, str]:
    """This engine's audit of a record (app/evidence/packet.py's ``Replay``), with no database."""
    from app.usecases import auditing, offline

    rnd = offline.read_round(record)
    registered = None if rules is None or elections_id is None else (elections_id, dict(orjson.loads(rules)))
    return offline.audit_read(rnd, registered).body.decode(), auditing.ENGINE_VERSION


def cmd_integrity(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.config import get_settings
    from app.usecases import integrity, transparency
    from app.usecases.errors import ServiceError

    key = integrity.load_signing_key(get_settings().signing_key_file)
    if args.integrity_command == "public-key":
        data = integrity.public_key_pem(key)
    else:
        db = _database()
        try:
            with db.session() as session:
                doc = transparency.sign_head(session, args.source, key)
        except DBAPIError as exc:
            return cannot_use_database("integrity head", exc)
        except ServiceError as exc:
            print(f"bjaudit integrity head: {exc.detail}", file=sys.stderr)
            return EXIT_CANNOT
        finally:
            db.dispose()
        data = orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
    if args.out:
        Path(args.out).write_bytes(data)
    else:
        out.write(data.decode())
    return EXIT_OK


def cmd_grant_app_role(args: argparse.Namespace, out: IO[str]) -> int:
    from sqlalchemy.exc import DBAPIError

    from app.store.roles import grant_app_role

    db = _database()
    try:
        if db.engine.dialect.name != "postgresql":
            print("bjaudit grant-app-role: roles are PostgreSQL's; SQLite has none", file=sys.stderr)
            return EXIT_CANNOT
        with db.engine.begin() as conn:
            for statement in grant_app_role(conn, args.role):
                out.write(statement + ";\n")
    except DBAPIError as exc:
        first = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        print(f"bjaudit grant-app-role: {first}", file=sys.stderr)
        return EXIT_CANNOT
    finally:
        db.dispose()
    return EXIT_OK


def add_parsers(sub: Any) -> None:
    """The integrity commands, on the ``bjaudit`` parser's subcommands."""
    v = sub.add_parser(
        "verify",
        help="verify the hash chains of the stored rounds and registrations (and a signed head)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Walk each source's hash chain on the configured database (DATABASE_URL) and its stored rows, "
        "and print, per source, the first entry modified, deleted, inserted or reordered. With --head, first check "
        "an exported head's signature (no database needed for that: --signature-only) and that the chain still "
        "holds its hash at its seq. The key trusted is --public-key, else the service's own "
        "(BJAUDIT_SIGNING_KEY_FILE) when it is on this machine. Exit status: 0 all sound, 1 any problem, 2 the "
        "check could not run.",
        epilog="Examples:\n  bjaudit verify\n  bjaudit verify --source casino-a --all-problems\n"
        "  bjaudit verify --head casino-a-head.json --public-key bjaudit-public.pem",
    )
    v.add_argument("--source", help="only this source (default: every source; with --head, the head's)")
    v.add_argument("--head", metavar="FILE", help="a signed head exported earlier (bjaudit integrity head)")
    v.add_argument(
        "--public-key", metavar="FILE", help="the trusted public key: PEM, or the raw key in base64"
    )
    v.add_argument(
        "--signature-only", action="store_true", help="with --head: check the signature only (no database)"
    )
    v.add_argument(
        "--all-problems", action="store_true", help="list every problem (the first 100 per source)"
    )
    v.add_argument(
        "--state",
        metavar="FILE",
        default=os.environ.get("BJAUDIT_VERIFY_STATE", "./var/verify-state.json"),
        help="where the last sound verification of each source is kept, to verify only what came after it "
        "(default: $BJAUDIT_VERIFY_STATE or ./var/verify-state.json)",
    )
    v.add_argument("--full", action="store_true", help="walk every entry again, whatever was verified before")
    v.add_argument(
        "--witness",
        metavar="DIR",
        help="check every signed head published to this folder (BJAUDIT_WITNESS) against the log",
    )
    v.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text, or one JSON report per source per line",
    )
    v.set_defaults(func=cmd_verify)

    c = sub.add_parser(
        "check-evidence",
        help="check a round's evidence packet offline (GET /v1/rounds/{id}/evidence)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check, with no database and no service, that a packet's record and audits are those the "
        "service logged: each entry's content against the record's and the audits' SHA-256, each inclusion proof "
        "against the signed head's root, the head's Ed25519 signature (against --public-key when given), and the "
        "audit re-run by this engine when the audit names its version. Exit status: 0 valid, 1 not valid (each "
        "problem named), 2 the file cannot be read.",
        epilog="Example:\n  bjaudit check-evidence evidence-BOR-1.json --public-key bjaudit-public.pem",
    )
    c.add_argument("file", help="the evidence packet (JSON)")
    c.add_argument(
        "--public-key", metavar="FILE", help="the trusted public key: PEM, or the raw key in base64"
    )
    c.add_argument("--no-replay", action="store_true", help="do not re-run the audit")
    c.set_defaults(func=cmd_check_evidence)

    i = sub.add_parser(
        "integrity",
        help="export a source's chain head signed, or the service's public key",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="`head` writes the last seq and hash of a source's chain, signed with the service's Ed25519 "
        "key (BJAUDIT_SIGNING_KEY_FILE, made on first use), as GET /v1/integrity/head answers it: keep it outside "
        "the database (a regulator's mailbox, a ticket, a printout); `bjaudit verify --head FILE` later shows "
        "whether the chain was rewritten since. `public-key` writes the key that checks the signatures (PEM).",
        epilog="Examples:\n  bjaudit integrity head --source casino-a --out casino-a-head.json\n"
        "  bjaudit integrity public-key --out bjaudit-public.pem",
    )
    isub = i.add_subparsers(dest="integrity_command", required=True, metavar="{head,public-key}")
    ih = isub.add_parser("head", help="the source's chain head, signed (JSON)")
    ih.add_argument("--source", required=True, help="the source whose head to export")
    ih.add_argument("--out", metavar="FILE", help="write it here (default: standard output)")
    ip = isub.add_parser("public-key", help="the service's public key (PEM)")
    ip.add_argument("--out", metavar="FILE", help="write it here (default: standard output)")
    i.set_defaults(func=cmd_integrity)

    g = sub.add_parser(
        "grant-app-role",
        help="grant a PostgreSQL role what the service needs, append-only on the evidence",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run as the owner of the tables (the role that runs the migrations) on DATABASE_URL: grant "
        "ROLE, which must exist, SELECT and INSERT on rounds, findings, table_elections and chain_entries (never "
        "UPDATE or DELETE), SELECT and INSERT on batch results, and what else the service changes (batches and their "
        "chunks, the chain heads, an API key's revoked_at only, the job queue). Idempotent: run it again after each migration. Prints the "
        "statements run.",
        epilog="Example:\n  createuser bjaudit_app\n"
        "  DATABASE_URL=postgresql://bjaudit_owner@db/bjaudit bjaudit grant-app-role bjaudit_app",
    )
    g.add_argument("role", help="the application's role (the service's DATABASE_URL user)")
    g.set_defaults(func=cmd_grant_app_role)
