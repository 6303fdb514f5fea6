"""The ASGI application (``app.main:app``), its factory, and the two ways to run it.

``serve()`` migrates the configured database to head, then runs uvicorn. ``export_openapi()`` writes the committed
contract ``openapi/openapi.json``. Both are also reachable as ``python -m app.main serve|openapi``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app import api, logs, metrics
from app.api.auth import Authenticator, is_loopback
from app.api.deps import SingleRounds, UnitOfWork
from app.config import Settings, get_settings, libpq_url
from app.files import create_private
from app.store import migrate, partitions
from app.store.db import Database, explain_connect_error
from app.store.pg import PgRounds
from app.store.replica import Replica
from app.usecases import alerts as alert_cases
from app.usecases import transparency
from app.usecases.auditing import ENGINE_VERSION as VERSION
from app.usecases.rollups import keep_rolling

DESCRIPTION = """\
Audits recorded blackjack rounds against New Jersey and New Zealand rules, and keeps every round and its audit.

Every route but health, the rule catalogue and these documents needs an API key: `Authorization: Bearer bja_...`.
A key acts for one source (a casino's table system) or, for regulators and operators, for every source, with the
scopes `submit` (rounds, batches, dry runs), `read` (lookups, searches, batch progress) and `admin` (keys, table
elections); each route says which (`x-bjaudit-scopes`). On a new database `bjaudit serve` writes the first key to BJAUDIT_ADMIN_KEY_FILE.

Errors are RFC 9457 problem details (`application/problem+json`). Round IDs are unique per source (the key's) and
jurisdiction; resubmitting the same record is safe.
"""

OPENAPI_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database.from_settings(settings)
        app.state.db = db
        app.state.replica = replica = read_replica(settings)
        standby = (
            None
            if replica is None
            else (
                Database.from_settings(
                    settings.model_copy(update={"database_url": settings.database_read_url})
                ),
                replica,
            )
        )
        # As many requests in the database at once as the pool keeps connections: no overflow churn.
        app.state.unit_of_work = uow = UnitOfWork(
            db,
            CapacityLimiter(settings.db_pool_size),
            settings.db_timeout_seconds,
            replica=standby,
            fallback=settings.read_fallback,
        )
        conninfo = libpq_url(settings.database_url)
        pg = (
            None
            if conninfo is None
            else PgRounds(
                conninfo,
                size=settings.db_pool_size,
                timeout=settings.db_pool_timeout,
                connect_timeout=settings.db_connect_timeout,
                deadline=settings.db_timeout_seconds,
            )
        )
        app.state.single_rounds = SingleRounds(uow, pg)
        app.state.auth = Authenticator(settings, uow, pg)
        try:
            app.state.migration_heads = migrate.head_revisions()
        except FileNotFoundError:
            app.state.migration_heads = None
        deliverer = alert_cases.DELIVERER = alert_cases.Deliverer(db, settings)
        delivering = asyncio.create_task(deliverer.run())
        publisher = transparency.configure(settings)
        stopping = asyncio.Event()
        partitioning = asyncio.create_task(partitions.keep_ahead(db.engine, stopping))
        publishing = (
            None
            if publisher is None
            else asyncio.create_task(_publish_every(publisher, db, settings, stopping))
        )
        rolling = asyncio.create_task(keep_rolling(db, settings.rollup_interval_seconds, stopping))
        try:
            yield
        finally:
            stopping.set()
            await _stopped(rolling, settings.db_timeout_seconds)
            await _stopped(partitioning, settings.db_timeout_seconds)
            if (
                publishing is not None
            ):  # after its current publication (a thread in the database is never cut)
                await _stopped(publishing, settings.db_timeout_seconds)
            await deliverer.stop(delivering, settings.db_timeout_seconds)
            alert_cases.DELIVERER = None
            if pg is not None:
                await pg.close()
            # A request answered 503 at its deadline leaves its thread to finish: the pool is disposed once it has
            # (or after as long again), not under it (its connection would be left open).
            await uow.drain(settings.db_timeout_seconds)
            db.dispose()
            if standby is not None:
                standby[0].dispose()

    app = FastAPI(
        title="bjaudit",
        version=VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        redoc_url=None,
        docs_url=None,  # served offline by app.api.openapi
    )
    app.state.settings = settings
    api.install(app)
    return app


def read_replica(settings: Settings) -> Replica | None:
    """The standby's health (BJAUDIT_DATABASE_READ_URL), or None when there is none. Raises ValueError when either
    URL is not PostgreSQL's."""
    if not settings.database_read_url.strip():
        return None
    return Replica(settings.database_url, settings.database_read_url, settings.read_max_lag_seconds)


async def _publish_every(
    publisher: transparency.Publisher, db: Database, settings: Settings, stopping: asyncio.Event
) -> None:
    """Sign and publish the heads of the sources whose log grew, every BJAUDIT_WITNESS_INTERVAL_SECONDS."""
    log = logging.getLogger("bjaudit.transparency")
    while not stopping.is_set():
        try:
            await anyio.to_thread.run_sync(publisher.publish_now, db)
        except Exception:  # noqa: BLE001 - a database or a witness away: the next round carries everything
            log.exception("the signed heads could not be published")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), settings.witness_interval_seconds)


async def _stopped(task: asyncio.Task[None], timeout: float) -> None:
    """Wait for ``task`` to end by itself, cancelling it only past ``timeout``."""
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except TimeoutError:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


app = create_app()


class StartupError(Exception):
    """The service cannot start, and the one line that says why and what to do."""


def serve(host: str | None = None, port: int | None = None, reload: bool = False) -> None:
    """Migrate the configured database to head, then serve ``app.main:app`` with uvicorn. Raises
    :class:`StartupError` when the database cannot be reached or migrated."""
    import uvicorn

    from app.api.protocol import ProblemHttpToolsProtocol

    settings = get_settings()
    bind = host or settings.host
    if settings.dev_anonymous and not is_loopback(bind):
        raise StartupError(
            f"BJAUDIT_DEV_ANONYMOUS is for development on a loopback address only; this would serve {bind!r}: "
            "unset it, or listen on 127.0.0.1"
        )
    try:
        read_replica(settings)
    except ValueError as exc:
        raise StartupError(f"BJAUDIT_DATABASE_READ_URL: {exc}") from None
    try:
        migrate.upgrade_head(settings.database_url)
        first_key(settings)
    except DBAPIError as exc:
        raise StartupError(explain_connect_error(exc, settings.database_url)) from None
    metrics.share_between_processes(1 if reload else settings.workers)
    uvicorn.run(
        "app.main:app",
        host=host or settings.host,
        port=port or settings.port,
        reload=reload,
        workers=None if reload else settings.workers,
        access_log=False,  # the service writes its own (app.api.observability)
        log_config=logs.logging_config(settings.log_format, settings.log_level),
        log_level=settings.log_level,
        limit_concurrency=settings.max_connections,
        # Forwarded headers only from the proxies configured (uvicorn's default trusts 127.0.0.1).
        proxy_headers=bool(settings.trusted_proxies.strip()),
        forwarded_allow_ips=settings.trusted_proxies.strip() or "",
        server_header=False,
        http=ProblemHttpToolsProtocol,  # BJAUDIT_HEADER_TIMEOUT_SECONDS, BJAUDIT_MAX_CONNECTIONS_PER_ADDRESS
        timeout_keep_alive=settings.keep_alive_seconds,
    )


def first_key(settings: Settings) -> str | None:
    """On a database without API keys, make the first one (every scope, for the default source) and write it to
    BJAUDIT_ADMIN_KEY_FILE, readable only by this user; standard error (the log stream, which log collectors keep)
    says where it is, never the key itself, unless there is no file and standard error is a terminal. Returns the key,
    or None."""
    from app.usecases import keys

    db = Database.from_settings(settings)
    written = False
    try:
        with db.session() as session:  # the key is committed only once it is in its file (if there is one)
            if db.engine.dialect.name == "postgresql":  # two services starting at once make one key
                session.execute(text("LOCK TABLE api_keys IN EXCLUSIVE MODE"))
            created = keys.bootstrap(session, settings.default_source)
            if created is not None and settings.admin_key_file:
                path = Path(settings.admin_key_file)
                try:
                    path.unlink(missing_ok=True)
                    written = create_private(path, (created.key + "\n").encode())
                except OSError as exc:
                    raise StartupError(
                        f"BJAUDIT_ADMIN_KEY_FILE {str(path)!r} cannot be written ({exc.strerror or exc}), so the first "
                        "API key of this new database was not made (it would be shown nowhere): set it to a path "
                        "this user can write, or to nothing to have the key shown on this terminal"
                    ) from None
    finally:
        db.dispose()
    if created is None:
        return None
    what = f"the first API key of this new database (scopes admin, read, submit; source {settings.default_source!r})"
    if written:
        message = (
            f"bjaudit: {what} is in {path} (readable only by you): `cat {path}`. Send it as 'Authorization: Bearer "
            "<key>'; make narrower keys with `bjaudit keys create`."
        )
    elif sys.stderr.isatty():
        message = f"bjaudit: here is {what}. It is shown only now, on this terminal:\n\n    {created.key}\n"
    else:
        message = (
            f"bjaudit: {what} was made, but BJAUDIT_ADMIN_KEY_FILE is empty and standard error is not a terminal, so "
            f"it is shown nowhere (logs are kept). Make a key to use with `bjaudit keys create` on this database, "
            f"and revoke key {created.info['key_id']} with `bjaudit keys revoke {created.info['key_id']}`."
        )
    print(message, file=sys.stderr, flush=True)
    return created.key


def openapi_text(application: FastAPI | None = None) -> str:
    return json.dumps((application or create_app()).openapi(), indent=2, ensure_ascii=False) + "\n"


def export_openapi(path: Path | str | None = None) -> Path:
    """Write the OpenAPI document (default ``openapi/openapi.json``); a test fails when the app drifts from it."""
    target = Path(path) if path is not None else OPENAPI_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(openapi_text(), encoding="utf-8")
    return target


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.main")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="migrate the database, then serve HTTP")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.add_argument("--reload", action="store_true")
    out = sub.add_parser("openapi", help="write openapi/openapi.json")
    out.add_argument("path", nargs="?")
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            serve(args.host, args.port, args.reload)
        except StartupError as exc:
            print(f"bjaudit serve: {exc}", file=sys.stderr)
            return 2
    else:
        print(export_openapi(args.path))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
