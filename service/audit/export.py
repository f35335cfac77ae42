"""Writing a game's export (``tongiaki export``): the header, its players' accounts and
secrets (``--with-secret``), its events, its journal and its disputes' events, a line
each (the format: ``service.audit.transfer``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from service.audit.transfer import FORMAT, TransferError
from service.play.repository import redeal_key
from service.store.base import Account, EventStore, JournalEntry, StoredEvent, check_chain
from service.store.log_port import dispute_stream, game_stream


def export_lines(
    store: EventStore, game_id: str, with_secret: bool = False, allow_broken: bool = False
) -> Iterator[str]:
    """The export of one game, line by line (header, events, journal).

    A game whose hash chain is broken is refused unless ``allow_broken`` (to hand
    the evidence over as it is): no server would import it."""
    events = _events(store, game_id, allow_broken)
    journal = store.journal(game_id)
    disputes = [
        e
        for row in store.disputes(game_id=game_id, limit=100_000)
        for e in store.dispute_events(row.dispute_id)
    ]
    header: dict[str, Any] = {
        "format": FORMAT,
        "game_id": game_id,
        "events": len(events),
        "journal": len(journal),
        "head_version": events[-1].version,
        "head_hash": events[-1].hash,
    }
    if disputes:
        header["dispute_events"] = len(disputes)
    logged = _logged(store, game_id)
    if logged is not None:
        header["log"] = logged
    accounts: list[Account] = []
    if with_secret:
        secret, accounts = _secrets(store, game_id, events)
        header.update(secret)
    yield _line(header)
    for a in accounts:
        yield _line({"account": _account(a)})
    for e in events:
        yield _line({"game_id": e.game_id, **_event(e)})
    for j in journal:
        yield _line({"journal": _journal_entry(j)})
    for e in disputes:
        yield _line({"dispute_event": {"dispute_id": e.game_id, **_event(e)}})


def _logged(store: EventStore, game_id: str) -> dict[str, Any] | None:
    """Where this server's transparency log holds the game's (and its disputes') commits:
    its checkpoint and each entry's stream, version and index (None before any)."""
    streams = [game_stream(game_id)] + [
        dispute_stream(row.dispute_id) for row in store.disputes(game_id=game_id, limit=100_000)
    ]
    entries = [[e.stream, e.version, e.index] for s in streams for e in store.log.log_stream(s)]
    if not entries:
        return None
    return {"checkpoint": store.log.log_head().note, "entries": entries}


def _events(store: EventStore, game_id: str, allow_broken: bool) -> list[StoredEvent]:
    """The game's events; a broken hash chain refused unless ``allow_broken``."""
    head = store.head(game_id)
    if head is None or head.version == 0:
        raise TransferError(f"there is no game {game_id!r}")
    events = store.read(game_id, limit=head.version)
    chain = check_chain(events)
    if not chain.ok and not allow_broken:
        raise TransferError(
            f"game {game_id}'s hash chain is broken ({chain.problems[0]}); nothing was"
            " exported (--allow-broken exports it as it is, for the record)"
        )
    return events


def _secrets(
    store: EventStore, game_id: str, events: Sequence[StoredEvent]
) -> tuple[dict[str, Any], list[Account]]:
    """What only ``--with-secret`` exports: the header's deck seed, its re-deals' seeds
    and how many accounts follow, and the seated players' accounts."""
    seed = store.get_secret(game_id)
    if seed is None:
        raise TransferError(f"game {game_id} has no deck secret on this server")
    header: dict[str, Any] = {"secret": seed.hex()}
    # the seeds of the re-deals rewinds made (docs/disputes.md, D6), if any
    redeals = []
    for n in range(1, 1 + sum(1 for e in events if e.type == "GameRewound")):
        kept = store.get_secret(redeal_key(game_id, n))
        if kept is None:
            raise TransferError(f"game {game_id} has no seed for its re-deal {n} here")
        redeals.append(kept.hex())
    if redeals:
        header["redeal_secrets"] = redeals
    # the seated players' accounts (token hashes too), so they can play on there
    seated = {e.meta().get("actor", {}).get("account") for e in events}
    # players only: an auditor who acted on the game (a ruling) is no auditor there
    accounts = [
        a
        for a in map(store.account, sorted(filter(None, seated)))
        if a is not None and a.kind == "player"
    ]
    header["accounts"] = len(accounts)
    return header, accounts


def _account(a: Account) -> dict[str, Any]:
    return {
        "account_id": a.account_id,
        "name": a.name,
        "kind": a.kind,
        "token_hash": a.token_hash,
        "created_at": a.created_at,
    }


def _event(e: StoredEvent) -> dict[str, Any]:
    """An event of the game's stream or of a dispute's, as stored (bytes and hashes)."""
    return {
        "version": e.version,
        "type": e.type,
        "data": e.data,
        "metadata": e.metadata,
        "prev_hash": e.prev_hash,
        "hash": e.hash,
    }


def _journal_entry(j: JournalEntry) -> dict[str, Any]:
    return {
        "command_id": j.command_id,
        "actor": j.actor,
        "received_at": j.received_at,
        "payload": j.payload,
        "judged_version": j.judged_version,
        "outcome": j.outcome,
        "first_version": j.first_version,
        "last_version": j.last_version,
        "rejection": j.rejection,
        "fingerprint": j.fingerprint,
    }


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) + "\n"
