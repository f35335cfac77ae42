"""A command's receipt, and idempotency: the journal answers a retry as it answered first.

With an ``Idempotency-Key`` a command's id (and a new game's id) is derived from the
account and the key, so a key belongs to its sender; the request's fingerprint is
journalled with it, and a retry with another request is 422 ``idempotency_key_reused``.
A refusal is journalled too, so a retried refusal is refused the same way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from domain import commands as cmd
from domain.serialization import encode
from domain.state import GameState
from service.errors import KINDS, BadRequest, ServiceError, kind_of
from service.runtime import counters as metrics
from service.store.base import (
    Account,
    CommandRecord,
    EventStore,
    JournalEntry,
    StoredEvent,
    canonical,
)


@dataclass(frozen=True)
class CommandResult:
    """What a client gets back: new version, the events, the receipt."""

    game_id: str
    version: int
    hash: str
    events: tuple[StoredEvent, ...]
    duplicate: bool = False
    received_at: str = ""  # when the service received the command (as journalled)
    # the game after the command, when this call appended it (not on a replayed id)
    state: GameState | None = field(default=None, compare=False, repr=False)


def game_id_for(account: Account, idempotency_key: str) -> str:
    """The id of the game an account opens with a key (the same on every retry)."""
    raw = f"game\x00{account.account_id}\x00{idempotency_key}".encode()
    return hashlib.sha256(raw).hexdigest()[:12]


def encode_options(options: cmd.GameOptions) -> dict[str, Any]:
    """Game options as JSON data (for a request's fingerprint)."""
    return dict(encode(cmd.CreateGame("", options, "", ""))["options"])


def command_id_for(account: Account, idempotency_key: str) -> str:
    """A command id that belongs to one account's key: another account's same key differs."""
    raw = f"{account.account_id}\x00{idempotency_key}".encode()
    return "k" + hashlib.sha256(raw).hexdigest()[:31]


def request_fingerprint(payload: Any, expected_version: int | None) -> str:
    """What an Idempotency-Key stands for: the command and the version it expects."""
    try:
        text = canonical({"command": payload, "expected_version": expected_version})
    except (TypeError, ValueError):
        text = repr(payload)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Receipts:
    """The journal's side of a command: a retry's stored answer, a refusal recorded."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def prior(self, game_id: str, command_id: str, fingerprint: str) -> CommandResult | None:
        """The stored answer to a command id seen before (None: a new command)."""
        entry = self.store.outcome(game_id, command_id)
        return None if entry is None else self.replayed(entry, fingerprint)

    def replayed(self, entry: JournalEntry, fingerprint: str | None) -> CommandResult:
        """The stored outcome of a command id seen before (idempotent retry): its events,
        or its refusal raised again as it was first."""
        metrics.command("replayed")
        if entry.fingerprint is not None and entry.fingerprint != fingerprint:
            raise BadRequest(
                "idempotency_key_reused",
                "this Idempotency-Key was used for another request; use a new key",
            )
        # the first answer may have been lost with a commit on the primary alone: the
        # stored one is given once it is as durable as a new commit (docs/replication.md)
        self.store.durable()
        if entry.outcome == "rejected":
            rejection = entry.rejection or {}
            error = KINDS[kind_of(rejection)]
            extra = rejection.get("extra")
            raise error(
                str(rejection.get("code", "rejected")),
                str(rejection.get("message", "rejected earlier")),
                rule=rejection.get("rule"),
                replayed=True,
                **(extra if isinstance(extra, dict) else {}),
            )
        assert entry.first_version is not None and entry.last_version is not None
        events = self.store.read(
            entry.game_id,
            after=entry.first_version - 1,
            limit=entry.last_version - entry.first_version + 1,
        )
        last = events[-1]
        return CommandResult(
            entry.game_id, last.version, last.hash, tuple(events), True, entry.received_at
        )

    def refuse(
        self, record: CommandRecord, version: int, error: ServiceError
    ) -> CommandResult | None:
        """Journal a refusal: None when it is journalled as this call's (the caller
        raises it); if the command id was journalled meanwhile (a retry overlapping
        the original), the stored answer instead."""
        rejection: dict[str, Any] = {"code": error.code, "message": error.detail}
        if error.extra.get("rule") is not None:
            rejection["rule"] = error.extra["rule"]
        rejection["kind"] = error.kind
        extra = {k: v for k, v in error.extra.items() if k not in ("rule", "replayed")}
        if extra:  # stale_version's version: a replay answers with the same body
            rejection["extra"] = extra
        if record.payload.get("type") == "CreateGame":  # nothing to journal before it exists
            raise error
        stored = self.store.reject(replace(record, expected_version=None), version, rejection)
        mine = (
            stored.outcome == "rejected"
            and stored.received_at == record.received_at
            and stored.rejection == rejection
        )
        if mine:
            metrics.command("rejected")
            metrics.rejection(error.code)
            return None
        return self.replayed(stored, record.fingerprint)
