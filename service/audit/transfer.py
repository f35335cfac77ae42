"""Moving a game between servers: ``tongiaki export`` and ``tongiaki import``.

An export is NDJSON. Line 1 is a header naming the format, the game, how many
account, event and journal lines follow and the head hash, so a truncated file
is told from a whole one. Then the seated players' accounts (``--with-secret``
only), every event as stored (bytes and hashes kept), every journal entry. A
game that is not over can only be moved with its deck seed and its players'
accounts (``--with-secret``, for operators; their tokens work on the new server):
without them nobody could play on.

Import checks everything before it writes anything, and names the line of the
first problem; then it stores the game in one transaction.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from domain.disputes import Dispute
from domain.disputes import fold as fold_dispute
from domain.errors import DomainError
from domain.events import Event
from domain.fold import replay
from domain.serialization import decode_dispute_event, decode_event
from domain.state import GameState, Phase
from service.audit.verify import check_dispute_streams, check_record, rewind_problems
from service.play.accounts import token_hash
from service.play.games import redeal_key
from service.store.base import (
    GENESIS,
    NAMED_ONLY,
    Account,
    ConcurrencyConflict,
    EventStore,
    JournalEntry,
    NewEvent,
    StoredEvent,
    chain_events,
    check_chain,
)

FORMAT = "tongiaki-export/1"
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")


class TransferError(Exception):
    """An export or import that cannot be done; the message says why (and where)."""


@dataclass(frozen=True)
class Imported:
    game_id: str
    events: int
    journal: int
    status: str


def export_lines(
    store: EventStore, game_id: str, with_secret: bool = False, allow_broken: bool = False
) -> Iterator[str]:
    """The export of one game, line by line (header, events, journal).

    A game whose hash chain is broken is refused unless ``allow_broken`` (to hand
    the evidence over as it is): no server would import it."""
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
    accounts: list[Account] = []
    if with_secret:
        seed = store.get_secret(game_id)
        if seed is None:
            raise TransferError(f"game {game_id} has no deck secret on this server")
        header["secret"] = seed.hex()
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
    yield _line(header)
    for a in accounts:
        yield _line(
            {
                "account": {
                    "account_id": a.account_id,
                    "name": a.name,
                    "kind": a.kind,
                    "token_hash": a.token_hash,
                    "created_at": a.created_at,
                }
            }
        )
    for e in events:
        yield _line(
            {
                "game_id": e.game_id,
                "version": e.version,
                "type": e.type,
                "data": e.data,
                "metadata": e.metadata,
                "prev_hash": e.prev_hash,
                "hash": e.hash,
            }
        )
    for j in journal:
        yield _line(
            {
                "journal": {
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
            }
        )
    for e in disputes:
        yield _line(
            {
                "dispute_event": {
                    "dispute_id": e.game_id,
                    "version": e.version,
                    "type": e.type,
                    "data": e.data,
                    "metadata": e.metadata,
                    "prev_hash": e.prev_hash,
                    "hash": e.hash,
                }
            }
        )


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) + "\n"


def _rows(source: IO[Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    number = 0
    while True:
        number += 1
        try:
            text = source.readline()
        except UnicodeDecodeError as exc:
            raise TransferError(f"line {number}: not UTF-8 text ({exc.reason})") from exc
        if not text:
            return
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TransferError(f"line {number}: not UTF-8 text ({exc.reason})") from exc
        if not text.strip():
            continue
        try:
            row = json.loads(text, object_pairs_hook=_one_key_each)
        except _TwiceError as exc:
            raise TransferError(f"line {number}: the key {exc.args[0]!r} appears twice") from exc
        except RecursionError as exc:
            raise TransferError(f"line {number}: nested too deeply") from exc
        except ValueError as exc:
            raise TransferError(f"line {number}: not JSON ({exc})") from exc
        if not isinstance(row, dict):
            raise TransferError(f"line {number}: not a JSON object")
        yield number, row


def _count(header: dict[str, Any], name: str, number: int, default: int | None = None) -> int:
    """A count in the header: a whole number from 0."""
    if default is not None and name not in header:
        return default
    value = _field(header, name, int, number)
    if value < 0:
        raise TransferError(f"line {number}: {name!r} is a count from 0, not {value}")
    return int(value)


class _TwiceError(ValueError):
    """A JSON object names a key twice (json.loads would keep the last)."""


def _one_key_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _TwiceError(key)
        seen[key] = value
    return seen


def _field(row: dict[str, Any], name: str, kind: type | tuple[type, ...], number: int) -> Any:
    value = row.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise TransferError(f"line {number}: {name!r} is missing or not of the right type")
    return value


@dataclass
class Export:
    """An export as read: its header, events, journal (with the line of each entry) and
    the accounts of its seats (exports ``--with-secret`` only)."""

    header: dict[str, Any]
    events: list[StoredEvent]
    journal: list[JournalEntry]
    lines: dict[str, int]  # command id -> line
    accounts: list[Account]
    event_lines: dict[int, int] = field(default_factory=dict)  # version -> line
    disputes: dict[str, list[StoredEvent]] = field(default_factory=dict)  # id -> its events


def read_export(source: IO[Any]) -> Export:
    """Parse and check an export's shape (header, counts, fields), naming bad lines."""
    rows = iter(_rows(source))
    first = next(rows, None)
    if first is None:
        raise TransferError("the file is empty")
    number, header = first
    if "format" not in header:
        raise TransferError(
            f"line {number}: the file does not begin with an export header"
            f' ({{"format": "{FORMAT}", …}}, as `tongiaki export` writes)'
        )
    if header.get("format") != FORMAT:
        raise TransferError(
            f"line {number}: format {header.get('format')!r} is not {FORMAT!r}"
            " (export the game again with this version)"
        )
    game_id = _field(header, "game_id", str, number)
    if not GAME_ID.fullmatch(game_id):
        raise TransferError(f"line {number}: {game_id!r} is not a game id")
    expected_events = _count(header, "events", number)
    expected_journal = _count(header, "journal", number)
    events: list[StoredEvent] = []
    journal: list[JournalEntry] = []
    lines: dict[str, int] = {}
    accounts: list[Account] = []
    event_lines: dict[int, int] = {}  # version -> line
    disputes: dict[str, list[StoredEvent]] = {}
    last = number
    for number, row in rows:
        last = number
        if "format" in row:
            raise TransferError(f"line {number}: a second header (the header is line 1 only)")
        if "dispute_event" in row:
            _dispute_event(disputes, row["dispute_event"], number)
            continue
        if disputes:
            raise TransferError(f"line {number}: a line after the disputes")
        if "account" in row:
            accounts.append(_account(row["account"], number))
            continue
        if "journal" in row:
            entry = row["journal"]
            if not isinstance(entry, dict):
                raise TransferError(f"line {number}: a journal line holds an object")
            journal.append(_journal_entry(game_id, entry, number))
            if journal[-1].command_id in lines:
                raise TransferError(
                    f"line {number}: command {journal[-1].command_id} was journalled before"
                    f" (line {lines[journal[-1].command_id]})"
                )
            lines[journal[-1].command_id] = number
            continue
        if journal:
            raise TransferError(f"line {number}: an event after the journal")
        if "version" not in row or "hash" not in row:
            raise TransferError(f"line {number}: neither an event, a journal entry nor an account")
        if row.get("game_id") != game_id:
            raise TransferError(f"line {number}: an event of another game ({row.get('game_id')!r})")
        version = _field(row, "version", int, number)
        if version != len(events) + 1:
            seen = (
                f"; version {version} is at line {event_lines[version]}"
                if version in event_lines
                else ""
            )
            raise TransferError(
                f"line {number}: event version {version} where version {len(events) + 1}"
                f" comes next{seen}"
            )
        event_lines[version] = number
        events.append(
            StoredEvent(
                game_id,
                _field(row, "version", int, number),
                _field(row, "type", str, number),
                _field(row, "data", str, number),
                _field(row, "metadata", str, number),
                _field(row, "prev_hash", str, number),
                _field(row, "hash", str, number),
            )
        )
    expected_accounts = _count(header, "accounts", first[0], 0)
    found = sum(len(d) for d in disputes.values())
    if found != _count(header, "dispute_events", first[0], 0):
        raise TransferError(
            f"truncated or padded: the header promises"
            f" {_count(header, 'dispute_events', first[0], 0)} dispute events; the file has"
            f" {found} (it ends at line {last})"
        )
    if (len(events), len(journal), len(accounts)) != (
        expected_events,
        expected_journal,
        expected_accounts,
    ):
        raise TransferError(
            f"truncated or padded: the header promises {expected_events} events,"
            f" {expected_journal} journal entries and {expected_accounts} accounts; the file has"
            f" {len(events)}, {len(journal)} and {len(accounts)} (it ends at line {last})"
        )
    if not events:
        raise TransferError("the export holds no events")
    if events[-1].version != header.get("head_version"):
        raise TransferError(
            f"line {first[0]}: head_version {header.get('head_version')!r} is not the last"
            f" event's version, {events[-1].version} (line {last})"
        )
    if events[-1].hash != header.get("head_hash"):
        raise TransferError("the last event's hash is not the head hash in the header")
    return Export(header, events, journal, lines, accounts, event_lines, disputes)


def _dispute_event(disputes: dict[str, list[StoredEvent]], value: Any, number: int) -> None:
    """One event of a dispute's stream, in order within its dispute."""
    if not isinstance(value, dict):
        raise TransferError(f"line {number}: a dispute_event line holds an object")
    dispute_id = _field(value, "dispute_id", str, number)
    if not re.fullmatch(r"d[0-9a-f]{15}", dispute_id):
        raise TransferError(f"line {number}: {dispute_id!r} is not a dispute id")
    stream = disputes.setdefault(dispute_id, [])
    version = _field(value, "version", int, number)
    if version != len(stream) + 1:
        raise TransferError(
            f"line {number}: dispute {dispute_id} event {version} where {len(stream) + 1}"
            " comes next"
        )
    stream.append(
        StoredEvent(
            dispute_id,
            version,
            _field(value, "type", str, number),
            _field(value, "data", str, number),
            _field(value, "metadata", str, number),
            _field(value, "prev_hash", str, number),
            _field(value, "hash", str, number),
        )
    )


def _account(value: Any, number: int) -> Account:
    if not isinstance(value, dict):
        raise TransferError(f"line {number}: an account line holds an object")
    return Account(
        _field(value, "account_id", str, number),
        _field(value, "name", str, number),
        _field(value, "kind", str, number),
        _field(value, "token_hash", str, number),
        _field(value, "created_at", str, number),
    )


def _journal_entry(game_id: str, entry: dict[str, Any], number: int) -> JournalEntry:
    def optional_int(name: str) -> int | None:
        value = entry.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TransferError(f"line {number}: journal {name!r} is not a number")
        return value

    outcome = _field(entry, "outcome", str, number)
    if outcome not in ("accepted", "rejected"):
        raise TransferError(f"line {number}: journal outcome {outcome!r} is unknown")
    rejection = entry.get("rejection")
    fingerprint = entry.get("fingerprint")
    return JournalEntry(
        game_id,
        _field(entry, "command_id", str, number),
        _field(entry, "actor", dict, number),
        _field(entry, "received_at", str, number),
        _field(entry, "payload", dict, number),
        _field(entry, "judged_version", int, number),
        outcome,
        optional_int("first_version"),
        optional_int("last_version"),
        rejection if isinstance(rejection, dict) else None,
        fingerprint=fingerprint if isinstance(fingerprint, str) else None,
    )


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
    problems += rewind_problems(events, decoded)
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
        store.import_stream(events, state.phase.value, at, export.journal, seed, accounts)
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
