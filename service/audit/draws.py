"""Fair draws: the seeds a game's deals came from, and every draw against its deal."""

from __future__ import annotations

from collections.abc import Sequence

from domain.deck import verify_draws
from domain.errors import DomainError
from domain.events import Event, TileDrawn
from domain.fold import evolve
from domain.play import deck_of
from domain.state import GameState
from service.play.repository import redeal_key
from service.store.base import EventStore


def seed_of(store: EventStore, game_id: str, final: GameState) -> tuple[bytes | None, list[str]]:
    """The seed to re-run with: the revealed one, else the one the server keeps."""
    revealed = bytes.fromhex(final.seed_hex) if final.seed_hex is not None else None
    kept = store.get_secret(game_id)
    if revealed is not None and kept is not None and kept != revealed:
        return revealed, ["the seed kept by the server is not the seed revealed in DeckRevealed"]
    return (revealed if revealed is not None else kept), []


def redeals_of(store: EventStore, game_id: str, final: GameState) -> tuple[list[bytes], list[str]]:
    """The seeds of the game's re-deals (D6): revealed, else kept by the server."""
    seeds: list[bytes] = []
    problems: list[str] = []
    for n in range(1, len(final.deals) + 1):
        kept = store.get_secret(redeal_key(game_id, n))
        revealed = bytes.fromhex(final.redeal_hex[n - 1]) if final.redeal_hex else None
        if revealed is not None and kept is not None and kept != revealed:
            problems.append(f"the seed kept for re-deal {n} is not the one revealed")
        seed = revealed if revealed is not None else kept
        if seed is None:
            problems.append(f"no seed for re-deal {n}: neither revealed nor kept here")
            break
        seeds.append(seed)
    return seeds, problems


def revealed_draws(
    game_id: str, final: GameState, events: Sequence[Event]
) -> tuple[bool | None, tuple[str, ...], int]:
    """Every draw against the revealed seed (and the revealed re-deals): whether they all
    agree (``None`` while the seed is not revealed), the problems, how many were checked."""
    if final.seed_hex is None:
        return None, (), 0
    if final.deals:
        # re-dealt by rewinds (D6): each draw against the deal current when it was drawn
        return draws_with_redeals(
            events, bytes.fromhex(final.seed_hex), [bytes.fromhex(h) for h in final.redeal_hex]
        )
    report = verify_draws(
        bytes.fromhex(final.seed_hex),
        final.deck_commitment,
        game_id,
        [p.entropy for p in final.players],
        final.drawn,
        final.deck_algorithm,
    )
    return report.ok, report.problems, report.draws_checked


def draws_with_redeals(
    events: Sequence[Event], seed: bytes, redeals: Sequence[bytes]
) -> tuple[bool, tuple[str, ...], int]:
    """Every ``TileDrawn`` in the record, superseded ones included, against the deal that
    was current when it was drawn: the first (``seed``) or a rewind's re-deal (D6)."""
    problems: list[str] = []
    state = GameState()
    count = 0
    for version, e in enumerate(events, start=1):
        if isinstance(e, TileDrawn):
            count += 1
            deal = len(state.deals)
            try:
                key = seed if deal == 0 else redeals[deal - 1]
                expected: str | None = deck_of(state, key).tile_at(len(state.drawn))
            except (DomainError, IndexError) as exc:
                problems.append(f"event {version}: the deal cannot be derived ({exc})")
                expected = e.tile
            if expected != e.tile:
                where = "the first deal" if deal == 0 else f"re-deal {deal}"
                problems.append(f"event {version}: recorded {e.tile}, {where} gives {expected}")
        state = evolve(state, e)
    return not problems, tuple(problems), count
