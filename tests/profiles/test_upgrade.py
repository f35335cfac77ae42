"""Schema 9 adds the profiles' read models (docs/profiles.md): on a database made before
them, the upgrade creates their tables and the sweeper fills them for every earlier game."""

from __future__ import annotations

import sqlite3

from projections.store import ReadModels
from service.app import create_app
from service.runtime.settings import Settings
from service.store.sqlite import SQLiteEventStore
from tests.service.api import Player


def test_games_made_before_the_profiles_existed_are_on_the_players_pages_after_the_upgrade(
    tmp_path,
):
    path = tmp_path / "old.db"
    store = SQLiteEventStore(path)
    app = create_app(Settings(data_dir=tmp_path, rate_limits={}), store=store, sweep=False)
    ann, bob = Player(app.test_client(), "Ann"), Player(app.test_client(), "Bob")
    game_id = ann.post("/games", {"max_players": 2}).json["game_id"]
    for p, colour in ((ann, "blue"), (bob, "red")):
        assert p.post(f"/games/{game_id}/seats", {"colour": colour}).status_code == 201
    assert ann.post(f"/games/{game_id}/start").status_code == 200
    store.close()
    with sqlite3.connect(path) as conn:  # back to schema 8: no profiles, no queue
        conn.execute("DROP TABLE rm_profile_games")
        conn.execute("DROP TABLE rm_queue")
        conn.execute("DROP INDEX rm_lobby_by_activity")
        conn.execute("DELETE FROM projection_checkpoints WHERE projection = 'profiles'")
        conn.execute("ALTER TABLE rm_steps DROP COLUMN words")  # schema 11's
        conn.execute("ALTER TABLE rm_notifications DROP COLUMN words")
        conn.execute("DELETE FROM readmodel_schema WHERE version > 8")
    store = SQLiteEventStore(path)
    try:
        rm = ReadModels(store, store)
        rm.upgrade()
        assert rm.queue(ann.id, 10) == []  # not filled yet
        assert rm.behind() == [game_id]  # the sweeper's work
        rm.catch_up_game(game_id)
        assert [g["game_id"] for g in rm.queue(ann.id, 10)] == [game_id]
        assert [g["game_id"] for g in rm.profile_games(bob.id, "running", 10, 0)] == [game_id]
    finally:
        store.close()
