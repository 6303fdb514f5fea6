"""The money invariant (round-v1.md section 2.2): the sum of ``amount_delta`` over a round's findings is what the
round owes the player (+) or the player owes (-).

Over generated legal rounds (nothing owed, no finding) and over every payout fault the mutator injects into them,
one at a time, two to a round (on the bets of different seats), and as corrections made at the table (section
2.3): the sum over the round's findings equals what the injected faults owe, as each mutation states it, and that
equals what the legal round paid less what the mutated round paid, bet by bet, as the table finally settled it (a
corrected settlement counted at its last correction).
"""

from __future__ import annotations

import collections
import json
import random
from typing import Any

import pytest

from app.synth.mutator import COMBINABLE, MUTATIONS, PAYOUT_FAULTS, Fault, combine
from tests.property.test_generated import Corpus, _audit, _found, _matches

Doc = dict[str, Any]

PER_FAULT = 150
PER_PAIRED = 100


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus()


def _net(e: Doc) -> int:
    if e["result"] == "win":
        return int(e["amount"])
    return 0 if e["result"] in ("push", "void") else -int(e["amount"])


def paid(doc: Doc) -> int:
    """What the round moved to the player (+) or from the player (-), as the table finally settled it: every bet's
    settlement (the last correction in place of a corrected one; a further settlement of the bet counts too) and
    even money."""
    final: dict[int, int] = {}
    corrects: dict[int, int] = {}
    total = 0
    for i, e in enumerate(doc["events"]):
        if e["type"] == "even_money":
            total += e["amount"]
        elif e["type"] == "settle":
            k = e.get("corrects")
            first = i if k is None else corrects.get(k, k)
            corrects[i] = first
            final[first] = _net(e)
    return total + sum(final.values())


def _owed(doc: Doc) -> int:
    return sum(f.get("amount_delta") or 0 for f in _audit(doc))


def _check(source: Doc, fault: Fault, what: str) -> bool:
    """The fault's round gives exactly its findings; where it states what it owes, the findings' amount_delta add
    up to that, and that is the money it moved wrongly. False where it states none (the spec leaves it open)."""
    new, expected, owes = fault
    assert _matches(expected, new), f"{what}: expected {expected}, got {_found(new)}\n{json.dumps(new)}"
    if owes is None:
        return False
    assert _owed(new) == owes, f"{what}: the findings add up to {_owed(new)}, {owes} owed\n{json.dumps(new)}"
    assert paid(source) - paid(new) == owes, f"{what}: moved {paid(source) - paid(new)}, says {owes}"
    return True


def test_legal_rounds_owe_nothing(corpus: Corpus) -> None:
    for r in corpus.all():
        assert not corpus.findings[r["round_id"]]
        assert _owed(r) == 0


@pytest.mark.parametrize("name", sorted(PAYOUT_FAULTS))
def test_a_payout_fault_owes_what_it_states(corpus: Corpus, name: str) -> None:
    """One fault a round: the findings add up to what it owes."""
    mutation = next(m for m in MUTATIONS if m.name == name)
    rng = random.Random(f"owed:{name}")
    sources = corpus.compliant()
    rng.shuffle(sources)
    stated = 0
    for doc in sources:
        fault = mutation.apply(doc, rng)
        if fault is None:
            continue
        stated += _check(doc, fault, name)
        if stated >= PER_FAULT:
            break
    assert stated >= 10, f"{name} stated what it owes on {stated} rounds"


def test_faults_that_move_no_money_claim_none(corpus: Corpus) -> None:
    """A fault of sequence, election or record-keeping owes nothing, and its findings carry no amount_delta (a
    right correction of a wrong settlement: 0)."""
    rng = random.Random("owed:none")
    counts: collections.Counter[str] = collections.Counter()
    for m in MUTATIONS:
        if m.name in PAYOUT_FAULTS:
            continue
        for doc in corpus.compliant()[::5]:
            fault = m.apply(doc, rng)
            if fault is None:
                continue
            assert fault.owes == 0, m.name
            assert all(w.amount is None for w in fault.expected), m.name
            assert _owed(fault.round) == 0, (m.name, json.dumps(fault.round))
            counts[m.name] += 1
            if counts[m.name] >= 40:
                break
    assert all(counts[m.name] for m in MUTATIONS if m.name not in PAYOUT_FAULTS), counts


def test_two_faults_owe_what_they_state_together(corpus: Corpus) -> None:
    """Two payout faults in one round, on the bets of different seats (each combinable fault first, with another
    picked at random second, corrections included): exactly the findings of both, and the findings add up to what
    both owe."""
    rng = random.Random("owed:two")
    combinable = sorted((m for m in MUTATIONS if m.name in COMBINABLE), key=lambda m: m.name)
    sources = [r for r in corpus.compliant() if len(r["seats"]) > 1]
    done: collections.Counter[tuple[str, str]] = collections.Counter()
    for first in combinable:
        rng.shuffle(sources)
        n = 0
        for doc in sources:
            second = combinable[int(rng.random() * len(combinable))]
            fault = combine(first, second, doc, rng)
            if fault is None:
                continue
            if _check(doc, fault, f"{first.name} + {second.name}"):
                done[(first.name, second.name)] += 1
                n += 1
            if n >= PER_PAIRED:
                break
    firsts = collections.Counter(a for a, _ in done.elements())
    assert set(firsts) == COMBINABLE, sorted(COMBINABLE - set(firsts))
    assert sum(done.values()) >= 10 * PER_PAIRED, firsts
    corrected = sum(n for (a, b), n in done.items() if "correction" in a or "correction" in b)
    assert corrected >= 200, corrected


def test_combining_refuses_other_faults() -> None:
    by_name = {m.name: m for m in MUTATIONS}
    with pytest.raises(ValueError):
        combine(by_name["late_stand"], by_name["win_paid_wrong"], {}, random.Random(1))
