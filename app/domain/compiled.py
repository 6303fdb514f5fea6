"""Which engine runs — pure Python, or the build compiled by mypyc — and the check that refuses compiled modules
that do not match their sources.

The wheel ``make run``, the container and the benchmarks install compiles most of :mod:`app.domain` with mypyc
(``setup.py``, ``BJAUDIT_COMPILE=1``) and ships each module's ``.py`` source beside it. The build also compiles a
record of what it compiled, ``app.domain._build`` (no source of its own): the SHA-256 of each source, so the
compiled code carries the digest of the text it was compiled from. An audit is evidence, and the engine that made it
must be the source one can read: :func:`verify`, run when :mod:`app.domain` is first imported (before any compiled
module is loaded), refuses to start when a compiled module's source was changed or removed, when a compiled module
is not in the record, or when the record names a module whose compiled form is missing. It never falls back to
pure Python: a mismatch means the installation is not the one that was built and tested.

This module and the package's ``__init__`` are never compiled: they are the check.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
RECORD = "app.domain._build"
EXIT_REFUSED = 2
"""The exit status of a refused start (as for a database that cannot be used): 1 means findings to ``audit``."""


class CompiledEngineRefused(SystemExit):
    """The compiled engine does not match its sources: the process stops (status 2) with :attr:`message`."""

    def __init__(self, message: str) -> None:
        super().__init__(EXIT_REFUSED)
        self.message = message

    def __str__(self) -> str:
        return self.message


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file's bytes, as the build records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extension_modules(package: Path = PACKAGE) -> dict[str, Path]:
    """The compiled modules this interpreter would load under ``package``: their source path (relative to the
    project's root, ``app/domain/replay.py``) -> the extension file."""
    out: dict[str, Path] = {}
    for path in sorted(package.rglob("*")):
        # The first suffix that fits is the one the import system reads: replay.cpython-311-x86_64-linux-gnu.so is
        # the module replay; one built for another Python (replay.cpython-312-...so) is no module here.
        suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        if suffix is not None and path.name.removesuffix(suffix).isidentifier():
            source = path.with_name(path.name.removesuffix(suffix) + ".py")
            out.setdefault(source.relative_to(package.parent.parent).as_posix(), path)
    return out


def problems(package: Path = PACKAGE) -> tuple[str, list[str]]:
    """What the check finds: a description of the engine (``"pure Python"`` or the compiled build), and every
    mismatch (none when the engine may run)."""
    compiled = extension_modules(package)
    if not compiled:
        return "pure Python", []
    record_source = RECORD.replace(".", "/") + ".py"
    if record_source not in compiled:
        return "compiled", [
            f"{', '.join(sorted(compiled))}: compiled, but no record of the sources they were compiled from "
            f"({RECORD}); a compiled build is made only by setup.py (BJAUDIT_COMPILE=1)"
        ]
    record = importlib.import_module(RECORD)
    sources: dict[str, str] = record.SOURCES
    found: list[str] = []
    root = package.parent.parent
    for name in sorted(set(compiled) - {record_source}):
        if name not in sources:
            found.append(f"{name}: compiled, but not by the build recorded in {RECORD}")
    for name, digest in sorted(sources.items()):
        path = root / name
        if name not in compiled:
            found.append(f"{name}: compiled by this build, but its compiled module is missing")
        elif not path.is_file():
            found.append(f"{name}: compiled, but its source is missing")
        elif (actual := source_digest(path)) != digest:
            found.append(
                f"{name}: source sha256 {actual[:16]}… is not the {digest[:16]}… it was compiled from"
            )
    return f"compiled by {record.COMPILER}, {len(sources)} modules", found


def verify(package: Path = PACKAGE) -> str:
    """The engine's description, or :class:`CompiledEngineRefused` (written to stderr first) when a compiled
    module does not match its source."""
    engine, found = problems(package)
    if found:
        message = "\n".join(
            [
                f"bjaudit: refusing to start: the compiled engine under {package} does not match its sources",
                *(f"  {line}" for line in found),
                "  Reinstall the wheel as it was built (pip install --force-reinstall --no-deps bjaudit-*.whl), "
                "or the pure Python source (pip install .).",
            ]
        )
        print(message, file=sys.stderr)
        raise CompiledEngineRefused(message)
    return engine
