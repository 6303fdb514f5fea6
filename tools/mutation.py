"""Mutation testing of the pure engine (``make mutation``): how much of app/domain and app/jurisdictions the fast
tests pin down.

    python -m tools.mutation [--max-children N] [--skip-run] [--skip-data] [--survivors]

Two passes, one report:

1. **Code** — mutmut (configured in ``pyproject.toml``, ``[tool.mutmut]``) mutates every function of the engine and
   runs the fast tests (tests/rules, the spec examples, the rulesets) against each mutant.
2. **Data** — mutmut mutates only code inside functions; the rules themselves are module-level data (each Rule's
   number, citation, status, category, elections, dates; the role bindings; the jurisdiction's parameters and
   default elections). This pass mutates each of those values in turn, in a scratch copy, and runs the same tests.

Not counted (said so in the report):

* **message text**: mutants that change only the words of a finding's ``message`` or of a record problem, or a
  rule's title or paraphrase. They are prose for people; no test compares them, on purpose.
* **equivalent mutants**: listed in ``tests/mutation/equivalent.txt`` with the reason each cannot change any audit
  (one per line: ``function | original -> mutated | reason``).

A mutant that changes money (an amount, a net, a stake, a payout ratio, a restitution) is marked ``$`` in the
survivor list; there must be none. The last line is ``mutation score: N% (killed K of M)``. Exit status 1 when the
score is below 90% or a money mutant survives.
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import copy
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "tests" / "mutation" / "equivalent.txt"
TESTS = ["tests/rules/", "tests/unit/test_examples.py", "tests/unit/test_rulesets.py"]
DATA_MODULES = ["app/jurisdictions/nj.py", "app/jurisdictions/nz.py", "app/jurisdictions/common.py"]
AIM = 90.0

# Calls whose argument at this position (or keyword) is prose for people.
_PROSE_ARGS = {"emit": (3, "message"), "problem": (2, "message"), "RecordProblem": (2, "message")}
_PROSE_KEYWORDS = {"title", "paraphrase", "reason", "not_checkable_reason", "message"}
_MONEY_NAMES = {
    "amount",
    "amount_delta",
    "net",
    "nets",
    "want",
    "stake",
    "wager",
    "doubled",
    "insured",
    "paid",
    "delta",
    "ratio",
    "num",
    "den",
    "only",
    "everything",
}
_MONEY_FUNCTIONS = {"judge", "expect", "ratio", "_judge_unsplit", "_compare_split_seat", "_restitution"}


@dataclass
class Mutant:
    name: str
    module: str
    function: str
    status: str
    before: str = ""
    after: str = ""
    kind: str = "logic"  # logic | message | equivalent

    @property
    def file(self) -> str:
        return self.module.replace(".", "/") + ".py"

    @property
    def signature(self) -> str:
        return f"{self.module}.{self.function} | {self.before} -> {self.after}"

    @property
    def money(self) -> bool:
        words = set(_words(self.before)) | set(_words(self.after))
        return self.function.split(".")[-1] in _MONEY_FUNCTIONS or bool(words & _MONEY_NAMES)


def _words(src: str) -> Iterator[str]:
    word = ""
    for ch in src:
        if ch.isalnum() or ch == "_":
            word += ch
        else:
            if word:
                yield word
            word = ""
    if word:
        yield word


# --- Pass 1: mutmut ---------------------------------------------------------------------------------------------


def run_mutmut(max_children: int) -> None:
    log = ROOT / "mutants" / "run.log"
    log.parent.mkdir(exist_ok=True)
    print(f"mutmut run (log: {log.relative_to(ROOT)}) ...", flush=True)
    with log.open("w") as out:
        subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )


def code_mutants() -> list[Mutant]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    mutants: list[Mutant] = []
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if "__mutmut_" not in name:
            continue
        dotted, _, _ = name.partition("__mutmut_")
        module, _, func = dotted.rpartition(".")
        func = func.removeprefix("x_").replace("ǁ", ".").strip(".").removeprefix("x.")
        if func.startswith("x"):
            func = func[1:]
        mutants.append(Mutant(name, module, func, status))
    _describe(mutants)
    return mutants


def _describe(mutants: list[Mutant]) -> None:
    """Fill in what each mutant changed (the smallest differing expression) and whether it is prose only."""
    by_file: dict[str, list[Mutant]] = collections.defaultdict(list)
    for m in mutants:
        by_file[m.file].append(m)
    for file, group in by_file.items():
        path = ROOT / "mutants" / file
        if not path.exists():
            continue
        tree = ast.parse(path.read_text())
        funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" in node.name:
                funcs[node.name] = node
        for m in group:
            local = m.name.rpartition(".")[2]
            orig = funcs.get(local.rpartition("__mutmut_")[0] + "__mutmut_orig")
            mutated = funcs.get(local)
            if orig is None or mutated is None:
                continue
            diff = _first_difference(orig, mutated, [])
            if diff is None:
                continue
            a, b, path_to = diff
            m.before, m.after = _short(a), _short(b)
            if isinstance(a, ast.Constant) and isinstance(a.value, str) and _is_prose(path_to):
                m.kind = "message"


def _short(node: object) -> str:
    if node is None:
        return "(nothing)"
    text = ast.unparse(node) if isinstance(node, ast.AST) else repr(node)
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:117] + "..."


Path_ = list[tuple[ast.AST, str, int | None]]
"""From the root to a node: (ancestor, field, index in the field's list or None)."""


def _first_difference(a: object, b: object, path: Path_) -> tuple[object, object, Path_] | None:
    """The smallest subtrees where two trees differ (function names aside), with the path to them."""
    if type(a) is not type(b):
        return a, b, path
    if not isinstance(a, ast.AST):
        return None if a == b else (a, b, path)
    assert isinstance(b, ast.AST)
    for field in a._fields:
        if field == "name" and isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        x, y = getattr(a, field, None), getattr(b, field, None)
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return a, b, path
            for k, (p, q) in enumerate(zip(x, y, strict=True)):
                found = _first_difference(p, q, [*path, (a, field, k)])
                if found:
                    return found
        elif isinstance(x, ast.AST) or isinstance(y, ast.AST):
            found = _first_difference(x, y, [*path, (a, field, None)])
            if found:
                return found
        elif x != y:
            return a, b, path
    return None


def _is_prose(path: Path_) -> bool:
    """Whether the changed node lies in the prose argument of a call (a finding's message, a problem's message)."""
    for k in range(len(path) - 1, -1, -1):
        node, field, index = path[k]
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if field == "args" and name in _PROSE_ARGS and index == _PROSE_ARGS[name][0]:
                return True
            if field == "keywords" and index is not None:
                kw = node.keywords[index].arg
                if kw in _PROSE_KEYWORDS:
                    return True
            return False
    return False


# --- Pass 2: module-level rule data -----------------------------------------------------------------------------


# Rule constructors: the positions (and keywords) of prose in each.
_RULE_PROSE = {"nj": (1, 3), "nz": (1, 3), "uncited": (1, 3), "not_checkable": (1,), "Rule": ()}

DataPath = list[tuple[str, int | None]]


def data_mutants() -> Iterator[tuple[str, str, str, str, ast.Module]]:
    """(file, what, before, after, mutated tree) for each module-level literal of the rules modules."""
    for file in DATA_MODULES:
        source = (ROOT / file).read_text()
        tree = ast.parse(source)
        for index, stmt in enumerate(tree.body):
            if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
                continue
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            owner = ast.unparse(target)
            if owner == "__all__":
                continue
            for path, node in _literals(stmt.value, [], False):
                for replacement in _replacements(node):
                    mutated = copy.deepcopy(tree)
                    holder = mutated.body[index]
                    assert isinstance(holder, ast.Assign | ast.AnnAssign) and holder.value is not None
                    if path:
                        _replace(holder.value, path, replacement)
                    else:
                        holder.value = replacement  # type: ignore[assignment]
                    yield file, owner, _short(node), _short(replacement), mutated


def _literals(node: ast.AST, path: DataPath, prose: bool) -> Iterator[tuple[DataPath, ast.AST]]:
    """The literals under ``node`` that are data, not prose (titles, paraphrases, reasons)."""
    if prose:
        return
    if isinstance(node, ast.Constant):
        yield path, node
        return
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("date", "datetime.date"):
        yield path, node
        return
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func).rpartition(".")[2]
        skip = _RULE_PROSE.get(name, ())
        for k, arg in enumerate(node.args):
            yield from _literals(arg, [*path, ("args", k)], k in skip)
        for k, kw in enumerate(node.keywords):
            yield from _literals(
                kw.value, [*path, ("keywords", k), ("value", None)], kw.arg in _PROSE_KEYWORDS
            )
        return
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            for k, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _literals(item, [*path, (field, k)], False)
        elif isinstance(value, ast.AST):
            yield from _literals(value, [*path, (field, None)], False)


def _replacements(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, ast.Call):  # date(y, m, d)
        try:
            y, m, d = (a.value for a in node.args)  # type: ignore[attr-defined]
            day = datetime.date(y, m, d) + datetime.timedelta(days=1)
        except (ValueError, TypeError, AttributeError):
            return
        yield ast.Call(
            func=node.func,
            args=[ast.Constant(day.year), ast.Constant(day.month), ast.Constant(day.day)],
            keywords=[],
        )
        return
    assert isinstance(node, ast.Constant)
    v = node.value
    if isinstance(v, bool):
        yield ast.Constant(not v)
    elif isinstance(v, int):
        yield ast.Constant(v + 1)
    elif isinstance(v, str):
        yield ast.Constant("XX" + v + "XX")
    elif v is None:
        yield ast.Constant("XX")


def _replace(root: ast.AST, path: DataPath, new: ast.AST) -> None:
    node = root
    for field, index in path[:-1]:
        node = getattr(node, field)[index] if index is not None else getattr(node, field)
    field, index = path[-1]
    if index is None:
        setattr(node, field, new)
    else:
        getattr(node, field)[index] = new


def run_data(tests: list[str], workers: int) -> list[tuple[str, str, str, str, bool]]:
    """Run the tests against each data mutant, in ``workers`` scratch copies of the project at once; (file, owner,
    before, after, killed) for each."""
    mutants = list(data_mutants())
    print(f"data mutants: {len(mutants)} ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="bjaudit-data-mutants-") as tmp:
        scratches = []
        for k in range(workers):
            scratch = Path(tmp) / str(k)
            for part in ("app", "tests", "pyproject.toml"):
                src = ROOT / part
                if src.is_dir():
                    shutil.copytree(src, scratch / part)
                else:
                    shutil.copy(src, scratch / part)
            scratches.append(scratch)

        def one(k: int) -> list[tuple[str, str, str, str, bool]]:
            out = []
            scratch = scratches[k]
            for file, owner, before, after, tree in mutants[k::workers]:
                target = scratch / file
                original = target.read_text()
                target.write_text(ast.unparse(tree))
                try:
                    proc = subprocess.run(
                        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                        cwd=scratch,
                        capture_output=True,
                        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                        check=False,
                        timeout=300,
                    )
                    killed = proc.returncode != 0
                except subprocess.TimeoutExpired:
                    killed = True
                finally:
                    target.write_text(original)
                out.append((file, owner, before, after, killed))
            return out

        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            return [r for part in pool.map(one, range(workers)) for r in part]


# --- Report -----------------------------------------------------------------------------------------------------


def load_equivalent() -> dict[str, str]:
    out: dict[str, str] = {}
    if EQUIVALENT.exists():
        for line in EQUIVALENT.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            sig, _, reason = line.rpartition(" | ")
            out[sig.strip()] = reason.strip()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--skip-run", action="store_true", help="report on the last mutmut run")
    ap.add_argument("--skip-data", action="store_true", help="leave out the module-level data pass")
    ap.add_argument("--survivors", action="store_true", help="list every surviving mutant")
    args = ap.parse_args()

    if not args.skip_run:
        run_mutmut(args.max_children)
    mutants = code_mutants()
    equivalent = load_equivalent()
    for m in mutants:
        if m.kind == "logic" and m.signature in equivalent:
            m.kind = "equivalent"

    rows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    survivors: list[Mutant] = []
    for m in mutants:
        row = rows[m.file]
        row["mutants"] += 1
        if m.kind != "logic":
            row[m.kind] += 1
            continue
        if m.status == "killed":
            row["killed"] += 1
        else:
            row["survived"] += 1
            survivors.append(m)

    data_rows: collections.Counter[str] = collections.Counter()
    data_survivors: list[tuple[str, str, str, str]] = []
    if not args.skip_data:
        for file, owner, before, after, killed in run_data(TESTS, args.max_children):
            data_rows["mutants"] += 1
            data_rows["killed" if killed else "survived"] += 1
            if not killed:
                data_survivors.append((file, owner, before, after))

    print()
    print(f"{'file':<40}{'mutants':>9}{'message':>9}{'equiv.':>8}{'killed':>8}{'survived':>10}{'score':>8}")
    total = collections.Counter[str]()
    for file in sorted(rows):
        r = rows[file]
        total.update(r)
        counted = r["killed"] + r["survived"]
        score = 100.0 * r["killed"] / counted if counted else 100.0
        print(
            f"{file:<40}{r['mutants']:>9}{r['message']:>9}{r['equivalent']:>8}{r['killed']:>8}"
            f"{r['survived']:>10}{score:>7.1f}%"
        )
    if data_rows:
        total.update(
            {
                "killed": data_rows["killed"],
                "survived": data_rows["survived"],
                "mutants": data_rows["mutants"],
            }
        )
        counted = data_rows["killed"] + data_rows["survived"]
        print(
            f"{'rule data (module level)':<40}{data_rows['mutants']:>9}{0:>9}{0:>8}{data_rows['killed']:>8}"
            f"{data_rows['survived']:>10}{100.0 * data_rows['killed'] / max(counted, 1):>7.1f}%"
        )
    money = [m for m in survivors if m.money]
    if args.survivors or survivors or data_survivors:
        print("\nsurvivors ($: changes money):")
        for m in sorted(survivors, key=lambda m: (m.file, m.function, m.name)):
            print(f"  {'$' if m.money else ' '} {m.signature}   [{m.name}]")
        for file, owner, before, after in data_survivors:
            print(f"    {file} {owner}: {before} -> {after}")
    killed, counted = total["killed"], total["killed"] + total["survived"]
    score = 100.0 * killed / counted if counted else 100.0
    print(
        f"\nnot counted: {total['message']} message-text mutants (prose of findings and problems), "
        f"{total['equivalent']} equivalent mutants ({EQUIVALENT.relative_to(ROOT)})"
    )
    print(f"money-changing mutants surviving: {len(money)}")
    print(f"mutation score: {score:.1f}% (killed {killed} of {counted})")
    return 0 if score >= AIM and not money else 1


if __name__ == "__main__":
    sys.exit(main())
