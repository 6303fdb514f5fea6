"""How fast does one core audit rounds, against the cost of only parsing and validating them?

    python -m bench.audit_throughput [--rounds 20000] [--repeat 3] [--seed 7]

Generates legal rounds of both jurisdictions (and a share with injected errors), serialises them to JSON bytes,
then measures, in the same run and on the same rounds:

* parse:  bytes -> validated domain Round, as every path reads a round (app.wire.fast.parse_round: msgspec)
* model:  the same by the Pydantic model alone (app.wire.schema.parse_round: what every path did before issue 23,
          and what still reads a record the fast path refuses): the baseline of the parse
* audit:  Round -> audit result (app.usecases.auditing.audit_round: elections, replay, every check)
* both:   what `bjaudit audit` does per round, plus encoding the result with orjson

and reports rounds/s (best of --repeat runs per phase) and the ratios audit / parse and model / parse, paired run
by run (the machines are noisy: the phases of one run see the same load). The aim: parse <= audit.
No assertions: figures are for people.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time

import orjson

from app.synth.generator import generate_rounds
from app.synth.mutator import mutate
from app.usecases.auditing import audit_round
from app.wire import schema
from app.wire.fast import parse_round


def make_corpus(n: int, seed: int, error_rate: float) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for d in generate_rounds(n, seed):
        if rng.random() < error_rate:
            m = mutate(d, rng)
            if m is not None:
                d = m[0]
        out.append(orjson.dumps(d))
    return out


def timed(fn, items):  # type: ignore[no-untyped-def]
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = [fn(x) for x in items]
        return time.perf_counter() - t0, out
    finally:
        gc.enable()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--error-rate", type=float, default=0.1, help="share of rounds with one injected error")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    corpus = make_corpus(args.rounds, args.seed, args.error_rate)
    size = sum(map(len, corpus)) / len(corpus)
    parse_t, model_t, audit_t, both_t = [], [], [], []
    for _ in range(args.repeat):
        t, rounds = timed(parse_round, corpus)
        parse_t.append(t)
        t, same = timed(schema.parse_round, corpus)
        model_t.append(t)
        assert same == rounds, "the two readings differ"
        t, _ = timed(audit_round, rounds)
        audit_t.append(t)
        t, _ = timed(lambda b: orjson.dumps(audit_round(parse_round(b)).to_dict()), corpus)
        both_t.append(t)
    n = len(corpus)
    p, m, a, b = min(parse_t), min(model_t), min(audit_t), min(both_t)
    print(
        f"rounds: {n} (avg {size:.0f} bytes, {args.error_rate:.0%} with an injected error), best of {args.repeat}, one core"
    )
    print(f"{'phase':<28}{'rounds/s':>12}{'us/round':>11}")
    print(f"{'parse + validate (model)':<28}{n / m:>12,.0f}{m / n * 1e6:>11.1f}   the baseline")
    print(f"{'parse + validate':<28}{n / p:>12,.0f}{p / n * 1e6:>11.1f}   app.wire.fast")
    print(f"{'audit (replay + checks)':<28}{n / a:>12,.0f}{a / n * 1e6:>11.1f}")
    print(f"{'parse + audit + encode':<28}{n / b:>12,.0f}{b / n * 1e6:>11.1f}")
    for name, top, bottom, best in (
        ("audit / parse", audit_t, parse_t, a / p),
        ("model / parse", model_t, parse_t, m / p),
    ):
        ratios = [x / y for x, y in zip(top, bottom, strict=True)]
        print(
            f"ratio {name}: {statistics.median(ratios):.2f} (median of {len(ratios)} paired runs; "
            f"min {min(ratios):.2f}, max {max(ratios):.2f}; best-vs-best {best:.2f})"
        )


if __name__ == "__main__":
    main()
