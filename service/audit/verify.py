"""Verification of a game's record: hash chain, fair draws, and a re-run of every command."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from domain import RULES_VERSION, revisions
from domain.errors import MalformedPayload
from domain.events import Event
from domain.fold import replay
from domain.serialization import decode_event
from service.audit.dispute_records import check_disputes
from service.audit.draws import redeals_of, revealed_draws, seed_of
from service.audit.logged import check_logged
from service.audit.rerun import check_record
from service.audit.rewinds import rewind_problems
from service.audit.takebacks import takeback_problems
from service.audit.vacation_check import vacation_problems
from service.errors import NotFound
from service.store.base import EventStore, StoredEvent, check_chain


@dataclass(frozen=True)
class Verification:
    """Everything an auditor needs to trust (or dispute) a game's record."""

    game_id: str
    ok: bool
    events: int
    chain_ok: bool
    chain_problems: tuple[str, ...]
    deck_revealed: bool
    deck_ok: bool | None
    deck_problems: tuple[str, ...]
    draws_checked: int
    commands_rerun: int
    rerun_problems: tuple[str, ...]
    rules_version: str = RULES_VERSION
    recorded_rules: tuple[str, ...] = ()
    rule_changes: tuple[dict[str, Any], ...] = ()
    # each dispute on the game: its own chain, its anchor, what a ruling did to the game
    disputes: tuple[dict[str, Any], ...] = ()
    # the game against the transparency log: entries, tree size, versions not logged yet
    log: dict[str, Any] | None = None
    log_problems: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def verify_game(store: EventStore, game_id: str) -> Verification:
    """Check the chain, the revealed seed against every draw, and re-run every command.

    Everything is read from the event store and recomputed: no cache is consulted,
    so every process (and the CLI) gives the same answer for the same record.
    """
    head = store.head(game_id)
    if head is None or head.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    stored = store.read(game_id)
    chain = check_chain(stored)
    events, unreadable = _decoded(stored)
    logged, log_problems = check_logged(store, game_id, stored)
    if unreadable is not None:
        found = (*chain.problems, unreadable)
        return Verification(
            game_id, False, len(stored), False, found, False, None, (), 0, 0, (),
            log=logged, log_problems=tuple(log_problems),
        )  # fmt: skip
    final = replay(events)
    redeals, redeal_problems = redeals_of(store, game_id, final)
    deck_ok, deck_problems, draws = revealed_draws(game_id, final, events)
    seed, seed_problems = seed_of(store, game_id, final)
    journal = store.journal(game_id)
    rerun = check_record(journal, stored, events, seed, redeals)
    disputes, dispute_problems = check_disputes(store, game_id, stored)
    problems = (
        seed_problems
        + redeal_problems
        + rewind_problems(stored, events)
        + takeback_problems(journal, events)
        + rerun.problems
        + vacation_problems(stored)
        + dispute_problems
    )
    ok = chain.ok and deck_ok is not False and not problems and not log_problems
    return Verification(
        game_id,
        ok,
        len(stored),
        chain.ok,
        chain.problems,
        final.seed_hex is not None,
        deck_ok,
        deck_problems,
        draws,
        rerun.count,
        tuple(problems),
        RULES_VERSION,
        recorded_rules(stored),
        tuple(rerun.rule_changes),
        tuple(disputes),
        logged,
        tuple(log_problems),
    )


def _decoded(stored: Sequence[StoredEvent]) -> tuple[list[Event], str | None]:
    """The events read from their stored bodies, up to the first that cannot be (and why)."""
    events = []
    for e in stored:
        try:
            events.append(decode_event(e.body()))
        except (MalformedPayload, ValueError) as exc:
            return events, f"event {e.version} cannot be read: {exc}"
    return events, None


def recorded_rules(stored: Sequence[StoredEvent]) -> tuple[str, ...]:
    """The rules versions the events were decided under, in the order they appear."""
    seen: dict[str, None] = {}
    for e in stored:
        version = e.meta().get("rules_version")
        if isinstance(version, str):
            seen[revisions.canonical(version) or version] = None
    return tuple(seen)
