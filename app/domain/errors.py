"""Why a round cannot be audited at all (as opposed to a finding, which is a result).

AuditError
  +-- UnknownJurisdiction     the jurisdiction code has no rules module
  +-- NoRulesetInForce        no ruleset we hold was in force when the round was played
"""

from __future__ import annotations


class AuditError(Exception):
    pointer: str = ""

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer


class UnknownJurisdiction(AuditError):
    pass


class NoRulesetInForce(AuditError):
    pass
