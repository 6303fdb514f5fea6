"""The build of bjaudit (the metadata is in pyproject.toml).

``pip install -e .`` and ``pip wheel .`` build pure Python. With ``BJAUDIT_COMPILE=1`` the wheel's engine
(app/domain but for the modules in ``PURE``) is compiled by mypyc, together with ``app.domain._build``: a module
written here, holding the SHA-256 of each source compiled, that exists only compiled. The ``.py`` sources ship beside
the compiled modules, and :mod:`app.domain.compiled` refuses to start when they no longer match. mypyc comes with
mypy (the dev extras), so the compiled wheel is built without build isolation, by the development venv:
``make wheel`` (docs/engine.md).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
ENGINE = Path("app", "domain")
PURE = {
    "__init__.py",  # with compiled.py: the check, which runs before any compiled module is loaded
    "compiled.py",
    "rules.py",  # Ctx is subclassed by the tests (mypyc's classes cannot be); measured: no cost in `make bench`
}
STAGE = Path("build", "mypyc", "src")
"""What mypyc compiles: a copy of app/domain, plus the record of what it is (_build.py)."""
RECORD = "_build.py"


def _write(path: Path, data: bytes) -> None:
    # Only when changed: an unchanged source keeps its time, so mypy's cache and setuptools' up-to-date check hold.
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def compiled_engine() -> list[Any]:
    """The extension modules of the compiled engine (none unless BJAUDIT_COMPILE=1)."""
    if os.environ.get("BJAUDIT_COMPILE", "0") in ("", "0"):
        return []
    try:
        import mypy.version
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit(
            "BJAUDIT_COMPILE=1 needs mypy (mypyc) in the Python that builds: build with the development venv and "
            "without isolation, `pip wheel --no-build-isolation --no-deps .` (what `make wheel` does)"
        ) from None
    sources = sorted(
        p for p in (ROOT / ENGINE).rglob("*.py") if p.relative_to(ROOT / ENGINE).as_posix() not in PURE
    )
    staged = {(ROOT / STAGE / "app" / "__init__.py"): (ROOT / "app" / "__init__.py").read_bytes()}
    staged |= {ROOT / STAGE / p.relative_to(ROOT): p.read_bytes() for p in (ROOT / ENGINE).rglob("*.py")}
    digests = {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sources}
    record = [
        '"""What this compiled build of the engine was compiled from: written by setup.py, never in git."""',
        "",
        f"COMPILER: str = {f'mypyc (mypy {mypy.version.__version__})'!r}",
        "SOURCES: dict[str, str] = {",
        *(f"    {name!r}: {digest!r}," for name, digest in digests.items()),
        "}",
        "",
    ]
    staged[ROOT / STAGE / ENGINE / RECORD] = "\n".join(record).encode()
    for stale in set((ROOT / STAGE).rglob("*.py")) - set(staged):
        stale.unlink()
    for path, data in staged.items():
        _write(path, data)
    compiled = [STAGE / p.relative_to(ROOT) for p in sources] + [STAGE / ENGINE / RECORD]
    return mypycify(
        [str(p) for p in compiled],
        opt_level="3",
        group_name="bjaudit_engine",
        target_dir=str(Path("build", "mypyc", "c")),
    )


class FreshBuildPy(build_py):
    """Copies app/ afresh into build/lib: a file deleted from app/ must not live on there, and so in the wheel. The
    compiled modules of this build stay (setuptools rebuilds them only when their C changed); any other (a module no
    longer compiled, or every one in a pure build) goes, or it would shadow its source or fail the start-up check."""

    def run(self) -> None:
        keep = {ext.name for ext in self.distribution.ext_modules or ()}
        for path in Path(self.build_lib, "app").rglob("*"):
            if not path.is_file():
                continue
            if path.name.endswith(".so"):
                module = path.relative_to(self.build_lib).with_name(path.name.split(".", 1)[0])
                if ".".join(module.parts) in keep:
                    continue
            path.unlink()
        super().run()


os.chdir(ROOT)
setup(ext_modules=compiled_engine(), cmdclass={"build_py": FreshBuildPy})
