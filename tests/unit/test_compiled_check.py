"""The start-up check of a compiled engine (:mod:`app.domain.compiled`), without compiling anything.

An audit is evidence, and the engine that made it must be the source one can read: a compiled build records the
SHA-256 of each source it compiled (``app.domain._build``: ``SOURCES``, ``COMPILER``), and the engine refuses to
start (exit status 2, the reason on stderr, never a fall back to pure Python) when a compiled module's source was
changed or removed, when a compiled module is not in the record, when the record names a module whose compiled
form is missing, or when there is no record at all.

Here the "compiled modules" are empty files named as the import system names extension modules
(:data:`importlib.machinery.EXTENSION_SUFFIXES`) in a package laid out like app/domain under ``tmp_path``, and the
record is a module put in ``sys.modules`` where :func:`importlib.import_module` finds it. tests/unit/
test_compiled_engine.py builds the real thing with mypyc (slow); this file is in the fast selection that
``make mutation`` runs.
"""

from __future__ import annotations

import hashlib
import sys
import types
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from app.domain import compiled
from app.domain.compiled import CompiledEngineRefused, extension_modules, problems, source_digest, verify

SUFFIX = EXTENSION_SUFFIXES[0]  # what this interpreter loads first: .cpython-311-x86_64-linux-gnu.so
HERE = f"{sys.version_info.major}{sys.version_info.minor}"
OTHER = "27" if HERE != "27" else "39"
OTHER_PYTHON = SUFFIX.replace(HERE, OTHER)  # a module built for another Python: not a module here
REPLAY = b"def replay() -> None:\n    pass\n"
STATE = b"class State:\n    pass\n"
CARDS = b"RANKS = 'A23456789TJQK'\n"
RECORD_NOTE = "(app.domain._build); a compiled build is made only by setup.py (BJAUDIT_COMPILE=1)"  # the missing record's tail
ADVICE = (
    "  Reinstall the wheel as it was built (pip install --force-reinstall --no-deps bjaudit-*.whl), "
    "or the pure Python source (pip install .)."
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def touch(path: Path, data: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """app/domain under tmp_path, pure Python so far: sources, a subpackage, bytecode, a stub, a data file."""
    pkg = tmp_path / "app" / "domain"
    touch(tmp_path / "app" / "__init__.py")
    touch(pkg / "__init__.py")
    touch(pkg / "compiled.py")
    touch(pkg / "replay.py", REPLAY)
    touch(pkg / "state.py", STATE)
    touch(pkg / "checks" / "__init__.py")
    touch(pkg / "checks" / "cards.py", CARDS)
    touch(pkg / "__pycache__" / f"replay.cpython-{HERE}.pyc")
    touch(pkg / "replay.pyi")
    touch(pkg / "py.typed")
    return pkg


def build(package: Path, *modules: str) -> dict[str, Path]:
    """Lay a "compiled module" beside each named source (relative to the package, without .py): what the wheel
    ships; returns source path -> extension file."""
    return {
        f"app/domain/{m}.py": touch(package / f"{m}{SUFFIX}", b"\x7fELF compiled from " + m.encode())
        for m in modules
    }


def record(
    monkeypatch: pytest.MonkeyPatch, sources: dict[str, str], compiler: str = "mypyc (mypy 1.0)"
) -> None:
    """The build's record of what it compiled, where importing app.domain._build finds it."""
    module = types.ModuleType("app.domain._build")
    module.COMPILER = compiler  # type: ignore[attr-defined]
    module.SOURCES = sources  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "app.domain._build", module)


def recorded(package: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A whole build: replay, state and checks/cards compiled, with the record of their sources' digests."""
    built = build(package, "replay", "state", "checks/cards", "_build")
    record(
        monkeypatch,
        {
            "app/domain/checks/cards.py": sha256(CARDS),
            "app/domain/replay.py": sha256(REPLAY),
            "app/domain/state.py": sha256(STATE),
        },
    )
    return built


# -- source_digest ---------------------------------------------------------------------------------------------


def test_a_source_digest_is_the_sha256_of_the_files_bytes(tmp_path: Path) -> None:
    # FIPS 180-2's example: SHA-256("abc").
    path = touch(tmp_path / "abc.py", b"abc")
    assert source_digest(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert source_digest(touch(tmp_path / "empty.py")) == sha256(b"")


# -- extension_modules -----------------------------------------------------------------------------------------


def test_a_pure_python_package_has_no_compiled_modules(package: Path) -> None:
    assert extension_modules(package) == {}


def test_compiled_modules_are_named_by_their_source_relative_to_the_project_root(package: Path) -> None:
    built = build(package, "state", "replay", "checks/cards")
    got = extension_modules(package)
    assert got == {
        "app/domain/checks/cards.py": package / "checks" / f"cards{SUFFIX}",
        "app/domain/replay.py": package / f"replay{SUFFIX}",
        "app/domain/state.py": package / f"state{SUFFIX}",
    }
    assert got == built
    assert list(got) == sorted(got)  # in the order of their paths


@pytest.mark.parametrize("suffix", EXTENSION_SUFFIXES)
def test_every_suffix_this_interpreter_loads_is_a_compiled_module(package: Path, suffix: str) -> None:
    ext = touch(package / f"replay{suffix}")
    assert extension_modules(package) == {"app/domain/replay.py": ext}


def test_a_module_built_for_another_python_is_no_module_here(package: Path) -> None:
    assert OTHER_PYTHON not in EXTENSION_SUFFIXES
    touch(package / f"replay{OTHER_PYTHON}")  # ends in .so, but "replay.cpython-27-..." is no module name
    touch(package / f"my-helper{SUFFIX}")  # not an identifier: nothing can import it
    touch(package / f"2fast{SUFFIX}")
    assert extension_modules(package) == {}
    ext = touch(package / f"state{SUFFIX}")
    assert extension_modules(package) == {"app/domain/state.py": ext}


def test_the_first_extension_file_of_a_module_in_path_order_is_the_one_named(package: Path) -> None:
    files = sorted(touch(package / f"replay{s}") for s in EXTENSION_SUFFIXES)
    assert extension_modules(package) == {"app/domain/replay.py": files[0]}


# -- problems: what the check finds ------------------------------------------------------------------------------


def test_a_pure_python_engine_is_described_so_and_has_no_problems(package: Path) -> None:
    assert problems(package) == ("pure Python", [])


def test_a_build_that_matches_its_record_has_no_problems(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded(package, monkeypatch)
    assert problems(package) == ("compiled by mypyc (mypy 1.0), 3 modules", [])


def test_compiled_modules_without_a_record_are_refused(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(package, "state", "replay")
    # Even a record module importable from elsewhere does not count: only the compiled record is the build's.
    record(monkeypatch, {})
    assert problems(package) == (
        "compiled",
        [
            "app/domain/replay.py, app/domain/state.py: compiled, but no record of the sources they were compiled "
            "from " + RECORD_NOTE
        ],
    )


def test_a_compiled_record_alone_is_checked(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(package, "_build")
    record(monkeypatch, {}, compiler="mypyc (mypy 9.9)")
    assert problems(package) == ("compiled by mypyc (mypy 9.9), 0 modules", [])


def test_a_compiled_module_not_in_the_record_is_refused(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded(package, monkeypatch)
    build(package, "extra", "checks/play")
    touch(package / "extra.py")
    assert problems(package) == (
        "compiled by mypyc (mypy 1.0), 3 modules",
        [
            "app/domain/checks/play.py: compiled, but not by the build recorded in app.domain._build",
            "app/domain/extra.py: compiled, but not by the build recorded in app.domain._build",
        ],
    )


def test_a_recorded_module_whose_compiled_form_is_missing_is_refused(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = recorded(package, monkeypatch)
    built["app/domain/state.py"].unlink()
    built["app/domain/checks/cards.py"].unlink()
    assert problems(package) == (
        "compiled by mypyc (mypy 1.0), 3 modules",
        [
            "app/domain/checks/cards.py: compiled by this build, but its compiled module is missing",
            "app/domain/state.py: compiled by this build, but its compiled module is missing",
        ],
    )


def test_a_compiled_module_whose_source_is_missing_is_refused(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded(package, monkeypatch)
    (package / "replay.py").unlink()
    (package / "state.py").unlink()
    (package / "state.py").mkdir()  # not a file either
    assert problems(package)[1] == [
        "app/domain/replay.py: compiled, but its source is missing",
        "app/domain/state.py: compiled, but its source is missing",
    ]


def test_a_compiled_module_whose_source_was_changed_is_refused(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded(package, monkeypatch)
    edited = REPLAY + b"# edited\n"
    touch(package / "replay.py", edited)
    was, now = sha256(REPLAY), sha256(edited)
    assert problems(package) == (
        "compiled by mypyc (mypy 1.0), 3 modules",
        [f"app/domain/replay.py: source sha256 {now[:16]}… is not the {was[:16]}… it was compiled from"],
    )


def test_every_mismatch_is_named_unrecorded_modules_first_then_the_record_in_path_order(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = recorded(package, monkeypatch)
    build(package, "zeta", "alpha")
    built["app/domain/state.py"].unlink()
    touch(package / "checks" / "cards.py", b"")
    (package / "replay.py").unlink()
    assert problems(package)[1] == [
        "app/domain/alpha.py: compiled, but not by the build recorded in app.domain._build",
        "app/domain/zeta.py: compiled, but not by the build recorded in app.domain._build",
        f"app/domain/checks/cards.py: source sha256 {sha256(b'')[:16]}… is not the {sha256(CARDS)[:16]}… "
        "it was compiled from",
        "app/domain/replay.py: compiled, but its source is missing",
        "app/domain/state.py: compiled by this build, but its compiled module is missing",
    ]


# -- verify: the start --------------------------------------------------------------------------------------------


def test_an_engine_that_matches_starts_and_says_which_it_is(
    package: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert verify(package) == "pure Python"
    recorded(package, monkeypatch)
    assert verify(package) == "compiled by mypyc (mypy 1.0), 3 modules"
    assert capsys.readouterr() == ("", "")


def test_a_refused_engine_stops_with_status_2_and_says_why_on_stderr(
    package: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded(package, monkeypatch)
    (package / "replay.py").unlink()
    build(package, "extra")
    with pytest.raises(CompiledEngineRefused) as info:
        verify(package)
    message = "\n".join(
        [
            f"bjaudit: refusing to start: the compiled engine under {package} does not match its sources",
            "  app/domain/extra.py: compiled, but not by the build recorded in app.domain._build",
            "  app/domain/replay.py: compiled, but its source is missing",
            ADVICE,
        ]
    )
    refused = info.value
    assert isinstance(refused, SystemExit)  # the process stops, whoever imports the engine
    assert refused.code == 2 == compiled.EXIT_REFUSED  # 1 means findings to `audit`
    assert refused.message == message
    assert str(refused) == message
    assert capsys.readouterr() == ("", message + "\n")


def test_the_refusal_carries_its_message_and_the_status(capsys: pytest.CaptureFixture[str]) -> None:
    refused = CompiledEngineRefused("the reason")
    assert (refused.code, refused.args, refused.message, str(refused)) == (
        2,
        (2,),
        "the reason",
        "the reason",
    )
    with pytest.raises(SystemExit) as info:
        raise refused
    assert info.value.code == 2
    assert capsys.readouterr() == ("", "")  # only verify writes it


def test_without_a_record_the_refusal_names_the_compiled_modules(
    package: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(package, "replay")
    with pytest.raises(CompiledEngineRefused) as info:
        verify(package)
    assert info.value.message.splitlines() == [
        f"bjaudit: refusing to start: the compiled engine under {package} does not match its sources",
        "  app/domain/replay.py: compiled, but no record of the sources they were compiled from "
        + RECORD_NOTE,
        ADVICE,
    ]
    assert capsys.readouterr().err == info.value.message + "\n"
