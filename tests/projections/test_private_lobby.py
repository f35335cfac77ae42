"""A private table in the lobby read model (docs/invitations.md, I1), on SQLite and
PostgreSQL: given a game whose options say it is private, when it is projected, then
the public listing leaves it out, its players' own list keeps it, and a rebuild from the
events gives the same rows."""

from __future__ import annotations

from dataclasses import replace

from tests.projections.conftest import append_game, simulated
from tests.projections.test_readmodels import dump


def private_copy(seed):
    """A simulated game's events, its options private."""
    events = simulated(seed).events
    created = events[0]
    return [replace(created, options=replace(created.options, private=True)), *events[1:]]


def test_i1_a_private_game_is_not_listed_but_its_players_see_it_and_a_rebuild_agrees(
    readmodels, store
):
    public = append_game(store, simulated(21).events)
    private = append_game(store, private_copy(22))
    readmodels.catch_up_game(public)
    readmodels.catch_up_game(private)
    listed = [e["game_id"] for e in readmodels.lobby(None, 100)]
    assert listed == [public]
    for status in ("open", "setup", "playing", "ended"):
        assert private not in [e["game_id"] for e in readmodels.lobby(status, 100)]
    seated = readmodels.query(f"SELECT account_id FROM rm_lobby_seats WHERE game_id = '{private}'")
    mine = readmodels.my_games(seated[0][0], 10, 0)
    shown = {g["game_id"]: g.get("private", False) for g in mine}  # the bots sit at both
    assert shown == {private: True, public: False}
    before = dump(readmodels)
    readmodels.rebuild()
    assert dump(readmodels) == before
