"""The notifications read model: what each player is told, an outbox's source.

One row per notice (``rm_notifications``): its account, game, version, kind
and words, its id derived from those facts (``projections.models.notice_id``),
so projecting the same events again sends nothing twice. The service's outbox
plans their delivery (``planned``).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from projections.contract import Batch, ReadModel, rows
from projections.models import epoch_ms, notice_id, notices
from projections.ports import Database, Tx
from projections.writes import Writes

TABLES = [
    """CREATE TABLE IF NOT EXISTS rm_notifications (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        text TEXT NOT NULL,
        planned INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS rm_notifications_by_account ON rm_notifications"
    " (account_id, created_ms)",
    "CREATE INDEX IF NOT EXISTS rm_notifications_to_plan ON rm_notifications (planned)",
]


class Notification(NamedTuple):
    """A notice as an account's list answers it."""

    id: str
    game_id: str
    version: int
    kind: str
    created_at: str
    text: str
    created_ms: int
    words: str | None = None  # the text as a phrase (JSON), kept since schema 11


def apply(tx: Tx, writes: Writes, batch: Batch) -> None:
    found = notices(
        batch.before,
        [(s.version, s.meta(), e) for s, e in batch.events],
        [after for _, _, _, after in batch.folded()],  # the run's shared fold
    )
    columns = ("id", "account_id", "game_id", "version", "kind", "created_at", "created_ms")
    writes.many(  # one statement for the batch's notifications (a row there stays)
        "rm_notifications",
        (*columns, "text", "words"),
        [
            (
                notice_id(n["account_id"], batch.game_id, n["version"], n["kind"]),
                n["account_id"],
                batch.game_id,
                n["version"],
                n["kind"],
                n["at"],
                epoch_ms(n["at"]) if n["at"] else 0,
                n["text"],
                json.dumps(n["words"], separators=(",", ":")),
            )
            for n in found
        ],
    )


# a rebuild deletes none: it finds every notification already there (same ids) and
# sends nothing twice
# 11: each notice's words as a phrase too (projections.phrases, JSON): told in the
# account's language; a notice made before is told in English
MIGRATIONS = {11: ["ALTER TABLE rm_notifications ADD COLUMN words TEXT"]}
MODEL = ReadModel(tables=TABLES, owned=[], apply=apply, migrations=MIGRATIONS)


def of_account(
    db: Database, account_id: str, limit: int, before: tuple[int, str] | None
) -> list[Notification]:
    """An account's notifications, newest first, after the cursor ``before`` (epoch ms,
    id) when given."""
    where, params = "account_id = %s", list[Any]([account_id])
    if before is not None:
        where += " AND (created_ms < %s OR (created_ms = %s AND id > %s))"
        params += [before[0], before[0], before[1]]
    found = rows(
        db,
        "SELECT id, game_id, version, kind, created_at, text, created_ms, words"
        f" FROM rm_notifications WHERE {where} ORDER BY created_ms DESC, id LIMIT %s",
        (*params, limit),
    )
    return [Notification(*r) for r in found]
