"""Shoe reconciliation: the stored rounds of one ``shoe_id`` (one source's, in one jurisdiction) counted card by card
against the decks the shoe holds (:mod:`app.domain.shoe`).

Called by the HTTP API. Functions take a :class:`~sqlalchemy.orm.Session` and never commit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson
from sqlalchemy.orm import Session

from app.domain.errors import AuditError
from app.domain.model import Burn, Round
from app.domain.shoe import MAX_DECKS, Reconciliation, ShoeRound, reconcile
from app.jurisdictions import ruleset_for
from app.jurisdictions.common import uncited
from app.store import shoes as repo
from app.usecases.errors import AmbiguousShoe, InvalidRound, ShoeNotFound, ShoeTooLarge
from app.usecases.offline import iso_utc, read_round

MAX_SHOE_ROUNDS = 2000
"""The most rounds one reconciliation reads: a shoe is a few hundred rounds at most (six to eight decks, a few
cards a box); more under one shoe_id means the id is reused, and the answer would say little."""

OVER_COUNT = uncited(
    "shoe-card-over-count",
    "No card is seen in a shoe more often than its decks hold it",
    "dealing",
    "The rounds of one shoe are dealt from one card supply: across them each card can be seen at most as often as "
    "the shoe's decks hold it. One seen more often was added to the shoe, or a round is misrecorded.",
    elections=("decks",),
)
DECKS_DISAGREE = uncited(
    "shoe-decks-disagree",
    "The rounds of a shoe agree on its number of decks",
    "election",
    "One shoe holds one number of decks: its rounds cannot state different numbers.",
    elections=("decks",),
)
UNREADABLE = uncited(
    "shoe-round-unreadable",
    "Every stored round of the shoe can be read",
    "record",
    "A stored record that this version of the service can no longer read: its cards are not counted, and the "
    "shoe's count is incomplete.",
)


def round_decks(rnd: Round, audit: Mapping[str, Any]) -> tuple[int | None, str | None]:
    """The decks of a round's table, and where they come from: its ``table.rules``, else the elections its stored
    audit applied (a registration's, or the jurisdiction's defaults), else the jurisdiction's default; (None, None)
    when none says."""
    stated = (rnd.rules or {}).get("decks")
    if type(stated) is int:
        return stated, "record"
    applied = audit.get("elections")
    decks = applied.get("decks") if isinstance(applied, dict) else None
    if type(decks) is int:
        return decks, "registered" if audit.get("elections_source") == "registered" else "defaults"
    try:
        default = ruleset_for(rnd.jurisdiction, rnd.played_at).defaults.get("decks")
    except AuditError:
        default = None
    return (default, "defaults") if type(default) is int else (None, None)


def burns_of(rnd: Round) -> dict[int, str]:
    """A round's burned cards by event index (round-v1 section 2.3): each left the shoe and counts toward the copies
    of its card and the cards used (:func:`app.domain.shoe.cards_shown` counts them), belonging to no hand; the answer
    tells them apart by their indices."""
    return {i: ev.card for i, ev in enumerate(rnd.events) if type(ev) is Burn}


def reconcile_shoe(session: Session, shoe_id: str, source: str | None, jurisdiction: str | None) -> bytes:
    """The reconciliation of a stored shoe, as JSON: its rounds in the order played, the cards seen, findings."""
    groups = repo.shoe_groups(session, shoe_id, source, jurisdiction)
    if not groups:
        raise ShoeNotFound(
            f"No stored round has shoe_id {shoe_id!r}" + (f" for source {source!r}" if source else "") + "."
        )
    if len(groups) > 1:
        raise AmbiguousShoe(
            f"Rounds of {len(groups)} sources or jurisdictions have shoe_id {shoe_id!r}: a shoe is one source's, "
            "in one jurisdiction; narrow with ?source= and/or ?jurisdiction=.",
            extra={
                "candidates": [
                    {"source": g.source, "jurisdiction": g.jurisdiction, "rounds": g.rounds} for g in groups
                ]
            },
        )
    group = groups[0]
    rows = repo.shoe_rounds(session, shoe_id, group.source, group.jurisdiction, MAX_SHOE_ROUNDS + 1)
    if max(group.rounds, len(rows)) > MAX_SHOE_ROUNDS:
        raise ShoeTooLarge(
            f"{max(group.rounds, len(rows))} stored rounds have shoe_id {shoe_id!r}; a reconciliation reads at most "
            f"{MAX_SHOE_ROUNDS} (a shoe is a few hundred rounds: the id is likely reused).",
            extra={"rounds": max(group.rounds, len(rows)), "limit": MAX_SHOE_ROUNDS},
        )
    return orjson.dumps(shoe_answer(shoe_id, group.source, group.jurisdiction, rows))


def shoe_answer(shoe_id: str, source: str, jurisdiction: str, rows: Sequence[Any]) -> dict[str, Any]:
    """The answer from a shoe's stored rows (:data:`app.store.shoes.SHOE_COLUMNS`), in the order played."""
    summaries: list[dict[str, Any]] = []
    counted: list[dict[str, Any]] = []  # the summaries of the rounds read, whose cards are counted
    unreadable: list[tuple[str, InvalidRound]] = []
    burns: dict[tuple[str, int], str] = {}  # (round_id, event) of each burn -> its card

    def readable() -> Iterator[ShoeRound]:
        for row in rows:
            summary: dict[str, Any] = {
                "round_id": row.round_id,
                "played_at": iso_utc(row.played_at),
                "table_id": row.table_id,
                "decks": None,
                "decks_source": None,
                "cards": None,
                "burned": None,
            }
            summaries.append(summary)
            try:
                rnd = read_round(bytes(row.record))
            except InvalidRound as exc:
                unreadable.append((row.round_id, exc))
                continue
            decks, decks_source = round_decks(rnd, orjson.loads(row.audit))
            summary["decks"], summary["decks_source"] = decks, decks_source
            counted.append(summary)
            burned = burns_of(rnd)
            summary["burned"] = len(burned)
            burns.update({(row.round_id, i): card for i, card in burned.items()})
            yield ShoeRound(rnd, decks)

    done = reconcile(readable())
    for summary, n in zip(counted, done.cards_per_round, strict=True):
        summary["cards"] = n
    burned_cards = Counter(burns.values())
    return {
        "shoe_id": shoe_id,
        "source": source,
        "jurisdiction": jurisdiction,
        "decks": done.decks,
        "copies_allowed": done.allowed,
        "card_count": sum(done.cards_seen.values()),
        "burn_count": len(burns),
        "rounds": summaries,
        "cards_seen": done.cards_seen,
        "cards_burned": {card: burned_cards[card] for card in done.cards_seen if card in burned_cards},
        "findings": findings(shoe_id, done, unreadable, frozenset(burns)),
    }


def _rule(rule: Any) -> dict[str, Any]:
    return {
        "rule": rule.rule,
        "citation": rule.citation,
        "citation_status": rule.citation_status,
        "title": rule.title,
        "category": rule.category,
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def findings(
    shoe_id: str,
    done: Reconciliation,
    unreadable: Sequence[tuple[str, InvalidRound]] = (),
    burns: frozenset[tuple[str, int]] = frozenset(),
) -> list[dict[str, Any]]:
    """The shoe's findings: rounds whose record cannot be read, rounds that disagree on the decks, then each card
    seen too often (in the order it went past the copies allowed; ``burns``: the (round_id, event) of the burned
    cards, whose sightings say so)."""
    out: list[dict[str, Any]] = []
    for rid, exc in unreadable:
        first = (exc.errors or [{}])[0]
        out.append(
            {
                **_rule(UNREADABLE),
                "message": f"Round {rid}'s stored record cannot be read ({first.get('pointer') or '/'}: "
                f"{first.get('detail') or exc.detail}); its cards are not counted.",
                "expected": None,
                "actual": None,
                "card": None,
                "rounds": [{"round_id": rid, "event": None}],
            }
        )
    if done.decks_disagree:
        # The number more rounds state than any other (on a tie, the first stated) is taken as the shoe's; the
        # rounds stating another are named.
        usual = max(done.decks_stated, key=lambda d: len(done.decks_stated[d]))
        stated = ", ".join(
            f"{d} ({_plural(len(ids), 'round')})" for d, ids in sorted(done.decks_stated.items())
        )
        others = [(d, rid) for d, ids in done.decks_stated.items() if d != usual for rid in ids]
        most = sum(len(ids) == len(done.decks_stated[usual]) for ids in done.decks_stated.values()) == 1
        lead = (
            f"More of them state {usual} than any other number"
            if most
            else f"Two numbers or more are stated by as many of them; the first stated, {usual}, is taken as the shoe's"
        )
        out.append(
            {
                **_rule(DECKS_DISAGREE),
                "message": f"The rounds of shoe {shoe_id} state {len(done.decks_stated)} numbers of decks: "
                f"{stated}; one shoe holds one number. {lead}; "
                f"{', '.join(f'{rid} states {d}' for d, rid in others)}.",
                "expected": usual,
                "actual": sorted(done.decks_stated),
                "card": None,
                "rounds": [{"round_id": rid, "event": None, "decks": d} for d, rid in others],
            }
        )
    if not done.decks_stated:
        basis = (
            f"no round states the shoe's decks: the most a table may use, {MAX_DECKS}, hold {MAX_DECKS} of it"
        )
    elif done.decks_disagree:
        basis = f"the most decks any of its rounds states, {done.allowed}, hold {done.allowed} of it"
    else:
        basis = f"{_plural(done.allowed, 'deck')} hold{'s' if done.allowed == 1 else ''} only {done.allowed} of it"
    for o in done.over_counts:
        rounds = list(dict.fromkeys(s.round_id for s in o.sightings))
        n_burned = sum((s.round_id, s.event) in burns for s in o.sightings)
        of_them = f" ({n_burned} of them burned)" if n_burned else ""
        out.append(
            {
                **_rule(OVER_COUNT),
                "message": f"{o.card} is seen {o.seen} times in shoe {shoe_id}{of_them}, but {basis}: a card was added "
                f"to the shoe, or a round is misrecorded. Seen in {', '.join(rounds)}; past the limit first in "
                f"{o.first_over.round_id} (event {o.first_over.event}).",
                "expected": o.allowed,
                "actual": o.seen,
                "card": o.card,
                "rounds": [
                    {"round_id": s.round_id, "event": s.event, "burned": (s.round_id, s.event) in burns}
                    for s in o.sightings
                ],
            }
        )
    return out
