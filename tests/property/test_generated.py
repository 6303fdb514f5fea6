"""Property tests over generated rounds (app.synth.generator) and injected errors (app.synth.mutator).

* Legal rounds, thousands per jurisdiction across random elections (fixed seeds, so every failure reproduces),
  are audited compliant: no finding at all.
* Every mutation, applied to many legal rounds, produces exactly the findings it names, and each is exercised.
* Every finding is stated whole (rule, event, hand, amount_delta, the table's correction); every money finding's
  expected and actual are integer nets with amount_delta their difference; a voided round's audit says so.
* Every generated round is valid wire format, and generation is deterministic for a seed.
* The generator exercises the legal edges of the rules (feature census below).

When a legal round draws a finding, either the generator or the engine is wrong. Disagreements that were read as
the engine's (the round is legal under the regulation texts and the spec) have a minimal round in the
``test_engine_reads_*`` tests at the end, with our reading of the law and the spec; the engine follows each now.
"""

from __future__ import annotations

import collections
import json
import random
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import pytest

from app.domain.cards import hand_total, is_natural
from app.domain.engine import resolve_elections
from app.domain.replay import Trace, replay
from app.domain.state import STATUS_NAMES
from app.jurisdictions import ruleset_for
from app.synth.generator import VALIDITY, generate_round, generate_rounds, random_elections
from app.synth.mutator import MUTATIONS, PAYOUT_FAULTS, Mutation, Want, mutate
from app.usecases.auditing import audit_round
from app.wire.schema import parse_round, round_from_obj
from tests.builders import (
    NJ_RULES,
    a_round,
    deal,
    double,
    hit,
    insurance,
    peek,
    reveal,
    seat,
    settle,
    settle_additional,
    settle_insurance,
    split,
    stand,
    void,
)

Doc = dict[str, Any]

N_PER_JURISDICTION = 3000
SEEDS = {"US-NJ": 20240916, "NZ": 19941031}

# Tables whose elections make rare legal edges common: no peek (dealer blackjack after doubles and splits),
# resplits to four hands, face-down double cards, a hand-held 6 to 5 game, an NZ table with every option, odds and
# surrender halves rounded up to the chip.
TARGETED: list[tuple[str, dict[str, Any], int, int]] = [
    (
        "US-NJ",
        {
            "decks": 6,
            "dealer_soft_17": "stand",
            "blackjack_pays": "3:2",
            "dealer_second_card": "initial_deal",
            "peek": False,
            "double_card": "face_down",
            "boxes": 6,
            "resplit": True,
            "resplit_aces": True,
            "surrender": "late",
            "additional_wager": "over_under_13",
        },
        7001,
        2500,
    ),
    (
        "US-NJ",
        {
            "decks": 1,
            "dealt_from": "hand",
            "dealer_soft_17": "hit",
            "blackjack_pays": "6:5",
            "double_after_split": False,
            "peek": True,
            "resplit": True,
            "resplit_aces": False,
            "boxes": 7,
            "double_card": "player_request",
            "additional_wager": "same_suit",
        },
        7002,
        1200,
    ),
    (
        "NZ",
        {
            "decks": 8,
            "dealer_soft_17": "hit",
            "blackjack_pays": "3:2",
            "dealer_second_card": "after_players",
            "min_chip": 500,
            "double_after_split": False,
            "resplit": True,
            "surrender": "late",
        },
        7003,
        1500,
    ),
    (
        "US-NJ",
        {
            "decks": 8,
            "dealer_soft_17": "hit",
            "blackjack_pays": "3:2",
            "peek": True,
            "surrender": "late",
            "min_chip": 100,
            "payout_rounding": "up",
            "min_wager": 500,
            "max_wager": 100000,
        },
        7004,
        800,
    ),
]


def _audit(doc: Doc) -> list[dict[str, Any]]:
    result = audit_round(round_from_obj(doc)).to_dict()
    findings: list[dict[str, Any]] = result["findings"]
    assert (result["verdict"] == "compliant") == (not findings), result["verdict"]
    # Section 2.3: the audit of a voided round says where and why.
    void = next(
        ({"event": i, "reason": e["reason"]} for i, e in enumerate(doc["events"]) if e["type"] == "void"),
        None,
    )
    assert result.get("void") == void, (result.get("void"), void)
    for f in findings:
        if f.get("amount_delta") is not None:
            # Section 2.2: a money finding's expected and actual are integer nets, and amount_delta what is owed
            # (against the table's correction, section 2.3, where there was one).
            actual = f["corrected_actual"] if "corrected_by" in f else f["actual"]
            assert type(f["expected"]) is int and type(f["actual"]) is int, f
            assert f["amount_delta"] == f["expected"] - actual, f
    return findings


def _fired(doc: Doc) -> list[tuple[str, int | None]]:
    return [(f["rule"], f["event"]) for f in _audit(doc)]


def _found(doc: Doc) -> list[Want]:
    """Every finding of the round, whole: rule, event, hand, amount_delta and the table's correction."""
    return [
        Want(
            f["rule"],
            f["event"],
            f["hand"],
            f.get("amount_delta"),
            f.get("corrected_by"),
            f.get("corrected_actual"),
        )
        for f in _audit(doc)
    ]


def _matches(expected: list[Want], doc: Doc) -> bool:
    """The round's findings are exactly the expected ones, each whole: its rule, event and hand, its amount_delta
    (none where the mutation states none) with the spec's sign (+ owed to the player), and the correction."""
    return collections.Counter(expected) == collections.Counter(_found(doc))


class Corpus:
    """The generated rounds and their audits, made once per test session."""

    def __init__(self) -> None:
        self.by_jurisdiction: dict[str, list[Doc]] = {
            j: list(generate_rounds(N_PER_JURISDICTION, seed, j)) for j, seed in SEEDS.items()
        }
        self.targeted: list[Doc] = [
            r for j, e, seed, n in TARGETED for r in generate_rounds(n, seed, j, elections=e)
        ]
        self.findings: dict[str, list[dict[str, Any]]] = {r["round_id"]: _audit(r) for r in self.all()}

    def all(self) -> Iterable[Doc]:
        for rounds in self.by_jurisdiction.values():
            yield from rounds
        yield from self.targeted

    def compliant(self) -> list[Doc]:
        return [r for r in self.all() if not self.findings[r["round_id"]]]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus()


def _report(failures: list[tuple[Doc, list[dict[str, Any]]]], what: str) -> str:
    """One line per kind of finding (with its count) and the shortest round showing it, with its findings."""
    groups: dict[tuple[str, ...], list[tuple[Doc, list[dict[str, Any]]]]] = collections.defaultdict(list)
    for doc, findings in failures:
        groups[tuple(sorted({f["rule"] for f in findings}))].append((doc, findings))
    lines = [f"{len(failures)} {what}:"]
    for rules, cases in sorted(groups.items(), key=lambda g: -len(g[1])):
        doc, findings = min(cases, key=lambda c: len(json.dumps(c[0])))
        lines.append(f"\n== {', '.join(rules)}: {len(cases)} round(s); the shortest:")
        lines.append(json.dumps(doc))
        for f in findings:
            lines.append(f"   {f['rule']} at event {f['event']} ({f['hand']}): {f['message']}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# (a) Legal rounds are compliant


@pytest.mark.parametrize("jurisdiction", sorted(SEEDS))
def test_generated_rounds_are_compliant(corpus: Corpus, jurisdiction: str) -> None:
    rounds = corpus.by_jurisdiction[jurisdiction] + [
        r for r in corpus.targeted if r["jurisdiction"] == jurisdiction
    ]
    failures = [(r, corpus.findings[r["round_id"]]) for r in rounds if corpus.findings[r["round_id"]]]
    assert not failures, _report(failures, f"legal {jurisdiction} rounds drew findings")


def _hole_first(doc: Doc) -> bool:
    """The dealer's first card dealt face down (the hole card first, the up card second)."""
    first = next((e for e in doc["events"] if e["type"] == "deal" and e["to"] == "dealer"), None)
    return first is not None and first.get("face") == "down"


def test_generated_rounds_in_either_deal_order_are_compliant(corpus: Corpus) -> None:
    """The up card is the one dealt face up: rounds whose hole card is dealt first are as legal as the others."""
    by_order: dict[bool, list[Doc]] = {True: [], False: []}
    for r in corpus.all():
        if r["jurisdiction"] == "US-NJ":
            by_order[_hole_first(r)].append(r)
    for hole_first, rounds in by_order.items():
        assert len(rounds) > 300, (
            f"too few rounds with the hole card dealt {'first' if hole_first else 'second'}"
        )
        failures = [(r, corpus.findings[r["round_id"]]) for r in rounds if corpus.findings[r["round_id"]]]
        assert not failures, _report(
            failures, f"legal rounds (hole card {'first' if hole_first else 'second'})"
        )


def test_mixed_stream_is_compliant() -> None:
    rounds = list(generate_rounds(1500, 4242))
    assert {r["jurisdiction"] for r in rounds} == {"US-NJ", "NZ"}
    failures = [(r, f) for r in rounds if (f := _audit(r))]
    assert not failures, _report(failures, "legal rounds (mixed stream) drew findings")


def test_rounds_with_given_elections_carry_them_and_are_compliant() -> None:
    for j in ("US-NJ", "NZ"):
        rng = random.Random(99)
        for _ in range(40):
            e = random_elections(rng, j)
            for r in generate_rounds(25, rng.randrange(1 << 30), j, elections=e):
                assert r["table"]["rules"] == e
                assert r["jurisdiction"] == j
                findings = _audit(r)
                assert not findings, _report([(r, findings)], "legal rounds drew findings")


def test_generate_round_is_a_legal_round() -> None:
    rng = random.Random(3)
    for j in ("US-NJ", "NZ"):
        for _ in range(200):
            r = generate_round(rng, j)
            findings = _audit(r)
            assert not findings, _report([(r, findings)], "legal rounds drew findings")


def test_generate_round_takes_id_time_and_elections() -> None:
    rng = random.Random(5)
    lo, _ = VALIDITY["NZ"]
    e = {
        "decks": 6,
        "dealer_soft_17": "stand",
        "blackjack_pays": "3:2",
        "dealer_second_card": "after_players",
    }
    r = generate_round(rng, "NZ", elections=e, round_id="NZ-TEST-1", played_at=lo)
    assert r["round_id"] == "NZ-TEST-1"
    assert r["played_at"] == lo.isoformat(timespec="seconds")
    assert r["table"]["rules"] == e
    with pytest.raises(ValueError):
        generate_round(rng, "US-NV")


# ---------------------------------------------------------------------------------------------------------------
# (b) Mutations produce exactly the findings they name

APPLICATIONS_PER_MUTATION = 120


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_mutation_gives_exactly_its_findings(corpus: Corpus, mutation: Mutation) -> None:
    rng = random.Random(f"mutation:{mutation.name}")
    sources = corpus.compliant()
    rng.shuffle(sources)
    applied = 0
    wrong = []
    for doc in sources:
        out = mutation.apply(doc, rng)
        if out is None:
            continue
        new, expected, _ = out
        assert new is not doc and new["events"] is not doc["events"], "the source round must not be changed"
        round_from_obj(new)  # still valid wire format
        if not _matches(expected, new):
            got = _found(new)
            wrong.append((new, expected, got))
        applied += 1
        if applied >= APPLICATIONS_PER_MUTATION:
            break
    assert applied, f"{mutation.name} applied to none of {len(sources)} legal rounds"
    assert not wrong, (
        "\n".join(
            f"{mutation.name}: expected {exp}, got {got}\n{json.dumps(new)}" for new, exp, got in wrong[:3]
        )
        + f"\n({len(wrong)} of {applied} wrong)"
    )


STATE_OF_PLAY_FAULTS = {
    "card_after_settlement": "a card, with or without a hit, to a hand already settled",
    "hit_after_stand": "a hit and its card on a hand that stood",
    "late_stand": "a stand recorded after a card went to another hand (split hands, later boxes, the dealer)",
    "play_after_dealer_blackjack": "a hit or card after the peek showed the dealer's blackjack",
}


@pytest.mark.parametrize("name", sorted(STATE_OF_PLAY_FAULTS))
def test_state_of_play_faults_give_exactly_their_findings_in_both_jurisdictions(
    corpus: Corpus, name: str
) -> None:
    """The faults of section 2.1, injected into legal rounds of each jurisdiction where they apply: exactly the
    findings the mutation names (the parametrized test above also runs them; this one insists on volume)."""
    mutation = next(m for m in MUTATIONS if m.name == name)
    rng = random.Random(f"state:{name}")
    applied: collections.Counter[str] = collections.Counter()
    for doc in corpus.compliant():
        j = doc["jurisdiction"]
        if applied[j] >= 150:
            continue
        out = mutation.apply(doc, rng)
        if out is None:
            continue
        new, expected, _ = out
        assert _matches(expected, new), json.dumps(new)
        applied[j] += 1
    assert applied["US-NJ"] >= 30, applied
    if name != "play_after_dealer_blackjack":  # NZ tables in the corpus deal no hole card, so never peek
        assert applied["NZ"] >= 30, applied


RECORD_FAULTS = {
    "burn_during_play": "a card burned between the first card and the dealer's complete hand",
    "void_wager_won_or_lost": "a wager in play at the void paid or collected instead of returned",
    "void_wager_never_returned": "a wager in play at the void never returned",
    "play_after_void": "a card dealt or a decision taken after the void",
    "right_correction": "a wrong settlement corrected at the table to the right amount",
    "wrong_correction": "a wrong settlement corrected at the table to another wrong amount",
    "correction_of_right": "a right settlement corrected at the table into a wrong one",
}


@pytest.mark.parametrize("name", sorted(RECORD_FAULTS))
def test_record_faults_give_exactly_their_findings_in_both_jurisdictions(corpus: Corpus, name: str) -> None:
    """The faults of section 2.3, injected into legal rounds of each jurisdiction (a void's into the legal voided
    rounds the generator deals): exactly the findings the mutation names, with the money still owed."""
    mutation = next(m for m in MUTATIONS if m.name == name)
    rng = random.Random(f"records:{name}")
    applied: collections.Counter[str] = collections.Counter()
    for doc in corpus.compliant():
        j = doc["jurisdiction"]
        if applied[j] >= 150:
            continue
        out = mutation.apply(doc, rng)
        if out is None:
            continue
        new, expected, _ = out
        assert _matches(expected, new), f"expected {expected}, got {_found(new)}\n{json.dumps(new)}"
        applied[j] += 1
    assert applied["US-NJ"] >= 30 and applied["NZ"] >= 30, applied


# Every payout fault but a right correction (which leaves nothing owed) states money owed.
MONEY_MUTATIONS = PAYOUT_FAULTS - {"right_correction"}


@pytest.mark.parametrize("name", sorted(MONEY_MUTATIONS))
def test_payout_faults_state_the_money_owed(corpus: Corpus, name: str) -> None:
    """Each injected payout error names the money owed (+ to the player, 0 where a push was settled twice or left
    out), and the audit's amount_delta is exactly that."""
    mutation = next(m for m in MUTATIONS if m.name == name)
    rng = random.Random(f"money:{name}")
    stated = 0
    for doc in corpus.compliant():
        out = mutation.apply(doc, rng)
        if out is None:
            continue
        new, expected, _ = out
        assert _matches(expected, new), json.dumps(new)
        stated += any(w.amount for w in expected)
        if stated >= 50:
            break
    assert stated >= 3, f"{name} stated the money owed {stated} times"


def test_every_mutation_is_exercised(corpus: Corpus) -> None:
    rng = random.Random(11)
    sources = corpus.compliant()
    counts = collections.Counter(
        m.name for doc in sources[::3] for m in MUTATIONS if m.apply(doc, rng) is not None
    )
    missing = [m.name for m in MUTATIONS if not counts[m.name]]
    assert not missing, f"mutations never applicable to the corpus: {missing}"
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS), "mutation names must be unique"


def test_mutate_picks_an_applicable_mutation_and_names_its_findings(corpus: Corpus) -> None:
    rng = random.Random(12)
    sources = corpus.compliant()[::7]
    done = 0
    for doc in sources:
        before = json.dumps(doc)
        out = mutate(doc, rng)
        assert json.dumps(doc) == before, "mutate must not change its argument"
        if out is None:
            continue
        new, expected, _ = out
        assert expected, "a mutation injects at least one finding"
        assert _matches(expected, new), json.dumps(new)
        done += 1
    assert done > len(sources) * 0.9


def test_mutations_look_rules_up_through_the_role_binding(corpus: Corpus) -> None:
    # NZ binds no rule to the double card's face, NJ none to the NZ 8.2 timing: those mutations do not apply.
    rng = random.Random(13)
    nz = [r for r in corpus.compliant() if r["jurisdiction"] == "NZ"]
    nj = [r for r in corpus.compliant() if r["jurisdiction"] == "US-NJ"]
    by_name = {m.name: m for m in MUTATIONS}
    assert all(by_name["double_card_face_down"].apply(r, rng) is None for r in nz)
    assert all(by_name["blackjack_settled_early"].apply(r, rng) is None for r in nj)
    assert all(by_name["insurance_collected_late"].apply(r, rng) is None for r in nj)


# ---------------------------------------------------------------------------------------------------------------
# (c) Wire format


def test_every_generated_round_is_valid_wire_format(corpus: Corpus) -> None:
    for r in corpus.all():
        round_from_obj(r)


def test_generated_rounds_survive_ndjson() -> None:
    for r in generate_rounds(300, 8):
        line = json.dumps(r, separators=(",", ":"))
        assert "\n" not in line
        assert parse_round(line.encode()) == round_from_obj(r)


def test_round_ids_are_unique_and_times_within_the_rules(corpus: Corpus) -> None:
    ids = [r["round_id"] for r in corpus.all()]
    assert len(ids) == len(set(ids))
    for r in corpus.all():
        rd = round_from_obj(r)
        lo, hi = VALIDITY[r["jurisdiction"]]
        assert lo <= rd.played_at <= hi + timedelta(hours=4)  # a session that starts by hi ends within hours
        assert ruleset_for(rd.jurisdiction, rd.played_at).covers(rd.played_at.date())
        assert r["table"]["id"] and r["dealer_id"] and r["shoe_id"]


def test_rounds_of_one_shoe_share_its_cards(corpus: Corpus) -> None:
    per_shoe: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    decks: dict[str, int] = {}
    for r in corpus.all():
        rules = r["table"].get("rules")
        if not rules or "decks" not in rules:
            continue
        decks[r["shoe_id"]] = rules["decks"]
        per_shoe[r["shoe_id"]].update(
            ("T" + e["card"][2:] if e["card"].startswith("10") else e["card"]).upper()
            for e in r["events"]
            if e["type"] in ("deal", "burn")  # a burned card counts toward the shoe (section 2.3)
        )
    assert per_shoe
    for shoe, counts in per_shoe.items():
        assert max(counts.values()) <= decks[shoe], shoe


def test_random_elections_are_legal_and_permitted() -> None:
    rng = random.Random(17)
    for _ in range(3000):
        e = random_elections(rng, "US-NJ")
        hand = e.get("dealt_from") == "hand"
        assert 1 <= e["decks"] <= (2 if hand else 8)
        if e.get("blackjack_pays") == "6:5":
            assert e.get("dealer_soft_17", "hit") == "hit"  # 13:69F-2.12(d)
        else:
            assert e.get("double_after_split", True) is True  # 19:47-2.10(d)
        if e.get("resplit"):
            assert e["boxes"] <= 7  # 13:69F-2.11(e)
        if e.get("additional_wager") == "seven":
            assert e["decks"] >= 4  # 13:69F-2.2(a)
        if "min_wager" in e and "max_wager" in e:
            assert e["min_wager"] <= e["max_wager"]
        assert e.get("dealer_second_card", "initial_deal") == "initial_deal"
    for _ in range(3000):
        e = random_elections(rng, "NZ")
        assert 6 <= e["decks"] <= 8  # r 3.1
        assert e.get("blackjack_pays", "3:2") == "3:2"  # r 8.2
        assert e.get("dealer_second_card", "after_players") == "after_players"  # rr 8.2, 9.6
        assert "additional_wager" not in e
    with pytest.raises(ValueError):
        random_elections(rng, "US-NV")


# ---------------------------------------------------------------------------------------------------------------
# (d) Determinism


def test_generation_is_deterministic_for_a_seed() -> None:
    assert list(generate_rounds(400, 1234)) == list(generate_rounds(400, 1234))
    assert list(generate_rounds(50, 1234, "NZ")) == list(generate_rounds(50, 1234, "NZ"))
    assert list(generate_rounds(50, 1234)) != list(generate_rounds(50, 1235))
    assert generate_round(random.Random(9), "US-NJ") == generate_round(random.Random(9), "US-NJ")
    assert random_elections(random.Random(9), "NZ") == random_elections(random.Random(9), "NZ")


def test_mutation_is_deterministic_for_a_seed() -> None:
    rounds = list(generate_rounds(100, 55))
    a = [mutate(r, random.Random(i)) for i, r in enumerate(rounds)]
    b = [mutate(r, random.Random(i)) for i, r in enumerate(rounds)]
    assert a == b


def test_generate_rounds_yields_exactly_n() -> None:
    assert len(list(generate_rounds(0, 1))) == 0
    assert len(list(generate_rounds(137, 1, "US-NJ"))) == 137


# ---------------------------------------------------------------------------------------------------------------
# The generator exercises the legal edges


def _hand_id(name: str) -> tuple[int, int]:
    seat, _, n = name.partition(".")
    return int(seat), int(n) if n else 1


def features(doc: Doc) -> set[str]:
    """What a round shows, for the census: facts read off the engine's replay (which judges nothing)."""
    rd = round_from_obj(doc)
    rs = ruleset_for(rd.jurisdiction, rd.played_at)
    elections, source = resolve_elections(rd, rs, None)
    t: Trace = replay(rd, elections)
    j = rd.jurisdiction
    out: set[str] = set()

    def tag(name: str) -> None:
        out.add(f"{j} {name}")

    if source == "defaults":
        tag("rules omitted")
    e = elections
    if e.get("blackjack_pays") == "6:5":
        tag("6:5 table")
    if e.get("dealt_from") == "hand":
        tag("hand-dealt")
    events = doc["events"]
    if any(ev["type"] == "deal" and ev["to"] != "dealer" and ev.get("face") == "down" for ev in events[:4]):
        tag("player cards face down (pitch)")
    if any(ev["type"] == "deal" for ev in events) and _hole_first(doc):
        tag("hole card dealt first")
    complete_by_rule = {"busted", "21", "doubled and dealt", "split ace"}
    for k, ev in enumerate(events):
        if ev["type"] != "stand":
            continue
        h = t.hands[_hand_id(ev["hand"])]
        if STATUS_NAMES[h.status] in complete_by_rule:
            moved_on = any(
                x["type"] == "deal" and x["to"] != "dealer" and _hand_id(x["to"]) != h.id
                for x in events[h.events[-1] + 1 : k]
            )
            tag(
                "stand recorded on a hand complete by rule, after play moved on"
                if moved_on
                else "stand recorded on a hand complete by rule"
            )
    if t.dbj_known_at is not None:
        reveal_at = next(
            (k for k, ev in enumerate(events) if ev["type"] == "reveal" and ev["to"] == "dealer"), None
        )
        settles = [k for k, ev in enumerate(events) if ev["type"] == "settle" and ev["bet"] == "main"]
        if reveal_at is not None and settles and min(settles) < reveal_at:
            tag("hands settled before the reveal of a peeked dealer blackjack")
    if (
        e.get("peek") is True
        and t.dealer_up is not None
        and t.dealer_up[0] in "ATJQK"
        and len(t.dealer) >= 2
        and t.dealer_events[1] < (t.first_later_card or 1 << 30)
        and not t.peeks
    ):
        tag("peek not recorded")
    if any(ev.get("at") for ev in events):
        tag("event timestamps")
    if any(str(ev.get("card", "")).startswith("10") for ev in events):
        tag("card spelled 10")
    if any(str(ev.get("card", "")).islower() for ev in events):
        tag("lowercase cards")
    if any(ev["type"] in ("hit", "stand") for ev in events):
        tag("hit/stand recorded")
    if any(str(ev.get("hand", ev.get("to", "")))[-2:] == ".1" for ev in events):
        tag("original hand named n.1")
    if t.peeks:
        tag("peek")
        if t.peeks[0][1]:
            tag("dealer blackjack found on peek")
    dealer = t.dealer_values
    if len(dealer) == 1:
        tag("dealer takes no second card")
    if t.dealer_blackjack and not t.peeks:
        tag("dealer blackjack without peek")
    for k in range(2, len(dealer) + 1):
        total, soft = hand_total(dealer[:k])
        if total == 17 and soft:
            tag("dealer hits soft 17" if k < len(dealer) else "dealer stands on soft 17")
    dt, _ = t.dealer_total()
    if dt > 21:
        tag("dealer busts")
    if any(t.is_blackjack(h) for h in t.all_hands()) and dt == 21 and len(dealer) > 2:
        tag("blackjack against a dealer 21 of three cards")
    live = [
        h
        for h in t.all_hands()
        if h.surrendered_at is None and h.even_money is None and h.total <= 21 and not t.is_blackjack(h)
    ]
    if len(dealer) > 2 and not live:
        tag("dealer draws with no live hand")
    for s in t.seats.values():
        if s.insurance:
            tag("insurance")
            if s.insured * 2 < s.wager and s.wager > 1:
                tag("insurance less than half")
            for _, st in s.insurance_settles:
                tag("insurance wins" if st.net > 0 else "insurance loses")
        if s.additional_kind:
            for _, st in s.additional_settles:
                tag(f"additional {s.additional_kind} {'wins' if st.net > 0 else 'loses'}")
            own = s.hands[0].cards[:2] if not s.split else []
            if (
                s.additional_kind in ("over_13", "under_13")
                and len(own) == 2
                and sum(1 if c[0] == "A" else min(10, "A23456789TJQK".index(c[0]) + 1) for c in own) == 13
            ):
                tag("over/under wager on exactly 13")
        if len(s.hands) >= 2:
            tag("split")
            if t.dealer_blackjack:
                tag("dealer blackjack after a split")
        if len(s.hands) == 3:
            tag("resplit to 3 hands")
        if len(s.hands) == 4:
            tag("resplit to 4 hands")
        if s.hands[0].split_aces:
            tag("split aces")
            if len(s.hands) > 2:
                tag("resplit aces")
    if t.round.seats and any(sw.wager % 2 for sw in t.round.seats):
        tag("odd wager")
    if any(sw.wager == e.get("min_wager") for sw in t.round.seats):
        tag("wager at the table minimum")
    if any(sw.wager == e.get("max_wager") for sw in t.round.seats):
        tag("wager at the table maximum")
    for h in t.all_hands():
        for i in h.splits:
            first = h.cards_before(i)[:1]
            new = next(x for x in t.seats[h.id[0]].hands if x.created_by == i)
            if first and first[0][0] != new.cards[0][0]:
                tag("split of two different ten-value cards")
        if h.even_money:
            tag("even money")
        if h.surrendered_at is not None:
            tag("surrender")
        if h.doubles:
            tag("double")
            if h.doubled < h.wager:
                tag("double for less")
            if h.created_by is not None or h.splits:
                tag("double after split")
            if t.dealer_blackjack:
                tag("dealer blackjack after a double")
            card = h.double_card()
            if card is not None and card[2]:
                tag("double card face down")
                if h.total > 21:
                    tag("face-down double card busts")
        if h.total == 21 and len(h.cards) == 2 and not t.is_blackjack(h) and is_natural(h.values):
            tag("ace and ten on a split hand (21, not blackjack)")
        for i, st, *_ in h.settles[:1]:
            if st.result == "lose" and st.amount == 0:
                tag("stand off recorded as lose 0")
            if t.is_blackjack(h):
                second_at = t.dealer_second_at
                if second_at is None or i < second_at:
                    tag("blackjack paid before the dealer's second card")
                if t.dealer_up and t.dealer_up[0] in "ATJQK":
                    tag("blackjack against a dealer ace or ten")
                if h.wager * 3 % 2 or h.wager * 6 % 5:
                    tag("blackjack payout with a fraction")
            if h.total > 21 and (t.dealer_done_at() or 0) > i:
                tag("bust collected at once")
            if st.net == 0 and not t.is_blackjack(h) and not t.dealer_blackjack:
                tag("stand off on equal totals")
    add = [i for s in t.seats.values() for i, _ in s.additional_settles]
    if add and len(dealer) > 1 and min(add) < t.dealer_events[1]:
        tag("additional wagers settled before the hole card")
    out |= {f"{j} {name}" for name in _record_features(doc, e)}
    return out


def _record_features(doc: Doc, elections: dict[str, Any]) -> set[str]:
    """What a round shows of the records of round-v1.md section 2.3 (burns, a void, corrections) and of the odds
    paid in whole chips (section 2.2)."""
    out: set[str] = set()
    events = doc["events"]
    first = next((i for i, ev in enumerate(events) if ev["type"] == "deal"), len(events))
    for i, ev in enumerate(events):
        if ev["type"] == "burn":
            out.add("burn before the first card" if i < first else "burn once the round is over")
            if ev.get("face") == "up":
                out.add("burn face up")
            if i < first and i > 0:
                out.add("several burns")
        elif ev["type"] == "void":
            out.add(f"round voided ({ev['reason']})")
            out.add("round voided")
            after = events[i + 1 :]
            if any(x["type"] == "reveal" and x["to"] == "dealer" for x in after):
                out.add("hole card turned up after the void")
            if any(x["type"] == "settle" and x["result"] == "push" for x in after):
                out.add("voided wager returned as a push of 0")
            for bet in ("main", "insurance", "additional"):
                if any(x["type"] == "settle" and x["bet"] == bet for x in after):
                    out.add(f"{bet} wager returned on a void")
            if any(x["type"] == "settle" for x in events[:i]):
                out.add("settlements before the void")
        elif ev["type"] == "settle" and "corrects" in ev:
            out.add("settlement corrected")
            if events[ev["corrects"]].get("corrects") is not None:
                out.add("a correction corrected")
            if ev["bet"] != "main":
                out.add(f"{ev['bet']} settlement corrected")
    chip = elections.get("min_chip")
    up = elections.get("payout_rounding") == "up"
    if isinstance(chip, int) and chip > 1:
        out.add("odds in chips of min_chip")
    wagers = {s["seat"]: s["wager"] for s in doc["seats"]}
    for ev in events:
        if ev["type"] == "settle" and ev["bet"] == "main" and ev["result"] == "surrender":
            w = wagers[int(str(ev["hand"]).partition(".")[0])]
            if w % (2 * (chip if isinstance(chip, int) else 1)):
                out.add("surrender half rounded " + ("up" if up else "down"))
        if ev["type"] == "settle" and ev["bet"] == "main" and ev["result"] == "win":
            w = wagers[int(str(ev["hand"]).partition(".")[0])]
            c = chip if isinstance(chip, int) else 1
            if (
                ev["amount"] not in (w, 2 * w)
                and ev["amount"] % c == 0
                and (w * 3 % (2 * c) or w * 6 % (5 * c))
            ):
                out.add("blackjack odds rounded " + ("up" if up else "down"))
    return out


_RECORDS = (
    "burn before the first card",
    "several burns",
    "burn face up",
    "burn once the round is over",
    "round voided",
    "voided wager returned as a push of 0",
    "main wager returned on a void",
    "settlements before the void",
    "settlement corrected",
    "a correction corrected",
)

REQUIRED_FEATURES = [
    *(
        f"US-NJ {f}"
        for f in (
            "rules omitted",
            "6:5 table",
            "hand-dealt",
            "player cards face down (pitch)",
            "peek",
            "dealer blackjack found on peek",
            "dealer blackjack without peek",
            "dealer hits soft 17",
            "dealer stands on soft 17",
            "dealer busts",
            "blackjack against a dealer 21 of three cards",
            "insurance wins",
            "insurance loses",
            "insurance less than half",
            "even money",
            "surrender",
            "double",
            "double for less",
            "double after split",
            "double card face down",
            "dealer blackjack after a double",
            "dealer blackjack after a split",
            "split",
            "split aces",
            "resplit to 3 hands",
            "resplit to 4 hands",
            "resplit aces",
            "split of two different ten-value cards",
            "ace and ten on a split hand (21, not blackjack)",
            "additional over_13 wins",
            "additional over_13 loses",
            "additional under_13 wins",
            "additional under_13 loses",
            "additional same_suit wins",
            "additional same_suit loses",
            "additional seven wins",
            "additional seven loses",
            "over/under wager on exactly 13",
            "bust collected at once",
            "stand off on equal totals",
            "stand off recorded as lose 0",
            "original hand named n.1",
            "hit/stand recorded",
            "event timestamps",
            "card spelled 10",
            "lowercase cards",
            "odd wager",
            "wager at the table minimum",
            "wager at the table maximum",
            "hole card dealt first",
            "stand recorded on a hand complete by rule",
            "stand recorded on a hand complete by rule, after play moved on",
            "hands settled before the reveal of a peeked dealer blackjack",
            "peek not recorded",
            *_RECORDS,
            "odds in chips of min_chip",
            "blackjack odds rounded up",
            "blackjack odds rounded down",
            "surrender half rounded up",
            "surrender half rounded down",
            "hole card turned up after the void",
            "additional wager returned on a void",
            "additional settlement corrected",
        )
    ),
    *(
        f"NZ {f}"
        for f in (
            "rules omitted",
            "dealer takes no second card",
            "dealer draws with no live hand",
            "dealer hits soft 17",
            "dealer stands on soft 17",
            "insurance wins",
            "insurance loses",
            "insurance less than half",
            "even money",
            "surrender",
            "double for less",
            "double after split",
            "dealer blackjack after a double",
            "dealer blackjack after a split",
            "resplit to 3 hands",
            "split aces",
            "blackjack against a dealer ace or ten",
            "blackjack paid before the dealer's second card",
            "blackjack against a dealer 21 of three cards",
            "bust collected at once",
            "stand off on equal totals",
            "wager at the table minimum",
            "wager at the table maximum",
            *_RECORDS,
            "blackjack odds rounded up",
            "blackjack odds rounded down",
        )
    ),
]


def test_generator_exercises_the_legal_edges(corpus: Corpus) -> None:
    seen: collections.Counter[str] = collections.Counter()
    for r in corpus.all():
        seen.update(features(r))
    missing = [f for f in REQUIRED_FEATURES if not seen[f]]
    assert not missing, f"never generated: {missing}"


# ---------------------------------------------------------------------------------------------------------------
# Disagreements with the engine: minimal legal rounds, and our reading of the law. Each fails until the engine
# reads the law this way (or until we are shown a reading under which the round is not legal).


def test_engine_reads_2_17_d_collection_before_the_hole_card_as_part_of_the_initial_deal() -> None:
    """13:69F-2.17(d): losing additional wagers are collected "immediately after the second card is dealt to
    each player and before any further card is dealt to any player". A table that collects them right after the
    players' second cards, before the dealer's hole card, follows (d) to the letter; the hole card is still part
    of the initial deal, so insurance taken after it is taken "after the initial deal, before any further card".
    The engine ends the initial deal at the collection and counts the hole card as a later card, so it reports
    the insurance as late (uncited:insurance, event 5)."""
    r = a_round(
        "US-NJ",
        extra_rules={"additional_wager": "same_suit"},
        seats=[seat(1, 2000, ("same_suit", 100))],
        events=[
            deal("1", "9H"),
            deal("dealer", "AS"),
            deal("1", "7C"),
            settle_additional(1, "lose", 100),
            deal("dealer", "8D", "down"),
            insurance(1, 1000),
            peek(False),
            settle_insurance(1, "lose", 1000),
            stand("1"),
            reveal("dealer", "8D"),
            settle("1", "lose", 2000),
        ],
    )
    assert _fired(r) == []


def test_engine_lets_the_dealer_draw_for_a_face_down_double_card() -> None:
    """19:47-2.10(c): a double card dealt face down is turned up only "after the dealer has drawn" and when the
    box is settled. Until then no one at the table knows whether that hand busted, so its outcome can, for all
    the dealer knows, still depend on the dealer's count: 13:69F-2.12(c) ("the dealer's count cannot affect the
    outcome") cannot stop the dealer from drawing on a 16, and 2.12(b) requires the draw. The engine judges
    2.12(c) on the hidden card and reports the draw as needless (13:69F-2.12(c), event 7)."""
    r = a_round(
        "US-NJ",
        extra_rules={"double_card": "face_down"},
        events=[
            deal("1", "TH"),
            deal("dealer", "6C"),
            deal("1", "2S"),
            deal("dealer", "TD", "down"),
            double("1", 2500),
            deal("1", "KC", "down"),
            reveal("dealer", "TD"),
            deal("dealer", "5H"),
            reveal("1", "KC"),
            settle("1", "lose", 5000),
        ],
    )
    assert r["table"]["rules"]["dealer_second_card"] == NJ_RULES["dealer_second_card"]
    assert _fired(r) == []


def test_engine_reads_a_card_to_a_settled_split_hand_as_a_card_to_a_complete_hand() -> None:
    """Section 2.1: a hand is complete when it stood, "explicitly; or implicitly, because play moved on to another
    hand and no later decision on it is recorded". Split hand 1.2 stood on 18 implicitly: play moved on to the
    dealer (the reveal at 7), and no decision on it follows. A card to hand 1 after its settlement (9) is then a
    card to a complete hand while no hand of the box waits: uncited:card-to-complete-hand, not 13:69F-2.11(b)
    (which covers a hand dealt to while another of its box "still waits for its second card"). The engine reports
    13:69F-2.11(b) naming 1.2 as the hand still to be completed."""
    w = 2500
    r = a_round(
        "US-NJ",
        events=[
            deal("1", "8H"),
            deal("dealer", "9C"),
            deal("1", "8D"),
            deal("dealer", "8S", "down"),
            split("1", w),
            deal("1", "TH"),
            deal("1.2", "TC"),
            reveal("dealer", "8S"),
            settle("1", "win", w),
            deal("1", "2C"),
            settle("1.2", "win", w),
        ],
    )
    assert _found(r) == [Want("uncited:card-to-complete-hand", 9, "1")]


def test_engine_reads_a_busted_hand_never_settled_as_owing_its_stake() -> None:
    """Section 2.2: a missing settlement has "actual 0, expected the net that was due". A busted hand's net is its
    stake lost, whatever the dealer holds: here the NZ dealer takes no second card (every box is decided) and the
    bust is never collected, so 1000 is owed by the player (amount_delta -1000). The engine states no expected net
    and no amount_delta when the dealer has fewer than two cards."""
    r = a_round(
        "NZ",
        seats=[seat(1, 1000)],
        events=[deal("1", "TH"), deal("dealer", "9C"), deal("1", "6D"), hit("1"), deal("1", "KC")],
    )
    assert _found(r) == [Want("uncited:missing-settlement", None, "1", -1000)]


def test_engine_reads_a_wrong_correction_of_a_wrong_settlement_at_the_settlement() -> None:
    """Section 2.3: "If settlement k was wrong, its finding carries the last correction's corrected_by and
    corrected_actual" (the net after the correction), amount_delta = expected - corrected_actual; a finding at the
    correction only "if settlement k was right". The 19 against 17 was paid 1250 at 6 (2500 due: a wrong amount),
    and the table corrected it at 7 to a collection of 2500: one finding, at 6, corrected_actual -2500, 5000 still
    owed. The engine matches the settlement's finding with the corrected round's by rule; the correction's wrong
    way round is reported under another key, so it says at 6 that the correction left nothing owed
    (corrected_actual 2500, which is not what the correction did) and adds a finding at 7 saying that the
    settlement it corrects was right."""
    w = 2500
    r = a_round(
        "US-NJ",
        events=[
            deal("1", "TH"),
            deal("dealer", "9C"),
            deal("1", "9D"),
            deal("dealer", "8S", "down"),
            stand("1"),
            reveal("dealer", "8S"),
            settle("1", "win", 1250),
            settle("1", "lose", w, corrects=6),
        ],
    )
    assert _found(r) == [Want("uncited:win-pays-1-to-1", 6, "1", 2 * w, 7, -w)]


def test_engine_reads_a_voided_blackjack_returned_as_no_payment() -> None:
    """Section 2.3: after a void "every wager still in play ... is returned by a settle with result: void"; no hand
    wins or loses. NZ 8.2 forbids paying a blackjack (or removing its cards) against a dealer ten before the
    dealer's second card, but a wager returned because the round was declared void is not a blackjack paid: the
    round is compliant. The engine reports 8.2 at the return (event 4)."""
    r = a_round(
        "NZ",
        seats=[seat(1, 1000)],
        events=[
            deal("1", "AC"),
            deal("dealer", "JC"),
            deal("1", "QS"),
            void("misdeal"),
            settle("1", "void", 0),
        ],
    )
    assert _found(r) == []
