"""The rematches' tables, beside the event store (docs/invitations.md, RM1–RM9): one row
per finished game that was offered a rematch (its proposal's round, status, and the new
game once opened) and one per player's acceptance of a round, with the entropy the
player's seat will join with."""

from __future__ import annotations

REMATCH_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS rematches (
        game_id TEXT PRIMARY KEY,
        round INTEGER NOT NULL,
        proposer TEXT NOT NULL,
        status TEXT NOT NULL,
        players INTEGER NOT NULL,
        accepted INTEGER NOT NULL,
        declined_by TEXT,
        new_game_id TEXT,
        proposed_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS rematches_by_new_game ON rematches (new_game_id)",
    """CREATE TABLE IF NOT EXISTS rematch_answers (
        game_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        entropy TEXT NOT NULL,
        answered_at TEXT NOT NULL,
        PRIMARY KEY (game_id, round, account_id))""",
]
