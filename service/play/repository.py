"""Where a game's state comes from: the event store, folded, with bounded caches.

A game's state is the fold of its events (``domain.fold.replay``) from the nearest
snapshot or replay keyframe; its deck is derived from the secret seed the store
keeps; the clock of a timed game is recorded with its events. Every cache here is
bounded and keyed by what its values were derived from: a game's fold by its
version and head hash (and always topped up with the events recorded since), a
deck by the seed, game id, algorithm and entropy it was derived from, a seed by
its game (the secrets row never changes), a clock by game and version (events
never change). Verification (``service.audit.verify``) reads none of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from domain import position
from domain.deck import Deck
from domain.events import Event
from domain.fold import replay
from domain.play import STARTED, deck_of, entropies
from domain.serialization import decode_event
from domain.state import GameState
from service.errors import BadRequest, NotFound
from service.runtime.cache import Bounded
from service.store.base import EventStore, Snapshot, StoredEvent
from service.timing.clocks import Clock

FOLD_VERSION = position.FOLD_VERSION
STATES = 512  # games whose latest fold a process keeps
DECKS = 1024  # derived draw orders a process keeps
SECRETS = 4096  # deck seeds a process keeps (rows that never change)
CLOCKS = 1024  # clocks recorded at a game's version that a process keeps (never change)

Keyframes = Callable[[str, int], "tuple[int, str] | None"]


def redeal_key(game_id: str, deal: int) -> str:
    """Where the seed of a game's re-deal number ``deal`` (D6) is kept among the secrets:
    ``<game>~<n>`` (no game id holds a ``~``)."""
    return f"{game_id}~{deal}"


def decode_events(stored: Sequence[StoredEvent]) -> list[Event]:
    """Domain events from stored rows."""
    return [decode_event(e.body()) for e in stored]


class GameRepository:
    """Loads games (snapshot or keyframe + the events since, folded), their secrets,
    decks and recorded clocks; writes a snapshot every ``snapshot_every`` versions."""

    def __init__(
        self,
        store: EventStore,
        *,
        snapshot_every: int = 100,
        keyframes: Keyframes | None = None,
    ) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        # replay keyframes (the timeline projection), denser than snapshots
        self.keyframes = keyframes
        self._states: Bounded[str, tuple[int, str, GameState]] = Bounded(STATES)
        self._decks: Bounded[tuple[Any, ...], Deck] = Bounded(DECKS)
        self._secrets: Bounded[str, bytes] = Bounded(SECRETS)
        self._clocks: Bounded[tuple[str, int], tuple[Clock | None]] = Bounded(CLOCKS)

    # --- states ------------------------------------------------------------------

    def cached(self, game_id: str) -> tuple[int, str, GameState] | None:
        """The latest fold this process kept (version, head hash, state), unchecked:
        a starting point that the append's version and hash check, never an answer."""
        return self._states.get(game_id)

    def forget(self, game_id: str) -> None:
        """Drop a game's kept fold (the next load starts from a snapshot)."""
        self._states.pop(game_id)

    def load(self, game_id: str, at: int | None = None) -> tuple[int, GameState]:
        """The game's version and state, now or ``at`` a version (snapshot + fold).

        The in-process cache is only a starting point: the events recorded since
        its version are always read and folded, so it is never stale.
        """
        cached = self._states.get(game_id)
        if at is None and cached is not None:
            newer = self.store.read(game_id, after=cached[0])
            if not newer:
                return cached[0], cached[2]
            if newer[0].prev_hash == cached[1]:
                state = replay(decode_events(newer), cached[2])
                self.remember(game_id, newer[-1].version, newer[-1].hash, state, cached[0])
                return newer[-1].version, state
            self._states.pop(game_id)  # not the history it was folded from: load afresh
            cached = None
        head = None
        if at is None:
            head = self.store.head(game_id)
            if head is None or head.version == 0:
                raise NotFound("unknown_game", f"there is no game {game_id!r}")
            target = head.version
        elif at < 1:
            raise self.bad_version(game_id)
        else:
            target = at  # a past version needs no head: the events read below prove it
        if cached is not None and cached[0] == target:
            return cached[0], cached[2]
        if cached is not None and cached[0] < target:
            base_version, state = cached[0], cached[2]  # events never change: a fine start
        else:
            base_version, state = self._start(game_id, target)
        events = self.store.read(game_id, after=base_version, limit=target - base_version)
        if len(events) < target - base_version:  # beyond the head, or no such game
            raise self.bad_version(game_id)
        state = replay(decode_events(events), state)
        if head is not None:
            self.remember(game_id, target, head.hash, state, base_version)
        return target, state

    def _start(self, game_id: str, target: int) -> tuple[int, GameState]:
        """Where a fold up to ``target`` starts: the closest keyframe or snapshot."""
        frame = self.keyframes(game_id, target) if self.keyframes is not None else None
        # a keyframe close by needs no snapshot lookup (keyframes are denser)
        close = frame is not None and target - frame[0] < self.snapshot_every // 4
        snap = None if close else self.store.get_snapshot(game_id, FOLD_VERSION, target)
        if frame is not None and (snap is None or frame[0] > snap.version):
            return frame[0], position.load(json.loads(frame[1]))
        if snap is not None:
            return snap.version, position.load(json.loads(snap.state))
        return 0, GameState()

    def bad_version(self, game_id: str) -> NotFound | BadRequest:
        """The error for a version the game does not have (or for no such game)."""
        head = self.store.head(game_id)
        if head is None or head.version == 0:
            return NotFound("unknown_game", f"there is no game {game_id!r}")
        return BadRequest("bad_version", f"versions of this game run from 1 to {head.version}")

    def remember(
        self, game_id: str, version: int, head_hash: str, state: GameState, since: int
    ) -> None:
        """Keep the fold at ``version``; store a snapshot when it passed a multiple of
        ``snapshot_every`` since version ``since``."""
        cached = self._states.get(game_id)
        if cached is None or cached[0] < version:
            self._states.put(game_id, (version, head_hash, state))
        if version // self.snapshot_every > since // self.snapshot_every:
            self.store.put_snapshot(Snapshot(game_id, version, FOLD_VERSION, position.text(state)))

    # --- what the events and the secrets determine -------------------------------

    def clock_at(self, game_id: str, version: int, state: GameState) -> Clock | None:
        """The clock recorded with ``version`` of a timed game (the last event of a
        transaction, as every head is; docs/clocks.md)."""
        if state.options.time_control == "none" or version < 1:
            return None
        known = self._clocks.get((game_id, version))
        if known is not None:
            return known[0]
        events = self.store.read(game_id, after=version - 1, limit=1)
        data = events[0].meta().get("clock") if events else None
        clock = Clock.from_data(data) if isinstance(data, dict) else None
        self._clocks.put((game_id, version), (clock,))
        return clock

    def remember_clock(self, game_id: str, version: int, clock: Clock) -> None:
        """Keep the clock just recorded with ``version``."""
        self._clocks.put((game_id, version), (clock,))

    def secret(self, game_id: str) -> bytes:
        """The game's deck seed (kept server-side until ``DeckRevealed``)."""
        seed = self._secrets.get(game_id)
        if seed is None:
            seed = self.store.get_secret(game_id)
            if seed is None:
                raise NotFound("no_deck", f"game {game_id} has no deck secret on this server")
            self._secrets.put(game_id, seed)
        return seed

    def deck(self, state: GameState, seed: bytes) -> Deck:
        """``domain.play.deck_of``, cached by everything it reads (never before the start)."""
        if state.phase not in STARTED:
            return deck_of(state, seed)  # raises: the entropy is not final yet
        key = (
            state.deck_algorithm,
            state.deck_commitment,
            seed,
            state.game_id,
            entropies(state),
            state.deals,
            state.drawn[: state.dealt],
        )
        deck = self._decks.get(key)
        if deck is None:
            deck = deck_of(state, seed)
            self._decks.put(key, deck)
        return deck
