"""How findings put money and outcomes into words (built only when a finding is made). Money is written in the
jurisdiction's currency (``$25.00``, ``NZ$25.00``), never in minor units (section 4); the numeric fields of a finding
stay in minor units."""

from __future__ import annotations


def money(amount: int, currency: str = "$") -> str:
    """An amount of minor units (cents), in the currency.

    >>> money(2500), money(125050, "NZ$"), money(5), money(-2500)
    ('$25.00', 'NZ$1,250.50', '$0.05', '-$25.00')
    """
    whole, cents = divmod(abs(amount), 100)
    return f"{'-' if amount < 0 else ''}{currency}{whole:,}.{cents:02d}"


def verb(net: int, currency: str = "$") -> str:
    """What a net did, in the past tense.

    >>> verb(2500), verb(-2500, "NZ$"), verb(0)
    ('won $25.00', 'lost NZ$25.00', 'pushed')
    """
    if net > 0:
        return f"won {money(net, currency)}"
    return f"lost {money(-net, currency)}" if net < 0 else "pushed"


def due(net: int, currency: str = "$") -> str:
    """What a net owes, as a noun.

    >>> due(3750), due(-2500), due(0)
    ('a payment of $37.50', 'a collection of $25.00', 'a stand off')
    """
    if net > 0:
        return f"a payment of {money(net, currency)}"
    return f"a collection of {money(-net, currency)}" if net < 0 else "a stand off"


def done(net: int, currency: str = "$") -> str:
    """What a settlement did.

    >>> done(2500), done(-5000), done(0)
    ('$25.00 was paid', '$50.00 was collected', 'nothing changed hands')
    """
    if net > 0:
        return f"{money(net, currency)} was paid"
    return f"{money(-net, currency)} was collected" if net < 0 else "nothing changed hands"


def owed(delta: int, currency: str = "$") -> str:
    """What a finding's money means.

    >>> owed(1250), owed(-500, "NZ$"), owed(0)
    ('$12.50 is owed to the player', 'NZ$5.00 is owed by the player', 'nothing is owed')
    """
    if delta > 0:
        return f"{money(delta, currency)} is owed to the player"
    return f"{money(-delta, currency)} is owed by the player" if delta < 0 else "nothing is owed"


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
