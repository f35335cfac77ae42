"""The leagues' own tables, beside the event store (docs/leagues.md): one row per league
(its options, status, join link's token and the round opened so far), one per member,
one per scheduled table with the id its game has (or will have) once opened, and one
per player a table opened (or was not played) without, their account deleted (L11)."""

from __future__ import annotations

LEAGUES_SCHEMA = 2  # 2: league_absent (L11)
TABLES = [
    """CREATE TABLE IF NOT EXISTS leagues (
        league_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        creator TEXT NOT NULL,
        table_size INTEGER NOT NULL,
        options TEXT NOT NULL,
        token TEXT,
        status TEXT NOT NULL,
        opened_round INTEGER NOT NULL,
        rounds INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        started_at TEXT)""",
    "CREATE INDEX IF NOT EXISTS leagues_by_created ON leagues (created_at)",
    """CREATE TABLE IF NOT EXISTS league_players (
        league_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        joined_at TEXT NOT NULL,
        PRIMARY KEY (league_id, account_id))""",
    """CREATE TABLE IF NOT EXISTS league_tables (
        league_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        table_no INTEGER NOT NULL,
        players TEXT NOT NULL,
        game_id TEXT NOT NULL,
        PRIMARY KEY (league_id, round, table_no))""",
    """CREATE TABLE IF NOT EXISTS league_absent (
        league_id TEXT NOT NULL,
        round INTEGER NOT NULL,
        table_no INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        PRIMARY KEY (league_id, round, table_no, account_id))""",
]
