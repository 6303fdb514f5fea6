"""Why a request cannot be served: one exception tree, mapped to problem details in one handler (the HTTP API's
:mod:`app.api.problems`, the CLI's error lines, a batch line's ``problem``)::

    ServiceError
      +-- InvalidRound          422  the record cannot be read (schema, or it contradicts itself before replay)
      |     +-- RoundInFuture   422  its played_at is more than 5 minutes after the service received it
      +-- CannotAudit           422  no rules to audit it by (unknown jurisdiction, no ruleset in force)
      +-- InvalidQuery          422  a search parameter that cannot be used (a bad cursor)
      +-- RoundConflict         409  the round_id was already submitted with a different record
      +-- AmbiguousRound        409  the round_id names rounds of several submitters or jurisdictions
      +-- RoundNotFound         404
      +-- RoundArchived         410  its month was archived (bjaudit archive): the problem says where to
      +-- ShoeNotFound          404  no stored round (of the key's source) has that shoe_id
      +-- AmbiguousShoe         409  the shoe_id names rounds of several submitters or jurisdictions
      +-- ShoeTooLarge          422  more rounds under one shoe_id than a reconciliation reads
      +-- ElectionsInvalid      422  a table elections registration cannot be read
      +-- ElectionsConflict     409  other elections are already registered for that table and effective_from
      +-- Unauthenticated       401  no valid API key (missing, unknown, revoked)
      +-- Forbidden             403  the key lacks the scope, or the data is another source's
      +-- KeyInvalid            422  a key that cannot be created (unknown scope, submit for every source)
      +-- KeyNotFound           404
      +-- RateLimited           429  over the key's rate limit (Retry-After)
      +-- (batches: LineTooLong, UploadTooLarge 413, UploadIncomplete 400, BatchNotFound 404)
      +-- (HTTP-level errors in app.api.problems: 408, 413, 415)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar


class ServiceError(Exception):
    """Base of every error the service answers on purpose. ``status``/``slug``/``title`` become the problem."""

    status: ClassVar[int] = 500
    slug: ClassVar[str] = "internal"
    title: ClassVar[str] = "Internal error"

    def __init__(
        self,
        detail: str,
        *,
        errors: Sequence[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = list(errors) if errors is not None else None
        self.extra = extra or {}
        self.headers = headers or {}


PROBLEM_TYPE_PREFIX = "urn:bjaudit:problem:"


def problem_body(exc: ServiceError, instance: str | None = None) -> dict[str, Any]:
    """The RFC 9457 problem details of an error, as a JSON-able dict (the API's answer, the CLI's error line)."""
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_PREFIX + exc.slug,
        "title": exc.title,
        "status": exc.status,
        "detail": exc.detail,
    }
    if instance is not None:
        body["instance"] = instance
    if exc.errors is not None:
        body["errors"] = exc.errors
    body.update({k: v for k, v in exc.extra.items() if k not in body})
    return body


class InvalidRound(ServiceError):
    status, slug, title = 422, "round-invalid", "The round cannot be read"


class RoundInFuture(InvalidRound):
    """The round's ``played_at`` is more than 5 minutes after the moment the service received it: it cannot have
    been played yet (round-v1 section 2.3)."""

    status, slug, title = 422, "round-in-future", "The round was played after it was received"


class CannotAudit(ServiceError):
    status, slug, title = 422, "round-not-auditable", "The round cannot be audited"


class InvalidQuery(ServiceError):
    status, slug, title = 422, "query-invalid", "The query cannot be used"


class RoundConflict(ServiceError):
    status, slug, title = 409, "round-conflict", "The round_id was already submitted with a different record"


class AmbiguousRound(ServiceError):
    status, slug, title = 409, "round-ambiguous", "The round_id names more than one stored round"


class RoundNotFound(ServiceError):
    status, slug, title = 404, "round-not-found", "No such round"


class RoundArchived(ServiceError):
    status, slug, title = 410, "round-archived", "The round's month was archived"


class ShoeNotFound(ServiceError):
    status, slug, title = 404, "shoe-not-found", "No such shoe"


class AmbiguousShoe(ServiceError):
    status, slug, title = (
        409,
        "shoe-ambiguous",
        "The shoe_id names rounds of more than one submitter or jurisdiction",
    )


class ShoeTooLarge(ServiceError):
    status, slug, title = 422, "shoe-too-large", "The shoe has more rounds than a reconciliation reads"


class ElectionsInvalid(ServiceError):
    status, slug, title = 422, "elections-invalid", "The table elections cannot be read"


class ElectionsConflict(ServiceError):
    status, slug, title = (
        409,
        "elections-conflict",
        "Other elections are already registered for the table from that time",
    )


class Unauthenticated(ServiceError):
    """No key, or not a valid one (unknown, revoked, malformed). Answered with ``WWW-Authenticate: Bearer``."""

    status, slug, title = 401, "unauthenticated", "A valid API key is required"


class Forbidden(ServiceError):
    """A valid key without the scope the route needs, or asking for another source's data."""

    status, slug, title = 403, "forbidden", "This API key may not do that"


class KeyInvalid(ServiceError):
    status, slug, title = 422, "key-invalid", "The API key cannot be created"


class KeyNotFound(ServiceError):
    status, slug, title = 404, "key-not-found", "No such API key"


class RateLimited(ServiceError):
    status, slug, title = 429, "rate-limited", "Too many requests for this API key"


class SubscriptionInvalid(ServiceError):
    status, slug, title = 422, "subscription-invalid", "The subscription cannot be registered"


class SubscriptionNotFound(ServiceError):
    status, slug, title = 404, "subscription-not-found", "No such subscription"


class AlertNotFound(ServiceError):
    status, slug, title = 404, "alert-not-found", "No such alert"
