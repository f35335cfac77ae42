"""Fair draws: the draw order as a published function of a committed seed.

Algorithm ``tongiaki-deck-v1`` (design.md, "Fair draws"):

1. ``commitment = sha256(seed).hexdigest()`` is published in ``GameCreated``;
   ``seed`` is 32 secret bytes kept by the service until ``DeckRevealed``.
2. ``context = b"tongiaki-deck-v1\\x00" + utf8(game_id) + b"\\x00"`` followed,
   for each player's entropy string in seat order, by its UTF-8 length as
   4 big-endian bytes and its UTF-8 bytes.
3. A byte stream: block ``i`` (``i = 0, 1, …``) is
   ``HMAC-SHA256(key=seed, msg=context + i as 8 big-endian bytes)``.
4. Numbers are read from the stream as 4-byte big-endian unsigned integers.
   A uniform integer in ``[0, n)`` takes the next number ``x`` and rejects it
   while ``x >= 2**32 - (2**32 % n)``; the result is ``x % n``.
5. Fisher–Yates on ``tiles.PILE`` (the 31 tiles in the canonical order of
   shared/tiles.md: islands, then oceans 1–16): for ``i`` from 30 down to 1,
   ``j = uniform(i + 1)``, swap positions ``i`` and ``j``.
6. The tiles are drawn from position 0 onward.

Anyone holding the seed can recompute the order and compare it with every
``TileDrawn`` event (``verify_draws``). The fixed-order deck (``Deck.fixed``) is
for tests and tutorials only; its "seed" is the order itself as JSON.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from domain.tiles import PILE

ALGORITHM = "tongiaki-deck-v1"
FIXED = "fixed"


def commitment(seed: bytes) -> str:
    """Public commitment to a seed: its SHA-256 in hex."""
    return hashlib.sha256(seed).hexdigest()


def _context(game_id: str, entropies: Sequence[str]) -> bytes:
    parts = [ALGORITHM.encode(), b"\x00", game_id.encode("utf-8"), b"\x00"]
    for text in entropies:
        raw = text.encode("utf-8")
        parts.append(len(raw).to_bytes(4, "big"))
        parts.append(raw)
    return b"".join(parts)


def _numbers(seed: bytes, context: bytes) -> Iterator[int]:
    block = 0
    while True:
        digest = hmac.new(seed, context + block.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        block += 1


def _uniform(numbers: Iterator[int], n: int) -> int:
    limit = 2**32 - (2**32 % n)
    while True:
        x = next(numbers)
        if x < limit:
            return x % n


def draw_order(seed: bytes, game_id: str, entropies: Sequence[str]) -> tuple[str, ...]:
    """The full draw order of ``tongiaki-deck-v1`` for this seed, game and entropy."""
    order = list(PILE)
    numbers = _numbers(seed, _context(game_id, entropies))
    for i in range(len(order) - 1, 0, -1):
        j = _uniform(numbers, i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


REDEAL = "tongiaki-redeal-v1"


def redeal_order(seed: bytes, game_id: str, deal: int, drawn: Sequence[str]) -> tuple[str, ...]:
    """The draw order after re-deal number ``deal`` (1, 2, …) of a rewind (D6): the tiles
    drawn by the position rewound to stay first; the others, in canonical pile order,
    are shuffled as in ``tongiaki-deck-v1`` (steps 3–5) with the fresh ``seed`` and the
    context ``b"tongiaki-redeal-v1\x00" + utf8(game_id) + b"\x00" + deal`` (4 bytes)."""
    seen = set(drawn)
    rest = [t for t in PILE if t not in seen]
    context = (
        REDEAL.encode() + b"\x00" + game_id.encode("utf-8") + b"\x00" + deal.to_bytes(4, "big")
    )
    numbers = _numbers(seed, context)
    for i in range(len(rest) - 1, 0, -1):
        j = _uniform(numbers, i + 1)
        rest[i], rest[j] = rest[j], rest[i]
    return (*drawn, *rest)


def complete_order(prefix: Sequence[str]) -> tuple[str, ...]:
    """A full order starting with ``prefix``, the rest in canonical pile order."""
    unknown = [t for t in prefix if t not in PILE]
    if unknown:
        raise ValueError(f"not in the draw pile: {unknown}")
    if len(set(prefix)) != len(prefix):
        raise ValueError("a tile appears twice in the fixed order")
    seen = set(prefix)
    return (*prefix, *(t for t in PILE if t not in seen))


@dataclass(frozen=True)
class Deck:
    """A draw order: the only source of chance the engine uses."""

    algorithm: str
    order: tuple[str, ...] = field(repr=False)

    @classmethod
    def from_seed(cls, seed: bytes, game_id: str, entropies: Sequence[str]) -> Deck:
        """The deck of a real game (``tongiaki-deck-v1``)."""
        return cls(ALGORITHM, draw_order(seed, game_id, entropies))

    @classmethod
    def fixed(cls, prefix: Sequence[str] = ()) -> Deck:
        """A fixed order for tests and tutorials: ``prefix`` first, then canonical order."""
        return cls(FIXED, complete_order(prefix))

    def tile_at(self, index: int) -> str:
        """The tile drawn at position ``index`` (0-based)."""
        return self.order[index]

    def fixed_seed(self) -> bytes:
        """The bytes committed to for a fixed deck: its order as JSON."""
        return json.dumps(list(self.order)).encode()


@dataclass(frozen=True)
class DeckVerification:
    """Result of checking a revealed seed against a game's public record."""

    ok: bool
    algorithm: str
    commitment_ok: bool
    draws_checked: int
    problems: tuple[str, ...]


def verify_draws(
    seed: bytes,
    expected_commitment: str,
    game_id: str,
    entropies: Sequence[str],
    drawn: Sequence[str],
    algorithm: str = ALGORITHM,
) -> DeckVerification:
    """Check a revealed seed against the commitment and every ``TileDrawn`` in order."""
    problems: list[str] = []
    commitment_ok = hmac.compare_digest(commitment(seed), expected_commitment)
    if not commitment_ok:
        problems.append("sha256(seed) does not match the commitment in GameCreated")
    if algorithm == ALGORITHM:
        order = draw_order(seed, game_id, entropies)
    elif algorithm == FIXED:
        try:
            order = complete_order(json.loads(seed.decode()))
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(f"fixed order cannot be read: {exc}")
            order = ()
    else:
        problems.append(f"unknown deck algorithm {algorithm!r}")
        order = ()
    for index, tile_id in enumerate(drawn):
        expected = order[index] if index < len(order) else None
        if expected != tile_id:
            problems.append(f"draw {index + 1}: recorded {tile_id}, algorithm gives {expected}")
    return DeckVerification(not problems, algorithm, commitment_ok, len(drawn), tuple(problems))
