"""What whoever holds the database can do to a game's history (issue 28's threat): change
an event and recompute every hash after it, so the chain checks again; then fork the
transparency log to match and sign it again with the log's own key. On SQLite
(``sqlite3``) or PostgreSQL (``psycopg``, as a superuser with the triggers switched off)."""

from __future__ import annotations

import json
from typing import Any

from service.store.base import canonical, chain_hash
from service.transparency.entries import HeadEntry
from service.transparency.integrator import checkpoint_note
from service.transparency.merkle import leaf_hash
from service.transparency.notes import Signer
from service.transparency.tiled_tree import TiledTree


def _q(conn: Any, sql: str) -> str:
    return sql.replace("%s", "?") if type(conn).__module__.startswith("sqlite3") else sql


def rewrite_history(conn: Any, gid: str, version: int) -> None:
    """Change the metadata of the game's event ``version`` (who sent it, say: the events
    still read as the rules' events) and recompute every hash after it."""
    rows = conn.execute(
        _q(conn, "SELECT version, data, metadata, prev_hash FROM events"
                 " WHERE game_id = %s AND version >= %s ORDER BY version"),
        (gid, version),
    ).fetchall()  # fmt: skip
    prev = rows[0][3]
    for i, (v, data, metadata, _) in enumerate(rows):
        if i == 0:
            body = json.loads(metadata)
            body["rewritten"] = True
            metadata = canonical(body)
        digest = chain_hash(prev, data, metadata)
        conn.execute(
            _q(conn, "UPDATE events SET metadata = %s, prev_hash = %s, hash = %s"
                     " WHERE game_id = %s AND version = %s"),
            (metadata, prev, digest, gid, v),
        )  # fmt: skip
        prev = digest
    conn.execute(_q(conn, "UPDATE games SET hash = %s WHERE game_id = %s"), (prev, gid))


def refork_log(conn: Any, signer: Signer) -> int:
    """The log's entries made to match the stored events, its tiles recomputed and its
    checkpoint signed again with the log's key; the forked tree's size."""
    heads = {
        (f"game/{g}", int(v)): h
        for g, v, h in conn.execute("SELECT game_id, version, hash FROM events").fetchall()
    }
    leaves = []
    rows = conn.execute("SELECT idx, stream, version, entry FROM log_entries ORDER BY idx")
    for idx, stream, version, entry in rows.fetchall():
        old = HeadEntry.parse(bytes(entry))
        new = HeadEntry(old.stream, old.version, heads.get((stream, version), old.head),
                        old.commitment).data  # fmt: skip
        conn.execute(_q(conn, "UPDATE log_entries SET entry = %s WHERE idx = %s"), (new, idx))
        leaves.append(leaf_hash(new))
    tree = TiledTree(lambda level, index: b"", 0)
    tiles = tree.append(leaves)
    conn.execute("DELETE FROM log_tiles")
    for (level, index), data in tiles.items():
        conn.execute(
            _q(conn, "INSERT INTO log_tiles (level, idx, hashes) VALUES (%s, %s, %s)"),
            (level, index, data),
        )
    note = checkpoint_note(signer, tree.size, tree.root())
    conn.execute(
        _q(conn, "UPDATE log_head SET size = %s, note = %s WHERE id = 1"), (tree.size, note)
    )
    return tree.size


def drop_sqlite_triggers(conn: Any) -> None:
    """SQLite's immutability triggers, dropped (the file's owner can)."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        conn.execute(f"DROP TRIGGER {name}")
