"""The compiled engine for the tests: built by setup.py (BJAUDIT_COMPILE=1, as ``make wheel`` builds it) and cached
under build/compiled-engine/ by the digest of what it is compiled from, then laid over a copy of the current app/.

    python -m tests.compiled_build        # build (or find) it, and print where the compiled modules are
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "compiled-engine"


def cannot_compile() -> str | None:
    """Why this machine cannot build the compiled engine (no C compiler, no Python headers), or None."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        return "no Python headers (Python.h)"
    return None


def build_key() -> str:
    """What the compiled modules depend on: setup.py, the engine's sources, mypy, this Python."""
    import mypy.version

    h = hashlib.sha256()
    for path in [ROOT / "setup.py", *sorted((ROOT / "app" / "domain").rglob("*.py"))]:
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(f"{mypy.version.__version__} {sys.version} {platform.machine()}".encode())
    return h.hexdigest()[:24]


def compiled_modules() -> Path:
    """A directory holding only the compiled modules of the wheel (the engine's and mypyc's shared library), at
    the paths the wheel gives them; built when the cache has none for these sources."""
    done = CACHE / build_key()
    if (done / ".complete").is_file():
        return done
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        wheels = Path(tmp, "wheel")
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps"]
            + ["-w", str(wheels), str(ROOT)],
            check=True,
            cwd=ROOT,
            env={**os.environ, "BJAUDIT_COMPILE": "1"},
        )
        (wheel,) = wheels.glob("bjaudit-*.whl")
        staged = Path(tmp, "modules")
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if name.endswith(".so"):
                    z.extract(name, staged)
        (staged / ".complete").write_text(wheel.name + "\n")
        shutil.rmtree(done, ignore_errors=True)
        staged.rename(done)
    return done


def compiled_tree(where: Path) -> Path:
    """``where``/app: a copy of the current app/ with the compiled modules laid over it (and mypyc's shared library
    beside it), as the wheel installs them. Put ``where`` first on sys.path to run it."""
    shutil.copytree(ROOT / "app", where / "app", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    modules = compiled_modules()
    for so in modules.rglob("*.so"):
        target = where / so.relative_to(modules)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(so, target)
    return where


if __name__ == "__main__":
    print(compiled_modules())
