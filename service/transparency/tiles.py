"""C2SP tlog-tiles: where a tree of size n keeps its hashes, and the tiles' paths.

Tiles are of height 8: a tile at level L holds up to 256 consecutive hashes of the
tree's level 8·L (level 0: the leaves' hashes), each the root of a complete subtree of
2^(8·L) leaves. A tile is full (256 hashes, immutable forever) or the partial rightmost
one of its level (``.p/<W>``, W from 1 to 255 hashes). The entries are served the same
way, 256 to a bundle, each entry prefixed by its length (big-endian uint16).

Paths: ``tile/<L>/<N>[.p/<W>]`` and ``tile/entries/<N>[.p/<W>]``, N written as
zero-padded groups of three digits, every group but the last prefixed with ``x``
(1234067 → ``x001/x234/067``). Only the canonical spelling is a path: anything else is
no tile (the web answers 404), so a cache never holds two copies of one tile.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from service.transparency.merkle import root

HEIGHT = 8
WIDTH = 1 << HEIGHT  # hashes (or entries) in a full tile
MAX_LEVEL = 63
MAX_ENTRY = 0xFFFF  # an entry's length fits its uint16 prefix

_TILE = re.compile(r"tile/(entries|\d{1,2})/((?:x\d{3}/)*\d{3})(?:\.p/(\d{1,3}))?")


@dataclass(frozen=True)
class Tile:
    """A tile: its level (None for an entry bundle), its index in the level, its width."""

    level: int | None
    index: int
    width: int = WIDTH

    @property
    def path(self) -> str:
        """Its canonical path."""
        where = "entries" if self.level is None else str(self.level)
        partial = f".p/{self.width}" if self.width < WIDTH else ""
        return f"tile/{where}/{encode_index(self.index)}{partial}"


def encode_index(index: int) -> str:
    """N as path elements: 1234067 → ``x001/x234/067``."""
    if index < 0:
        raise ValueError(f"a tile index is not negative: {index}")
    digits = str(index)
    digits = digits.zfill(-(-len(digits) // 3) * 3)
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    return "/".join([*(f"x{g}" for g in groups[:-1]), groups[-1]])


def parse(path: str) -> Tile | None:
    """The tile a path names, or None unless it is a canonical tile path."""
    match = _TILE.fullmatch(path)
    if match is None:
        return None
    where, digits, width = match.groups()
    if width is not None and (width != str(int(width)) or not 1 <= int(width) < WIDTH):
        return None
    level = None if where == "entries" else int(where)
    if level is not None and (where != str(level) or level > MAX_LEVEL):
        return None
    index = int(digits.replace("x", "").replace("/", ""))
    tile = Tile(level, index, int(width) if width is not None else WIDTH)
    return tile if tile.path == path else None  # one spelling a tile: no leading groups


def tiles_for(size: int) -> Iterator[Tile]:
    """Every hash tile a tree of ``size`` leaves has (full ones, then the partial one of
    each level), from level 0 up."""
    level = 0
    count = size
    while count > 0 and level <= MAX_LEVEL:
        full, rest = divmod(count, WIDTH)
        for index in range(full):
            yield Tile(level, index)
        if rest:
            yield Tile(level, full, rest)
        count >>= HEIGHT
        level += 1


def covering(tile: Tile, size: int) -> bool:
    """Whether a tree of ``size`` leaves has this tile (a partial one only while it is the
    rightmost of its level: a bigger tree has a wider one)."""
    level = 0 if tile.level is None else tile.level
    count = size >> (HEIGHT * level)
    full = count // WIDTH
    if tile.width == WIDTH:
        return tile.index < full
    return tile.index == full and tile.width == count % WIDTH


def tile_hashes(tile: Tile, leaves: Sequence[bytes]) -> list[bytes]:
    """The hashes a hash tile holds, from the tree's leaf hashes (its level's nodes are
    the roots of complete subtrees of 2^(8·L) leaves)."""
    if tile.level is None:
        raise ValueError("an entry bundle holds entries, not hashes")
    span = 1 << (HEIGHT * tile.level)
    first = tile.index * WIDTH
    return [root(leaves[(first + i) * span : (first + i + 1) * span]) for i in range(tile.width)]


def bundle(entries: Sequence[bytes]) -> bytes:
    """An entry bundle: each entry prefixed by its length, a big-endian uint16."""
    out = bytearray()
    for entry in entries:
        if len(entry) > MAX_ENTRY:
            raise ValueError(f"an entry is at most {MAX_ENTRY} bytes, not {len(entry)}")
        out += len(entry).to_bytes(2, "big") + entry
    return bytes(out)


def unbundle(data: bytes) -> list[bytes]:
    """The entries of a bundle (``ValueError`` if it is cut short)."""
    entries, at = [], 0
    while at < len(data):
        if at + 2 > len(data):
            raise ValueError("an entry bundle ends inside a length")
        length = int.from_bytes(data[at : at + 2], "big")
        if at + 2 + length > len(data):
            raise ValueError("an entry bundle ends inside an entry")
        entries.append(data[at + 2 : at + 2 + length])
        at += 2 + length
    return entries
