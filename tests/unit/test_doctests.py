"""The examples in the docstrings (the engine's, and the few outside it) are tests too."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import app.domain

MODULES = [
    *sorted(name for _, name, _ in pkgutil.walk_packages(app.domain.__path__, prefix="app.domain.")),
    "app.jurisdictions",
    "app.wire.elections",
    "app.wire.reaudit",
    "app.usecases.audit_diff",
    "app.usecases.auditing",
    "app.usecases.keys",
    "app.usecases.integrity",
    "app.usecases.rounds",
    "app.api.deps",
    "app.api.auth",
    "app.store.db",
    "app.store.chain",
    "app.config",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0
