"""A private table (docs/invitations.md, I1) stays unlisted on its players' pages: a
player's profile and rating history, as others see them, do not give its address;
the player and auditors see it (docs/profiles.md P1, docs/ratings.md G9). On SQLite,
PostgreSQL and the in-memory store."""

from __future__ import annotations

from service.play.accounts import create_account
from tests.service.api import Player, play_to_the_end


def private_rated_game(client) -> tuple[str, str, list[Player]]:
    """Hina and Tane finish a rated private table and a rated public game."""
    hina, tane = Player(client, "Hina"), Player(client, "Tane")
    r = hina.post("/tables", {"max_players": 2, "invite": [tane.id], "rated": True})
    assert r.status_code == 201, r.json
    private = r.json["game_id"]
    public = hina.post("/games", {"max_players": 2, "rated": True}).json["game_id"]
    for game_id in (private, public):
        for p, colour in ((hina, "blue"), (tane, "red")):
            assert p.post(f"/games/{game_id}/seats", {"colour": colour}).status_code == 201
        assert hina.post(f"/games/{game_id}/start").status_code == 200
        play_to_the_end(client, game_id, [hina, tane], seed=3)
    return private, public, [hina, tane]


def test_i1_others_see_no_private_table_on_a_profile_its_player_and_auditors_do(app, client):
    # given: a finished private table and a finished public game of Hina's
    private, public, (hina, tane) = private_rated_game(client)
    store = app.extensions["tongiaki.games"].store
    _, token = create_account(
        store, "aud", app.extensions["tongiaki.games"].clock(), kind="auditor"
    )
    auditor = {"Authorization": f"Bearer {token}"}
    stranger = Player(client, "Stranger")

    # when: anyone, a stranger, Tane (another player of it), Hina and an auditor look
    def listed(headers):
        url = f"/api/v1/accounts/{hina.id}/profile?games=finished"
        return [g["game_id"] for g in client.get(url, headers=headers).json["games"]["items"]]

    # then: the public game is listed to all, the private table to Hina and auditors only
    for headers in ({}, stranger.headers, tane.headers):
        assert listed(headers) == [public]
    assert sorted(listed(hina.headers)) == sorted([private, public])
    assert sorted(listed(auditor)) == sorted([private, public])
    # and the counts are the same for all (they give no address)
    counts = client.get(f"/api/v1/accounts/{hina.id}/profile").json["counts"]
    assert counts["finished"] == 2


def test_g9_a_rating_history_gives_no_private_tables_address_to_others(app, client):
    private, public, (hina, _) = private_rated_game(client)

    def history(headers):
        r = client.get(f"/api/v1/accounts/{hina.id}/ratings", headers=headers)
        assert r.status_code == 200, r.json
        return {(g["game_id"], g["private"]) for g in r.json["games"]}

    # the rating moved in both games: both points are on the chart, for everyone
    assert history({}) == {(public, False), (None, True)}
    assert history(hina.headers) == {(public, False), (private, True)}


def test_p1_an_auditors_account_has_no_ratings_page_as_it_has_no_profile(app, client):
    store = app.extensions["tongiaki.games"].store
    auditor = create_account(store, "aud", app.extensions["tongiaki.games"].clock(), kind="auditor")
    account_id = auditor[0].account_id
    assert client.get(f"/api/v1/accounts/{account_id}/profile").status_code == 404
    r = client.get(f"/api/v1/accounts/{account_id}/ratings")
    assert r.status_code == 404 and r.json["code"] == "unknown_account"
