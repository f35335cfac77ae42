"""Hex geometry exactly as shared/tiles.md describes it (R11)."""

from domain.hexgrid import (
    entry_edge,
    neighbour,
    opposite,
    rotation_facing_back,
    world_direction,
)
from domain.tiles import OCEAN_TILES


def test_neighbours_follow_the_axial_steps_S_SW_NW_N_NE_SE():
    assert [neighbour((0, 0), d) for d in range(6)] == [
        (0, 1),
        (-1, 1),
        (-1, 0),
        (0, -1),
        (1, -1),
        (1, 0),
    ]


def test_walking_a_direction_and_its_opposite_returns_home():
    for d in range(6):
        assert neighbour(neighbour((2, -3), d), opposite(d)) == (2, -3)


def test_local_edge_k_of_a_tile_with_rotation_r_faces_k_plus_r():
    assert world_direction(0, 0) == 0
    assert world_direction(4, 3) == 1
    assert world_direction(5, 5) == 4


def test_a_new_tile_shows_its_red_mark_to_the_arriving_fleet():
    for d in range(6):
        r = rotation_facing_back(d)
        assert entry_edge(d, r) == 0
        assert world_direction(0, r) == opposite(d)


def test_entry_edge_on_an_existing_tile_is_d_plus_3_minus_its_rotation():
    assert entry_edge(0, 0) == 3
    assert entry_edge(2, 4) == 1


def test_a_path_is_followed_to_its_other_edge_and_rotated_into_the_world():
    ocean = OCEAN_TILES["ocean5"]  # 0-3:4 · 1-5:3 · 2-4:0
    assert ocean.exit_edge(2) == (4, 0)
    assert ocean.exit_edge(5) == (1, 3)
    # travelling N (3) into ocean5 with rotation 1: enters local edge 5, leaves local 1 = world 2
    e = entry_edge(3, 1)
    exit_edge, danger = ocean.exit_edge(e)
    assert (e, exit_edge, danger, world_direction(exit_edge, 1)) == (5, 1, 3, 2)
