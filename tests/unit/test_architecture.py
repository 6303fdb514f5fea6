"""The dependency rules of style.md, checked rather than hoped for: app.domain imports only the standard library,
app.jurisdictions only the standard library and app.domain, and neither imports a framework; app.synth (the generator
and mutator of rounds) does not borrow the engine's reading of a round."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "app"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _allowed(name: str, own: tuple[str, ...]) -> bool:
    top = name.split(".")[0]
    return (
        top in sys.stdlib_module_names
        or top == "__future__"
        or any(name == o or name.startswith(o + ".") for o in own)
    )


@pytest.mark.parametrize(
    ("package", "own"),
    [
        ("domain", ("app.domain",)),
        ("jurisdictions", ("app.domain", "app.jurisdictions")),
        # The generator and mutator read rounds their own way: never with the engine's replay (they look rules up
        # only through the jurisdictions' role binding).
        ("synth", ("app.synth", "app.jurisdictions")),
        # The evidence a regulator checks offline: RFC 9162 and Ed25519, nothing of the service.
        ("evidence", ("app.evidence", "cryptography")),
    ],
)
def test_pure_packages_import_only_the_standard_library(package: str, own: tuple[str, ...]) -> None:
    bad = {
        f"{p.relative_to(APP)}: {name}"
        for p in sorted((APP / package).rglob("*.py"))
        for name in _imports(p)
        if not _allowed(name, own)
    }
    assert not bad, f"app/{package} must stay pure: {sorted(bad)}"


def test_the_product_core_does_not_import_the_synthetic_rounds() -> None:
    core = [p for p in sorted(APP.rglob("*.py")) if p.relative_to(APP).parts[0] not in ("synth", "cli")]
    bad = {
        f"{p.relative_to(APP)}: {name}" for p in core for name in _imports(p) if name.startswith("app.synth")
    }
    assert not bad, f"only tests, benchmarks and the CLI use app.synth: {sorted(bad)}"


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("wire", ("app.api", "app.cli", "app.usecases", "app.store")),
        ("store", ("app.api", "app.cli", "app.usecases")),
        ("usecases", ("app.api", "app.cli")),
    ],
)
def test_dependencies_point_one_way(package: str, forbidden: tuple[str, ...]) -> None:
    """api and cli call the use cases; use cases call the store, the wire format and the engine; never back."""
    bad = {
        f"{p.relative_to(APP)}: {name}"
        for p in sorted((APP / package).rglob("*.py"))
        for name in _imports(p)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    }
    assert not bad, f"app/{package} imports upward: {sorted(bad)}"
