"""The log's tree kept in tiles (issue 28): grown in batches of any sizes, its roots and
proofs are those of RFC 9162 over every leaf in memory (``merkle``), across tile and
level boundaries; its tiles are C2SP's (``tiles.tile_hashes``)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.transparency import merkle
from service.transparency.merkle import ProofError, verify_consistency, verify_inclusion
from service.transparency.tiled_tree import TiledTree
from service.transparency.tiles import Tile, tile_hashes, tiles_for


def leaves(n: int, start: int = 0) -> list[bytes]:
    return [merkle.leaf_hash(f"entry {i}".encode()) for i in range(start, start + n)]


def grown(batches: list[int]) -> tuple[TiledTree, dict[tuple[int, int], bytes], list[bytes]]:
    """A tree grown batch by batch, the tiles stored after each, and all its leaves."""
    stored: dict[tuple[int, int], bytes] = {}
    all_leaves: list[bytes] = []
    size = 0
    for count in batches:
        tree = TiledTree(lambda level, index: stored.get((level, index), b""), size)
        new = leaves(count, size)
        stored.update(tree.append(new))
        all_leaves += new
        size += count
    return TiledTree(lambda level, index: stored.get((level, index), b""), size), stored, all_leaves


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 700), min_size=1, max_size=6))
def test_a_tree_grown_in_batches_has_rfc_9162_roots_and_proofs(batches):
    tree, _, every = grown(batches)
    assert tree.root() == merkle.root(every)
    n = len(every)
    for index in {0, n // 2, n - 1, 255 % n, 256 % n}:
        proof = tree.inclusion(index)
        assert proof == merkle.inclusion_proof(index, every)
        verify_inclusion(index, n, every[index], proof, tree.root())
    for old in {1, n // 3, 256 if n > 256 else n, n - 1, n}:
        if 0 < old <= n:
            proof = tree.consistency(old)
            assert proof == merkle.consistency_proof(old, every)
            verify_consistency(old, n, merkle.root(every[:old]), tree.root(), proof)


def test_proofs_for_an_older_tree_come_from_a_newer_tiles():
    tree, _, every = grown([300, 400])
    assert tree.inclusion(5, 300) == merkle.inclusion_proof(5, every[:300])
    assert tree.consistency(100, 300) == merkle.consistency_proof(100, every[:300])
    with pytest.raises(ProofError):
        tree.inclusion(300, 300)
    with pytest.raises(ProofError):
        tree.consistency(10, 701)


def test_the_stored_tiles_are_the_c2sp_tiles_across_two_levels():
    # 65,536 + 300 leaves: level 0 and 1 full tiles, a level 2 hash, partial tiles
    tree, stored, every = grown([65_000, 836])
    size = len(every)
    assert tree.root() == merkle.root(every)
    for tile in tiles_for(size):
        assert tile.level is not None
        expected = b"".join(tile_hashes(tile, every))
        assert stored[(tile.level, tile.index)][: tile.width * 32] == expected, tile.path
    assert (2, 0) in stored and len(stored[(2, 0)]) == 32
    assert Tile(1, 0).path == "tile/1/000"
    index = 65_535  # the last leaf of the first level-2 subtree
    verify_inclusion(index, size, every[index], tree.inclusion(index), tree.root())


def test_a_missing_or_short_tile_is_an_error_not_a_wrong_root():
    tree, stored, _ = grown([10])
    stored[(0, 0)] = stored[(0, 0)][:64]
    with pytest.raises(ProofError):
        TiledTree(lambda level, index: stored.get((level, index), b""), 10).root()
    with pytest.raises(ValueError):
        tree.append([hashlib.sha256(b"x").digest()[:31]])


def test_a_planned_read_and_kept_subtrees_give_the_same_proofs():
    from service.runtime.cache import Bounded
    from service.transparency.tiled_tree import planned

    _, stored, every = grown([70_000])
    nodes = Bounded(1000)
    n = len(every)

    def work(t):
        return t.inclusion(n - 3), t.range_hash(0, n - 2), t.consistency(n - 2)

    for _ in range(2):  # the second time from kept subtrees
        keys = planned(n, work, nodes)
        read: list[tuple[int, int]] = []

        def unplanned(level, index, read=read):
            read.append((level, index))
            return b""

        fresh = TiledTree(unplanned, n, nodes)
        fresh.preload({k: stored[k] for k in keys if k in stored})
        path, root_at, since = work(fresh)
        assert read == []  # every tile it needed was planned
        assert path == merkle.inclusion_proof(n - 3, every)
        assert root_at == merkle.root(every[: n - 2])
        assert since == merkle.consistency_proof(n - 2, every)
