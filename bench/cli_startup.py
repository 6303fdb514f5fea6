"""How long does the command line take, as whole processes, beside the interpreter's own start-up in the same run?

    python -m bench.cli_startup [--repeat 7] [--rounds 6000]

Runs, in turn and --repeat times each (interleaved, so that every command sees the same load): ``python -c pass``
(the baseline: the interpreter alone, its site-packages included), ``bjaudit --version``, ``bjaudit audit`` of one
round, and of a file of --rounds generated rounds (5% with an injected error). Reports the median and the best wall
time of each, and each median as a ratio to the baseline's. No assertions: figures are for people.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE = Path(__file__).resolve().parents[1] / "tests/data/examples/nj-dealer-draws-on-hard-17.round.json"


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=6000)
    args = ap.parse_args()
    script = Path(sys.executable).with_name("bjaudit")  # the console script, as people run it
    bjaudit = [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        many = Path(tmp, "rounds.ndjson")
        subprocess.run(
            [*bjaudit, "generate", "--rounds", str(args.rounds), "--seed", "5", "--error-rate", "0.05"]
            + ["--until", "2026-12-01", "--output", str(many)],
            check=True,
        )
        commands = {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "bjaudit --version": [*bjaudit, "--version"],
            "bjaudit audit (1 round)": [*bjaudit, "audit", str(ONE)],
            f"bjaudit audit ({args.rounds:,} rounds)": [*bjaudit, "audit", str(many)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(wall(argv))
    base = statistics.median(times["python -c pass (baseline)"])
    print(f"whole processes, {args.repeat} runs each, interleaved; {sys.executable}")
    print(f"{'command':<32}{'median s':>10}{'best s':>9}{'x baseline':>12}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<32}{med:>10.3f}{min(ts):>9.3f}{med / base:>12.1f}")


if __name__ == "__main__":
    main()
