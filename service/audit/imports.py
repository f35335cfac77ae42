"""Importing a game (``tongiaki import``): an export checked through and through (its
hash chain, that its events make a game, the deck seeds against their commitments,
the journal against the events, the disputes against the game), then stored in one
transaction; nothing is written on a problem."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from domain.disputes import Dispute
from domain.disputes import fold as fold_dispute
from domain.errors import DomainError
from domain.events import Event
from domain.fold import replay
from domain.serialization import decode_dispute_event, decode_event
from domain.state import GameState, Phase
from service.audit.dispute_records import check_dispute_streams
from service.audit.export_reader import logged_versions, read_export
from service.audit.rerun import check_record
from service.audit.rewinds import rewind_problems
from service.audit.takebacks import takeback_problems
from service.audit.transfer import TransferError
from service.play.accounts import token_hash
from service.play.repository import redeal_key
from service.store.base import (
    GENESIS,
    NAMED_ONLY,
    Account,
    ConcurrencyConflict,
    EventStore,
    NewEvent,
    StoredEvent,
    chain_events,
    check_chain,
)


@dataclass(frozen=True)
class Imported:
    game_id: str
    events: int
    journal: int
    status: str


def import_game(store: EventStore, source: IO[Any], at: str) -> Imported:
    """Check an export through and through, then store it (nothing is written on error).

    Checked: the shape of every line, the counts in the header, the hash chain,
    that the events make a game, the deck seed against the commitment, and the
    journal against the events (every event belongs to an accepted command with
    its actor, and re-running each command gives its events again).
    """
    export = read_export(source)
    events = export.events
    game_id = events[0].game_id
    chain = check_chain(events)
    if not chain.ok:
        where = export.event_lines
        named = [
            re.sub(r"event (\d+)", lambda m: f"event {m[1]} (line {where.get(int(m[1]), '?')})", p)
            for p in chain.problems[:3]
        ]
        raise TransferError("hash chain broken: " + "; ".join(named))
    decoded, state = _replayed(events)
    seed = _seed(export.header, state)
    redeals = _redeals(export.header, state)
    problems = check_record(export.journal, events, decoded, seed, redeals).problems
    problems += rewind_problems(events, decoded) + takeback_problems(export.journal, decoded)
    disputes = [_checked_dispute(game_id, events, stream) for stream in export.disputes.values()]
    _, dispute_problems = check_dispute_streams(
        events, [(d.dispute_id, d.status, stream) for stream, d in disputes]
    )
    if problems:
        raise TransferError(f"the journal does not match the events: {problems[0]}")
    if dispute_problems:
        raise TransferError(f"the disputes do not match the game: {dispute_problems[0]}")
    if store.head(game_id) is not None:
        raise TransferError(f"game {game_id} is already here; nothing was imported")
    accounts = [*export.accounts, *_named_only(events, export.accounts, at)]
    try:
        logged = logged_versions(export.header, game_id)
        store.import_stream(events, state.phase.value, at, export.journal, seed, accounts, logged)
    except ConcurrencyConflict as exc:
        raise TransferError(f"game {game_id} is already here; nothing was imported") from exc
    for n, kept in enumerate(redeals, start=1):
        store.put_secret(redeal_key(game_id, n), kept)
    for stream, dispute in disputes:
        new = [NewEvent(e.type, json.loads(e.data), json.loads(e.metadata)) for e in stream]
        opened_at = str(json.loads(stream[0].metadata).get("recorded_at", at))
        stored = store.append_dispute(
            dispute.dispute_id,
            game_id,
            0,
            new,
            status=dispute.status,
            at=opened_at,
            opened_by=dispute.opened_by,
            reason=dispute.reason,
        )
        assert [e.hash for e in stored] == [e.hash for e in stream]  # checked before
    return Imported(game_id, len(events), len(export.journal), state.phase.value)


def _checked_dispute(
    game_id: str, events: Sequence[StoredEvent], stream: Sequence[StoredEvent]
) -> tuple[Sequence[StoredEvent], Dispute]:
    """A dispute's stream as exported: its chain, its events readable and about this game,
    its bytes hashing the same when stored again (nothing is written on a problem)."""
    dispute_id = stream[0].game_id
    chain = check_chain(stream)
    if not chain.ok:
        raise TransferError(f"dispute {dispute_id}: hash chain broken: {chain.problems[0]}")
    try:
        decoded = [decode_dispute_event(e.body()) for e in stream]
        dispute = fold_dispute(decoded)
    except (DomainError, ValueError) as exc:
        raise TransferError(f"dispute {dispute_id} cannot be read: {exc}") from exc
    if dispute.game_id != game_id or dispute.dispute_id != dispute_id:
        raise TransferError(f"dispute {dispute_id} is not about game {game_id}")
    again = chain_events(
        dispute_id,
        0,
        GENESIS,
        [NewEvent(e.type, json.loads(e.data), json.loads(e.metadata)) for e in stream],
    )
    if [e.hash for e in again] != [e.hash for e in stream]:
        raise TransferError(f"dispute {dispute_id}: its events are not in canonical form")
    return stream, dispute


def _redeals(header: dict[str, Any], state: GameState) -> list[bytes]:
    """The re-deals' seeds (D6): revealed in the events, or carried by the header."""
    if not state.deals:
        return []
    if state.redeal_hex:
        return [bytes.fromhex(h) for h in state.redeal_hex]
    raw = header.get("redeal_secrets")
    if not isinstance(raw, list) or len(raw) != len(state.deals):
        raise TransferError(
            "the game was rewound and is not over: its export must carry every re-deal's"
            " seed (export it with --with-secret)"
        )
    seeds = []
    for text, committed in zip(raw, state.deals, strict=True):
        try:
            seed = bytes.fromhex(str(text))
        except ValueError as exc:
            raise TransferError("a re-deal secret in the header is not hex") from exc
        if hashlib.sha256(seed).hexdigest() != committed:
            raise TransferError("a re-deal secret does not match its commitment")
        seeds.append(seed)
    return seeds


def _named_only(events: Sequence[StoredEvent], given: Sequence[Account], at: str) -> list[Account]:
    """The actors of the events that the export brings no account for, known here by the
    name the events recorded (so the leaderboard and the pages name them), unable to
    sign in: their token hash is of a random value nobody holds."""
    known = {a.account_id for a in given}
    names: dict[str, str] = {}
    for e in events:
        actor = e.meta().get("actor")
        if isinstance(actor, dict):
            account, name = actor.get("account"), actor.get("name")
            if isinstance(account, str) and isinstance(name, str) and account not in known:
                names.setdefault(account, name)
    return [
        Account(account, name, NAMED_ONLY, token_hash(secrets.token_urlsafe(32)), at)
        for account, name in sorted(names.items())
    ]


def _replayed(events: Iterable[StoredEvent]) -> tuple[list[Event], GameState]:
    decoded = []
    for e in events:
        try:
            decoded.append(decode_event(e.body()))
        except (DomainError, ValueError) as exc:
            raise TransferError(f"event {e.version} cannot be read: {exc}") from exc
    try:
        return decoded, replay(decoded)
    except Exception as exc:  # recorded events never fail to fold; these were edited
        raise TransferError(f"the events do not make a game: {exc!r}") from exc


def _seed(header: dict[str, Any], state: GameState) -> bytes | None:
    """The deck seed to keep: revealed in the events, or carried by the header."""
    if state.seed_hex is not None:
        return bytes.fromhex(state.seed_hex)
    raw = header.get("secret")
    if raw is None:
        if state.phase is Phase.ENDED:
            return None
        raise TransferError(
            f"game {state.game_id} is not over ({state.phase.value}) and the export carries no"
            " deck secret, so it could not be played on here: export it with --with-secret"
        )
    try:
        seed = bytes.fromhex(str(raw))
    except ValueError as exc:
        raise TransferError("the header's secret is not hex") from exc
    if hashlib.sha256(seed).hexdigest() != state.deck_commitment:
        raise TransferError("the header's secret does not match the game's deck commitment")
    return seed
