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
  (one per line: ``module.function | original -> mutated | in <statement> | reason``, or for rule data
  ``file owner[where] | original -> mutated | reason``, exactly as the survivor list prints them).

A mutant that changes money (an amount, a net, a stake, a payout ratio, a restitution) is marked ``$`` in the
survivor list; there must be none. The last line is ``mutation score: N% (killed K of M)``. Exit status 1 when the
score is below 95% or a money mutant survives.
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
TESTS = [
    "tests/rules/",
    "tests/unit/test_examples.py",
    "tests/unit/test_rulesets.py",
    "tests/unit/test_record.py",
    "tests/unit/test_ruleset_data.py",
    "tests/unit/test_compiled_check.py",
]
DATA_MODULES = ["app/jurisdictions/nj.py", "app/jurisdictions/nz.py", "app/jurisdictions/common.py"]
AIM = 95.0

# Calls whose argument at this position (or keyword) is prose for people.
_PROSE_ARGS: dict[str, set[int]] = {
    "emit": {3},  # ctx.emit(role, event, hand, message, ...)
    "_problem": {3},  # _problem(t, event, where, message, ...)
    "_twice": {3},  # settlement._twice(ctx, event, where, message, net, currency)
    "RecordProblem": {2},
    "Expect": {
        3,
        4,
        5,
    },  # Expect(nets, direction, amount, why, pt, dt): why and the totals it is written with
    "after_dealer_blackjack": set(),
    "_hand_of": {3},  # _hand_of(t, event, hand, what): what names the event in a record problem's message
    "_seat_of": {3},
}
_PROSE_KEYWORDS = {"title", "paraphrase", "reason", "not_checkable_reason", "message", "why"}
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
# Functions whose only use is the prose of a message (their mutants are message text).
_PROSE_FUNCTIONS = {
    "app.domain.replay._nth",
    "app.domain.checks.words.verb",
    "app.domain.checks.words.due",
    "app.domain.checks.words.done",
    "app.domain.state.HandState.__repr__",
}
# mutmut's outcomes in which the tests caught the mutant (a mutant that loops forever is caught by the time limit).
_KILLED = {"killed", "timeout", "segfault"}
# Functions that run only while the rules modules are imported (building the rulesets): mutmut's trampolines are
# not yet in place then, so their mutants are run here one by one, in a scratch copy, like the rule data.
_IMPORT_TIME = {
    "app.jurisdictions.common.build_ruleset",
    "app.jurisdictions.common.uncited",
    "app.jurisdictions.common.not_checkable",
    "app.jurisdictions.nj.nj",
    "app.jurisdictions.nz.nz",
    "app.domain.rules.Ruleset.__post_init__",
}


@dataclass
class Mutant:
    name: str
    module: str
    function: str
    status: str
    before: str = ""
    after: str = ""
    kind: str = "logic"  # logic | message | equivalent
    names: frozenset[str] = frozenset()  # the identifiers in the changed code
    where: str = (
        ""  # the first line of the statement holding the change (tells apart the same change made twice)
    )

    @property
    def file(self) -> str:
        path = self.module.replace(".", "/")
        return path + "/__init__.py" if (ROOT / path).is_dir() else path + ".py"

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.function}"

    @property
    def signature(self) -> str:
        return f"{self.module}.{self.function} | {self.before} -> {self.after} | in {self.where}"

    @property
    def money(self) -> bool:
        return self.function.split(".")[-1] in _MONEY_FUNCTIONS or bool(self.names & _MONEY_NAMES)


def _identifiers(*nodes: object) -> frozenset[str]:
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.AST):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name):
                    out.add(sub.id)
                elif isinstance(sub, ast.Attribute):
                    out.add(sub.attr)
                elif isinstance(sub, ast.keyword) and sub.arg:
                    out.add(sub.arg)
    return frozenset(out)


# --- Pass 1: mutmut ---------------------------------------------------------------------------------------------


def run_mutmut(max_children: int) -> None:
    # mutmut keeps its results in mutants/ and tests again only what it has not: start afresh, so that a test added
    # since the last run is run against every mutant.
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    log = ROOT / "mutants" / "run.log"
    log.parent.mkdir()
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
            if not isinstance(a, ast.expr | ast.stmt) and path_to:
                # an operator, or a changed field: show the expression around it
                a, b = path_to[-1][0], _node_at(mutated, path_to, len(path_to) - 1)
            m.before, m.after = _short(a), _short(b)
            m.where, prose_value = _statement(a, path_to)
            m.names = _identifiers(a, b)
            if (
                m.qualname in _PROSE_FUNCTIONS
                or prose_value
                or _is_prose(path_to)
                and not _changes_call(a, b)
            ):
                m.kind = "message"


def _statement(node: object, path: Path_) -> tuple[str, bool]:
    """Where the change is: the first line of the innermost statement holding ``node`` and the path from it down
    (``if x > 0: @test.ops[0]``), so that the same change made twice in one function is told apart; and whether the
    change is to a value assigned only to prose (``why = ...``, or ``why``'s place in ``nets, why = ...``)."""
    root = path[0][0] if path else node
    if isinstance(node, ast.stmt) and node is not root:
        return ast.unparse(node).splitlines()[0].strip(), False
    for k in range(len(path) - 1, 0, -1):
        stmt = path[k][0]
        if stmt is node or not isinstance(stmt, ast.stmt):
            continue
        steps = [(f, i) for a, f, i in path[k:] if a is not node]
        line = ast.unparse(stmt).splitlines()[0].strip()
        line = line if len(line) <= 100 else line[:97] + "..."
        down = ".".join(f if i is None else f"{f}[{i}]" for f, i in steps)
        return f"{line} @{down}", _assigns_prose(stmt, steps)
    return "(the function)", False


def _assigns_prose(stmt: ast.stmt, steps: list[tuple[str, int | None]]) -> bool:
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not steps or steps[0][0] != "value":
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return target.id in _PROSE_KEYWORDS
    if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) and len(steps) > 1:
        field, k = steps[1]
        if field == "elts" and k is not None and k < len(target.elts):
            elt = target.elts[k]
            return isinstance(elt, ast.Name) and elt.id in _PROSE_KEYWORDS
    return False


def _node_at(root: ast.AST, path: list[tuple[ast.AST, str, int | None]], depth: int) -> ast.AST:
    """The node of ``root``'s tree that stands where path[depth]'s node stands in the other tree."""
    node = root
    for _, field, index in path[:depth]:
        value = getattr(node, field)
        node = value[index] if index is not None else value
    return node


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


def _changes_call(a: object, b: object) -> bool:
    """Whether a mutation changes which arguments a call gets (an argument removed), not one argument's value."""
    return isinstance(a, ast.Call) or isinstance(b, ast.Call)


def _is_prose(path: Path_) -> bool:
    """Whether the changed node lies in the prose argument of a call (a finding's message, a problem's message), at
    any depth: a call nested inside the message (``money(amount, ctx)``) is part of its words."""
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
            if field == "args" and name in _PROSE_ARGS and index in _PROSE_ARGS[name]:
                return True
            if field == "keywords" and index is not None:
                kw = node.keywords[index].arg
                if kw in _PROSE_KEYWORDS:
                    return True
            # not prose here: a call inside a message (money(...), hand_name(...)) is still the message's words
            continue
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
                owner_at = owner + _where(stmt.value, path)
                for replacement in _replacements(node):
                    mutated = copy.deepcopy(tree)
                    holder = mutated.body[index]
                    assert isinstance(holder, ast.Assign | ast.AnnAssign) and holder.value is not None
                    if path:
                        _replace(holder.value, path, replacement)
                    else:
                        holder.value = replacement  # type: ignore[assignment]
                    yield file, owner_at, _short(node), _short(replacement), mutated


def _where(root: ast.AST, path: DataPath) -> str:
    """Where in a module-level value a literal sits, in words a reader can find: ``[decks]`` for a dict's value
    (or ``[key]`` for the key itself), ``(keyword=)`` for a call's keyword, ``(#2)`` for its third argument."""
    out = ""
    node = root
    for field, index in path:
        value = getattr(node, field)
        child = value[index] if index is not None else value
        if isinstance(node, ast.Dict) and index is not None:
            key = node.keys[index]
            out += f"[{ast.unparse(key) if key is not None else '**'}]" + ("(key)" if field == "keys" else "")
        elif isinstance(node, ast.Call) and field == "args" and index is not None:
            out += f"({ast.unparse(node.func)} #{index})"
        elif isinstance(node, ast.keyword):
            out += f"({node.arg}=)"
        elif isinstance(node, ast.Tuple | ast.List) and index is not None:
            out += f"[{index}]"
        node = child
    return out


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


Job = tuple[str, str]
"""A scratch run: the file to replace (relative to the project) and its new source."""


def run_scratch(jobs: list[Job], tests: list[str], workers: int) -> list[bool]:
    """Run the tests once per job, with that job's file replaced, in ``workers`` scratch copies of the project at
    once: for each job, whether the tests failed (the mutant was killed)."""
    with tempfile.TemporaryDirectory(prefix="bjaudit-mutants-") as tmp:
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

        def one(k: int) -> list[tuple[int, bool]]:
            out = []
            scratch = scratches[k]
            for n in range(k, len(jobs), workers):
                file, source = jobs[n]
                target = scratch / file
                original = target.read_text()
                target.write_text(source)
                try:
                    proc = subprocess.run(
                        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                        cwd=scratch,
                        capture_output=True,
                        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                        check=False,
                        timeout=300,
                    )
                    dead = proc.returncode != 0
                except subprocess.TimeoutExpired:
                    dead = True
                finally:
                    target.write_text(original)
                out.append((n, dead))
            return out

        results = [False] * len(jobs)
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for chunk in pool.map(one, range(workers)):
                for n, dead in chunk:
                    results[n] = dead
        return results


def import_time_jobs(mutants: list[Mutant]) -> list[tuple[Mutant, Job]]:
    """The project file with the mutant's function body in place of the original, for each mutant of a function
    that runs only while the rules modules are imported."""
    out = []
    trees: dict[str, ast.Module] = {}
    mutated_defs: dict[str, dict[str, ast.FunctionDef]] = {}
    for m in mutants:
        if m.qualname not in _IMPORT_TIME:
            continue
        if m.file not in mutated_defs:
            defs: dict[str, ast.FunctionDef] = {}
            for node in ast.walk(ast.parse((ROOT / "mutants" / m.file).read_text())):
                if isinstance(node, ast.FunctionDef) and "__mutmut_" in node.name:
                    defs[node.name] = node
            mutated_defs[m.file] = defs
            trees[m.file] = ast.parse((ROOT / m.file).read_text())
        mutant = mutated_defs[m.file].get(m.name.rpartition(".")[2])
        if mutant is None:
            continue
        tree = copy.deepcopy(trees[m.file])
        name = m.function.rpartition(".")[2]
        cls = m.function.rpartition(".")[0]
        scope: list[ast.stmt] = tree.body
        if cls:
            scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
        target = next(n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name)
        target.body = copy.deepcopy(mutant.body)
        target.args = copy.deepcopy(mutant.args)
        out.append((m, (m.file, ast.unparse(tree))))
    return out


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
    used: set[str] = set()

    data_rows: collections.Counter[str] = collections.Counter()
    data_survivors: list[tuple[str, str, str, str]] = []
    if not args.skip_data:
        # What mutmut cannot reach: the functions that build the rulesets at import, and the rule data itself.
        at_import = import_time_jobs(mutants)
        data = list(data_mutants())
        print(f"import-time mutants: {len(at_import)}, rule data mutants: {len(data)} ...", flush=True)
        jobs = [job for _, job in at_import] + [(file, ast.unparse(tree)) for file, _, _, _, tree in data]
        outcomes = run_scratch(jobs, TESTS, args.max_children)
        for (m, _), dead in zip(at_import, outcomes[: len(at_import)], strict=True):
            m.status = "killed" if dead else "survived"
        for (file, owner, before, after, _), dead in zip(data, outcomes[len(at_import) :], strict=True):
            data_rows["mutants"] += 1
            key = f"{file} {owner} | {before} -> {after}"
            if not dead and key in equivalent:
                data_rows["equivalent"] += 1
                used.add(key)
            else:
                data_rows["killed" if dead else "survived"] += 1
                if not dead:
                    data_survivors.append((file, owner, before, after))

    rows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    survivors: list[Mutant] = []
    for m in mutants:
        row = rows[m.file]
        row["mutants"] += 1
        if m.kind != "logic":
            row[m.kind] += 1
            continue
        if m.status in _KILLED:
            row["killed"] += 1
        elif m.signature in equivalent:
            m.kind = "equivalent"
            row["equivalent"] += 1
            used.add(m.signature)
        else:
            row["survived"] += 1
            survivors.append(m)

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
        total.update(data_rows)
        counted = data_rows["killed"] + data_rows["survived"]
        print(
            f"{'rule data (module level)':<40}{data_rows['mutants']:>9}{0:>9}{data_rows['equivalent']:>8}"
            f"{data_rows['killed']:>8}{data_rows['survived']:>10}{100.0 * data_rows['killed'] / max(counted, 1):>7.1f}%"
        )
    money = [m for m in survivors if m.money]
    if args.survivors or survivors or data_survivors:
        print("\nsurvivors ($: changes money):")
        for m in sorted(survivors, key=lambda m: (m.file, m.function, m.name)):
            print(f"  {'$' if m.money else ' '} {m.signature}   [{m.name}]")
        for file, owner, before, after in data_survivors:
            print(f"    {file} {owner} | {before} -> {after}")
    stale = sorted(set(equivalent) - used)
    if stale:
        print(
            f"\n{EQUIVALENT.relative_to(ROOT)}: entries that match no surviving mutant (a test kills it now, or the"
        )
        print("code changed): remove them")
        for sig in stale:
            print(f"    {sig}")
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
