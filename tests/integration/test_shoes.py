"""Shoe reconciliation against a real database (SQLite and PostgreSQL): ``GET /v1/shoes/{shoe_id}`` counts the cards
of a shoe's stored rounds against its decks. A clean shoe, an over-counted card, rounds disagreeing on the decks,
the decks a round without table.rules was audited by, one source's shoe never mixed with another's, 404, 409 and
the limit."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from app.usecases import shoes as shoe_cases
from tests.keys import as_source

JSON = {"Content-Type": "application/json"}
PROBLEM = "application/problem+json"
SHOE = "BJ12-20261201-S001"


def shoe_round(
    round_id: str,
    minute: int,
    player: tuple[str, str],
    dealer: tuple[str, str],
    *draws: str,
    shoe: str | None = SHOE,
    decks: int | None = 1,
    table: str = "BJ12",
    jurisdiction: str = "US-NJ",
) -> bytes:
    """A one-box round of the shoe: the player's two cards, the dealer's up card and hole card (face down, revealed
    after the player stands), the dealer's draws."""
    tbl: dict[str, Any] = {"id": table}
    if decks is not None:
        tbl["rules"] = {"decks": decks}
    doc: dict[str, Any] = {
        "round_id": round_id,
        "jurisdiction": jurisdiction,
        "played_at": f"2026-12-01T21:{minute:02d}:00-05:00"
        if jurisdiction == "US-NJ"
        else f"1995-03-04T21:{minute:02d}:00+12:00",
        "table": tbl,
        "seats": [{"seat": 1, "wager": 1000}],
        "events": [
            {"type": "deal", "to": "1", "card": player[0]},
            {"type": "deal", "to": "dealer", "card": dealer[0]},
            {"type": "deal", "to": "1", "card": player[1]},
            {"type": "deal", "to": "dealer", "card": dealer[1], "face": "down"},
            {"type": "stand", "hand": "1"},
            {"type": "reveal", "to": "dealer", "card": dealer[1]},
            *({"type": "deal", "to": "dealer", "card": c} for c in draws),
            {"type": "settle", "bet": "main", "hand": "1", "result": "lose", "amount": 1000},
        ],
    }
    if shoe is not None:
        doc["shoe_id"] = shoe
    return json.dumps(doc).encode()


def submit(client: TestClient, body: bytes, source: str | None = None) -> None:
    headers = {**JSON, **(as_source(client, source) if source else {})}
    resp = client.post("/v1/rounds", content=body, headers=headers)
    assert resp.status_code == 201, resp.text


def shoe(client: TestClient, shoe_id: str = SHOE, query: str = "", **headers: str) -> Any:
    resp = client.get(f"/v1/shoes/{quote(shoe_id, safe='')}{query}", headers=headers)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "application/json"
    return resp.json()


def problem(resp: Any, status: int) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == PROBLEM
    body: dict[str, Any] = resp.json()
    return body


def test_a_clean_shoe_counts_every_card_once_and_the_hole_card_once(client: TestClient) -> None:
    # Submitted out of order: the answer is in the order played. One deck: a revealed hole card counted twice would
    # be an over-count.
    submit(client, shoe_round("R-2", 12, ("9S", "9H"), ("KC", "7D")))
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), "2C"))
    submit(client, shoe_round("R-3", 14, ("AD", "QS"), ("5H", "3C"), "4S", "JD"))
    submit(client, shoe_round("R-X", 16, ("AD", "QS"), ("5H", "3C"), shoe=None))  # no shoe: not this one
    body = shoe(client)
    assert (body["shoe_id"], body["source"], body["jurisdiction"]) == (SHOE, "default", "US-NJ")
    assert (body["decks"], body["copies_allowed"], body["card_count"]) == (1, 1, 15)
    assert body["findings"] == []
    assert [(r["round_id"], r["played_at"], r["table_id"], r["cards"]) for r in body["rounds"]] == [
        ("R-1", "2026-12-02T02:10:00Z", "BJ12", 5),
        ("R-2", "2026-12-02T02:12:00Z", "BJ12", 4),
        ("R-3", "2026-12-02T02:14:00Z", "BJ12", 6),
    ]
    assert {(r["decks"], r["decks_source"]) for r in body["rounds"]} == {(1, "record")}
    assert body["cards_seen"] == {
        "2C": 1, "3C": 1, "6C": 1, "KC": 1,
        "7D": 1, "8D": 1, "AD": 1, "JD": 1,
        "5H": 1, "9H": 1, "TH": 1,
        "AS": 1, "4S": 1, "9S": 1, "QS": 1,
    }  # fmt: skip
    assert list(body["cards_seen"]) == sorted(
        body["cards_seen"], key=lambda c: ("CDHS".index(c[1]), "A23456789TJQK".index(c[0]))
    )


def test_one_copy_more_than_the_decks_hold_is_a_finding_naming_both_rounds(client: TestClient) -> None:
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), "2C"))
    submit(client, shoe_round("R-2", 12, ("9S", "9H"), ("KC", "7D")))
    submit(client, shoe_round("R-3", 14, ("AD", "QS"), ("5H", "8D")))  # the 8D of R-1 again, as the hole card
    body = shoe(client)
    assert body["cards_seen"]["8D"] == 2
    [f] = body["findings"]
    assert f["rule"] == "uncited:shoe-card-over-count"
    assert f["citation_status"] == "uncited"
    assert (f["card"], f["expected"], f["actual"]) == ("8D", 1, 2)
    assert f["rounds"] == [
        {"round_id": "R-1", "event": 2, "burned": False},
        {"round_id": "R-3", "event": 3, "burned": False},
    ]
    assert "R-1, R-3" in f["message"] and "1 deck holds only 1 of it" in f["message"]
    # Each round on its own is clean: only the shoe shows the over-count.
    for rid in ("R-1", "R-3"):
        assert client.get(f"/v1/rounds/{rid}").json()["audit"]["verdict"] != "unreplayable"


def burning(body: bytes, *cards: str) -> bytes:
    """The round with ``cards`` burned before its first deal (the shoe's business: no finding in the round)."""
    doc = json.loads(body)
    doc["events"][:0] = [{"type": "burn", "card": c} for c in cards]
    return json.dumps(doc).encode()


def test_burned_cards_count_toward_the_shoe_and_are_shown_apart(client: TestClient) -> None:
    """Round-v1 section 2.3: a burned card counts toward the shoe (copies of a card, cards used), on no hand."""
    submit(client, burning(shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), "2C"), "5S", "JC"))
    submit(client, shoe_round("R-2", 12, ("9S", "9H"), ("KC", "7D")))
    submit(client, burning(shoe_round("R-3", 14, ("AD", "QS"), ("5H", "3C"), "4S"), "7D"))
    body = shoe(client)
    assert (body["card_count"], body["burn_count"]) == (17, 3)
    assert [(r["round_id"], r["cards"], r["burned"]) for r in body["rounds"]] == [
        ("R-1", 7, 2),
        ("R-2", 4, 0),
        ("R-3", 6, 1),
    ]
    assert body["cards_burned"] == {"JC": 1, "7D": 1, "5S": 1}  # deck order
    assert (body["cards_seen"]["5S"], body["cards_seen"]["7D"]) == (1, 2)
    # One deck: the 7D burned in R-3 is the hole card R-2 already showed.
    [f] = body["findings"]
    assert (f["rule"], f["card"], f["expected"], f["actual"]) == ("uncited:shoe-card-over-count", "7D", 1, 2)
    assert f["rounds"] == [
        {"round_id": "R-2", "event": 3, "burned": False},
        {"round_id": "R-3", "event": 0, "burned": True},
    ]
    assert "7D is seen 2 times in shoe BJ12-20261201-S001 (1 of them burned)" in f["message"]
    # Each round on its own: a burn before the first deal is no finding.
    assert client.get("/v1/rounds/R-1").json()["audit"]["findings"] == []


def test_rounds_disagreeing_on_the_decks_are_a_finding(client: TestClient) -> None:
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), decks=6))
    submit(client, shoe_round("R-2", 12, ("TH", "9H"), ("KC", "7D"), decks=8))
    submit(client, shoe_round("R-3", 14, ("TH", "QS"), ("5H", "3C"), decks=6))
    body = shoe(client)
    assert (body["decks"], body["copies_allowed"]) == (None, 8)
    assert [r["decks"] for r in body["rounds"]] == [6, 8, 6]
    [f] = body["findings"]
    assert (f["rule"], f["citation_status"], f["card"]) == ("uncited:shoe-decks-disagree", "uncited", None)
    assert (f["expected"], f["actual"]) == (6, [6, 8])
    assert f["rounds"] == [{"round_id": "R-2", "event": None, "decks": 8}]


def test_a_round_without_table_rules_has_the_decks_its_audit_applied(client: TestClient) -> None:
    resp = client.put(
        "/v1/tables/BJ12/elections",
        content=json.dumps(
            {
                "jurisdiction": "US-NJ",
                "effective_from": "2026-11-01T00:00:00-05:00",
                "rules": {"decks": 2},
                "reason": "the table's rule card",
            }
        ),
        headers=JSON,
    )
    assert resp.status_code == 201, resp.text
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), decks=2))
    submit(client, shoe_round("R-2", 12, ("TH", "9H"), ("KC", "7D"), decks=None))
    submit(client, shoe_round("R-3", 14, ("TH", "QS"), ("5H", "3C"), decks=None, table="BJ13"))
    body = shoe(client)
    assert [(r["decks"], r["decks_source"]) for r in body["rounds"]] == [
        (2, "record"),
        (2, "registered"),
        (None, None),  # nothing says how many decks BJ13 holds
    ]
    assert (body["decks"], body["copies_allowed"]) == (2, 2)
    [f] = body["findings"]
    assert (f["card"], f["expected"], f["actual"]) == ("TH", 2, 3)


def test_another_sources_rounds_of_the_same_shoe_id_are_never_mixed_in(client: TestClient) -> None:
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS")))
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS")), source="casino-b")
    submit(client, shoe_round("R-2", 12, ("TH", "9H"), ("KC", "7D")), source="casino-b")
    mine = shoe(client)
    assert ([r["round_id"] for r in mine["rounds"]], mine["findings"]) == (["R-1"], [])
    theirs = shoe(client, **as_source(client, "casino-b"))
    assert theirs["source"] == "casino-b"
    assert [r["round_id"] for r in theirs["rounds"]] == ["R-1", "R-2"]
    assert [f["card"] for f in theirs["findings"]] == ["TH"]
    # A key of one source cannot read another's shoe; a key of every source must say which.
    resp = client.get(f"/v1/shoes/{SHOE}?source=casino-b")
    assert problem(resp, 403)["type"] == "urn:bjaudit:problem:forbidden"
    regulator = as_source(client, None, ["read"])
    body = problem(client.get(f"/v1/shoes/{SHOE}", headers=regulator), 409)
    assert body["type"] == "urn:bjaudit:problem:shoe-ambiguous"
    assert body["candidates"] == [
        {"source": "casino-b", "jurisdiction": "US-NJ", "rounds": 2},
        {"source": "default", "jurisdiction": "US-NJ", "rounds": 1},
    ]
    assert shoe(client, query="?source=casino-b", **regulator)["rounds"] == theirs["rounds"]


def test_a_shoe_id_in_two_jurisdictions_is_409_until_one_is_named(client: TestClient) -> None:
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS")))
    submit(client, shoe_round("R-9", 10, ("TH", "8D"), ("6C", "AS"), jurisdiction="NZ"))
    body = problem(client.get(f"/v1/shoes/{SHOE}"), 409)
    assert [c["jurisdiction"] for c in body["candidates"]] == ["NZ", "US-NJ"]
    nz = shoe(client, query="?jurisdiction=NZ")
    assert (nz["jurisdiction"], [r["round_id"] for r in nz["rounds"]]) == ("NZ", ["R-9"])


def test_an_unknown_shoe_is_404(client: TestClient) -> None:
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS")), source="casino-b")
    for shoe_id in ("NO-SUCH-SHOE", SHOE):  # (SHOE is casino-b's only)
        body = problem(client.get(f"/v1/shoes/{shoe_id}"), 404)
        assert body["type"] == "urn:bjaudit:problem:shoe-not-found"
        assert "for source 'default'" in body["detail"]


def test_a_shoe_id_is_any_text_sent_url_encoded(client: TestClient) -> None:
    odd = "PIT3/BJ12 shoe #4?"
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS"), shoe=odd))
    assert shoe(client, odd)["shoe_id"] == odd


def test_a_shoe_past_the_limit_is_422(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shoe_cases, "MAX_SHOE_ROUNDS", 2)
    submit(client, shoe_round("R-1", 10, ("TH", "8D"), ("6C", "AS")))
    submit(client, shoe_round("R-2", 12, ("9S", "9H"), ("KC", "7D")))
    assert len(shoe(client)["rounds"]) == 2
    submit(client, shoe_round("R-3", 14, ("AD", "QS"), ("5H", "3C")))
    body = problem(client.get(f"/v1/shoes/{SHOE}"), 422)
    assert body["type"] == "urn:bjaudit:problem:shoe-too-large"
    assert (body["rounds"], body["limit"]) == (3, 2)
