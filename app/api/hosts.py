"""The Host allow-list: a request whose ``Host`` is not one of the service's names is refused (400, a problem).

A page on ``attacker.example`` whose name the attacker then points at 127.0.0.1 (DNS rebinding) sends its requests
to a service on the loopback with ``Host: attacker.example``: with ``BJAUDIT_DEV_ANONYMOUS`` that minted an admin
key. ``BJAUDIT_ALLOWED_HOSTS`` lists the names (any port; ``*``: any). By default, with ``BJAUDIT_DEV_ANONYMOUS`` (which
serves the loopback only) the service answers only ``localhost``, ``127.0.0.1``, ``[::1]`` and the address it was
reached on (the one it listens on: ``127.0.0.2`` when bound there); without it, any name:
everything but health and the documents needs a key or a session cookie (SameSite=Strict), which a rebinding page
does not have. Set the list in production all the same.
"""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.problems import PROBLEM_JSON
from app.usecases.errors import PROBLEM_TYPE_PREFIX

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def allowed_hosts(setting: str, anonymous: bool) -> frozenset[str] | None:
    """The names allowed (lowercase, without port), or None for any.

    >>> sorted(allowed_hosts("", True)), allowed_hosts("", False), allowed_hosts("*", True)
    (['127.0.0.1', '::1', 'localhost'], None, None)
    >>> sorted(allowed_hosts("audit.example, [::1]", False))
    ['::1', 'audit.example']
    """
    names = [n.strip().lower().strip("[]") for n in setting.split(",") if n.strip()]
    if "*" in names:
        return None
    if not names:
        return frozenset(LOOPBACK_NAMES) if anonymous else None
    return frozenset(names)


def host_name(header: str) -> str:
    """A Host header's name, without its port, lowercase.

    >>> host_name("LocalHost:8000"), host_name("[::1]:8000"), host_name("[::1]"), host_name("a.example")
    ('localhost', '::1', '::1', 'a.example')
    """
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    return value.rpartition(":")[0] if value.count(":") == 1 else value


class HostGuard:
    """``allowed``: the names answered (None: any); ``own_address``: the address a request reached the service on too
    (the default list's "bound host")."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] | None, own_address: bool = False) -> None:
        self.app, self.allowed, self.own_address = app, allowed, own_address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.allowed is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        name = host_name(host)
        server = scope.get("server")
        if name in self.allowed or (
            self.own_address and server and name == str(server[0]).lower().strip("[]")
        ):
            await self.app(scope, receive, send)
            return
        names = set(self.allowed) | ({str(server[0]).lower()} if self.own_address and server else set())
        body = orjson.dumps(
            {
                "type": PROBLEM_TYPE_PREFIX + "host-not-allowed",
                "title": "The Host header names another server",
                "status": 400,
                "detail": f"This service answers to {', '.join(sorted(names))} (BJAUDIT_ALLOWED_HOSTS), not to {host!r}.",
            }
        )
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", PROBLEM_JSON.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
