"""Verification of a game's record: hash chain, fair draws, and a re-run of every command."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from domain.deck import verify_draws
from domain.errors import DeckUnavailable, DomainError, MalformedPayload
from domain.events import Event
from domain.evolve import replay
from domain.play import deck_of, play
from domain.serialization import decode_command, decode_event, encode
from domain.state import GameState
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
    events = []
    for e in stored:
        try:
            events.append(decode_event(e.body()))
        except (MalformedPayload, ValueError) as exc:
            problems = (*chain.problems, f"event {e.version} cannot be read: {exc}")
            return Verification(
                game_id, False, len(stored), False, problems, False, None, (), 0, 0, ()
            )
    final = replay(events)
    deck_ok: bool | None = None
    deck_problems: tuple[str, ...] = ()
    draws = 0
    if final.seed_hex is not None:
        entropies = [p.entropy for p in final.players]
        report = verify_draws(
            bytes.fromhex(final.seed_hex),
            final.deck_commitment,
            game_id,
            entropies,
            final.drawn,
            final.deck_algorithm,
        )
        deck_ok, deck_problems, draws = report.ok, report.problems, report.draws_checked
    rerun, problems = _rerun(store, game_id, stored, events, final)
    ok = chain.ok and deck_ok is not False and not problems
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
        rerun,
        tuple(problems),
    )


def _rerun(
    store: EventStore,
    game_id: str,
    stored: list[StoredEvent],
    events: list[Event],
    final: GameState,
) -> tuple[int, list[str]]:
    """Re-run each accepted command on the state before it; compare with what was recorded.

    The same ``domain.play`` sequence command handling runs, with the deck derived
    afresh from the record (``deck_of``): no cache of the service is consulted.
    """
    problems: list[str] = []
    entries = [e for e in store.journal(game_id) if e.outcome == "accepted"]
    entries.sort(key=lambda e: e.first_version or 0)
    revealed = bytes.fromhex(final.seed_hex) if final.seed_hex is not None else None
    kept = store.get_secret(game_id)
    if revealed is not None and kept is not None and kept != revealed:
        problems.append("the seed kept by the server is not the seed revealed in DeckRevealed")
    seed = revealed if revealed is not None else kept

    def secret() -> bytes:
        if seed is None:
            raise DeckUnavailable("neither a revealed seed nor a kept secret")
        return seed

    state = GameState()
    folded = 0
    count = 0
    for entry in entries:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None:
            continue
        state = replay(events[folded : first - 1], state)
        folded = first - 1
        try:
            produced, _ = play(state, decode_command(entry.payload), secret, deck_of)
        except DomainError as exc:
            problems.append(f"command {entry.command_id}: the engine now rejects it ({exc})")
            continue
        recorded = [e.body() for e in stored[first - 1 : last]]
        if [encode(e) for e in produced] != recorded:
            problems.append(
                f"command {entry.command_id}: re-running it does not give events {first}–{last}"
            )
        count += 1
    return count, problems
