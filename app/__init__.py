"""bjaudit: blackjack compliance auditing (see README.md)."""

__version__ = "0.1.0"
"""The package's version: pyproject.toml reads it from here (one place to change it)."""
