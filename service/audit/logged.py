"""A game's record against the transparency log (issue 28): every entry the log holds
for the game (and its disputes) names a head the stored chain still has at that version,
the game's deck commitment, and sits in the log's tree at its index under the newest
checkpoint's root. A history rewritten after it was logged — even with every hash after
the change recomputed — no longer matches its entries; a log rewritten to match it no
longer extends the checkpoints published before (``tongiaki log verify --state``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from service.store.base import EventStore, StoredEvent
from service.store.log_port import Logged, dispute_stream, game_stream
from service.transparency.checkpoint import Checkpoint, CheckpointError
from service.transparency.entries import EntryError, HeadEntry
from service.transparency.merkle import ProofError, leaf_hash, verify_inclusion
from service.transparency.notes import note_text
from service.transparency.tiled_tree import TiledTree


def check_logged(
    store: EventStore, game_id: str, stored: Sequence[StoredEvent]
) -> tuple[dict[str, Any], list[str]]:
    """The log's entries of the game and its disputes against their streams: a summary
    (entries, the tree's size, commits not logged yet) and the problems found."""
    log = store.log
    head = log.log_head()
    try:
        point = Checkpoint.parse(note_text(head.note)) if head.note else None
    except (CheckpointError, ValueError) as exc:
        return {"entries": 0}, [f"the log's checkpoint: {exc}"]
    tree = TiledTree(log.log_tile, head.size)
    commitment = _commitment(stored)
    streams: list[tuple[str, Sequence[StoredEvent], str]] = [
        (game_stream(game_id), stored, commitment)
    ]
    for row in store.disputes(game_id=game_id, limit=100_000):
        streams.append((dispute_stream(row.dispute_id), store.dispute_events(row.dispute_id), "-"))
    problems: list[str] = []
    count = 0
    last_logged = 0
    for stream, events, expected in streams:
        entries = log.log_stream(stream)
        count += len(entries)
        if stream == streams[0][0] and entries:
            last_logged = entries[-1].version
        for entry in entries:
            problems += _check_entry(entry, events, expected, point, tree)
    summary = {
        "entries": count,
        "last_logged_version": last_logged,
        "unlogged_versions": max(0, (stored[-1].version if stored else 0) - last_logged),
    }
    return summary, problems


def _commitment(stored: Sequence[StoredEvent]) -> str:
    if not stored or stored[0].type != "GameCreated":
        return ""
    try:
        return str(json.loads(stored[0].data).get("deck_commitment", ""))
    except ValueError:
        return ""


def _check_entry(
    entry: Logged,
    events: Sequence[StoredEvent],
    commitment: str,
    point: Checkpoint | None,
    tree: TiledTree,
) -> list[str]:
    where = f"log entry {entry.index} ({entry.stream} v{entry.version})"
    try:
        head = HeadEntry.parse(entry.data)
    except EntryError as exc:
        return [f"{where}: {exc}"]
    problems = []
    if (head.stream, head.version) != (entry.stream, entry.version):
        problems.append(f"{where} holds {head.stream} v{head.version}")
    at = head.version - 1
    if not 0 <= at < len(events) or events[at].version != head.version:
        problems.append(f"{where}: the stream has no version {head.version}")
    elif events[at].hash != head.head:
        problems.append(
            f"{where}: the log recorded head {head.head[:16]}…, the stored events now hash to"
            f" {events[at].hash[:16]}…: the history was rewritten after it was logged"
        )
    if head.commitment != commitment:
        problems.append(f"{where}: deck commitment {head.commitment[:16]}… is not the game's")
    if point is None or entry.index >= point.size:
        return problems  # integrated after the checkpoint was read: checked next time
    try:
        proof = tree.inclusion(entry.index, point.size)
        verify_inclusion(entry.index, point.size, leaf_hash(entry.data), proof, point.root)
    except ProofError as exc:
        problems.append(f"{where} is not in the tree its checkpoint signs: {exc}")
    return problems
