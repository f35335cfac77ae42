"""The orjson provider writes what Flask's own would, and falls back where it cannot."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from service.http.jsonprovider import OrjsonProvider


def providers() -> tuple[OrjsonProvider, DefaultJSONProvider]:
    app = Flask(__name__)
    standard = DefaultJSONProvider(app)
    standard.sort_keys = False  # type: ignore[misc]
    return OrjsonProvider(app), standard


def test_the_same_compact_json_as_the_standard_provider():
    fast, standard = providers()
    value = {"z": 1, "a": [True, None, "Tāhiti ⛵", {"nested": -3}], "x": 'quote"and\\slash'}
    assert json.loads(fast.dumps(value)) == value
    assert fast.dumps(value) == standard.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert list(json.loads(fast.dumps(value))) == ["z", "a", "x"]  # order kept


def test_what_orjson_cannot_or_would_write_differently_goes_to_the_standard_provider():
    fast, standard = providers()
    huge = {"n": 2**70}
    assert json.loads(fast.dumps(huge)) == huge  # beyond 64 bits
    moment = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    assert fast.dumps({"at": moment}) == standard.dumps({"at": moment})  # HTTP date, as before
    assert fast.loads('{"n": 1}') == {"n": 1}
    assert fast.loads(str(2**70)) == 2**70


def test_a_huge_integer_in_a_command_is_a_client_error_not_a_500(client):
    from tests.service.api import open_game

    game_id, (blue, _red) = open_game(client, ["blue", "red"])
    body = {"type": "PlaceStartingBoat", "beach": 2**70}
    r = blue.post(f"/games/{game_id}/commands", body)
    assert 400 <= r.status_code < 500 and r.content_type == "application/problem+json"
    assert (r.status_code, r.json["code"]) == (422, "not_an_integer")
    r = blue.post(f"/games/{game_id}/commands", {**body, "beach": 1, "expected_version": 2**70})
    assert (r.status_code, r.json["code"]) == (422, "not_an_integer")
    r = blue.post(f"/games/{game_id}/commands", {**body, "beach": 1, "expected_version": 2**31})
    assert (r.status_code, r.json["code"]) == (422, "not_an_integer")
