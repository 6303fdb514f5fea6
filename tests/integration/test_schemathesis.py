"""Schemathesis against a live ``bjaudit serve`` (issue 8): every operation of the OpenAPI document the service
publishes, called with generated requests, valid and invalid, must answer without a 5xx, with a documented status
code, a documented content type and documented headers, and a body that matches the document.

On a new SQLite database and on PostgreSQL, with the first API key the service writes (every scope, source
``default``). Phases: the operations' examples; schemathesis's coverage cases (the boundaries of every parameter
and body field, values missing and of the wrong type); then ``BJAUDIT_FUZZ_EXAMPLES`` random cases per operation
(default :data:`EXAMPLES`: about 25 s a database on two cores). ``make fuzz-api`` runs this file alone with more.
Seeded (``BJAUDIT_FUZZ_SEED``, default :data:`SEED`): a run of the same code makes the same requests.

Schemathesis runs as its command line (``st run``), the interface it keeps stable: its pytest loader cannot run
under this pytest (9.2 renamed the node attribute the loader rewrites).

No operation is excluded. DELETE /v1/keys/{key_id} cannot revoke the key the run uses: key ids are 16 random hex
digits, which no generated value guesses. Schemathesis's stateful phase (sequences of calls, each answer feeding
the next request) is not run: it would take the run's own key id from GET /v1/keys and revoke it, and every request
after would be a 401 that proves nothing. The batch upload's NDJSON body, which schemathesis cannot generate
from a ``format: binary`` schema, comes from tests/integration/schemathesis_hooks.py;
:func:`test_batches_answer_as_documented` follows hand-written uploads to their progress and results, which a
generated batch_id never finds.

Not checked: ``positive_data_acceptance`` (a request the document allows is accepted). Some are rightly refused: a
round has rules JSON Schema cannot say (a seat listed twice, a NUL in table.id), ``?rule=`` must name a rule we
hold, a key for every source cannot submit.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis

from tests.integration.schemathesis_hooks import NDJSON, ROUNDS
from tests.live_service import ROOT, live_key, live_service

EXAMPLES = 8
SEED = 20261203
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",  # a request the document calls invalid is refused (4xx)
    "ignored_auth",  # a route that needs a key refuses the request without it
    "unsupported_method",  # a method the path does not take is a 405 ...
    "allow_header_conformance",  # ... whose Allow names every method it takes
)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, Path]]:
    """A live service on a new database of each kind: (base URL, its first key, a scratch directory)."""
    workdir = tmp_path_factory.mktemp(f"schemathesis-{request.param}")
    if request.param == "sqlite":
        url = f"sqlite:///{workdir / 'live.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_database")("st")
    # The run sends wrong keys on purpose (coverage cases of the Authorization header, ignored_auth): past
    # BJAUDIT_AUTH_FAILURE_LIMIT every request from its address, right key or not, would be a 429 that proves
    # nothing (tests/integration/test_auth.py tests the limit).
    # A stream of findings ends after 1 s (BJAUDIT_STREAM_MAX_SECONDS), so that it is checked like any answer.
    env = {"DATABASE_URL": url, "BJAUDIT_AUTH_FAILURE_LIMIT": "", "BJAUDIT_STREAM_MAX_SECONDS": "1"}
    with live_service(workdir, env) as (base, _):
        yield base, live_key(workdir), workdir


def test_every_operation_answers_as_documented(live: tuple[str, str, Path]) -> None:
    base, key, workdir = live
    run = subprocess.run(
        [
            *(sys.executable, "-m", "schemathesis.cli", "run", f"{base}/openapi.json"),
            *("--header", f"Authorization: Bearer {key}"),
            *("--checks", ",".join(CHECKS)),
            *("--phases", "examples,coverage,fuzzing"),
            *("--max-examples", os.environ.get("BJAUDIT_FUZZ_EXAMPLES", str(EXAMPLES))),
            *("--seed", os.environ.get("BJAUDIT_FUZZ_SEED", str(SEED))),
            *("--generation-database", "none"),  # the same requests each run: none replayed from earlier runs
            # One worker: the same order each run (with two, CPython 3.11's ast.parse, which hypothesis calls to
            # describe a strategy, failed once in a thread: "AST constructor recursion depth mismatch").
            *("--workers", "1", "--request-timeout", "30", "--no-color"),
        ],
        cwd=workdir,  # (where it keeps its state)
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SCHEMATHESIS_HOOKS": "tests.integration.schemathesis_hooks",
        },
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _call(
    api: Any, key: str, path: str, method: str, headers: dict[str, str] | None = None, **kwargs: Any
) -> Any:
    """One hand-made request, checked as the generated ones are."""
    case = api[path][method].Case(headers={"Authorization": f"Bearer {key}", **(headers or {})}, **kwargs)
    return case.call_and_validate(checks=[getattr(schemathesis.checks, name) for name in CHECKS])


def test_batches_answer_as_documented(live: tuple[str, str, Path]) -> None:
    """Uploads of every shape the route reads (plain, gzip, repeated, empty, refused), then their progress and
    results: each answer as the document says."""
    base, key, _ = live
    api = schemathesis.openapi.from_url(f"{base}/openapi.json")
    day = b"\n".join(ROUNDS) + b"\n"
    uploads: list[tuple[bytes, dict[str, str], set[int]]] = [
        (day, {}, {200, 202}),
        (day, {}, {200}),  # the same content again: its batch
        (b"\n".join([ROUNDS[0], b"{", b"", b"not json", ROUNDS[1]]), {}, {200, 202}),
        (gzip.compress(day + ROUNDS[2]), {"Content-Encoding": "gzip"}, {200, 202}),
        (b"", {}, {200, 202}),  # (200 if a generated upload sent it before)
        (day, {"Content-Encoding": "br"}, {415}),
        (b"\x1f\x8b\x08\x00 not gzip", {"Content-Encoding": "gzip"}, {400}),
    ]
    batches = []
    for body, headers, statuses in uploads:
        answer = _call(api, key, "/v1/batches", "POST", body=body, media_type=NDJSON, headers=headers)
        assert answer.status_code in statuses, answer.text
        if answer.status_code < 300:
            batches.append(answer.json()["batch_id"])
    assert _call(api, key, "/v1/batches", "POST", body=day, media_type="text/plain").status_code == 415
    for batch_id in batches:
        _call(api, key, "/v1/batches/{batch_id}", "GET", path_parameters={"batch_id": batch_id})
        for only in (None, "findings", "rejected"):
            query = {"only": only} if only else None
            _call(
                api,
                key,
                "/v1/batches/{batch_id}/results",
                "GET",
                path_parameters={"batch_id": batch_id},
                query=query,
            )
