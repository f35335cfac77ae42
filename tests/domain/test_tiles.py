"""The tile data passes every check listed in shared/tiles.md (R2)."""

from collections import Counter

from domain.tiles import ISLANDS, OCEANS, PILE, TILES, TONGA, island


def test_there_are_32_tiles_tonga_15_islands_and_16_oceans_with_31_in_the_pile():
    assert len(TILES) == 32
    assert len(ISLANDS) == 16 and ISLANDS[0].id == TONGA
    assert len(OCEANS) == 16
    assert len(PILE) == 31 and TONGA not in PILE


def test_island_values_are_three_2s_four_3s_five_4s_three_5s_summing_to_53():
    values = Counter(i.value for i in ISLANDS if i.id != TONGA)
    assert values == {2: 3, 3: 4, 4: 5, 5: 3}
    assert sum(i.value for i in ISLANDS) == 53
    assert island(TONGA).value == 0


def test_every_ocean_tile_pairs_all_six_edges_exactly_once():
    for ocean in OCEANS:
        edges = sorted(e for p in ocean.paths for e in (p.a, p.b))
        assert edges == [0, 1, 2, 3, 4, 5], ocean.id


def test_the_48_paths_split_12_unnumbered_and_12_each_of_2_3_and_4():
    dangers = Counter(p.danger for o in OCEANS for p in o.paths)
    assert dangers == {0: 12, 2: 12, 3: 12, 4: 12}


def test_capacities_are_2_to_5_and_the_15_islands_have_134_slots_on_41_beaches():
    others = [i for i in ISLANDS if i.id != TONGA]
    beaches = [b for i in others for b in i.beaches]
    assert len(beaches) == 41
    assert sum(b.capacity for b in beaches) == 134
    assert all(2 <= b.capacity <= 5 for i in ISLANDS for b in i.beaches)


def test_no_jetty_on_edge_0_except_tonga_and_no_edge_carries_two_jetties():
    for i in ISLANDS:
        jetties = [j for b in i.beaches for j in b.jetties]
        assert len(jetties) == len(set(jetties)), i.id
        if i.id != TONGA:
            assert 0 not in jetties, i.id


def test_tonga_has_six_beaches_of_three_one_jetty_each():
    assert [(b.capacity, b.jetties) for b in island(TONGA).beaches] == [(3, (e,)) for e in range(6)]
