"""app.wire.fast reads every legal round itself: the model (Pydantic) is only for records it does not accept. The
differential test (tests/property/test_parse_differential.py) proves the two readings equal; this one proves that the
fast one is the one that runs, so that the speed of issue 23 is not lost to a quiet fall-back."""

from __future__ import annotations

import json

import orjson
import pytest

from app.synth.generator import generate_rounds
from app.wire import fast, schema
from app.wire.forms import RoundInvalid


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> list[bytes | str]:
    asked: list[bytes | str] = []

    def model(data: bytes | str) -> None:
        asked.append(data)
        raise AssertionError("the model was asked")

    monkeypatch.setattr(schema, "parse_round", model)
    return asked


def test_legal_rounds_are_read_without_the_model(no_model: list[bytes | str]) -> None:
    for i, record in enumerate(generate_rounds(400, 23, None)):
        layouts = (
            orjson.dumps(record),
            json.dumps(record, indent=i % 3 or None),
            json.dumps(record, ensure_ascii=True),
        )
        for text in layouts:
            rnd = fast.parse_round(text)
            assert rnd.round_id == record["round_id"]
    assert no_model == []


def test_a_key_given_twice_goes_to_the_model_which_names_it() -> None:
    record = orjson.dumps(next(iter(generate_rounds(1, 3, "US-NJ"))))
    twice = record.replace(b'"jurisdiction":', b'"jurisdiction":"NZ","jurisdiction":', 1)
    with pytest.raises(RoundInvalid) as refused:
        fast.parse_round(twice)
    assert [p["pointer"] for p in refused.value.problems] == ["/jurisdiction"]
    assert "duplicated" in refused.value.problems[0]["message"]


def test_a_string_holding_a_quote_and_colon_is_read_by_the_model_alike() -> None:
    record = next(iter(generate_rounds(1, 4, "US-NJ")))
    record["dealer_id"] = 'said "x": twice'  # the text holds one more '":' than it has members
    text = orjson.dumps(record)
    assert fast.parse_round(text) == schema.parse_round(text)
