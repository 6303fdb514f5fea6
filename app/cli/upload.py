"""The client side of batches: ``bjaudit upload`` streams NDJSON files to a service, follows each batch, prints
its summary and saves its results. Used by the CLI and by ``bench/batch_ingest.py``."""

from __future__ import annotations

import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import orjson

EXIT_OK, EXIT_FINDINGS, EXIT_FAILED = 0, 1, 2
BLOCK = 256 * 1024
RATE_AFTER_SECONDS = 1.0
"""An upload's rate is shown once it has been sending this long: before, it would measure how fast the first blocks
went into buffers (a block read, the socket's), not how fast the upload goes."""

Clock = Callable[[], float]


class Progress:
    """One carriage-return line on stderr, redrawn at most ~5 times a second."""

    def __init__(self, err: IO[str], clock: Clock = time.monotonic) -> None:
        self.err = err
        self.clock = clock
        self.last: float | None = None
        self.tty = err.isatty()

    def show(self, text: str, force: bool = False) -> None:
        now = self.clock()
        if force or self.last is None or now - self.last >= (0.2 if self.tty else 2.0):
            self.last = now
            self.err.write(("\r\x1b[K" if self.tty else "") + text + ("" if self.tty else "\n"))
            self.err.flush()

    def done(self) -> None:
        if self.tty:
            self.err.write("\n")
            self.err.flush()


def _is_gzip(path: Path) -> bool:
    """Gzipped, by its first bytes (a .gz file, or one that is gzipped without being called so)."""
    with path.open("rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _body(
    path: Path, compress: bool, packed: bool, progress: Progress, stats: dict[str, float]
) -> Iterator[bytes]:
    """The file's blocks (gzipped if ``compress``), each counted in ``stats`` and the progress line once the client
    asks for the next one: once it has written this one to the connection."""
    started = stats["started"] = progress.clock()
    gz = zlib.compressobj(6, zlib.DEFLATED, 31) if compress else None
    with path.open("rb") as f:
        while block := f.read(BLOCK):
            yield gz.compress(block) if gz is not None else block
            stats["bytes"] += len(block)
            stats["lines"] += block.count(b"\n")
            elapsed = progress.clock() - started
            mb = stats["bytes"] / 1e6
            rounds = "" if packed else f"{int(stats['lines']):,} rounds, "
            rate = f", {mb / elapsed:,.1f} MB/s" if elapsed >= RATE_AFTER_SECONDS else ""
            progress.show(f"uploading {path.name}: {rounds}{mb:,.1f} MB{rate}")
    if gz is not None:
        yield gz.flush()


def upload_file(
    client: httpx.Client, path: Path, *, gzip: bool, err: IO[str], clock: Clock = time.monotonic
) -> dict[str, Any]:
    """POST one file to /v1/batches; the answer's JSON (batch_id, location, lines_received, created). The last
    progress line times the upload from its first block to the service's answer (the file stored)."""
    progress = Progress(err, clock)
    stats = {"bytes": 0.0, "lines": 0.0, "started": clock()}
    already_gz = _is_gzip(path)
    headers = {"Content-Type": "application/x-ndjson"}
    if gzip or already_gz:
        headers["Content-Encoding"] = "gzip"
    resp = client.post(
        "/v1/batches",
        content=_body(path, gzip and not already_gz, already_gz, progress, stats),
        headers=headers,
    )
    stats["seconds"] = clock() - stats["started"]
    mb = stats["bytes"] / 1e6
    progress.show(
        f"uploaded {path.name}: {mb:,.1f} MB in {stats['seconds']:.1f} s "
        f"({mb / max(stats['seconds'], 1e-6):,.1f} MB/s)",
        force=True,
    )
    progress.done()
    if resp.status_code not in (200, 202):
        raise UploadFailed(_problem_text(resp))
    body: dict[str, Any] = resp.json()
    return body


class UploadFailed(Exception):
    pass


def _problem_text(resp: httpx.Response) -> str:
    try:
        p = resp.json()
        return f"{resp.status_code} {p.get('title', '')}: {p.get('detail', '')}"
    except ValueError:
        return f"{resp.status_code} {resp.text[:200]}"


def wait_for(client: httpx.Client, location: str, err: IO[str], poll: float = 0.5) -> dict[str, Any]:
    """Follow a batch until done or failed, showing its progress; its final status."""
    progress = Progress(err)
    warned = False
    while True:
        resp = client.get(location)
        if resp.status_code != 200:
            raise UploadFailed(_problem_text(resp))
        st: dict[str, Any] = resp.json()
        if st.get("stalled") and not warned:  # said once; the batch waits for a worker, and so do we
            progress.done()
            err.write(f"warning: {st['stalled']}\n")
            err.flush()
            warned = True
        c = st["counts"]
        total = max(c["lines_received"], 1)
        rate = st.get("rate_per_second") or 0
        progress.show(
            f"auditing: {c['audited']:,}/{c['lines_received']:,} rounds ({100 * c['audited'] / total:.0f}%), "
            f"{rate:,.0f} rounds/s, {st['state']}",
            force=st["state"] in ("done", "failed"),
        )
        if st["state"] in ("done", "failed"):
            progress.done()
            return st
        time.sleep(poll)


def summary(st: dict[str, Any]) -> str:
    c = st["counts"]
    return (
        f"batch {st['batch_id']} {st['state']}: {c['lines_received']:,} lines, {c['compliant']:,} compliant, "
        f"{c['violations']:,} with violations, {c['unreplayable']:,} unreplayable, {c['rejected']:,} rejected, "
        f"{c['duplicates']:,} duplicates, {c['conflicts']:,} conflicts; {st['elapsed_seconds']:.1f} s"
        + (f", {st['rate_per_second']:,.0f} rounds/s" if st.get("rate_per_second") else "")
        + (f"; error: {st['error']}" if st.get("error") else "")
    )


def save_results(client: httpx.Client, batch_id: str, target: IO[bytes], tag: str | None = None) -> int:
    """Stream a batch's results into ``target`` (with ``"file": tag`` on each line when given); lines written."""
    n = 0
    with client.stream("GET", f"/v1/batches/{batch_id}/results") as resp:
        if resp.status_code != 200:
            resp.read()
            raise UploadFailed(_problem_text(resp))
        for line in resp.iter_lines():
            if not line:
                continue
            if tag is not None:
                obj = orjson.loads(line)
                line = orjson.dumps({"file": tag, **obj}).decode()
            target.write(line.encode() + b"\n")
            n += 1
    return n


def upload_files(
    paths: list[str],
    *,
    url: str,
    key: str | None = None,
    results: str | None = None,
    gzip: bool = False,
    wait: bool = True,
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
) -> int:
    status = EXIT_OK
    timeout = httpx.Timeout(30.0, read=600.0)  # the answer comes once the whole file is stored
    res_file = open(results, "wb") if results else None  # noqa: SIM115
    try:
        auth = {"Authorization": f"Bearer {key}"} if key else {}
        with httpx.Client(base_url=url, timeout=timeout, headers=auth) as client:
            for name in paths:
                path = Path(name)
                try:
                    accepted = upload_file(client, path, gzip=gzip, err=err)
                except (UploadFailed, httpx.HTTPError, OSError) as exc:
                    print(f"bjaudit upload: {name}: {exc}", file=err)
                    status = EXIT_FAILED
                    continue
                again = "" if accepted.get("created", True) else " (uploaded before: the same batch)"
                print(
                    f"{name}: batch {accepted['batch_id']}, {accepted['lines_received']:,} lines stored{again}",
                    file=err,
                )
                if not wait:
                    out.write(orjson.dumps(accepted).decode() + "\n")
                    continue
                st = wait_for(client, accepted["location"], err)
                out.write(summary(st) + "\n")
                c = st["counts"]
                if st["state"] == "failed" or c["rejected"]:
                    status = max(status, EXIT_FAILED)
                elif c["violations"] or c["unreplayable"] or c["duplicates"] or c["conflicts"]:
                    status = max(status, EXIT_FINDINGS)
                if res_file is not None:
                    n = save_results(client, st["batch_id"], res_file, name if len(paths) > 1 else None)
                    print(f"results: {n:,} lines written to {results}", file=err)
    finally:
        if res_file is not None:
            res_file.close()
    return status
