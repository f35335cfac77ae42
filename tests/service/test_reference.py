"""The project documents its own rules and tiles, and every error's ``type`` is a page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain import endless
from domain.tiles import ISLANDS, OCEANS
from service.app import create_app
from service.http.problems import catalogue
from service.runtime.settings import Settings
from tests.service.api import Player, open_game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path):
    return create_app(Settings(data_dir=tmp_path, rate_limits={})).test_client()


def test_docs_rules_has_every_rule_id_as_an_anchor_and_says_which_rules_are_interpretations():
    text = (ROOT / "docs" / "rules.md").read_text()
    assert re.findall(r'<a id="(R\d+)"></a>\*\*R\d+\*\*', text) == [f"R{i}" for i in range(1, 26)]
    # the interpretations, as chosen (R5 and R21 revised in rules-2)
    for rule in ("R5", "R8", "R15", "R19", "R21"):
        section = text.split(f'<a id="{rule}"></a>')[1].split('<a id="')[0]
        assert "**Interpretation**" in section, rule
    assert "rules-2" in text and "rules-1" in text


def test_docs_rules_states_the_search_budget_the_engine_uses():
    text = (ROOT / "docs" / "rules.md").read_text()
    assert f"**{endless.SEARCH_LIMIT:,} arrangements**" in text
    assert "search_exhausted: true" in text


def test_docs_tiles_tables_are_exactly_the_engines_data():
    text = (ROOT / "docs" / "tiles.md").read_text()
    for i in ISLANDS:
        beaches = " · ".join(f"{b.capacity}→{','.join(map(str, b.jetties))}" for b in i.beaches)
        assert f"| {i.name} | `{i.id}` | {i.value} | {beaches} |" in text
    for o in OCEANS:
        paths = " · ".join(f"{p.a}-{p.b}:{p.danger}" for p in o.paths)
        assert f"| {o.number} | `{o.id}` | {paths} |" in text
    assert text.count("\n| ") == 1 + len(ISLANDS) + 1 + len(OCEANS)  # headers and rows


def test_the_readme_links_the_projects_own_rules_and_tiles_and_the_license_is_there():
    readme = (ROOT / "README.md").read_text()
    assert "(docs/rules.md)" in readme and "(docs/tiles.md)" in readme
    assert "shared/rules.md" not in readme and "shared/tiles.md" not in readme
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_rules_and_tiles_are_served_as_pages(client):
    page = client.get("/docs/rules")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert '<a id="R19"></a>' in html and "<table>" in html
    assert 'href="/docs/tiles"' in html
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert "<table>" in client.get("/docs/tiles").get_data(as_text=True)
    assert client.get("/docs/nothing").status_code == 404


def test_every_refusal_of_the_engine_has_a_page_linking_the_rules_it_cites():
    codes = set()
    for path in (ROOT / "domain").glob("*.py"):
        codes |= set(re.findall(r'RuleViolation\(\s*"([a-z_]+)"', path.read_text()))
    known = catalogue()
    assert codes and codes <= set(known)
    assert known["beach_full"].rules == {"R6", "R8", "R17"}
    assert known["tonga_never_royal"].messages == ["Tonga can never be royal"]


def test_a_rule_violations_type_is_a_page_that_links_its_rule(client):
    game_id, players = open_game(client, ["blue", "red"])
    legal = client.get(f"/api/v1/games/{game_id}/legal").json
    mover = next(p for p in players if p.id == legal["player_id"])
    refused = mover.post(
        f"/games/{game_id}/commands", {"type": "FoundRoyalIsland", "island": "tonga"}
    )
    assert refused.status_code == 409
    body = refused.json
    assert body["type"] == f"/problems/{body['code']}"
    page = client.get(body["type"])
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f'href="/docs/rules#{body["rule"]}"' in html


def test_every_error_answer_names_a_type_page_that_exists(client):
    someone = Player(client, "someone")
    answers = [
        client.get("/api/v1/games/0123456789ab"),  # 404 unknown game
        client.delete("/api/v1/lobby"),  # 405
        client.get("/api/v1/games?status=nope"),  # 422
        client.post("/api/v1/games", data="{", content_type="application/json"),  # 401
        someone.post("/games", {"max_players": 2}),  # 201: no error
        client.get("/api/v1/nowhere"),  # 404 route
        client.post(
            "/api/v1/accounts", data="{", content_type="application/json"
        ),  # 400 malformed JSON
    ]
    errors = [a for a in answers if a.status_code >= 400]
    assert len(errors) == 6
    for answer in errors:
        assert answer.mimetype == "application/problem+json"
        page = client.get(answer.json["type"])
        assert page.status_code == 200, answer.json
        assert answer.json["code"] in page.get_data(as_text=True)
    index = client.get("/problems").get_data(as_text=True)
    assert 'href="/problems/stale_version"' in index
    assert client.get("/problems/no_such_code").status_code == 404


def test_the_dispute_procedure_is_a_page_and_its_refusals_link_it(client):
    page = client.get("/docs/disputes")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert all(f'<a id="D{n}"></a>' in html for n in range(1, 9))
    assert 'href="/docs/rules"' in html  # its link to rules.md, rewritten
    paused = client.get("/problems/game_paused").get_data(as_text=True)
    assert 'href="/docs/disputes#D7"' in paused
    assert "D7" in client.get("/problems").get_data(as_text=True)


def test_the_browser_follows_every_event_type_a_game_stream_sends():
    """A live stream names each event by its type, and EventSource hands an event only
    to a listener of that name: a type missing from live.js never reaches a page (the
    clock events did not, so a resignation showed only on reload)."""
    import re
    import typing

    from domain import events as ev

    source = (ROOT / "service" / "http" / "web" / "static" / "live.js").read_text()
    listed = set(re.findall(r'"([A-Za-z]+)"', source.split("EVENT_TYPES = [")[1].split("];")[0]))
    assert listed == {t.__name__ for t in typing.get_args(ev.Event)}
