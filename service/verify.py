"""Verification of a game's record: hash chain, fair draws, and a re-run of every command."""

from __future__ import annotations

from collections.abc import Sequence
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
from service.store.base import EventStore, JournalEntry, StoredEvent, check_chain


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
    seed, seed_problems = seed_of(store, game_id, final)
    rerun, problems = check_record(store.journal(game_id), stored, events, seed)
    problems = seed_problems + problems
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


def seed_of(store: EventStore, game_id: str, final: GameState) -> tuple[bytes | None, list[str]]:
    """The seed to re-run with: the revealed one, else the one the server keeps."""
    revealed = bytes.fromhex(final.seed_hex) if final.seed_hex is not None else None
    kept = store.get_secret(game_id)
    if revealed is not None and kept is not None and kept != revealed:
        return revealed, ["the seed kept by the server is not the seed revealed in DeckRevealed"]
    return (revealed if revealed is not None else kept), []


def check_record(
    journal: Sequence[JournalEntry],
    stored: Sequence[StoredEvent],
    events: Sequence[Event],
    seed: bytes | None,
) -> tuple[int, list[str]]:
    """The journal against the events: accepted commands cover every event exactly (ids and
    actors agree), and re-running each on the state before it gives its events again.

    The same ``domain.play`` sequence command handling runs, with the deck derived
    afresh from the record (``deck_of``): no cache of the service is consulted.
    Returns the commands re-run and the problems found.
    """
    accepted = sorted(
        (e for e in journal if e.outcome == "accepted"), key=lambda e: e.first_version or 0
    )
    problems = _coverage(accepted, stored)

    def secret() -> bytes:
        if seed is None:
            raise DeckUnavailable("neither a revealed seed nor a kept secret")
        return seed

    state = GameState()
    folded = 0
    count = 0
    for entry in accepted:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None or not 1 <= first <= last <= len(stored):
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


def _coverage(accepted: Sequence[JournalEntry], stored: Sequence[StoredEvent]) -> list[str]:
    """Accepted commands' versions are exactly 1..N, each event names its command and actor."""
    problems: list[str] = []
    expected = 1
    for entry in accepted:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None or first != expected or last < first:
            problems.append(
                f"command {entry.command_id}: its events {first}–{last} do not follow"
                f" version {expected - 1}"
            )
            return problems
        for e in stored[first - 1 : last]:
            meta = e.meta()
            if meta.get("command_id") != entry.command_id or meta.get("actor") != entry.actor:
                problems.append(
                    f"event {e.version}: its command or actor is not journal entry"
                    f" {entry.command_id}'s"
                )
        expected = last + 1
    if expected != len(stored) + 1:
        problems.append(
            f"events {expected}–{len(stored)} belong to no accepted command in the journal"
        )
    return problems
