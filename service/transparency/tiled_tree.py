"""RFC 9162's tree read from (and grown into) C2SP tiles: roots, inclusion and consistency
proofs of a log of any size from the few tiles they touch.

A tile at level L holds the hashes of complete subtrees of 2^(8·L) leaves
(``service.transparency.tiles``), so any complete subtree of height h is the root of at
most 128 hashes of level ⌊h/8⌋, and any range of leaves RFC 9162 names is a few complete
subtrees. Growing the tree writes leaf hashes into level 0's rightmost tile, and each
tile that fills up sends its root to the level above. The same answers as ``merkle``'s,
which holds every leaf in memory (the tests compare them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from service.transparency.merkle import EMPTY, HASH_SIZE, ProofError, node_hash, root, split
from service.transparency.tiles import HEIGHT, WIDTH

TileSource = Callable[[int, int], bytes]  # (level, index) → the tile's hashes as stored


class NodeCache(Protocol):
    """Where complete subtrees' roots are kept ((height, index) → root)."""

    def get(self, key: tuple[int, int]) -> bytes | None: ...

    def put(self, key: tuple[int, int], value: bytes) -> None: ...


class TiledTree:
    """A tree of ``size`` leaves whose hashes are in the tiles ``read`` returns."""

    def __init__(self, read: TileSource, size: int, nodes: NodeCache | None = None) -> None:
        if size < 0:
            raise ValueError(f"a tree has no negative size: {size}")
        self._read = read
        self.size = size
        self._tiles: dict[tuple[int, int], bytes] = {}
        self._nodes = nodes  # complete subtrees' roots never change: kept across trees

    def preload(self, tiles: dict[tuple[int, int], bytes]) -> None:
        """Tiles read beforehand (``planned``): read from here, not one by one."""
        self._tiles.update(tiles)

    def _tile(self, level: int, index: int) -> bytes:
        key = (level, index)
        found = self._tiles.get(key)
        if found is None:
            found = self._tiles[key] = self._read(level, index)
        return found

    def _hash(self, level: int, index: int) -> bytes:
        """The ``index``-th hash of tile level ``level``."""
        tile = self._tile(level, index // WIDTH)
        at = (index % WIDTH) * HASH_SIZE
        if len(tile) < at + HASH_SIZE:
            raise ProofError(f"hash {index} of level {level} is not stored")
        return tile[at : at + HASH_SIZE]

    def node(self, height: int, index: int) -> bytes:
        """The root of the complete subtree of 2^height leaves, the ``index``-th of them."""
        kept = self._nodes.get((height, index)) if self._nodes is not None else None
        if kept is not None:
            return kept
        level, below = divmod(height, HEIGHT)
        first = index << below
        found = root([self._hash(level, first + i) for i in range(1 << below)])
        if self._nodes is not None and below:
            self._nodes.put((height, index), found)
        return found

    def range_hash(self, lo: int, hi: int) -> bytes:
        """MTH of leaves ``lo`` … ``hi - 1`` (``lo`` a multiple of the largest power of two
        that fits the range, as every range of RFC 9162's recursion is)."""
        n = hi - lo
        if n <= 0:
            return EMPTY
        if n & (n - 1) == 0:
            height = n.bit_length() - 1
            return self.node(height, lo >> height)
        k = split(n)
        return node_hash(self.range_hash(lo, lo + k), self.range_hash(lo + k, hi))

    def root(self) -> bytes:
        """The tree's root hash."""
        return self.range_hash(0, self.size)

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        """PATH(index, D[size]) (size: this tree's, or an older one's)."""
        n = self.size if size is None else size
        if not 0 <= index < n <= self.size:
            raise ProofError(f"leaf {index} is not in a tree of {n}")
        return self._path(index, 0, n)

    def _path(self, m: int, lo: int, hi: int) -> list[bytes]:
        if hi - lo == 1:
            return []
        k = split(hi - lo)
        if m < k:
            return [*self._path(m, lo, lo + k), self.range_hash(lo + k, hi)]
        return [*self._path(m - k, lo + k, hi), self.range_hash(lo, lo + k)]

    def consistency(self, old: int, size: int | None = None) -> list[bytes]:
        """PROOF(old, D[size]): the tree of ``old`` leaves is a prefix of the tree of ``size``."""
        n = self.size if size is None else size
        if not 0 <= old <= n <= self.size:
            raise ProofError(f"a tree of {old} cannot precede a tree of {n}")
        if old in (0, n):
            return []
        return self._subproof(old, 0, n, True)

    def _subproof(self, m: int, lo: int, hi: int, whole: bool) -> list[bytes]:
        if lo + m == hi:
            return [] if whole else [self.range_hash(lo, hi)]
        k = split(hi - lo)
        if m <= k:
            return [*self._subproof(m, lo, lo + k, whole), self.range_hash(lo + k, hi)]
        return [*self._subproof(m - k, lo + k, hi, False), self.range_hash(lo, lo + k)]

    def append(self, leaves: Sequence[bytes]) -> dict[tuple[int, int], bytes]:
        """Grow the tree by these leaf hashes; every tile that changed, as it is now."""
        changed: dict[tuple[int, int], bytearray] = {}

        def put(level: int, index: int, digest: bytes) -> None:
            key = (level, index // WIDTH)
            tile = changed.get(key)
            if tile is None:
                stored = self._tile(*key)
                if len(stored) < (index % WIDTH) * HASH_SIZE:
                    raise ProofError(f"tile {key} ends before hash {index} of level {level}")
                tile = changed[key] = bytearray(stored[: (index % WIDTH) * HASH_SIZE])
            tile += digest
            if index % WIDTH == WIDTH - 1:  # full: its root is a hash of the level above
                hashes = [bytes(tile[i : i + HASH_SIZE]) for i in range(0, len(tile), HASH_SIZE)]
                put(level + 1, index // WIDTH, root(hashes))

        for leaf in leaves:
            if len(leaf) != HASH_SIZE:
                raise ValueError("a leaf hash is 32 bytes")
            put(0, self.size, leaf)
            self.size += 1
        grown = {key: bytes(tile) for key, tile in changed.items()}
        self._tiles.update(grown)
        return grown


class _Plan(TiledTree):
    """A dry run: the tiles each node would read, recorded; no hash computed."""

    def __init__(self, size: int, nodes: NodeCache | None) -> None:
        super().__init__(lambda level, index: b"", size, nodes)
        self.seen: set[tuple[int, int]] = set()

    def node(self, height: int, index: int) -> bytes:
        if self._nodes is None or self._nodes.get((height, index)) is None:
            level, below = divmod(height, HEIGHT)
            first, last = index << below, ((index + 1) << below) - 1
            self.seen.update((level, t) for t in range(first // WIDTH, last // WIDTH + 1))
        return bytes(HASH_SIZE)


def planned(
    size: int, work: Callable[[TiledTree], object], nodes: NodeCache | None = None
) -> set[tuple[int, int]]:
    """The tiles ``work`` reads from a tree of ``size`` leaves (what it reads does not
    depend on the hashes: a dry run finds it all), so that they are read in one go."""
    plan = _Plan(size, nodes)
    work(plan)
    return plan.seen
