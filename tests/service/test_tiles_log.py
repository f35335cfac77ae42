"""C2SP tlog-tiles (issue 28): tile paths, which tiles a tree has, what a tile holds,
entry bundles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.transparency.merkle import leaf_hash, node_hash, root
from service.transparency.tiles import (
    WIDTH,
    Tile,
    bundle,
    covering,
    encode_index,
    parse,
    tile_hashes,
    tiles_for,
    unbundle,
)


def test_indexes_are_written_in_groups_of_three_digits():
    assert encode_index(0) == "000"
    assert encode_index(7) == "007"
    assert encode_index(1000) == "x001/000"
    assert encode_index(1234067) == "x001/x234/067"
    assert Tile(0, 1234067).path == "tile/0/x001/x234/067"
    assert Tile(2, 5, 17).path == "tile/2/005.p/17"
    assert Tile(None, 3, 255).path == "tile/entries/003.p/255"


@pytest.mark.parametrize(
    "path",
    [
        "tile/0/x000/001",  # a leading group of zeros
        "tile/00/001",  # a level spelt with a leading zero
        "tile/64/001",  # past the last level
        "tile/0/1",  # not three digits
        "tile/0/001.p/0",  # a partial tile of no hash
        "tile/0/001.p/256",  # a full tile is never partial
        "tile/0/001.p/007",  # a width with leading zeros
        "tile/0/x001",  # the last group prefixed
        "tile/data/001",
        "tile/0/001/",
        "tiles/0/001",
    ],
)
def test_only_the_canonical_spelling_names_a_tile(path):
    assert parse(path) is None


@given(st.integers(0, 2**40), st.integers(1, WIDTH), st.none() | st.integers(0, 63))
def test_a_tile_is_found_again_from_its_path(index, width, level):
    tile = Tile(level, index, width)
    assert parse(tile.path) == tile


def test_the_tiles_of_a_tree():
    assert list(tiles_for(0)) == []
    assert [t.path for t in tiles_for(1)] == ["tile/0/000.p/1"]
    assert [t.path for t in tiles_for(256)] == ["tile/0/000", "tile/1/000.p/1"]
    assert [t.path for t in tiles_for(257)] == ["tile/0/000", "tile/0/001.p/1", "tile/1/000.p/1"]
    big = list(tiles_for(65536))
    assert len(big) == 256 + 1 + 1 and big[-2].path == "tile/1/000"
    assert big[-1].path == "tile/2/000.p/1"
    assert covering(Tile(0, 0), 256) and not covering(Tile(0, 1), 256)
    assert covering(Tile(0, 1, 1), 257) and not covering(Tile(0, 1, 1), 258)
    assert covering(Tile(None, 0, 5), 5) and not covering(Tile(None, 0, 5), 300)


def test_a_tile_holds_the_roots_of_complete_subtrees_of_its_level():
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(3 * WIDTH + 5)]
    level0 = tile_hashes(Tile(0, 3, 5), leaves)
    assert level0 == leaves[3 * WIDTH :]
    level1 = tile_hashes(Tile(1, 0, 3), leaves)
    assert level1 == [root(leaves[i * WIDTH : (i + 1) * WIDTH]) for i in range(3)]
    # the tree's root from what the tiles hold: the three complete subtrees, then the rest
    rest = root(leaves[3 * WIDTH :])
    assert root(leaves) == node_hash(node_hash(level1[0], level1[1]), node_hash(level1[2], rest))


def test_entry_bundles():
    entries = [b"", b"tongiaki-head/v1\n", bytes(300)]
    data = bundle(entries)
    assert data[:2] == b"\x00\x00" and data[2:4] == b"\x00\x11"
    assert unbundle(data) == entries
    with pytest.raises(ValueError):
        unbundle(data[:-1])
    with pytest.raises(ValueError):
        unbundle(b"\x00")
    with pytest.raises(ValueError):
        bundle([bytes(0x10000)])
