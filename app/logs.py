"""The service's logs: one JSON object per line (or a human line), each carrying the request it was written for.

``BJAUDIT_LOG_FORMAT=json`` writes ``{"time", "level", "logger", "message", "request_id", ...}`` with every ``extra``
field of the record and, for an error, its traceback in ``exception``; ``text`` writes the same as
``time LEVEL logger: message key=value ...``; ``auto`` (the default) is ``text`` when standard error is a terminal (a
person reads it: ``make run``), ``json`` otherwise (a log collector does). ``bjaudit serve`` hands
:func:`logging_config` to uvicorn,
``bjaudit worker`` calls :func:`configure`. The request ID is set by :mod:`app.api.observability` for the request's
task (worker threads of the request inherit it).
"""

from __future__ import annotations

import logging
import logging.config
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO, Any, Literal

import orjson

LogFormat = Literal["auto", "json", "text"]

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


_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)} | {
    ord("\n"): "\\n",
    ord("\r"): "\\r",
    ord("\t"): "\\t",
    ord("\\"): "\\\\",
}
_CONTROLS |= {
    c: f"\\u{c:04x}"
    for c in (*range(0x80, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}


def escape(value: object) -> str:
    """A value as one line of a text log: control characters (a path's ``%0A``, decoded), line and bidi separators
    and the backslash escaped, so that nothing a client sends can start a log line of its own or hide one.

    >>> escape("/v1/rounds/x\\nfake line"), escape("a\\\\b"), escape("\\u202eevil")
    ('/v1/rounds/x\\\\nfake line', 'a\\\\\\\\b', '\\\\u202eevil')
    """
    return str(value).translate(_CONTROLS)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message request_id=... key=value``, then the traceback, if any, each of its lines after
    ``| ``: one log line per record, whatever its values hold (:func:`escape`)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = self._style.format(_Escaped(record))
        fields = {"request_id": request_id.get(), **_extras(record)}
        return " ".join([line, *(f"{k}={escape(v)}" for k, v in fields.items() if v is not None)])

    def formatException(self, ei: Any) -> str:  # noqa: N802 - logging's name
        return "\n".join("| " + escape(line) for line in super().formatException(ei).splitlines())

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 - logging's name
        return "\n".join("| " + escape(line) for line in stack_info.splitlines())


class _Escaped:
    """A record whose message is escaped, for the text format's first line."""

    def __init__(self, record: logging.LogRecord) -> None:
        self.__dict__.update(record.__dict__)
        self.message = escape(record.message)


def resolve(fmt: LogFormat, stream: IO[str] | None = None) -> Literal["json", "text"]:
    """The format ``fmt`` means on ``stream`` (standard error unless given): ``auto`` is ``text`` on a terminal,
    ``json`` anywhere else (a file, a pipe, a container's log, a stream that is closed or gone).

    >>> import io
    >>> resolve("auto", io.StringIO()), resolve("text", io.StringIO()), resolve("json", io.StringIO())
    ('json', 'text', 'json')
    """
    if fmt != "auto":
        return fmt
    stream = sys.stderr if stream is None else stream
    try:
        return "text" if stream is not None and stream.isatty() else "json"
    except (AttributeError, ValueError, OSError):
        return "json"


def formatter(fmt: LogFormat, stream: IO[str] | None = None) -> logging.Formatter:
    return JsonFormatter() if resolve(fmt, stream) == "json" else TextFormatter()


def logging_config(fmt: LogFormat, level: str, stream: IO[str] | None = None) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of ``bjaudit serve`` (uvicorn's ``log_config``): everything on standard
    error in ``fmt`` (``auto``: as :func:`resolve` reads it for standard error, or ``stream``, now); uvicorn's and the
    service's loggers at ``level``, other libraries' at WARNING. uvicorn's own access log is not used (the service
    writes its own, ``bjaudit.access``)."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"bjaudit": {"()": f"{__name__}.{type(formatter(fmt, stream)).__name__}"}},
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
