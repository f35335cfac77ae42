"""Verification of a game's record: hash chain, fair draws, and a re-run of every command."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from domain import commands as cmd
from domain.decide import apply
from domain.deck import verify_draws
from domain.errors import DomainError, MalformedPayload
from domain.evolve import replay
from domain.forced import apply_forced
from domain.serialization import decode_command, decode_event, encode
from domain.state import GameState, Phase
from service.errors import NotFound
from service.games import GameService
from service.store.base import check_chain


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


def verify_game(service: GameService, game_id: str) -> Verification:
    """Check the chain, the revealed seed against every draw, and re-run every command."""
    head = service.store.head(game_id)
    if head is None or head.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    stored = service.store.read(game_id)
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
    rerun, problems = _rerun(service, game_id, stored, events)
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


def _rerun(service: GameService, game_id: str, stored: list, events: list) -> tuple[int, list[str]]:
    """Re-run each accepted command on the state before it; compare with what was recorded."""
    problems: list[str] = []
    entries = [e for e in service.store.journal(game_id) if e.outcome == "accepted"]
    entries.sort(key=lambda e: e.first_version or 0)
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
            command = decode_command(entry.payload)
            deck = (
                None
                if isinstance(command, cmd.CreateGame | cmd.JoinGame)
                else service.deck(game_id, state)
            )
            produced, after = apply(state, command, deck)
            forced, after = apply_forced(after, deck)
            produced += forced
            if after.phase is Phase.ENDED and after.deck_commitment:
                seed = service.store.get_secret(game_id)
                if seed is not None:
                    reveal, after = apply(after, cmd.RevealDeck(seed.hex()))
                    produced += reveal
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
