"""The 32 Tongiaki tiles as data (shared/tiles.md, R2).

Tile ids are lower-case slugs of the island names (``"rapa_nui"``) and
``"ocean1"`` … ``"ocean16"`` for the ocean tiles. Local edges are numbered as in
``hexgrid``: 0 = S (the red mark), 1 = SW, 2 = NW, 3 = N, 4 = NE, 5 = SE.
"""

from __future__ import annotations

from dataclasses import dataclass

TONGA = "tonga"


@dataclass(frozen=True, slots=True)
class Beach:
    """A beach: interchangeable slots and the local edges of its jetties."""

    capacity: int
    jetties: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class IslandTile:
    """An island tile: name, victory-point value and beaches."""

    id: str
    name: str
    value: int
    beaches: tuple[Beach, ...]

    @property
    def is_island(self) -> bool:
        """True: this is an island tile."""
        return True


@dataclass(frozen=True, slots=True)
class Path:
    """A foam path joining two local edges; danger 0 means unnumbered (R12)."""

    a: int
    b: int
    danger: int


@dataclass(frozen=True, slots=True)
class OceanTile:
    """An ocean tile: three foam paths pairing its six edges."""

    id: str
    number: int
    paths: tuple[Path, Path, Path]

    @property
    def is_island(self) -> bool:
        """False: this is an ocean tile."""
        return False

    def path_from(self, edge: int) -> Path:
        """The foam path that starts at local ``edge``."""
        for path in self.paths:
            if edge in (path.a, path.b):
                return path
        raise ValueError(f"no path at edge {edge} on {self.id}")  # impossible for valid data

    def exit_edge(self, edge: int) -> tuple[int, int]:
        """The other end of the path entered at ``edge``, and that path's danger."""
        path = self.path_from(edge)
        return (path.b if path.a == edge else path.a), path.danger


Tile = IslandTile | OceanTile


def _island(name: str, value: int, spec: str) -> IslandTile:
    beaches = []
    for part in spec.split("·"):
        capacity, jetties = part.strip().split("→")
        beaches.append(Beach(int(capacity), tuple(int(j) for j in jetties.split(","))))
    slug = name.lower().replace(" ", "_")
    return IslandTile(slug, name, value, tuple(beaches))


def _ocean(number: int, spec: str) -> OceanTile:
    paths = []
    for part in spec.split("·"):
        edges, danger = part.strip().split(":")
        a, b = edges.split("-")
        paths.append(Path(int(a), int(b), int(danger)))
    return OceanTile(f"ocean{number}", number, (paths[0], paths[1], paths[2]))


# The table of shared/tiles.md, transcribed verbatim.
ISLANDS: tuple[IslandTile, ...] = (
    _island("Tonga", 0, "3→0 · 3→1 · 3→2 · 3→3 · 3→4 · 3→5"),
    _island("Muroroa", 2, "2→1 · 2→2 · 3→4,5"),
    _island("Nauru", 2, "2→1,2 · 3→3 · 2→4,5"),
    _island("Tubuai", 2, "3→1,2 · 3→4,5"),
    _island("Rarotonga", 3, "3→1,2 · 4→3,4,5"),
    _island("Rapa Nui", 3, "5→1,2 · 3→3,4,5"),
    _island("Tokelau", 3, "4→1 · 3→2,3 · 2→4,5"),
    _island("Tuamotu", 3, "4→1,2,3 · 4→4,5"),
    _island("Hiva Oa", 4, "2→1,2 · 2→3 · 5→4,5"),
    _island("Mangareva", 4, "2→1,2 · 3→3,4 · 4→5"),
    _island("Oahu", 4, "3→1,2 · 5→3 · 3→4,5"),
    _island("Tahiti", 4, "2→1,2 · 3→3,4 · 4→5"),
    _island("Tuvalu", 4, "2→1,2 · 4→3 · 3→4,5"),
    _island("Fidschi", 5, "5→1 · 4→2,3 · 4→4,5"),
    _island("Hawaii", 5, "3→1,2 · 5→3 · 2→4,5"),
    _island("Samoa", 5, "3→1,2 · 4→3,4 · 5→5"),
)

OCEANS: tuple[OceanTile, ...] = (
    _ocean(1, "0-1:0 · 2-3:2 · 4-5:0"),
    _ocean(2, "0-1:2 · 2-3:0 · 4-5:2"),
    _ocean(3, "0-1:3 · 2-3:2 · 4-5:4"),
    _ocean(4, "0-1:3 · 2-3:0 · 4-5:2"),
    _ocean(5, "0-3:4 · 1-5:3 · 2-4:0"),
    _ocean(6, "0-3:3 · 1-5:3 · 2-4:3"),
    _ocean(7, "0-3:4 · 1-5:4 · 2-4:4"),
    _ocean(8, "0-3:3 · 1-5:2 · 2-4:0"),
    _ocean(9, "0-4:0 · 1-3:4 · 2-5:2"),
    _ocean(10, "0-4:2 · 1-3:3 · 2-5:4"),
    _ocean(11, "0-4:4 · 1-3:4 · 2-5:3"),
    _ocean(12, "0-4:3 · 1-3:3 · 2-5:4"),
    _ocean(13, "0-5:0 · 1-2:0 · 3-4:0"),
    _ocean(14, "0-5:2 · 1-2:2 · 3-4:2"),
    _ocean(15, "0-5:0 · 1-2:4 · 3-4:2"),
    _ocean(16, "0-5:0 · 1-2:3 · 3-4:4"),
)

ALL_TILES: tuple[Tile, ...] = (*ISLANDS, *OCEANS)
TILES: dict[str, Tile] = {t.id: t for t in ALL_TILES}
OCEAN_TILES: dict[str, OceanTile] = {t.id: t for t in OCEANS}

# The draw pile in its canonical order (R2): every tile but Tonga. The deck
# algorithm shuffles this exact sequence, so its order is part of the protocol.
PILE: tuple[str, ...] = tuple(t.id for t in ALL_TILES if t.id != TONGA)
PILE_ISLANDS = sum(1 for t in PILE if TILES[t].is_island)
PILE_OCEANS = len(PILE) - PILE_ISLANDS


def tile(tile_id: str) -> Tile:
    """The tile with this id (KeyError if unknown)."""
    return TILES[tile_id]


def island(tile_id: str) -> IslandTile:
    """The island tile with this id."""
    t = TILES[tile_id]
    assert isinstance(t, IslandTile)
    return t


def is_island(tile_id: str) -> bool:
    """Whether ``tile_id`` names an island tile."""
    return TILES[tile_id].is_island


def display_name(tile_id: str) -> str:
    """Human-readable name: the island's name, or ``Ocean 7``."""
    t = TILES[tile_id]
    return t.name if isinstance(t, IslandTile) else f"Ocean {t.number}"
