"""No change to any audit: the audits of a generated corpus, byte for byte, against a golden file.

The corpus (fixed seeds): mixed streams of both jurisdictions at random elections (both deal orders of New
Jersey, New Zealand's second card after the players, every optional event the generator makes: insurance, even
money, surrender, additional wagers, doubles face up and down, splits and resplits), tables whose elections make
the rare edges common, every fault class of the mutator applied to legal rounds of each jurisdiction where it
applies, rounds without ``table.rules`` audited both by the jurisdiction's defaults and by a registration, and
records the parser refuses. Each goes through the single-round path (:func:`app.usecases.rounds.audit`, what a
submission and the dry run answer) and the batch line path (:func:`app.usecases.batches.audit_lines`), which must
agree byte for byte; the golden file holds, per record, the SHA-256 of that answer and the SHA-256 of what is
stored for it: the ``rounds`` row (:func:`app.usecases.rounds.round_row`, the batch's staging row), its findings
rows, and its hash chain content.

``tests/data/golden/audits.ndjson.gz`` was made before the work of issue 11 on the hot paths. Regenerate it only for
an intended change of audits (then say so in the commit)::

    .venv/bin/python -m tests.unit.test_audits_unchanged --write
"""

from __future__ import annotations

import gzip
import hashlib
import random
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from app.domain.model import Round
from app.store import chain
from app.store import rounds as repo
from app.synth.generator import generate_rounds, random_elections
from app.synth.mutator import MUTATIONS
from app.usecases import batches, offline
from app.usecases import rounds as round_cases
from app.usecases.auditing import ENGINE_VERSION
from app.usecases.errors import ServiceError, problem_body

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "audits.ndjson.gz"
VERSIONED = GOLDEN.with_name("engine-version.txt")
"""The engine version the golden audits were made by, and their file's SHA-256: audits that change must come with a
new ENGINE_VERSION (verification re-runs stored audits under the version they name)."""
SOURCE = "golden-source"
RECEIVED_AT = datetime(2026, 12, 4, 12, 0, 0, 123456, tzinfo=UTC)
REGISTRATION_ID = 4242

# Tables whose elections make rare legal edges common (as in tests/property/test_generated.py, kept here so that
# the corpus never moves under the golden file).
TARGETED: list[tuple[str, dict[str, Any], int, int]] = [
    (
        "US-NJ",
        {
            "decks": 6,
            "dealer_soft_17": "stand",
            "blackjack_pays": "3:2",
            "dealer_second_card": "initial_deal",
            "peek": False,
            "double_card": "face_down",
            "boxes": 6,
            "resplit": True,
            "resplit_aces": True,
            "surrender": "late",
            "additional_wager": "over_under_13",
        },
        7001,
        150,
    ),
    (
        "US-NJ",
        {
            "decks": 1,
            "dealt_from": "hand",
            "dealer_soft_17": "hit",
            "blackjack_pays": "6:5",
            "double_after_split": False,
            "peek": True,
            "resplit": True,
            "resplit_aces": False,
            "boxes": 7,
            "double_card": "player_request",
            "additional_wager": "same_suit",
        },
        7002,
        150,
    ),
    (
        "NZ",
        {
            "decks": 8,
            "dealer_soft_17": "hit",
            "blackjack_pays": "3:2",
            "dealer_second_card": "after_players",
            "min_chip": 500,
            "double_after_split": False,
            "resplit": True,
            "surrender": "late",
        },
        7003,
        150,
    ),
]
PER_MUTATION_AND_JURISDICTION = 6


def legal_rounds() -> list[dict[str, Any]]:
    """The corpus's legal rounds (generated), in a fixed order."""
    legal = list(generate_rounds(1400, 20261204))
    legal += list(generate_rounds(300, 11, "US-NJ")) + list(generate_rounds(300, 12, "NZ"))
    for j, e, seed, n in TARGETED:
        legal += list(generate_rounds(n, seed, j, elections=e))
    rng = random.Random(99)
    for j in ("US-NJ", "NZ"):
        for _ in range(6):
            legal += list(generate_rounds(10, rng.randrange(1 << 30), j, elections=random_elections(rng, j)))
    return legal


def corpus() -> list[bytes]:
    """The records, in a fixed order."""
    legal = legal_rounds()
    out = [orjson.dumps(d) for d in legal]
    # every fault class of the mutator, in each jurisdiction where it applies
    for m in MUTATIONS:
        rng = random.Random(f"golden:{m.name}")
        for j in ("US-NJ", "NZ"):
            applied = 0
            for doc in legal:
                if doc["jurisdiction"] != j:
                    continue
                got = m.apply(doc, rng)
                if got is None:
                    continue
                new = dict(got[0])
                new["round_id"] = f"{new['round_id']}-{m.name}-{applied}"
                out.append(orjson.dumps(new))
                applied += 1
                if applied == PER_MUTATION_AND_JURISDICTION:
                    break
    # records the parser refuses, and one it accepts only after a closer look (a quote and a colon in a string)
    base = legal[0]
    broken: list[bytes] = [
        orjson.dumps({k: v for k, v in base.items() if k != "events"}),
        orjson.dumps({**base, "events": [*base["events"], {"type": "teleport"}]}),
        orjson.dumps({**base, "seats": [{"seat": 12, "wager": 25.5}]}),
        orjson.dumps({**base, "played_at": "yesterday"}),
        orjson.dumps(base)[:-1] + b', "round_id": "twice"}',
        orjson.dumps(base)[:200],
        b'{"round_id": "X-1", "jurisdiction": "US-NV"}',
        orjson.dumps({**base, "round_id": 'note "x": y'}),
        orjson.dumps({**base, "table": {**base["table"], "id": "T\x00"}}),
        b"\xef\xbb\xbf" + orjson.dumps(base),
        b"[]",
        b"not json",
    ]
    return out + broken


def _registration(rnd: Round) -> offline.Registered:
    return REGISTRATION_ID, random_elections(random.Random(rnd.round_id), rnd.jurisdiction)


def _value(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v.hex() if isinstance(v, bytes) else v


def _stored(done: offline.Audited, record: bytes) -> str:
    """The SHA-256 of what is stored for an audited record: its ``rounds`` row (single submission and batch
    staging row agree), its findings rows and its chain content."""
    sha = hashlib.sha256(record).hexdigest()
    row = round_cases.round_row(done, record, sha, SOURCE)
    row["received_at"] = RECEIVED_AT
    line = batches._Line(1, record, sha, done.round.round_id, done.round.jurisdiction, done)
    stage = dict(zip(batches._STAGE_NAMES.split(", "), batches._stage_row(line), strict=True))
    assert stage == {k: row[k] for k in stage}, "the batch stores the round as a single submission does"
    findings = repo.finding_rows(1, done.result.get("findings", ()), SOURCE, done.round)
    batch_findings = batches._finding_rows(1, line, SOURCE)
    assert batch_findings == [tuple(f[n] for n, _ in batches._FINDING_COLUMNS) for f in findings]
    content = chain.round_content(row)
    payload = {
        "row": {k: _value(v) for k, v in sorted(row.items())},
        "findings": [{k: _value(v) for k, v in sorted(f.items())} for f in findings],
        "findings_json": batches._findings_json(line),
        "chain": chain.content_digest(content).hex(),
        "chain_label": chain.label(content),
    }
    return hashlib.sha256(orjson.dumps(payload)).hexdigest()


def _answer(got: offline.Audited | ServiceError) -> bytes:
    return got.body if isinstance(got, offline.Audited) else orjson.dumps(problem_body(got))


def _single(record: bytes, registered: offline.ElectionsLookup | None) -> offline.Audited | ServiceError:
    try:
        return offline.audit(record, registered)
    except ServiceError as exc:
        return exc


def digests() -> Iterator[dict[str, Any]]:
    """One line per audit of the corpus: how it was audited, its round_id, the SHA-256 of the answer, and of what
    is stored."""
    records = corpus()
    lookups: dict[str, offline.ElectionsLookup | None] = {"defaults": None, "registered": _registration}
    for how, lookup in lookups.items():
        chunk = b"\n".join(records)
        batch = list(batches.audit_lines(chunk, 1, lookup))
        assert [n for n, _, _ in batch] == list(range(1, len(records) + 1))
        for (_, _, by_line), record in zip(batch, records, strict=True):
            single = _single(record, lookup)
            if how == "registered" and (
                not isinstance(single, offline.Audited) or single.round.rules is not None
            ):
                continue  # audited as above: a registration applies only to a round without table.rules
            answer = _answer(single)
            assert _answer(by_line) == answer, "a batch line is answered as the single round"
            rid = (
                single.round.round_id if isinstance(single, offline.Audited) else single.extra.get("round_id")
            )
            yield {
                "how": how,
                "round_id": rid,
                "answer": hashlib.sha256(answer).hexdigest(),
                "stored": _stored(single, record) if isinstance(single, offline.Audited) else None,
            }


def _read_golden() -> list[dict[str, Any]]:
    with gzip.open(GOLDEN, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def test_the_corpus_covers_every_deal_order_event_and_fault() -> None:
    seen: Counter[str] = Counter()
    for record in corpus():
        try:
            doc = orjson.loads(record)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("events"), list):
            continue
        events = [e for e in doc["events"] if isinstance(e, dict)]
        seen.update(f"{e.get('type')}:{e.get('bet', '')}" for e in events)
        seen.update(f"deal:face-{e['face']}" for e in events if e.get("type") == "deal" and "face" in e)
        seen.update("settle:corrects" for e in events if e.get("type") == "settle" and "corrects" in e)
        seen.update(
            "settle:result-void" for e in events if e.get("type") == "settle" and e.get("result") == "void"
        )
        dealer = [e for e in events if e.get("type") == "deal" and e.get("to") == "dealer"]
        players = [i for i, e in enumerate(events) if e.get("type") == "deal" and e.get("to") != "dealer"]
        if len(dealer) >= 2 and players:
            second = events.index(dealer[1])
            order = "after_players" if second > max(players[:4], default=0) + 1 else "initial"
            seen[f"order:{doc['jurisdiction']}:{order}:hole-{dealer[0].get('face', 'up')}"] += 1
        if "rules" not in doc.get("table", {}):
            seen["no-table-rules"] += 1
    wanted = {
        "deal:",
        "settle:main",
        "settle:insurance",
        "settle:additional",
        "hit:",
        "stand:",
        "double:",
        "split:",
        "surrender:",
        "insurance:",
        "even_money:",
        "peek:",
        "reveal:",
        "deal:face-down",
        "burn:",
        "void:",
        "settle:corrects",
        "settle:result-void",
        "order:US-NJ:initial:hole-down",
        "order:US-NJ:initial:hole-up",
        "no-table-rules",
    }
    assert wanted <= {k for k in seen if seen[k]}, sorted(wanted - set(seen))
    assert any(k.startswith("order:NZ:after_players") for k in seen), seen


def test_the_legal_rounds_of_the_corpus_are_compliant() -> None:
    """A golden file holds what the engine answered, right or wrong: its legal rounds must be answered compliant, so
    that a false alarm is never written into it."""
    alarms = [
        (doc["round_id"], [(f["rule"], f["event"]) for f in result["findings"]])
        for doc in legal_rounds()
        if (result := orjson.loads(_answer(_single(orjson.dumps(doc), None))))["verdict"] != "compliant"
    ]
    assert not alarms, alarms[:5]


def test_audits_are_byte_identical_to_the_golden_file() -> None:
    golden = _read_golden()
    now = list(digests())
    assert len(now) == len(golden), f"{len(now)} audits now, {len(golden)} in {GOLDEN.name}"
    changed = [(g, n) for g, n in zip(golden, now, strict=True) if g != n]
    assert not changed, f"{len(changed)} of {len(now)} audits changed; the first: {changed[0]}"
    # the corpus is what it claims: audited rounds, findings, registrations and refusals
    kinds = Counter((d["how"], d["stored"] is None) for d in golden)
    assert kinds[("defaults", False)] > 2500 and kinds[("defaults", True)] >= 10, kinds
    assert kinds[("registered", False)] > 50, kinds


def test_the_golden_audits_are_those_of_this_engine_version() -> None:
    version, digest = VERSIONED.read_text().split()
    assert (version, digest) == (ENGINE_VERSION, hashlib.sha256(GOLDEN.read_bytes()).hexdigest()), (
        f"{GOLDEN.name} was written by engine {version}; this is engine {ENGINE_VERSION} (regenerate it with --write)"
    )


def write() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    lines = b"".join(orjson.dumps(d) + b"\n" for d in digests())
    data = gzip.compress(lines, compresslevel=9, mtime=0)
    recorded = VERSIONED.read_text().split() if VERSIONED.exists() else ["", ""]
    if recorded[0] == ENGINE_VERSION and data != GOLDEN.read_bytes():
        sys.exit(
            f"The audits changed, but ENGINE_VERSION is still {ENGINE_VERSION}: bump it (app/usecases/auditing.py), "
            "so that audits stored before the change are not taken for forgeries by verification."
        )
    GOLDEN.write_bytes(data)
    VERSIONED.write_text(f"{ENGINE_VERSION} {hashlib.sha256(data).hexdigest()}\n")
    n = lines.count(b"\n")
    print(f"{GOLDEN}: {n} audits, {GOLDEN.stat().st_size} bytes")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write()
