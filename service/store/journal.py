"""The journal's rows: a command's entry as stored (its JSON decoded by name), found by
its id, and inserted once (the number of its arrival as the database gives it)."""

from __future__ import annotations

import json
from dataclasses import replace

from service.store.base import JournalEntry, canonical
from service.store.database import SqlTx
from service.store.rows import Row


def _entry(
    game_id: str,
    command_id: str,
    actor: str,
    received_at: str,
    payload: str,
    judged_version: int,
    outcome: str,
    first_version: int | None,
    last_version: int | None,
    rejection: str | None,
    seq: int,
    fingerprint: str | None,
) -> JournalEntry:
    return JournalEntry(
        game_id=game_id,
        command_id=command_id,
        actor=json.loads(actor),
        received_at=received_at,
        payload=json.loads(payload),
        judged_version=judged_version,
        outcome=outcome,
        first_version=first_version,
        last_version=last_version,
        rejection=json.loads(rejection) if rejection else None,
        seq=seq,
        fingerprint=fingerprint,
    )


ENTRY = Row(
    _entry,
    "game_id",
    "command_id",
    "actor",
    "received_at",
    "payload",
    "judged_version",
    "outcome",
    "first_version",
    "last_version",
    "rejection",
    "seq",
    "fingerprint",
)


def _seq(seq: int | None) -> int:
    return int(seq or 0)  # NULL where the column is no sequence (SQLite)


SEQ = Row(_seq, "seq")


def find_entry(tx: SqlTx, game_id: str, command_id: str) -> JournalEntry | None:
    """The entry journalled for this command id, if any."""
    return ENTRY.one(
        tx.execute(
            f"SELECT {ENTRY.select} FROM journal WHERE game_id = %s AND command_id = %s",
            (game_id, command_id),
        )
    )


def insert_entry(tx: SqlTx, entry: JournalEntry) -> JournalEntry | None:
    """Insert a journal row; the entry as stored, or None if the command id is taken."""
    returned = SEQ.one(
        tx.execute(
            "INSERT INTO journal (game_id, command_id, actor, received_at, payload, judged_version,"
            " outcome, first_version, last_version, rejection, fingerprint) VALUES"
            " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (game_id, command_id) DO NOTHING RETURNING seq",
            (
                entry.game_id,
                entry.command_id,
                canonical(entry.actor),
                entry.received_at,
                canonical(entry.payload),
                entry.judged_version,
                entry.outcome,
                entry.first_version,
                entry.last_version,
                canonical(entry.rejection) if entry.rejection is not None else None,
                entry.fingerprint,
            ),
        )
    )
    if returned is None:
        return None
    return replace(entry, seq=tx.db.journal_seq(tx, entry.game_id, entry.command_id, returned))
