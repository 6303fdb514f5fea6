"""The walk of a chain (app.usecases.integrity.check_entries), without a database: what each kind of tampering
with the entries looks like, and which entry is named first."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from app.store import chain
from app.usecases.integrity import Entry, Report, check_end, check_entries


def a_chain(n: int) -> list[Entry]:
    entries, previous = [], chain.ZERO
    for seq in range(1, n + 1):
        digest = hashlib.sha256(f"round {seq}".encode()).digest()
        previous = chain.link(previous, digest)
        entries.append(Entry(seq, "round", f"round R-{seq} (US-NJ)", digest, previous, digest))
    return entries


def walk(entries: list[Entry]) -> Report:
    report = Report("s")
    last = check_entries(entries, report)
    check_end(report, last, chain.Position(10, a_chain(10)[-1].hash), (0, None), (0, []))
    return report


def first(entries: list[Entry]) -> tuple[int | None, str, str]:
    p = walk(entries).problems[0]
    return p.seq, p.kind, p.what


def test_a_sound_chain_has_no_problem() -> None:
    report = walk(a_chain(10))
    assert report.ok and report.entries == 10


def test_a_deleted_entry_is_a_missing_seq() -> None:
    entries = a_chain(10)
    del entries[4]
    assert first(entries) == (5, "deleted", "chain entry 5")
    assert walk(entries).problem_count == 1


def test_swapped_entries_are_reordered() -> None:
    entries = a_chain(10)
    entries[2], entries[3] = replace(entries[3], seq=3), replace(entries[2], seq=4)
    assert first(entries) == (3, "reordered", "round R-4 (US-NJ)")


def test_an_entry_put_between_two_is_inserted() -> None:
    entries = a_chain(9)
    forged = Entry(5, "round", "round X (US-NJ)", b"\x01" * 32, b"\x02" * 32, b"\x01" * 32)
    entries = entries[:4] + [forged] + [replace(e, seq=e.seq + 1) for e in entries[4:]]
    assert first(entries) == (5, "inserted", "round X (US-NJ)")


def test_a_changed_entry_is_modified_and_the_walk_goes_on() -> None:
    entries = a_chain(10)
    entries[6] = replace(entries[6], digest=b"\x00" * 32, row_digest=b"\x00" * 32)
    report = walk(entries)
    assert first(entries) == (7, "modified", "round R-7 (US-NJ)") and report.problem_count == 1


def test_a_changed_or_gone_row_is_named_by_its_entry() -> None:
    entries = a_chain(10)
    entries[1] = replace(entries[1], row_digest=b"\x00" * 32)
    entries[8] = replace(entries[8], row_digest=None)
    problems = walk(entries).problems
    assert [(p.seq, p.kind) for p in problems] == [(2, "modified"), (9, "deleted")]


def test_a_cut_end_and_rows_without_entries() -> None:
    report = Report("s")
    last = check_entries(a_chain(8), report)
    check_end(report, last, chain.Position(10, b"\x00" * 32), (0, None), (3, ["round F-1 (NZ)"]))
    assert [(p.seq, p.kind, p.what) for p in report.problems] == [
        (9, "deleted", "chain entries 9 to 10"),
        (None, "inserted", "round F-1 (NZ)"),
    ]
    assert report.problem_count == 4
