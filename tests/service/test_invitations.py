"""Private tables and invitations (docs/invitations.md, I1–I8) through the API, on
SQLite, PostgreSQL and the in-memory store: given a private table, when players are
invited, decline, or try to sit, then the seats, the listings and the answers follow."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.service.api import Player
from tests.service.conftest import app_fixture

app = app_fixture("sqlite", "postgres", "memory")


@pytest.fixture
def people(client):
    return [Player(client, name) for name in ("Hina", "Tane", "Moana", "Stranger")]


def open_table(opener, **body):
    return opener.post("/tables", {"max_players": 3, **body})


def token_of(link):
    return parse_qs(urlsplit(link).query)["invitation"][0]


def test_i1_a_private_table_is_not_listed_but_anyone_can_watch_and_verify_it(client, people):
    hina, tane, *_ = people
    # given a private table and a public game
    r = open_table(hina, invite=[tane.id])
    assert r.status_code == 201, r.json
    private = r.json["game_id"]
    public = hina.post("/games", {"max_players": 2}).json["game_id"]
    # then the lobby and the games' list show the public game only
    for status in ("", "?status=open"):
        listed = [g["game_id"] for g in client.get(f"/api/v1/lobby{status}").json["games"]]
        assert public in listed and private not in listed
    assert private not in [g["game_id"] for g in client.get("/api/v1/games").json["games"]]
    # and its address still shows it to anyone, and anyone verifies it
    assert client.get(f"/api/v1/games/{private}").status_code == 200
    assert client.get(f"/api/v1/games/{private}/verify").json["ok"] is True
    # its options say it is private; the invitee and the token are in no event
    events = client.get(f"/api/v1/games/{private}/events").json["events"]
    assert events[0]["data"]["options"]["private"] is True
    assert tane.id not in str(events)
    # the opener's own games list it
    assert hina.post(f"/games/{private}/seats", {"colour": "blue"}).status_code == 201
    mine = [g["game_id"] for g in hina.get("/me/games").json["games"]]
    assert private in mine


def test_i2_names_and_ids_invite_players(client, people):
    hina, tane, moana, _ = people
    r = open_table(hina, invite=["tane", moana.id])
    assert r.status_code == 201, r.json
    invited = {(i["account_id"], i["name"], i["status"]) for i in r.json["invitations"]}
    assert invited == {(tane.id, "Tane", "invited"), (moana.id, "Moana", "invited")}
    assert r.json["link"] is None and r.json["opener"] == hina.id


@pytest.mark.parametrize(
    ("invite", "code"),
    [
        (["self"], "self_invitation"),
        (["nobody-by-that-name"], "unknown_account"),
        (["Tane", "tane"], "duplicate_invitee"),
        (["Tane", "Moana", "Stranger"], "too_many_invitees"),
    ],
)
def test_i2_bad_invitees_are_refused_and_open_nothing(client, people, invite, code):
    hina = people[0]
    invite = [hina.id if i == "self" else i for i in invite]
    before = client.get("/api/v1/games").json["games"]
    r = open_table(hina, invite=invite)
    assert r.status_code == 409, r.json
    assert r.json["code"] == code and r.json["rule"] == "I2"
    assert client.get("/api/v1/games").json["games"] == before
    assert hina.get("/me/games").json["games"] == []


def test_i2_a_name_two_players_share_is_refused_as_ambiguous(client, people):
    hina = people[0]
    Player(client, "Twin")
    Player(client, "Twin")
    r = open_table(hina, invite=["Twin"])
    assert r.status_code == 409 and r.json["code"] == "ambiguous_invitee"
    # in another case than anyone's, the name is as ambiguous
    r = open_table(hina, invite=["TWIN"])
    assert r.status_code == 409 and r.json["code"] == "ambiguous_invitee"


def test_i2_an_exact_name_wins_over_the_same_name_in_another_case(client, people):
    hina = people[0]
    upper = Player(client, "KAI")
    exact = Player(client, "Kai")
    r = open_table(hina, invite=["Kai"])
    assert r.status_code == 201, r.json
    assert [i["account_id"] for i in r.json["invitations"]] == [exact.id]
    r = open_table(hina, invite=["KAI"])
    assert [i["account_id"] for i in r.json["invitations"]] == [upper.id]
    r = open_table(hina, invite=["kai"])  # nobody is "kai": two are, in another case
    assert r.status_code == 409 and r.json["code"] == "ambiguous_invitee"


def test_i2_a_private_table_without_invitees_or_link_is_refused(client, people):
    hina = people[0]
    before = client.get("/api/v1/games").json["games"]
    for body in ({}, {"invite": []}, {"invite": [], "link": False}):
        r = open_table(hina, **body)
        assert r.status_code == 409 and r.json["code"] == "nobody_invited", r.json
        assert r.json["rule"] == "I2"
    assert hina.get("/me/games").json["games"] == [] == client.get("/api/v1/games").json["games"]
    assert before == []
    assert open_table(hina, link=True).status_code == 201


def test_i3_i4_the_link_seats_its_holder_and_nobody_else(client, people):
    hina, tane, moana, stranger = people
    r = open_table(hina, link=True, invite=[tane.id])
    game_id, link = r.json["game_id"], r.json["link"]
    assert link.startswith(f"/?game={game_id}&invitation=")
    token = token_of(link)
    assert len(token) >= 32
    # I4: no invitation, no seat, by either route
    r = stranger.post(f"/games/{game_id}/seats", {"colour": "red"})
    assert r.status_code == 403 and r.json["code"] == "not_invited" and r.json["rule"] == "I4"
    join = {"type": "JoinGame", "player_id": stranger.id, "colours": ["red"], "entropy": ""}
    r = stranger.post(f"/games/{game_id}/commands", join)
    assert r.status_code == 403 and r.json["code"] == "not_invited"
    # I3: a wrong token is refused
    r = stranger.post(f"/games/{game_id}/seats", {"colour": "red", "invitation": "x" * 32})
    assert r.status_code == 403 and r.json["code"] == "bad_invitation" and r.json["rule"] == "I3"
    assert client.get(f"/api/v1/games/{game_id}").json["players"] == []
    # the link seats its holder; the invitee and the opener sit without it
    assert (
        moana.post(f"/games/{game_id}/seats", {"colour": "red", "invitation": token}).status_code
        == 201
    )
    assert tane.post(f"/games/{game_id}/seats", {"colour": "green"}).status_code == 201
    assert hina.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
    # I7: only the opener is shown the link
    assert hina.get(f"/games/{game_id}/invitations").json["link"] == link
    assert tane.get(f"/games/{game_id}/invitations").json["link"] is None


def test_i5_an_invitee_declines_the_opener_sees_it_and_the_invitation_seats_no_more(client, people):
    hina, tane, moana, _ = people
    r = open_table(hina, link=True, invite=[tane.id, moana.id])
    game_id, token = r.json["game_id"], token_of(r.json["link"])
    r = tane.post(f"/games/{game_id}/invitations/decline")
    assert r.status_code == 200 and r.json["status"] == "declined", r.json
    seen = {
        i["account_id"]: i["status"]
        for i in hina.get(f"/games/{game_id}/invitations").json["invitations"]
    }
    assert seen == {tane.id: "declined", moana.id: "invited"}
    r = tane.post(f"/games/{game_id}/seats", {"colour": "red"})
    assert (
        r.status_code == 403 and r.json["code"] == "invitation_declined" and r.json["rule"] == "I5"
    )
    r = tane.post(f"/games/{game_id}/seats", {"colour": "red", "invitation": token})
    assert r.json["code"] == "invitation_declined"
    r = tane.post(f"/games/{game_id}/invitations/decline")
    assert r.status_code == 409 and r.json["code"] == "already_declined"


def test_i5_only_an_unseated_invitee_declines(client, people):
    hina, tane, _, stranger = people
    game_id = open_table(hina, invite=[tane.id]).json["game_id"]
    r = stranger.post(f"/games/{game_id}/invitations/decline")
    assert r.status_code == 404 and r.json["code"] == "no_invitation"
    tane.post(f"/games/{game_id}/seats", {"colour": "red"})
    r = tane.post(f"/games/{game_id}/invitations/decline")
    assert r.status_code == 409 and r.json["code"] == "already_seated"


def test_i6_an_invitee_lists_the_tables_that_wait_for_them(client, people):
    hina, tane, moana, _ = people
    first = open_table(hina, invite=[tane.id]).json["game_id"]
    second = open_table(moana, invite=[tane.id]).json["game_id"]
    third = open_table(hina, invite=[tane.id]).json["game_id"]
    hina.post(f"/games/{first}/seats", {"colour": "blue"})
    listed = tane.get("/me/invitations").json["invitations"]
    assert [i["game_id"] for i in listed] == [third, second, first]
    assert listed[2]["taken"] == ["blue"] and listed[2]["opener_name"] == "Hina"
    tane.post(f"/games/{second}/invitations/decline")
    tane.post(f"/games/{third}/seats", {"colour": "red"})
    assert [i["game_id"] for i in tane.get("/me/invitations").json["invitations"]] == [first]
    assert hina.get("/me/invitations").json["invitations"] == []


def test_i6_an_invitation_to_a_table_that_filled_up_is_no_longer_listed(client, people):
    hina, tane, _, stranger = people
    # given a two-seat table with an invitee and a link
    r = hina.post("/tables", {"max_players": 2, "invite": [tane.id], "link": True})
    game_id = r.json["game_id"]
    assert [i["game_id"] for i in tane.get("/me/invitations").json["invitations"]] == [game_id]
    # when its seats are taken by others (the opener and the link's holder)
    assert hina.post(f"/games/{game_id}/seats", {"colour": "blue"}).status_code == 201
    join = {"colour": "red", "invitation": token_of(r.json["link"])}
    assert stranger.post(f"/games/{game_id}/seats", join).status_code == 201
    # then the invitation waits for nothing: it is not listed
    assert tane.get("/me/invitations").json["invitations"] == []


def test_i7_a_tables_invitations_are_for_its_opener_and_players(client, people):
    hina, tane, _, stranger = people
    game_id = open_table(hina, invite=[tane.id]).json["game_id"]
    r = stranger.get(f"/games/{game_id}/invitations")
    assert r.status_code == 403 and r.json["code"] == "not_at_table"
    public = hina.post("/games", {"max_players": 2}).json["game_id"]
    r = hina.get(f"/games/{public}/invitations")
    assert r.status_code == 404 and r.json["code"] == "not_private"


def test_a_public_games_seats_stay_open_to_all(client, people):
    hina, _, _, stranger = people
    game_id = hina.post("/games", {"max_players": 2}).json["game_id"]
    assert stranger.post(f"/games/{game_id}/seats", {"colour": "red"}).status_code == 201


def test_a_retry_with_the_same_key_finds_the_table_it_opened(client, people):
    hina, tane, *_ = people
    first = hina.post(
        "/tables",
        {"max_players": 2, "link": True, "invite": [tane.id]},
        **{"Idempotency-Key": "k1"},
    )
    again = hina.post(
        "/tables",
        {"max_players": 2, "link": True, "invite": [tane.id]},
        **{"Idempotency-Key": "k1"},
    )
    assert first.status_code == 201 and again.status_code == 201
    assert (
        again.json["game_id"] == first.json["game_id"] and again.json["link"] == first.json["link"]
    )


def test_bad_bodies_are_422(client, people):
    hina = people[0]
    assert open_table(hina, invite="Tane").status_code == 422
    assert open_table(hina, link="yes").status_code == 422
    assert open_table(hina, invite=["x" * 65]).status_code == 422
    assert open_table(hina, invite=["a"] * 6).status_code == 422
    assert hina.post("/tables", {"max_players": 9}).status_code == 422


def test_a_fixed_tile_order_outside_testing_mode_opens_no_table(tmp_path):
    from service.app import create_app
    from service.runtime.settings import Settings

    app = create_app(Settings(data_dir=tmp_path, rate_limits={}), sweep=False)
    hina = Player(app.test_client(), "Hina")
    r = hina.post("/tables", {"max_players": 2, "tile_order": ["ocean7"]})
    assert r.status_code == 403 and r.json["code"] == "testing_only"
    services = app.extensions["tongiaki.services"]
    with services.store.reading() as tx:
        assert tx.execute("SELECT COUNT(*) FROM private_tables").fetchone()[0] == 0


def test_rm4_a_private_tables_rematch_is_private_too(client, people):
    from tests.service.api import play_to_the_end

    hina, tane, *_ = people
    game_id = hina.post("/tables", {"max_players": 2, "invite": [tane.id]}).json["game_id"]
    hina.post(f"/games/{game_id}/seats", {"colour": "blue"})
    tane.post(f"/games/{game_id}/seats", {"colour": "red"})
    tane.post(f"/games/{game_id}/start")
    play_to_the_end(client, game_id, [hina, tane], 8)
    hina.post(f"/games/{game_id}/rematch")
    new_id = tane.post(f"/games/{game_id}/rematch/accept").json["proposal"]["next_game_id"]
    assert new_id
    assert new_id not in [g["game_id"] for g in client.get("/api/v1/games").json["games"]]
    assert new_id not in [g["game_id"] for g in client.get("/api/v1/lobby").json["games"]]
    table = tane.get(f"/games/{new_id}/invitations").json
    assert table["opener"] == hina.id and table["invitations"] == [] and table["link"] is None


def test_i1_every_page_of_the_games_list_is_full_and_reaches_each_listed_game_once(client, people):
    """The list once read a page, then dropped the private tables from it: pages came
    back short (an empty one with has_more true), and offsets counted unlisted games."""
    hina, tane, *_ = people
    public, private = [], []
    for i in range(12):
        if i % 3:
            private.append(open_table(hina, invite=[tane.id]).json["game_id"])
        else:
            public.append(hina.post("/games", {"max_players": 2}).json["game_id"])
    for status in ("", "&status=open"):
        seen, offset = [], 0
        while True:
            page = client.get(f"/api/v1/games?limit=2&offset={offset}{status}").json
            ids = [g["game_id"] for g in page["games"]]
            assert not set(ids) & set(private)
            if page["has_more"]:
                assert len(ids) == 2, page  # a full page while more follow
            seen += ids
            offset += len(ids)
            if not page["has_more"]:
                break
        assert sorted(seen) == sorted(public) and len(seen) == len(set(seen))
