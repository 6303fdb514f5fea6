"""The HTTP protocol under the app: uvicorn's httptools protocol, with

- a request that is not valid HTTP answered with a problem (``application/problem+json``) like every other error,
  instead of uvicorn's plain text;
- a deadline for a request's headers (``BJAUDIT_HEADER_TIMEOUT_SECONDS``): a connection whose request headers have not
  all arrived within it — from when it opened, or from the first byte of a next request on it — is answered 408 and
  closed, so that sockets that never finish their headers cannot hold every connection slot (uvicorn waits for them
  for ever; its keep-alive timeout only runs between requests);
- a cap on the connections one address holds at once (``BJAUDIT_MAX_CONNECTIONS_PER_ADDRESS``, per process): one
  over it is closed at once, so that one client cannot take the slots of all;
- a request answered before its body has all arrived (a 401 before an unread body, a page that takes none): the rest of
  the body must arrive within ``BJAUDIT_KEEP_ALIVE_SECONDS`` of the answer, or the connection is closed. uvicorn drops
  such a body as it comes and waits for it for ever: each byte of it cancels the keep-alive timeout, so one byte after
  the answer held the connection open;
- when the server stops, the streams of alerts (Server-Sent Events: :mod:`app.api.streams`) end their answers, which
  would otherwise hold the graceful shutdown for ever (uvicorn waits for every answer in progress to end).

None of these deadlines cuts a long answer: the header deadline ends with the headers, the keep-alive and unread-body
timers run only after an answer is complete.

`bjaudit serve` runs it; nothing else of uvicorn changes.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.problems import PROBLEM_JSON
from app.config import get_settings
from app.usecases.alerts import STREAMS
from app.usecases.errors import PROBLEM_TYPE_PREFIX


def _problem(status: int, reason: str, slug: str, title: str, detail: str) -> tuple[bytes, bytes]:
    body = orjson.dumps(
        {"type": PROBLEM_TYPE_PREFIX + slug, "title": title, "status": status, "detail": detail}
    )
    return f"HTTP/1.1 {status} {reason}\r\n".encode(), body


class ProblemHttpToolsProtocol(HttpToolsProtocol):
    _limits: ClassVar[tuple[float | None, int | None] | None] = None
    """(header timeout, connections per address): from the settings, read once per process (uvicorn's worker
    processes import this class by name: it must not be made at run time)."""
    _open: ClassVar[Counter[str]] = Counter()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._headers_timer: asyncio.TimerHandle | None = None
        self._in_headers = False
        self._unread_timer: asyncio.TimerHandle | None = None
        self._address: str | None = None
        if ProblemHttpToolsProtocol._limits is None:
            settings = get_settings()
            ProblemHttpToolsProtocol._limits = (
                settings.header_timeout_seconds,
                settings.max_connections_per_address,
            )
        self.header_timeout, self.per_address = ProblemHttpToolsProtocol._limits

    # -- a problem instead of uvicorn's text

    def _answer_and_close(self, head: bytes, body: bytes) -> None:
        lines = [head]
        lines += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        lines += [
            b"content-type: " + PROBLEM_JSON.encode() + b"\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(lines) + body)
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        self._answer_and_close(
            *_problem(
                400, "Bad Request", "bad-http", "The request is not valid HTTP", f"{msg} (HTTP/1.1, RFC 9112)"
            )
        )

    # -- connections per address

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.per_address is not None and self.client:
            self._address = self.client[0]
            self._open[self._address] += 1
            if self._open[self._address] > self.per_address:
                transport.close()  # before a byte is read: the client's other connections go on
                return
        self._arm_headers_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_headers_timer()
        self._end_unread_wait()
        if self._address is not None:
            self._open[self._address] -= 1
            if self._open[self._address] <= 0:
                del self._open[self._address]
            self._address = None
        super().connection_lost(exc)

    def shutdown(self) -> None:
        STREAMS.stop()  # (the answers streaming end, then their connections close: keep-alive is off now)
        super().shutdown()

    # -- the headers' deadline

    def _arm_headers_timer(self) -> None:
        if self.header_timeout is not None and self._headers_timer is None:
            self._headers_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm_headers_timer(self) -> None:
        if self._headers_timer is not None:
            self._headers_timer.cancel()
            self._headers_timer = None

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers = True
        self._arm_headers_timer()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._disarm_headers_timer()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # The body of a request answered early has ended in time: the connection is kept alive again.
        if self._unread_timer is not None:
            self._end_unread_wait()
            if not self.transport.is_closing() and self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.timeout_keep_alive_handler
                )

    def on_response_complete(self) -> None:
        # With no request queued behind it, the request answered is the last one parsed (a queued one was parsed
        # after its body ended).
        unread = not self.pipeline and self.cycle is not None and self.cycle.more_body
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if unread:
            self._unread_timer = self.loop.call_later(self.timeout_keep_alive, self._unread_too_slow)
        # Between requests uvicorn's keep-alive timeout runs; a next request's headers already coming (pipelined) keep
        # their deadline, or get one if it passed while the request before them was being answered.
        if not self._in_headers:
            self._disarm_headers_timer()
        elif self._headers_timer is None:
            self._arm_headers_timer()

    def _end_unread_wait(self) -> None:
        if self._unread_timer is not None:
            self._unread_timer.cancel()
            self._unread_timer = None

    def _unread_too_slow(self) -> None:
        self._unread_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _headers_too_slow(self) -> None:
        self._headers_timer = None
        if self.transport.is_closing() or (self.cycle is not None and not self.cycle.response_complete):
            return
        self._answer_and_close(
            *_problem(
                408,
                "Request Timeout",
                "header-timeout",
                "The request's headers did not arrive in time",
                f"The request's headers did not all arrive within {self.header_timeout:g} s "
                "(BJAUDIT_HEADER_TIMEOUT_SECONDS); send them at once.",
            )
        )
