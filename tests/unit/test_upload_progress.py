"""Issue 23, item 2: `bjaudit upload`'s first progress line read "183 rounds, 0.3 MB, 861.5 MB/s" before the real
figures: its rate was measured over the time it took to read the first block from the file, before anything was sent.
A block now counts once the client has written it to the connection, a rate is shown once the upload has been
sending for a second, and the last line times the upload up to the service's answer.

The service here is an httpx transport that takes the body a block at a time over a link of a known speed, on a
clock of the test's own."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import orjson

from app.cli.upload import BLOCK, RATE_AFTER_SECONDS, upload_file

LINK_BYTES_PER_SECOND = 400_000
STORING_SECONDS = 1.5  # the service's time to store the file once it has all of it, before it answers


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _Terminal(io.StringIO):
    """Standard error on a terminal: every progress line is drawn (at most every 0.2 s)."""

    def isatty(self) -> bool:
        return True


def _ndjson(path: Path, blocks: int) -> int:
    line = orjson.dumps({"round_id": "R-" + "x" * 300}) + b"\n"
    count = blocks * BLOCK // len(line)
    path.write_bytes(line * count)
    return count


class _Link(httpx.BaseTransport):
    """A service at the end of a link of LINK_BYTES_PER_SECOND: it takes the body as the client writes it, a block at
    a time, then stores it and answers 202."""

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock
        self.received = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        for chunk in request.stream:
            self.received += len(chunk)
            self.clock.now += len(chunk) / LINK_BYTES_PER_SECOND
        self.clock.now += STORING_SECONDS
        return httpx.Response(
            202,
            json={"batch_id": "b1", "location": "/v1/batches/b1", "lines_received": 1, "created": True},
        )


def _upload(path: Path, gzip: bool = False) -> tuple[list[str], int]:
    clock = _Clock()
    link = _Link(clock)
    err = _Terminal()
    with httpx.Client(base_url="http://bjaudit.test", transport=link) as client:
        upload_file(client, path, gzip=gzip, err=err, clock=clock)
    lines = [line for line in err.getvalue().replace("\x1b[K", "").split("\r") if line.strip()]
    return [line.strip() for line in lines], link.received


def _rate(line: str) -> float | None:
    m = re.search(r"([\d,.]+) MB/s", line)
    return float(m.group(1).replace(",", "")) if m else None


def test_the_first_progress_line_claims_no_rate_it_has_not_measured(tmp_path: Path) -> None:
    path = tmp_path / "night.ndjson"
    _ndjson(path, blocks=8)
    lines, _ = _upload(path)
    first = lines[0]
    assert first.startswith("uploading night.ndjson: ") and " rounds, 0.3 MB" in first, lines
    assert _rate(first) is None, first
    link_mb_per_second = LINK_BYTES_PER_SECOND / 1e6
    sending = [line for line in lines if line.startswith("uploading")]
    rates = [r for r in map(_rate, sending) if r is not None]
    assert rates, lines  # once it has been sending for a second, the rate is the link's
    assert all(abs(r - link_mb_per_second) <= 0.05 for r in rates), lines
    seconds_per_block = BLOCK / LINK_BYTES_PER_SECOND
    assert sum(_rate(line) is None for line in sending) == int(RATE_AFTER_SECONDS // seconds_per_block), lines


def test_each_line_counts_what_was_sent_and_the_last_one_times_the_upload_to_the_answer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "night.ndjson"
    rounds = _ndjson(path, blocks=3)
    lines, received = _upload(path)
    counts = [
        int(m.group(1).replace(",", "")) for m in map(re.compile(r": ([\d,]+) rounds").search, lines) if m
    ]
    assert counts == sorted(counts) and counts[-1] == rounds, lines
    size = path.stat().st_size
    sending = (received / LINK_BYTES_PER_SECOND) + STORING_SECONDS
    assert received == size
    assert lines[-1] == (
        f"uploaded night.ndjson: {size / 1e6:,.1f} MB in {sending:.1f} s ({size / 1e6 / sending:,.1f} MB/s)"
    ), lines


def test_a_gzipped_upload_counts_the_file_sent_not_what_is_left_to_compress(tmp_path: Path) -> None:
    path = tmp_path / "night.ndjson"
    _ndjson(path, blocks=4)
    lines, received = _upload(path, gzip=True)
    assert received < path.stat().st_size  # compressed on the way
    assert _rate(lines[0]) is None, lines
    assert lines[-1].startswith(f"uploaded night.ndjson: {path.stat().st_size / 1e6:,.1f} MB in "), lines
