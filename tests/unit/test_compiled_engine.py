"""The compiled engine (mypyc, ``make wheel``) audits as the pure one does, byte for byte, and refuses to start when a
compiled module does not match its source (:mod:`app.domain.compiled`).

The compiled modules are built by setup.py as the wheel builds them (the first run on new engine sources takes a
minute or two; then they are cached by the digest of their sources under build/compiled-engine/) and laid over a copy
of app/. Each engine runs in a process of its own, with only its app/ on the path, on two corpora: the golden corpus
of :mod:`tests.unit.test_audits_unchanged` (both jurisdictions, every fault class of the mutator, registrations,
refused records; the answer and every stored row, by SHA-256) and a second generated corpus under other seeds (the
answers themselves).

    python -P -m tests.unit.test_compiled_engine --emit     # what one engine answers, one line per audit
    python -P -m tests.unit.test_compiled_engine --garbage  # what its audits leave to the garbage collector

Neither engine may leave cyclic garbage behind an audit: every object an audit makes is freed when the audit is
done, by reference counting. mypyc keeps the closures of a function in one environment object that also holds them,
a reference cycle: nested functions in the replay once left its whole state (≈ 66 objects a round) to the collector,
whose full collections then stopped the service for ≈ 50 ms (the p99 of ``make bench-http``).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import orjson
import pytest

from tests.compiled_build import ROOT, cannot_compile, compiled_tree

EXAMPLE = ROOT / "tests" / "data" / "examples" / "nj-dealer-draws-on-hard-17.round.json"
SEEDS = (20261205, 4711)
ROUNDS_PER_SEED = 1500
PER_MUTATION_AND_JURISDICTION = 12


def fresh_corpus() -> Iterator[bytes]:
    """Generated rounds under other seeds than the golden corpus: mixed jurisdictions and random elections, each
    fault class of the mutator in each jurisdiction."""
    from app.synth.generator import generate_rounds, random_elections
    from app.synth.mutator import MUTATIONS

    legal = [d for seed in SEEDS for d in generate_rounds(ROUNDS_PER_SEED, seed)]
    rng = random.Random(SEEDS[0])
    for j in ("US-NJ", "NZ"):
        for _ in range(20):
            legal += generate_rounds(15, rng.randrange(1 << 30), j, elections=random_elections(rng, j))
    yield from (orjson.dumps(d) for d in legal)
    # records that contradict themselves (unreplayable): a card, halfway through, to a box nobody wagered on
    for doc in legal[:: len(legal) // 200]:
        free = sorted({1, 2, 3, 4, 5, 6, 7} - {s["seat"] for s in doc["seats"]})
        if free:
            events = list(doc["events"])
            events.insert(len(events) // 2, {"type": "deal", "to": str(free[0]), "card": events[0]["card"]})
            yield orjson.dumps({**doc, "round_id": f"{doc['round_id']}-contradicted", "events": events})
    for m in MUTATIONS:
        rng = random.Random(f"compiled:{m.name}")
        for j in ("US-NJ", "NZ"):
            docs = [d for d in legal if d["jurisdiction"] == j]
            applied = 0
            for doc in rng.sample(docs, len(docs)):
                got = m.apply(doc, rng)
                if got is not None:
                    yield orjson.dumps({**got[0], "round_id": f"{doc['round_id']}-{m.name}-{applied}"})
                    applied += 1
                    if applied == PER_MUTATION_AND_JURISDICTION:
                        break


def emit() -> None:
    """One line: which engine; then one line per audit of each corpus."""
    import app.domain
    from app.usecases import rounds
    from app.usecases.errors import ServiceError, problem_body
    from tests.unit.test_audits_unchanged import digests

    out = sys.stdout.buffer
    out.write(orjson.dumps({"engine": app.domain.ENGINE}) + b"\n")
    for line in digests():
        out.write(orjson.dumps(line) + b"\n")
    for record in fresh_corpus():
        try:
            answer = rounds.audit(record).body
        except ServiceError as exc:
            answer = orjson.dumps(problem_body(exc))
        out.write(answer + b"\n")


def garbage() -> None:
    """One JSON line: which engine, how many records it audited, and the objects (by type) that the audits left in
    reference cycles: what only the garbage collector would free."""
    import gc
    from collections import Counter

    import app.domain
    from app.usecases import rounds
    from app.usecases.errors import ServiceError

    records = list(fresh_corpus())
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept in gc.garbage, to be named
    for record in records:
        with contextlib.suppress(ServiceError):  # a refused record: its answer is the error
            rounds.audit(record)
    gc.collect()
    left = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
    line = {"engine": app.domain.ENGINE, "records": len(records), "garbage": dict(left.most_common())}
    sys.stdout.buffer.write(orjson.dumps(line) + b"\n")


def _run(path: list[Path], *args: str) -> subprocess.CompletedProcess[bytes]:
    # -P: nothing but PYTHONPATH before the installed packages (the editable finder of app/ comes after them).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run([sys.executable, "-P", *args], capture_output=True, env=env, cwd=ROOT, timeout=900)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Skipped only where nothing can compile it, and never where BJAUDIT_REQUIRE_COMPILED=1 (.ci/run sets it).
    if (why := cannot_compile()) is not None and os.environ.get("BJAUDIT_REQUIRE_COMPILED") != "1":
        pytest.skip(f"the compiled engine cannot be built here: {why}")
    return compiled_tree(tmp_path_factory.mktemp("compiled"))


def test_the_compiled_and_pure_engines_give_byte_identical_audits(compiled: Path) -> None:
    pure = _run([ROOT], "-m", "tests.unit.test_compiled_engine", "--emit")
    assert pure.returncode == 0, pure.stderr.decode()
    built = _run([compiled, ROOT], "-m", "tests.unit.test_compiled_engine", "--emit")
    assert built.returncode == 0, built.stderr.decode()
    pure_lines, built_lines = pure.stdout.splitlines(), built.stdout.splitlines()
    assert orjson.loads(pure_lines[0]) == {"engine": "pure Python"}
    assert orjson.loads(built_lines[0])["engine"].startswith("compiled by mypyc"), built_lines[0]
    assert len(built_lines) == len(pure_lines) > 7000
    changed = [(p, b) for p, b in zip(pure_lines[1:], built_lines[1:], strict=True) if p != b]
    assert not changed, (
        f"{len(changed)} audits differ; the first, pure then compiled:\n{changed[0][0]!r}\n{changed[0][1]!r}"
    )
    verdicts = {
        orjson.loads(line).get("verdict") for line in pure_lines[1:] if line.startswith(b'{"round_id"')
    }
    assert {"compliant", "violations", "unreplayable"} <= verdicts, verdicts


@pytest.mark.parametrize("engine", ["pure", "compiled"])
def test_no_audit_leaves_cyclic_garbage(engine: str, request: pytest.FixtureRequest) -> None:
    path = [ROOT] if engine == "pure" else [request.getfixturevalue("compiled"), ROOT]
    got = _run(path, "-m", "tests.unit.test_compiled_engine", "--garbage")
    assert got.returncode == 0, got.stderr.decode()
    line = orjson.loads(got.stdout)
    assert line["engine"].startswith("pure" if engine == "pure" else "compiled by mypyc"), line
    assert line["records"] > 4000
    assert line["garbage"] == {}, line


def _start(tree: Path, command: str) -> subprocess.CompletedProcess[bytes]:
    args = {"audit": ["audit", str(EXAMPLE)], "serve": ["serve", "--port", "9"], "worker": ["worker"]}[
        command
    ]
    return _run([tree], "-m", "app.cli", *args)


def test_the_compiled_engine_starts_when_it_matches_its_sources(compiled: Path) -> None:
    got = _start(compiled, "audit")
    assert got.returncode == 1, got.stderr.decode()  # the example's finding
    assert b'"verdict":"violations"' in got.stdout


@pytest.mark.parametrize(
    ("tamper", "said"),
    [
        (
            lambda d: (d / "replay.py").write_text((d / "replay.py").read_text() + "\n# edited\n"),
            "replay.py: source sha256",
        ),
        (
            lambda d: (d / "checks" / "play.py").unlink(),
            "checks/play.py: compiled, but its source is missing",
        ),
        (
            lambda d: shutil.copy(next(d.glob("cards.*.so")), d / f"extra{EXTENSION_SUFFIXES[0]}"),
            "app/domain/extra.py: compiled, but not by the build",
        ),
        (
            lambda d: next(d.glob("state.*.so")).unlink(),
            "app/domain/state.py: compiled by this build, but its compiled module is missing",
        ),
        (lambda d: next(d.glob("_build.*.so")).unlink(), "no record of the sources"),
    ],
    ids=["edited source", "missing source", "unrecorded module", "missing module", "missing record"],
)
def test_a_compiled_engine_that_does_not_match_its_sources_is_refused(
    compiled: Path, tmp_path: Path, tamper: object, said: str
) -> None:
    tree = tmp_path / "installed"
    shutil.copytree(compiled, tree, symlinks=True)
    tamper(tree / "app" / "domain")  # type: ignore[operator]
    # Every command for one mismatch (each imports the engine before it does anything); `audit` for the others.
    for command in ("audit", "serve", "worker") if said.startswith("replay.py") else ("audit",):
        got = _start(tree, command)
        err = got.stderr.decode()
        assert got.returncode == 2, (command, err)
        assert err.startswith("bjaudit: refusing to start: the compiled engine under"), (command, err)
        assert said in err, (command, err)
        assert "Traceback" not in err and not got.stdout, (command, err)


if __name__ == "__main__":
    if sys.argv[1:] == ["--emit"]:
        emit()
    elif sys.argv[1:] == ["--garbage"]:
        garbage()
    else:
        sys.exit(__doc__)
