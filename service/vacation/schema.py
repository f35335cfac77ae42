"""The announced spells' table (docs/vacation.md V4), beside the read models in the
store's database: one row per spell an account announced ("away until …"). Automatic
vacation is no table of its own: the recorded clocks hold it (``rm_vacation``)."""

from __future__ import annotations

VACATION_SCHEMA = 1
TABLES = [
    """CREATE TABLE IF NOT EXISTS vacation_away (
        account_id TEXT NOT NULL,
        starts_at TEXT NOT NULL,
        ends_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (account_id, starts_at))""",
]
