"""The workbench's login session and CSRF tokens: values signed with HMAC-SHA256 by a server secret, checked in
constant time. Nothing is stored server-side: the key named by a session is looked up on every request, so revoking
it ends its sessions at once.

- The session cookie ``bjaudit_session`` is ``<key_id>.<issued>.<expires>.<nonce>.<signature>``: the API key's public
  id, the times (Unix seconds) it was issued and expires, a random nonce, and the HMAC of all four.
- Before login, a CSRF token is the double-submit kind: a random ``bjaudit_csrf`` cookie, and in the form the HMAC of
  it (a page of another origin can neither read the cookie nor forge its HMAC). After login, the token is the HMAC of
  the session's nonce.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.files import create_private

SESSION_COOKIE = "bjaudit_session"
CSRF_COOKIE = "bjaudit_csrf"
COOKIE_PATH = "/ui"
SECRET_BYTES = 32
_KEY_ID = re.compile(r"^[0-9a-f]{16}$")
_NONCE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class SessionSecretUnusable(Exception):
    """The session secret's file cannot be read or made, or holds too little."""


def load_secret(secret: str | None, path: Path | str) -> bytes:
    """The session secret: ``secret`` itself when given, else the file at ``path`` (hex), made with 32 random bytes
    (mode 0600) when missing."""
    if secret is not None:
        return secret.encode()
    path = Path(path)
    if not path.exists():
        value = secrets.token_bytes(SECRET_BYTES)
        if create_private(path, (value.hex() + "\n").encode()):
            return value
    try:
        value = bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError) as exc:
        raise SessionSecretUnusable(f"The session secret {str(path)!r} cannot be read: {exc}") from exc
    if len(value) < SECRET_BYTES:
        raise SessionSecretUnusable(
            f"The session secret {str(path)!r} holds {len(value)} bytes; it needs {SECRET_BYTES} (hex)."
        )
    return value


def _mac(secret: bytes, purpose: str, text: str) -> str:
    digest = hmac.new(secret, f"{purpose}\n{text}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


@dataclass(frozen=True, slots=True)
class Session:
    key_id: str
    issued: int
    expires: int
    nonce: str


def issue(secret: bytes, key_id: str, now: int, lifetime: int) -> tuple[Session, str]:
    """A new session of ``key_id`` and its cookie value."""
    session = Session(key_id, now, now + lifetime, secrets.token_urlsafe(18))
    body = f"{key_id}.{session.issued}.{session.expires}.{session.nonce}"
    return session, f"{body}.{_mac(secret, 'session', body)}"


def verify(secret: bytes, value: str | None, now: int, lifetime: int) -> Session | None:
    """The session of a cookie value: signed by ``secret``, issued in the past, not expired, and not older than
    ``lifetime`` (a shorter lifetime setting ends longer sessions issued before it). None otherwise.

    >>> secret = b"s" * 32
    >>> _, cookie = issue(secret, "0123456789abcdef", 1000, 3600)
    >>> verify(secret, cookie, 2000, 3600).key_id
    '0123456789abcdef'
    >>> verify(secret, cookie, 4600, 3600), verify(secret, cookie, 2000, 60), verify(b"t" * 32, cookie, 2000, 3600)
    (None, None, None)
    >>> verify(secret, cookie.replace("0123", "0124"), 2000, 3600), verify(secret, "x.y", 2000, 3600)
    (None, None)
    """
    if not value:
        return None
    parts = value.split(".")
    if len(parts) != 5:
        return None
    key_id, issued_text, expires_text, nonce, signature = parts
    body = ".".join(parts[:4])
    if not hmac.compare_digest(_mac(secret, "session", body), signature):
        return None
    if not (
        _KEY_ID.match(key_id) and _NONCE.match(nonce) and issued_text.isdigit() and expires_text.isdigit()
    ):
        return None
    issued, expires = int(issued_text), int(expires_text)
    if not issued - 60 <= now < min(expires, issued + lifetime):
        return None
    return Session(key_id, issued, expires, nonce)


def session_token(secret: bytes, session: Session) -> str:
    """The CSRF token of a logged-in session's forms."""
    return _mac(secret, "csrf-session", session.nonce)


def new_csrf_cookie() -> str:
    return secrets.token_urlsafe(24)


def cookie_token(secret: bytes, cookie: str) -> str:
    """The CSRF token of the forms shown before login (double submit: the form carries the HMAC of the cookie).

    >>> cookie_token(b"s" * 32, "abc") == cookie_token(b"s" * 32, "abc") != cookie_token(b"s" * 32, "abd")
    True
    """
    return _mac(secret, "csrf-cookie", cookie)


def same(expected: str, given: str | None) -> bool:
    """A token as expected, compared in constant time.

    >>> same("abc", "abc"), same("abc", "abd"), same("abc", None), same("abc", "")
    (True, False, False, False)
    """
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


def safe_next(value: str | None) -> str:
    """Where to go after login: a path of the workbench on this site, else the search page. Never another site
    (an open redirect): no scheme, no host, no ``//`` or ``\\`` that a browser would read as a host, no ``..``.

    >>> safe_next("/ui/rounds/R1?source=a"), safe_next(None), safe_next("/ui")
    ('/ui/rounds/R1?source=a', '/ui', '/ui')
    >>> safe_next("https://evil.example/ui"), safe_next("//evil.example/ui"), safe_next("/ui\\\\evil.example")
    ('/ui', '/ui', '/ui')
    >>> safe_next("/uix"), safe_next("/v1/rounds"), safe_next("/ui/../v1/keys"), safe_next("/ui/login")
    ('/ui', '/ui', '/ui', '/ui')
    """
    if not value or len(value) > 2000 or any(c in value for c in "\\\r\n\t\x00") or value.startswith("//"):
        return "/ui"
    parts = urlsplit(value)
    path = parts.path
    if parts.scheme or parts.netloc or not (path == "/ui" or path.startswith("/ui/")):
        return "/ui"
    if ".." in unquote(path).split("/") or path.startswith(("/ui/login", "/ui/logout")):  # (%2e%2e is .. too)
        return "/ui"
    return value
