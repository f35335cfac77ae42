"""A dispute's evidence: what an auditor (or the game's players) needs to settle it.

Read from the event store alone; nothing secret is shown: draws of a game under
way are checked against the kept seed and answered yes or no, and tiles the
record has not yet drawn are never shown while the game runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain import ENGINE_VERSION, RULES_VERSION, position, revisions
from domain import disputes as d
from domain.deck import commitment
from domain.errors import DomainError, MalformedPayload
from domain.fold import replay
from domain.legal import legal_commands
from domain.play import deck_of, play
from domain.serialization import decode_command, encode
from domain.state import GameState, Phase
from projections.command_words import command_words
from service.audit.draws import draws_with_redeals, redeals_of
from service.play.repository import decode_events, redeal_key
from service.store.base import EventStore, JournalEntry, StoredEvent, check_chain
from service.store.log_port import game_stream
from service.transparency.log import prove

REJECTED_AROUND = 20  # refused commands listed in the evidence, at most


def gather_evidence(store: EventStore, s: d.Dispute, view: dict[str, Any]) -> dict[str, Any]:
    """The evidence on dispute ``s`` (``view``: the dispute as the API shows it): the
    game, the anchor, the disputed command with the refused ones around it, the
    positions before and after, its events, its re-run today, the draws."""
    game_id = s.game_id
    stored = store.read(game_id)
    journal = store.journal(game_id)
    events = decode_events(stored)
    entry = _disputed_entry(journal, s)
    first = entry.first_version if entry and entry.first_version else s.version
    last = entry.last_version if entry and entry.last_version else s.version
    before_version = first - 1
    before = replay(events[:before_version])
    after = replay(events[before_version:last], before)
    anchor_ok = 1 <= s.version <= len(stored) and stored[s.version - 1].hash == s.game_hash
    caused = _caused(stored[first - 1 : last])
    final = replay(events)
    return {
        "dispute": view,
        "game": _game(game_id, stored, final),
        "anchor": {"version": s.version, "game_hash": s.game_hash, "matches": anchor_ok},
        "commands": _commands(journal, entry, before_version, last),
        "position_before": {"version": before_version, "position": position.dump(before)},
        "position_after": {"version": last, "position": position.dump(after)},
        "legal_before": [encode(c) for c in legal_commands(before)][:200],
        "legal_before_words": [command_words(c, before) for c in legal_commands(before)][:200],
        "events": caused,
        "receipt": {"version": last, "hash": stored[last - 1].hash if last >= 1 else None},
        "rerun": _rerun(store, game_id, entry, before, stored[first - 1 : last], final),
        "versions": {
            "then": {
                "engine": caused[0]["engine_version"] if caused else None,
                "rules": caused[0]["rules_version"] if caused else None,
            },
            "now": {"engine": ENGINE_VERSION, "rules": RULES_VERSION},
        },
        "draws": _draws(store, game_id, final, events),
        "log": _logged(store, game_id, last),
    }


def _logged(store: EventStore, game_id: str, version: int) -> dict[str, Any]:
    """The transparency log's proof of the disputed command's commit (its last version),
    checkable offline (``tongiaki proof verify``)."""
    proven = prove(store.log, game_stream(game_id), version, store.log.log_head())
    if proven is None:
        return {
            "version": version,
            "logged": False,
            "why": "not in the log: not integrated yet, or a commit older than the log",
        }
    return {
        "version": version,
        "logged": True,
        "index": proven.entry.index,
        "tree_size": proven.size,
        "entry": proven.entry.data.decode("ascii"),
        "bundle": proven.bundle.text,
    }


def _disputed_entry(journal: Sequence[JournalEntry], s: d.Dispute) -> JournalEntry | None:
    """The command the dispute names, or the accepted one whose events hold its version."""
    if s.command_id is not None:
        for j in journal:
            if j.command_id == s.command_id:
                return j
    for j in journal:
        first, last = j.first_version, j.last_version
        if j.outcome == "accepted" and first and last and first <= s.version <= last:
            return j
    return None


def _game(game_id: str, stored: Sequence[StoredEvent], final: GameState) -> dict[str, Any]:
    """The game as it stands: its head, phase, chain, deck commitment and entropy."""
    return {
        "game_id": game_id,
        "version": len(stored),
        "hash": stored[-1].hash if stored else None,
        "phase": final.phase.value,
        "paused": final.paused,
        "chain_ok": check_chain(stored).ok,
        "deck_commitment": final.deck_commitment,
        "entropy": {p.player_id: p.entropy for p in final.players},
    }


def _commands(
    journal: Sequence[JournalEntry], entry: JournalEntry | None, before_version: int, last: int
) -> dict[str, Any]:
    """The disputed command, and the commands refused around it."""
    return {
        "disputed": _entry_json(entry) if entry else None,
        "rejected_around": [
            _entry_json(j)
            for j in journal
            if j.outcome == "rejected" and before_version <= j.judged_version <= last
        ][:REJECTED_AROUND],
    }


def _caused(stored: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """The disputed command's events, each with its rule, hash, time and versions."""
    return [
        {
            "version": e.version,
            "type": e.type,
            "data": e.body(),
            "rule": e.body().get("rule"),
            "hash": e.hash,
            "recorded_at": e.meta().get("recorded_at"),
            "engine_version": e.meta().get("engine_version"),
            "rules_version": e.meta().get("rules_version"),
        }
        for e in stored
    ]


def _rerun(
    store: EventStore,
    game_id: str,
    entry: JournalEntry | None,
    before: GameState,
    recorded: Sequence[StoredEvent],
    final: GameState,
) -> dict[str, Any]:
    """The disputed command re-run under today's engine, event by event against the
    record. Tiles the record has not yet drawn are never shown while the game runs."""
    if entry is None or entry.outcome != "accepted":
        return {"ran": False, "why": "the dispute names no accepted command"}
    try:
        command = decode_command(entry.payload)
        seed = store.get_secret(game_id)
        if seed is None:
            return {"ran": False, "why": "this server keeps no deck seed for the game"}
        produced, _ = play(
            before,
            command,
            lambda: seed,
            deck_of,
            redeal=lambda n: store.get_secret(redeal_key(game_id, n)) or b"",
        )
    except (DomainError, MalformedPayload) as exc:
        return {"ran": True, "same": False, "refused": str(exc), "differences": []}
    bodies = [e.body() for e in recorded]
    rerun = [encode(e) for e in produced]
    if final.phase is not Phase.ENDED:
        known = len(final.drawn)
        drawn = len(before.drawn)
        for body in rerun:
            if body["type"] == "TileDrawn":
                drawn += 1
                if drawn > known:
                    body["tile"] = "(hidden until the game ends)"
    diff = revisions.first_difference(bodies, rerun)
    return {
        "ran": True,
        "same": diff is None,
        "engine": ENGINE_VERSION,
        "rules": RULES_VERSION,
        "recorded": bodies,
        "rerun": rerun,
        "difference": None if diff is None else diff.describe(),
    }


def _draws(
    store: EventStore, game_id: str, final: GameState, events: Sequence[Any]
) -> dict[str, Any]:
    """For a finished game the draws against the revealed seed; for one under way a
    check against the kept seed, answered yes or no (the order stays secret)."""
    drawn = list(final.drawn)
    if final.phase not in (Phase.SETUP, Phase.PLAYING, Phase.ENDED):
        return {"checked": 0, "ok": None, "why": "the game has not started"}
    seed = (
        bytes.fromhex(final.seed_hex) if final.seed_hex is not None else store.get_secret(game_id)
    )
    if seed is None:
        return {"checked": 0, "ok": None, "why": "no seed on this server"}
    if final.deals:  # re-dealt (D6): every draw against the deal current then
        redeals, missing = redeals_of(store, game_id, final)
        ok, _problems, checked = draws_with_redeals(events, seed, redeals)
        answer: dict[str, Any] = {"checked": checked, "ok": ok and not missing}
    else:
        try:
            order = deck_of(final, seed).order
        except DomainError as exc:
            return {"checked": 0, "ok": False, "why": str(exc)}
        ok = list(order[: len(drawn)]) == drawn
        answer = {"checked": len(drawn), "ok": ok}
    if final.seed_hex is not None:
        answer["seed_revealed"] = True
        answer["commitment_ok"] = commitment(seed) == final.deck_commitment
    else:
        answer["seed_revealed"] = False
    return answer


def _entry_json(j: JournalEntry) -> dict[str, Any]:
    return {
        "command_id": j.command_id,
        "actor": j.actor,
        "received_at": j.received_at,
        "payload": j.payload,
        "judged_version": j.judged_version,
        "outcome": j.outcome,
        "versions": [j.first_version, j.last_version],
        "rejection": j.rejection,
    }
