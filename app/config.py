"""The service's settings: one class, one environment prefix (``BJAUDIT_``).

The database URL is also read from the conventional ``DATABASE_URL`` and is written the way the ecosystem writes
it (``postgresql://user@host:5432/db``, ``sqlite:///path``); :func:`sqlalchemy_url` picks the driver.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

MIB = 1024 * 1024
DEFAULT_DATABASE_URL = "sqlite:///./var/bjaudit.sqlite3"
LIMIT_STORAGES = ("memory", "redis", "rediss", "redis+unix", "redis+cluster", "redis+sentinel")


class Settings(BaseSettings):
    """Every setting can be given as ``BJAUDIT_<NAME>`` (e.g. ``BJAUDIT_MAX_BODY_BYTES``)."""

    model_config = SettingsConfigDict(env_prefix="BJAUDIT_", extra="ignore", populate_by_name=True)

    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        validation_alias=AliasChoices("BJAUDIT_DATABASE_URL", "DATABASE_URL", "database_url"),
        description="Where rounds are stored: postgresql://user@host:5432/db or sqlite:///path. "
        "BJAUDIT_DATABASE_URL wins over DATABASE_URL.",
    )
    max_body_bytes: int = Field(default=MIB, ge=1, description="Largest accepted request body, in bytes.")
    default_source: str = Field(
        default="default",
        pattern=r"^[A-Za-z0-9._:-]{1,128}$",
        description="The source of the first API key (made at first start) and of anonymous development access.",
    )
    admin_key_file: str = Field(
        default="./var/admin-key",
        description="Where `bjaudit serve` writes the first API key it makes on a database with none (readable "
        "only by the user running it); empty not to write it.",
    )
    dev_anonymous: bool = Field(
        default=False,
        description="Development only: a request without an API key from a loopback address acts with every scope "
        "for the default source. `bjaudit serve` refuses it on an address that is not loopback.",
    )
    rate_limit: str = Field(
        default="1000/second;20000/minute",
        description="Requests each API key may make (limits' notation, ';'-separated: '100/second;5000/minute'); "
        "over it, 429 with Retry-After. Empty for no limit.",
    )
    auth_failure_limit: str = Field(
        default="20/second;600/minute",
        description="Wrong API keys each client address may send before they are answered 429 instead of 401 (a "
        "right key from the same address is never refused); empty for no limit.",
    )
    rate_limit_storage: str = Field(
        default="memory://",
        description="Where the rate limits count: memory:// (per process) or redis://host:6379 (shared by every "
        "process and host).",
    )
    body_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A single round's body must arrive within this many seconds (else 408).",
    )
    upload_idle_seconds: float = Field(
        default=60.0, gt=0, description="A batch upload that sends nothing for this many seconds fails (408)."
    )
    upload_min_bytes_per_second: int = Field(
        default=1024,
        ge=0,
        description="A batch upload must come at least this fast: the time spent waiting for it may be at most "
        "BJAUDIT_BODY_TIMEOUT_SECONDS plus a second for each this many bytes received, else it fails (408; a body "
        "trickled a byte at a time held its connection as long as each byte came within BJAUDIT_UPLOAD_IDLE_SECONDS). "
        "0: no minimum.",
    )
    batch_max_upload_bytes: int = Field(
        default=4 << 30,
        ge=1,
        description="Largest batch upload as sent (compressed, if gzipped), in bytes (413).",
    )
    batch_max_content_bytes: int = Field(
        default=4 << 30, ge=1, description="Largest batch content once decompressed, in bytes (413)."
    )
    batch_max_ratio: float = Field(
        default=200.0,
        ge=1,
        description="Largest decompressed/compressed ratio of a gzipped upload (a decompression bomb; 413), checked "
        "once 16 MiB are decompressed.",
    )
    batch_max_lines: int = Field(
        default=2_000_000, ge=1, description="Most lines in one batch upload, blank ones included (413)."
    )
    max_header_bytes: int = Field(
        default=16384, ge=1024, description="Largest total size of a request's headers, in bytes (431)."
    )
    header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="A request's headers must all arrive within this many seconds of the connection (or of the "
        "request's first byte); else 408 and the connection is closed (sockets that never finish their headers would "
        "hold every connection slot).",
    )
    keep_alive_seconds: int = Field(
        default=5,
        ge=1,
        description="An idle keep-alive connection is closed after this many seconds; so is one whose request was "
        "answered before its body had all arrived (a 401 before an unread body) and whose body does not end within it.",
    )
    max_connections_per_address: int | None = Field(
        default=100,
        ge=1,
        description="Most connections one client address holds at once (per process); one more is closed at once. "
        "Raise it behind a proxy that sends everything from one address.",
    )
    max_connections: int | None = Field(
        default=1000,
        ge=1,
        description="Concurrent connections and requests `bjaudit serve` takes before answering 503 (uvicorn "
        "limit_concurrency); empty for no limit.",
    )
    db_pool_size: int = Field(default=4, ge=1, description="Database connections kept open per process.")
    db_max_overflow: int = Field(default=4, ge=0, description="Extra connections allowed under load.")
    db_pool_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a request waits for a free connection before answering 503."
    )
    db_connect_timeout: int = Field(default=5, ge=1, description="Seconds to wait when opening a connection.")
    db_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="The longest a request waits on the database (a free connection, a lock, an answer) before "
        "answering 503 with Retry-After: a hung database never hangs the service.",
    )
    database_read_url: str = Field(
        default="",
        validation_alias=AliasChoices("BJAUDIT_DATABASE_READ_URL", "DATABASE_READ_URL", "database_read_url"),
        description="A streaming standby of the PostgreSQL primary (postgresql://user@host:5433/db) that serves "
        "searches, reports, shoe reconciliations and the workbench's pages; writes, idempotency, keys, batches' "
        "progress and alerts stay on the primary. Empty: every read on the primary.",
    )
    read_max_lag_seconds: float = Field(
        default=30.0,
        gt=0,
        description="The most the standby may be behind the primary and still serve reads (checked at most once a "
        "second); past it, or when it cannot be reached, BJAUDIT_READ_FALLBACK says what happens.",
    )
    read_fallback: Literal["primary", "unavailable"] = Field(
        default="primary",
        description="When the standby lags or is down: 'primary' serves the read from the primary, 'unavailable' "
        "answers 503 (urn:bjaudit:problem:read-replica-unavailable, Retry-After) to keep the read load off it.",
    )
    retry_after_seconds: int = Field(
        default=5,
        ge=1,
        description="Retry-After sent with a 503 of the database (unreachable, no free connection, a request that "
        "took too long in it).",
    )
    host: str = Field(default="127.0.0.1", description="Address `bjaudit serve` listens on.")
    allowed_hosts: str = Field(
        default="",
        description="The names (comma-separated; any port) a request's Host may give; `*`: any. Empty (the default): "
        "localhost, 127.0.0.1, [::1] and the address listened on with BJAUDIT_DEV_ANONYMOUS, any name otherwise. "
        "Other Hosts get 400 (a DNS-rebinding page on the loopback).",
    )
    trusted_proxies: str = Field(
        default="",
        description="Addresses (comma-separated IPs or networks, `*` for any) of the reverse proxies whose "
        "X-Forwarded-For and X-Forwarded-Proto are believed; empty (the default): none, the client is the peer of the "
        "connection. A forwarded header from anyone else is ignored (it could rotate addresses past the wrong-key "
        "limit).",
    )
    port: int = Field(default=8000, ge=1, le=65535, description="Port `bjaudit serve` listens on.")
    workers: int = Field(default=1, ge=1, description="uvicorn worker processes for `bjaudit serve`.")
    access_log: bool = Field(
        default=True,
        description="One access-log line per request (logger bjaudit.access), written by the service.",
    )
    log_level: str = Field(
        default="info", description="Log level of the service, uvicorn and `bjaudit worker`."
    )
    log_format: Literal["auto", "json", "text"] = Field(
        default="auto",
        description="Logs of `bjaudit serve` and `bjaudit worker` on standard error: 'json' (one object per line), "
        "'text' (human lines with the same fields), or 'auto': text when standard error is a terminal, JSON otherwise.",
    )
    metrics_access: Literal["public", "key", "off"] = Field(
        default="key",
        description="Who may read /metrics: anyone ('public'), an API key of every source with the read scope ('key'), or no one "
        "(no route, 404: 'off').",
    )
    batch_chunk_lines: int = Field(
        default=2000,
        ge=1,
        le=100_000,
        description="Lines per stored chunk of an uploaded batch (one job each).",
    )
    batch_runner: Literal["auto", "inline", "queue"] = Field(
        default="auto",
        description="Who audits uploaded batches: 'inline' (a thread of the API process), 'queue' (procrastinate "
        "jobs run by `bjaudit worker` processes; PostgreSQL only); 'auto' is queue on PostgreSQL, inline on SQLite.",
    )
    batch_worker_concurrency: int = Field(
        default=1,
        ge=1,
        description="Chunks one `bjaudit worker` process audits at once (run a process per core).",
    )
    embedded_workers: int = Field(
        default=1,
        ge=0,
        description="On the queue (PostgreSQL): chunks the service itself audits at once, in a worker it runs in "
        "its own process, so that `serve` alone finishes batches; 0 for deployments that run only `bjaudit worker` "
        "processes.",
    )
    batch_stalled_seconds: float = Field(
        default=10.0,
        gt=0,
        description="A worker silent (no heartbeat) this long is taken for dead: its chunks are queued again. "
        "Workers send a heartbeat, and look for lost chunks, every third of it.",
    )
    signing_key_file: str = Field(
        default="./var/signing-key.pem",
        description="The service's Ed25519 key (PEM, PKCS#8) that signs exported chain heads "
        "(GET /v1/integrity/head, `bjaudit integrity head`); made, readable only by its owner, on first use.",
    )

    witness: str = Field(
        default="",
        description="Where signed tree heads are published (comma-separated): folders, and http(s):// URLs that "
        "take a POSTed JSON head (a regulator's witness). Empty: none. `bjaudit verify --witness DIR` checks a "
        "folder's heads against the log.",
    )
    witness_interval_seconds: float = Field(
        default=600.0,
        gt=0,
        description="How often the service signs and publishes a head of each source whose log grew; also at the "
        "end of every batch.",
    )
    rollup_interval_seconds: float = Field(
        default=1.0,
        gt=0,
        description="How often the service and each worker add the rounds and re-audits stored since to the reports' "
        "rollups (reports are exact meanwhile: they add what is not rolled yet).",
    )
    public_url: str = Field(
        default="http://127.0.0.1:8000",
        description="The service's address as people reach it: the links in webhooks and streams to a round's page.",
    )
    webhooks_allow_private: bool = Field(
        default=False,
        description="Let webhooks go to loopback, private, link-local and reserved addresses (a receiver inside the "
        "casino's own network). Off: such a URL is refused when registered, and not sent to at delivery.",
    )
    webhook_poll_seconds: float = Field(
        default=0.25,
        gt=0,
        le=60,
        description="How often the service looks for findings to deliver that other processes stored (batch "
        "workers, other service processes); its own are delivered at once.",
    )
    stream_max_seconds: float = Field(
        default=3600.0,
        gt=0,
        description="How long one answer of a stream of findings (GET /v1/findings/stream, the pit page's) lasts: "
        "then it ends and the client reconnects with Last-Event-ID, losing nothing (EventSource does so by itself). "
        "Bounds how long a revoked key's or an ended session's stream goes on.",
    )
    webhook_timeout_seconds: float = Field(
        default=5.0, gt=0, le=60, description="How long a webhook's receiver has to answer."
    )
    webhook_max_failures: int = Field(
        default=15,
        ge=1,
        description="Deliveries failed in a row (each retried after 1 s, doubling to 10 min: 15 is about an hour) "
        "after which a subscription is paused, saying why, until an admin resumes it.",
    )

    @property
    def witness_sinks(self) -> tuple[str, ...]:
        return tuple(w.strip() for w in self.witness.split(",") if w.strip())

    session_key_file: str = Field(
        default="./var/session-key",
        description="The secret (HMAC-SHA256) that signs the workbench's session cookies and CSRF tokens (/ui); made, "
        "readable only by its owner, on first use. Every process of one service must read the same file.",
    )
    session_secret: str | None = Field(
        default=None,
        min_length=32,
        description="The workbench's session secret itself (at least 32 characters), instead of "
        "BJAUDIT_SESSION_KEY_FILE.",
    )
    session_hours: float = Field(
        default=8.0,
        gt=0,
        le=24 * 30,
        description="How long a workbench login (/ui) lasts, in hours; revoking its key ends it at once.",
    )

    @field_validator("rate_limit", "auth_failure_limit")
    @classmethod
    def _limits(cls, value: str) -> str:
        """A rate limit in limits' notation ('100/second;5000/minute'), or empty: checked at start, not at the first
        request."""
        if value:
            from limits import parse_many

            parse_many(value)  # ValueError: "couldn't parse rate limit string ..."
        return value

    @field_validator("rate_limit_storage")
    @classmethod
    def _limit_storage(cls, value: str) -> str:
        scheme = value.partition("://")[0].removeprefix("async+")
        if scheme not in LIMIT_STORAGES:
            raise ValueError(
                f"must be memory:// or redis://host:port (one of {', '.join(LIMIT_STORAGES)}://)"
            )
        return value

    def uses_queue(self) -> bool:
        """Whether batch chunks go to the procrastinate queue (else they are audited in the API process)."""
        if self.batch_runner == "auto":
            return sqlalchemy_url(self.database_url).startswith("postgresql")
        return self.batch_runner == "queue"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def sqlalchemy_url(url: str) -> str:
    """Map a database URL as the ecosystem writes it to the driver this service uses.

    >>> sqlalchemy_url("postgresql://postgres@127.0.0.1:5432/bjaudit")
    'postgresql+psycopg://postgres@127.0.0.1:5432/bjaudit'
    >>> sqlalchemy_url("postgres://u:p@db/bjaudit")
    'postgresql+psycopg://u:p@db/bjaudit'
    >>> sqlalchemy_url("sqlite:///var/x.sqlite3")
    'sqlite+pysqlite:///var/x.sqlite3'
    >>> sqlalchemy_url("postgresql+psycopg://h/db")
    'postgresql+psycopg://h/db'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    scheme = scheme.lower()
    if scheme in (
        "postgresql",
        "postgres",
        "postgresql+psycopg2",
        "postgresql+asyncpg",
        "postgresql+psycopg",
    ):
        return f"postgresql+psycopg://{rest}"
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return f"sqlite+pysqlite://{rest}"
    raise ValueError(f"unsupported database URL scheme {scheme!r}: use postgresql:// or sqlite:///")


def libpq_url(url: str) -> str | None:
    """The URL psycopg connects with when ``url`` names a PostgreSQL database (no SQLAlchemy driver suffix), else
    ``None``.

    >>> libpq_url("postgres://u:p@db:5432/bjaudit"), libpq_url("sqlite:///x")
    ('postgresql://u:p@db:5432/bjaudit', None)
    """
    mapped = sqlalchemy_url(url)
    prefix = "postgresql+psycopg://"
    return "postgresql://" + mapped.removeprefix(prefix) if mapped.startswith(prefix) else None
