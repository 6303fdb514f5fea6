"""Where the time of one round goes: cProfile over what a submission and a batch line do before the database
(read the record, audit it, encode the result: ``app.usecases.rounds.audit``), on generated rounds.

    python -m bench.profile_round [--rounds 5000] [--top 20] [--seed 7] [--pstats FILE]

Prints the time per round under the profiler, the share of each part of the code (the wire format, the replay,
the checks by topic, the jurisdictions' rule data, encoding, the rest), and the functions that cost most in
themselves. The profiler slows Python calls down more than C ones: read the shares, not the microseconds, and
measure speed with `make bench`. ``--pstats`` keeps the raw profile (for snakeviz or pstats).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from collections import defaultdict

from app.usecases import rounds
from bench.audit_throughput import make_corpus

# Parts of the code, by the file a function lives in (first match wins).
PARTS = [
    (
        "wire format: msgspec parse + validate (the model when it refuses)",
        ("app/wire/", "pydantic", "msgspec"),
    ),
    ("replay: the state of play", ("app/domain/replay.py", "app/domain/state.py")),
    ("checks by topic", ("app/domain/checks/",)),
    ("engine: findings, results", ("app/domain/",)),
    ("jurisdictions: rules as data", ("app/jurisdictions/",)),
    ("use case glue", ("app/usecases/",)),
    ("encode: orjson", ("orjson",)),
]


Parts = list[tuple[str, tuple[str, ...]]]


def part_of(filename: str, function: str, parts: Parts = PARTS) -> str:
    where = f"{filename}:{function}"
    for name, needles in parts:
        if any(n in where for n in needles):
            return name
    return "other (builtins, stdlib)"


def shares(profiler: cProfile.Profile, n: int, top: int, parts: Parts = PARTS) -> None:
    """Print the time per round under the profiler, the share of each part of the code and the ``top`` costliest
    functions (time in themselves) of a profile over ``n`` rounds."""
    entries = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = sum(tt for (_, _, tt, _, _) in entries.values())
    by_part: dict[str, float] = defaultdict(float)
    for (filename, _, function), (_, _, tt, _, _) in entries.items():
        by_part[part_of(filename, function, parts)] += tt
    print(f"under the profiler: {total / n * 1e6:.1f} us/round")
    print(f"\n{'part of the code':<64}{'share':>8}{'us/round':>10}")
    for name, tt in sorted(by_part.items(), key=lambda kv: -kv[1]):
        print(f"{name:<64}{tt / total:>8.1%}{tt / n * 1e6:>10.1f}")
    print(f"\n{'function (time in itself)':<80}{'calls/round':>12}{'share':>8}")
    for (filename, line, function), (_, ncalls, tt, _, _) in sorted(
        entries.items(), key=lambda kv: -kv[1][2]
    )[:top]:
        short = filename.split("site-packages/")[-1].split("/work/main/")[-1]
        label = f"{short}:{line} {function}"
        print(f"{label[-79:]:<80}{ncalls / n:>12.1f}{tt / total:>8.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--error-rate", type=float, default=0.1)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--pstats", metavar="FILE", help="also write the raw profile here")
    args = ap.parse_args()

    corpus = make_corpus(args.rounds, args.seed, args.error_rate)
    for record in corpus[:200]:  # warm up (imports, caches)
        rounds.audit(record)
    profiler = cProfile.Profile()
    profiler.enable()
    for record in corpus:
        rounds.audit(record)
    profiler.disable()
    if args.pstats:
        profiler.dump_stats(args.pstats)

    print(f"{len(corpus)} rounds through app.usecases.rounds.audit")
    shares(profiler, len(corpus), args.top)


if __name__ == "__main__":
    main()
