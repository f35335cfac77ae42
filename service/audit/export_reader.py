"""Reading an export back, line by line: each line's shape checked (JSON objects, the
header, its counts, every field), a bad line named by its number; nothing about the
game itself (that is ``service.audit.imports``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from service.audit.transfer import FORMAT, TransferError
from service.store.base import Account, JournalEntry, StoredEvent

GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")


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
    rows = _rows(source)
    first = next(rows, None)
    if first is None:
        raise TransferError("the file is empty")
    number, header = first
    game_id = _game_id(header, number)
    expected_events = _count(header, "events", number)
    expected_journal = _count(header, "journal", number)
    _check_log(header, number)
    export = Export(header, [], [], {}, [])
    last = number
    for number, row in rows:
        last = number
        _take(export, game_id, row, number)
    expected_accounts = _count(header, "accounts", first[0], 0)
    _check_disputes_count(export, first[0], last)
    events, journal, accounts = export.events, export.journal, export.accounts
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
    _check_head(export, first[0], last)
    return export


MAX_LOGGED = 1_000_000
MAX_CHECKPOINT = 100_000


def _check_log(header: dict[str, Any], number: int) -> None:
    """The header's ``log`` (optional): the source's checkpoint and entries, each
    ``[stream, version, index]``."""
    if "log" not in header:
        return
    log = header["log"]
    if not isinstance(log, dict) or set(log) != {"checkpoint", "entries"}:
        raise TransferError(f"line {number}: 'log' holds a checkpoint and entries")
    note, entries = log["checkpoint"], log["entries"]
    if not isinstance(note, str) or len(note) > MAX_CHECKPOINT:
        raise TransferError(f"line {number}: the log's checkpoint is a signed note (text)")
    if not isinstance(entries, list) or len(entries) > MAX_LOGGED:
        raise TransferError(f"line {number}: the log's entries are a list")
    for entry in entries:
        shape = isinstance(entry, list) and len(entry) == 3
        if (
            not shape
            or not isinstance(entry[0], str)
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in entry[1:])
        ):
            raise TransferError(
                f"line {number}: a log entry is [stream, version, index], not {entry!r:.80}"
            )


def logged_versions(header: dict[str, Any], game_id: str) -> list[int]:
    """The game's versions its source's log recorded (none when it says nothing)."""
    entries = header.get("log", {}).get("entries", [])
    return [int(e[1]) for e in entries if e[0] == f"game/{game_id}"]


def _game_id(header: dict[str, Any], number: int) -> str:
    """The header's format checked, and the game it names."""
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
    game_id: str = _field(header, "game_id", str, number)
    if not GAME_ID.fullmatch(game_id):
        raise TransferError(f"line {number}: {game_id!r} is not a game id")
    return game_id


def _take(export: Export, game_id: str, row: dict[str, Any], number: int) -> None:
    """One line after the header, in its place: accounts, events, journal, disputes."""
    if "format" in row:
        raise TransferError(f"line {number}: a second header (the header is line 1 only)")
    if "dispute_event" in row:
        _dispute_event(export.disputes, row["dispute_event"], number)
        return
    if export.disputes:
        raise TransferError(f"line {number}: a line after the disputes")
    if "account" in row:
        export.accounts.append(_account(row["account"], number))
        return
    if "journal" in row:
        _journal_line(export, game_id, row["journal"], number)
        return
    if export.journal:
        raise TransferError(f"line {number}: an event after the journal")
    _event(export, game_id, row, number)


def _journal_line(export: Export, game_id: str, entry: Any, number: int) -> None:
    """A journal entry, its command journalled once."""
    if not isinstance(entry, dict):
        raise TransferError(f"line {number}: a journal line holds an object")
    export.journal.append(_journal_entry(game_id, entry, number))
    command_id = export.journal[-1].command_id
    if command_id in export.lines:
        raise TransferError(
            f"line {number}: command {command_id} was journalled before"
            f" (line {export.lines[command_id]})"
        )
    export.lines[command_id] = number


def _event(export: Export, game_id: str, row: dict[str, Any], number: int) -> None:
    """An event of the game, the next version."""
    if "version" not in row or "hash" not in row:
        raise TransferError(f"line {number}: neither an event, a journal entry nor an account")
    if row.get("game_id") != game_id:
        raise TransferError(f"line {number}: an event of another game ({row.get('game_id')!r})")
    version = _field(row, "version", int, number)
    if version != len(export.events) + 1:
        seen = (
            f"; version {version} is at line {export.event_lines[version]}"
            if version in export.event_lines
            else ""
        )
        raise TransferError(
            f"line {number}: event version {version} where version {len(export.events) + 1}"
            f" comes next{seen}"
        )
    export.event_lines[version] = number
    export.events.append(
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


def _check_disputes_count(export: Export, header_line: int, last: int) -> None:
    """As many dispute events as the header promises."""
    found = sum(len(d) for d in export.disputes.values())
    if found != _count(export.header, "dispute_events", header_line, 0):
        raise TransferError(
            f"truncated or padded: the header promises"
            f" {_count(export.header, 'dispute_events', header_line, 0)} dispute events;"
            f" the file has {found} (it ends at line {last})"
        )


def _check_head(export: Export, header_line: int, last: int) -> None:
    """Events there are, and the last one is the head the header names."""
    events, header = export.events, export.header
    if not events:
        raise TransferError("the export holds no events")
    if events[-1].version != header.get("head_version"):
        raise TransferError(
            f"line {header_line}: head_version {header.get('head_version')!r} is not the last"
            f" event's version, {events[-1].version} (line {last})"
        )
    if events[-1].hash != header.get("head_hash"):
        raise TransferError("the last event's hash is not the head hash in the header")


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
