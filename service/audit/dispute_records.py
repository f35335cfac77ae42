"""Each dispute on a game against the game's record: the dispute's own hash chain, its
anchor, and what its ruling did to the game (docs/disputes.md, D4, D6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.store.base import EventStore, StoredEvent, check_chain

# what a ruling leaves in the game's own record (docs/disputes.md, D4, D6)
CARRIED_OUT = {"rewind": "GameRewound", "result_amended": "ResultAmended"}

# the game's events that carried a ruling out: (version, body), by the dispute they name
Effects = dict[str, list[tuple[int, dict[str, Any]]]]


def check_disputes(
    store: EventStore, game_id: str, stored: Sequence[StoredEvent]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every dispute on the game: its hash chain, whether the game's event at the version
    it was opened on still has the hash it recorded (its anchor), and that the game's
    record holds exactly what its ruling did: one ``GameRewound`` to the version a
    *rewind* named, one ``ResultAmended`` as an *amended result* stated, nothing for
    *stands* or an open or withdrawn dispute (docs/disputes.md, D4, D6)."""
    streams = [
        (row.dispute_id, row.status, store.dispute_events(row.dispute_id))
        for row in store.disputes(game_id=game_id, limit=100_000)
    ]
    return check_dispute_streams(stored, streams)


def check_dispute_streams(
    stored: Sequence[StoredEvent], streams: Sequence[tuple[str, str, Sequence[StoredEvent]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``check_disputes`` on given streams (``(dispute id, status, events)``): what an
    import checks before it writes anything."""
    effects = _effects(stored)
    found, problems = [], []
    for dispute_id, status, events in streams:
        row, wrong = _check_stream(stored, dispute_id, status, events, effects.get(dispute_id, []))
        found.append(row)
        problems += wrong
    known = {dispute_id for dispute_id, _, _ in streams}
    for dispute_id, mine in effects.items():
        if dispute_id not in known:
            problems += [
                f"event {v}: {b['type']} names dispute {dispute_id}, which is not here"
                for v, b in mine
            ]
    return found, problems


def _effects(stored: Sequence[StoredEvent]) -> Effects:
    """The game's events that carried a ruling out, by the dispute each names."""
    effects: Effects = {}
    for e in stored:
        if e.type in CARRIED_OUT.values():
            body = e.body()
            effects.setdefault(str(body.get("dispute_id")), []).append((e.version, body))
    return effects


def _check_stream(
    stored: Sequence[StoredEvent],
    dispute_id: str,
    status: str,
    events: Sequence[StoredEvent],
    mine: list[tuple[int, dict[str, Any]]],
) -> tuple[dict[str, Any], list[str]]:
    """One dispute as the report shows it, and its problems."""
    chain = check_chain(events)
    first = events[0].body() if events else {}
    version, anchored = first.get("version"), first.get("game_hash")
    anchor_ok = (
        isinstance(version, int)
        and 1 <= version <= len(stored)
        and stored[version - 1].hash == anchored
    )
    rulings = [e.body() for e in events if e.type == "RulingIssued"]
    ruling = rulings[-1] if rulings else None
    decision = ruling.get("decision") if ruling else None
    expected = _expected(ruling)
    carried = len(mine) == len(expected) and all(
        all(body.get(k) == v for k, v in want.items())
        for (_, body), want in zip(mine, expected, strict=True)
    )
    row = {
        "dispute_id": dispute_id,
        "status": status,
        "events": len(events),
        "chain_ok": chain.ok,
        "anchor_ok": anchor_ok,
        "ruling": decision,
        "carried_out": carried,
    }
    name = f"dispute {dispute_id}"
    problems = [f"{name}: {p}" for p in chain.problems]
    if not anchor_ok:
        problems.append(
            f"{name}: the game's event at version {version} no longer has the hash the"
            " dispute recorded"
        )
    if not carried:
        told = ", ".join(f"{b['type']} at version {v}" for v, b in mine) or "nothing"
        problems.append(
            f"{name}: its ruling ({decision or status}) is not what the game's record"
            f" holds for it ({told})"
        )
    return row, problems


def _expected(ruling: dict[str, Any] | None) -> list[dict[str, Any]]:
    """What the game's record holds for a ruling: the fields its event must have."""
    decision = ruling.get("decision") if ruling else None
    if decision == "rewind" and ruling is not None:
        return [{"type": "GameRewound", "to_version": ruling.get("to_version")}]
    if decision == "result_amended" and ruling is not None:
        return [
            {
                "type": "ResultAmended",
                "annulled": ruling.get("annulled"),
                "ranking": ruling.get("ranking"),
            }
        ]
    return []
