"""Rebuilding the ratings read model from its events (figures, not a test).

    python bench/ratings_rebuild.py [--games 1500] [--accounts 40] [--seed 1] [--imported]

On SQLite in a temporary folder, through the web app in this process: ``--accounts``
accounts play ``--games`` rated two-player games, each ended at once by agreement
(docs/table.md T6: a real ``GameEnded`` with a ranking, a handful of commands a game,
so that the volume of games, not the engine, is what is built). Then the ratings'
tables are emptied and ``tongiaki projections rebuild ratings`` is timed (the engine's
``rebuild``, as the command runs it), with the number of history rows written again.

Each game whose result appears at place p re-rates every rated game from p on (G5): a
rebuild that refolded at each game, taking the games in any other order than the one
they ended in, rated the later ones again and again (the square of the games). It leaves
the refold to its end and folds once, from the earliest place, in any order.
``--imported``: the games last changed in the reverse of the order they ended, as games
imported from another service do (they keep their ends; they changed when imported).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.app import create_app  # noqa: E402
from service.runtime.settings import Settings  # noqa: E402
from service.store.sqlite import SQLiteEventStore  # noqa: E402

TABLES = ("rm_rating_games", "rm_rating_history", "rm_ratings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--accounts", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--imported", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteEventStore(Path(tmp) / "rebuild.db")
        settings = Settings(data_dir=Path(tmp), testing=True, rate_limits={})
        app = create_app(settings, store=store)
        client = app.test_client()

        def post(path: str, token: str, body: object = None) -> dict[str, object]:
            answer = client.post(
                f"/api/v1{path}", json=body, headers={"Authorization": f"Bearer {token}"}
            )
            assert answer.status_code in (200, 201), (path, answer.status_code, answer.json)
            found: dict[str, object] = answer.json or {}
            return found

        tokens = []
        for i in range(args.accounts):
            made = client.post("/api/v1/accounts", json={"name": f"rater {i}"}).json or {}
            tokens.append((str(made["account_id"]), str(made["token"])))
        started = time.perf_counter()
        for n in range(args.games):
            (a, ta), (b, tb) = rng.sample(tokens, 2)
            gid = str(post("/games", ta, {"max_players": 2, "rated": True})["game_id"])
            post(f"/games/{gid}/seats", ta, {"colour": "blue"})
            post(f"/games/{gid}/seats", tb, {"colour": "red"})
            post(f"/games/{gid}/start", ta)
            post(f"/games/{gid}/commands", ta, {"type": "ProposeEnd", "player_id": a})
            post(
                f"/games/{gid}/commands", tb, {"type": "AnswerEnd", "player_id": b, "accept": True}
            )
            if (n + 1) % 500 == 0:
                print(f"  {n + 1} games made", flush=True)
        print(f"{args.games} rated games made in {time.perf_counter() - started:.1f} s")
        rm = app.extensions["tongiaki.readmodels"]
        every = "SELECT * FROM rm_rating_history ORDER BY account_id, ended_at, game_id"
        before = rm.query(every)
        empty(store, args.imported)
        started = time.perf_counter()
        rm.rebuild(["ratings"])
        spent = time.perf_counter() - started
        after = rm.query(every)
        assert [tuple(r) for r in after] == [tuple(r) for r in before], "other ratings"
        print(
            f"rebuild ratings: {args.games} games in {spent:.2f} s"
            f" ({args.games / spent:,.0f} games/s), {len(after)} history rows, as before"
        )
        store.close()


def empty(store: SQLiteEventStore, imported: bool) -> None:
    """Empty the ratings' tables; ``imported``: have the games last changed in the reverse
    of the order they ended in."""
    with store.transaction() as tx:
        for table in TABLES:
            tx.execute(f"DELETE FROM {table}")
        if imported:
            found = tx.execute("SELECT game_id FROM games ORDER BY updated_at").fetchall()
            for n, row in enumerate(reversed(found)):
                at = f"2100-01-01T00:00:00.{n:06d}+00:00"
                tx.execute("UPDATE games SET updated_at = %s WHERE game_id = %s", (at, row[0]))


if __name__ == "__main__":
    main()
