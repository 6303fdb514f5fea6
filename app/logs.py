"""The service's logs: one JSON object per line (or a human line), each carrying the request it was written for.

``BJAUDIT_LOG_FORMAT=json`` (the default) writes ``{"time", "level", "logger", "message", "request_id", ...}`` with
every ``extra`` field of the record and, for an error, its traceback in ``exception``; ``text`` writes the same as
``time LEVEL logger: message key=value ...``. ``bjaudit serve`` hands :func:`logging_config` to uvicorn,
``bjaudit worker`` calls :func:`configure`. The request ID is set by :mod:`app.api.observability` for the request's
task (worker threads of the request inherit it).
"""

from __future__ import annotations

import logging
import logging.config
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

import orjson

LogFormat = Literal["json", "text"]

request_id: ContextVar[str | None] = ContextVar("bjaudit_request_id", default=None)
"""The ID of the request being served (``X-Request-ID``), or None outside a request."""

# What every LogRecord carries; anything else on a record came from ``extra=``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}


def rfc3339(created: float) -> str:
    """A record's time as RFC 3339 in UTC, to the millisecond.

    >>> rfc3339(0.25)
    '1970-01-01T00:00:00.250Z'
    """
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, the record's extra fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": rfc3339(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        for key, value in _extras(record).items():
            entry.setdefault(key, value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(entry, default=str).decode()


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message request_id=... key=value``, then the traceback, if any."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = super().formatMessage(record)
        fields = {"request_id": request_id.get(), **_extras(record)}
        return " ".join([line, *(f"{k}={v}" for k, v in fields.items() if v is not None)])


def formatter(fmt: LogFormat) -> logging.Formatter:
    return JsonFormatter() if fmt == "json" else TextFormatter()


def logging_config(fmt: LogFormat, level: str) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of ``bjaudit serve`` (uvicorn's ``log_config``): everything on standard
    error in ``fmt``; uvicorn's and the service's loggers at ``level``, other libraries' at WARNING. uvicorn's own
    access log is not used (the service writes its own, ``bjaudit.access``)."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"bjaudit": {"()": f"{__name__}.{type(formatter(fmt)).__name__}"}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "bjaudit", "stream": "ext://sys.stderr"}
        },
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {
            "uvicorn": {"level": level},
            "uvicorn.access": {"level": "WARNING"},
            "bjaudit": {"level": level},
        },
    }


def configure(fmt: LogFormat, level: str = "info") -> None:
    """Log as ``bjaudit serve`` does, at ``level`` for every logger (the worker's: procrastinate's lines too)."""
    config = logging_config(fmt, level)
    config["root"]["level"] = level.upper()
    logging.config.dictConfig(config)
