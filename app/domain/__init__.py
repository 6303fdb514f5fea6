"""The pure engine: the round, the state of play and its replay, the rule framework and the checks.

Importing it first checks that a compiled build of it (``setup.py``, ``BJAUDIT_COMPILE=1``) matches its sources:
:mod:`app.domain.compiled`. ``ENGINE`` says which engine runs."""

from app.domain.compiled import verify

ENGINE: str = verify()
"""``"pure Python"``, or which compiler built the compiled modules and how many there are."""
