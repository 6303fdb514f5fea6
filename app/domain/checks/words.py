"""How findings put money and outcomes into words (built only when a finding is made)."""

from __future__ import annotations


def verb(net: int) -> str:
    """What a net did, in the past tense.

    >>> verb(2500), verb(-2500), verb(0)
    ('won 2500', 'lost 2500', 'pushed')
    """
    return f"won {net}" if net > 0 else f"lost {-net}" if net < 0 else "pushed"


def due(net: int) -> str:
    """What a net owes, as a noun.

    >>> due(3750), due(-2500), due(0)
    ('a payment of 3750', 'a collection of 2500', 'a stand off')
    """
    return f"a payment of {net}" if net > 0 else f"a collection of {-net}" if net < 0 else "a stand off"


def done(net: int) -> str:
    """What a settlement did.

    >>> done(2500), done(-5000), done(0)
    ('2500 was paid', '5000 was collected', 'nothing changed hands')
    """
    return f"{net} was paid" if net > 0 else f"{-net} was collected" if net < 0 else "nothing changed hands"


def sign(n: int) -> int:
    """The sign of a net.

    >>> sign(-7), sign(0), sign(3)
    (-1, 0, 1)
    """
    return (n > 0) - (n < 0)


def plural(n: int, word: str) -> str:
    """A count of things.

    >>> plural(1, "card"), plural(3, "card"), plural(0, "card")
    ('1 card', '3 cards', '0 cards')
    """
    return f"{n} {word}{'s' if n != 1 else ''}"
