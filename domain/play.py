"""One move as the service plays it, and the deck it draws from.

``play`` is the single sequence both command handling and verification run:
the command (``apply``), then every forced single choice (R25), then, once the
game is over, the reveal of the seed (design.md, Fair draws). Sharing it means
the two cannot drift apart.

The deck is derived from the record alone (``deck_of``): the committed seed, the
game id and every seat's entropy as of ``GameStarted``. It is never derived
before the game has started, because until then a later ``PlayerJoined`` still
changes it.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable

from domain import commands as cmd
from domain.consent import expire_offers
from domain.deck import ALGORITHM, FIXED, REDEAL, Deck, commitment, complete_order, redeal_order
from domain.errors import DeckUnavailable
from domain.events import Event
from domain.fold import replay
from domain.forced import apply_forced
from domain.judge import apply, own_move
from domain.revisions import CURRENT_RULES, RuleSet
from domain.state import GameState, Phase

STARTED = (Phase.SETUP, Phase.PLAYING, Phase.ENDED)
UNDER_WAY = (Phase.SETUP, Phase.PLAYING)  # a command may draw a tile

Secret = Callable[[], bytes]
Redeal = Callable[[int], bytes]  # the seed of re-deal number n (1, 2, …; D6)
DeckOf = Callable[[GameState, bytes], Deck]


def deck_of(state: GameState, seed: bytes) -> Deck:
    """The game's draw order from its record: seed, game id, entropy as of ``GameStarted``;
    after a rewind (D6), the tiles drawn by then and the remainder re-dealt from that
    rewind's ``seed`` (``domain.deck.redeal_order``).

    Raises ``DeckUnavailable`` before the start (a later seat would change the
    order) and when ``sha256(seed)`` is not the commitment in ``GameCreated``.
    """
    if state.phase not in STARTED:
        raise DeckUnavailable("the draw order exists only once the game has started (R2)")
    if state.deals:
        if not hmac.compare_digest(commitment(seed), state.deals[-1]):
            raise DeckUnavailable("the seed does not match the re-deal's commitment (D6)")
        order = redeal_order(seed, state.game_id, len(state.deals), state.drawn[: state.dealt])
        return Deck(REDEAL, order)
    if not hmac.compare_digest(commitment(seed), state.deck_commitment):
        raise DeckUnavailable("the seed does not match the game's commitment (R2)")
    if state.deck_algorithm == FIXED:
        return Deck(FIXED, complete_order(json.loads(seed.decode())))
    if state.deck_algorithm != ALGORITHM:
        raise DeckUnavailable(f"unknown deck algorithm {state.deck_algorithm!r}")
    return Deck.from_seed(seed, state.game_id, [p.entropy for p in state.players])


def entropies(state: GameState) -> tuple[str, ...]:
    """Every seat's entropy, in seat order (what the deck is derived from, with the seed)."""
    return tuple(p.entropy for p in state.players)


def play(
    state: GameState,
    command: cmd.Command,
    secret: Secret,
    decks: DeckOf = deck_of,
    rules: RuleSet = CURRENT_RULES,
    redeal: Redeal | None = None,
) -> tuple[list[Event], GameState]:
    """A command's events, the forced choices after it (R25) and the reveal at the end.

    ``secret`` is asked for the seed only when a started game needs its deck or
    the game has just ended; ``decks`` derives the deck (a cache may stand in
    for ``deck_of`` as long as it is keyed by everything ``deck_of`` reads);
    ``rules``, the rules version that decides (verification re-runs a recorded
    command under the rules it was recorded with).
    Raises ``RuleViolation`` when the command breaks a rule (R24).
    """

    def seed(of: GameState) -> bytes:
        if not of.deals:
            return secret()
        if redeal is None:
            raise DeckUnavailable("the game was re-dealt (D6) and no re-deal seed was given")
        return redeal(len(of.deals))

    deck = decks(state, seed(state)) if state.phase in UNDER_WAY else None
    own: list[Event] = []
    if state.phase in UNDER_WAY and state.paused is None:
        # T4: open offers end when the game moves on; C4–C6: the seat's standing
        own = expire_offers(state, command) + own_move(state, command)
    events, after = apply(replay(own, state) if own else state, command, deck, rules=rules)
    events = own + events
    if (deck is None or len(after.deals) != len(state.deals)) and after.phase in UNDER_WAY:
        # the command started the game (entropy is final) or rewound it (a re-deal)
        deck = decks(after, seed(after))
    forced, after = apply_forced(after, deck, rules)
    events += forced
    if after.phase is Phase.ENDED and after.seed_hex is None and after.deck_commitment:
        redeals: tuple[str, ...] = ()
        if after.deals:
            if redeal is None:
                raise DeckUnavailable("the game was re-dealt (D6) and no re-deal seed was given")
            redeals = tuple(redeal(n).hex() for n in range(1, len(after.deals) + 1))
        reveal, after = apply(after, cmd.RevealDeck(secret().hex(), redeals), rules=rules)
        events += reveal
    return events, after
