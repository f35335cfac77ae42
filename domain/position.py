"""A compact, canonical JSON form of a position, for tests and bug reports.

``dump(state)`` gives a dict; ``text(state)`` its canonical JSON (sorted keys,
no spaces), identical for equal states. ``load(data)`` builds the state back,
and accepts a short hand-written form for scenarios: only ``tiles`` is needed,
everything else has a sensible default::

    {"players": ["blue", "red"], "active": "blue",
     "tiles": [["0,0", "tonga", 0], ["0,1", "tahiti", 3]],
     "boats": {"tonga": "b|r||||", "tahiti": "bb||"},
     "kings": {"samoa": "red"}}

Beaches are written as colour letters separated by ``|`` (b blue, r red,
g green, y yellow, o orange, p purple). The undrawn order is never part of a
position: it is secret (design.md, Fair draws).
"""

from __future__ import annotations

import json
from typing import Any

from domain.commands import GameOptions
from domain.events import GameEnded
from domain.hexgrid import Cell, cell_key, parse_cell
from domain.offers import EndOffer, TakebackRequest
from domain.revisions import ENGINE_VERSION
from domain.serialization import decode_event, encode, to_data
from domain.state import (
    BOATS_PER_COLOUR,
    COLOURS,
    ChooseEmigration,
    ColonistPlacement,
    EndReason,
    GameState,
    IslandState,
    Landing,
    Pending,
    Phase,
    PlacedTile,
    Player,
    SetupPlacement,
    TilePlacement,
    TurnStart,
    Voyage,
    colour_order,
)
from domain.tiles import TONGA, is_island, island

FORMAT = "tongiaki-position-1"
# what a kept fold (snapshot, keyframe) was made by: any other is not used
FOLD_VERSION = f"engine-{ENGINE_VERSION}/{FORMAT}"
LETTER = {c: c[0] for c in COLOURS}
COLOUR = {c[0]: c for c in COLOURS}
PENDING_KINDS: dict[str, type] = {
    "setup_placement": SetupPlacement,
    "turn_start": TurnStart,
    "choose_emigration": ChooseEmigration,
    "landing": Landing,
    "tile_placement": TilePlacement,
    "colonist_placement": ColonistPlacement,
}


def beaches_text(beaches: tuple[tuple[str, ...], ...]) -> str:
    """``"bb|r|"`` for ((blue, blue), (red,), ())."""
    return "|".join("".join(LETTER[c] for c in b) for b in beaches)


def parse_beaches(text: str) -> tuple[tuple[str, ...], ...]:
    """Inverse of ``beaches_text``."""
    return tuple(tuple(sorted(COLOUR[ch] for ch in part)) for part in text.split("|"))


def _pending(p: Pending | None) -> dict[str, Any] | None:
    if p is None:
        return None
    data: dict[str, Any] = to_data(p)
    if isinstance(p, TilePlacement) and p.cell is not None:
        data["cell"] = cell_key(p.cell)
    return data


def dump(state: GameState) -> dict[str, Any]:
    """The position as a JSON-safe dict."""
    v = state.voyage
    return {
        "format": FORMAT,
        "game_id": state.game_id,
        "options": to_data(state.options),
        "deck": {"commitment": state.deck_commitment, "algorithm": state.deck_algorithm},
        "phase": state.phase.value,
        "players": [to_data(p) for p in state.players],
        "order": list(state.order),
        "active": state.order[state.active] if state.order else None,
        "turn": state.turn,
        "tiles": [[cell_key(c), t.tile, t.rotation] for c, t in state.tiles.items()],
        "boats": {k: beaches_text(i.beaches) for k, i in state.islands.items()},
        "kings": {k: i.king for k, i in state.islands.items() if i.king},
        "removed": list(state.removed),
        "supply": dict(sorted(state.supply.items())),
        "out": dict(sorted(state.out.items())),
        "drawn": list(state.drawn),
        "pile": {"islands": state.islands_left(), "oceans": state.oceans_left()},
        "end_reason": state.end_reason.value if state.end_reason else None,
        "pending": _pending(state.pending),
        "voyage": None
        if v is None
        else {
            "origin": v.origin,
            "fleet": list(v.fleet),
            "cell": cell_key(v.cell),
            "direction": v.direction,
            "route": [cell_key(c) for c in v.route],
            "tiles_drawn": v.tiles_drawn,
        },
        "departures": sorted(
            (
                [i, b, j, {k: beaches_text(bs) for k, bs in key}]
                for i, b, j, key in state.departures
            ),
            key=lambda d: json.dumps(d, sort_keys=True),
        ),
        "result": encode(state.result) if state.result is not None else None,
        "seed_hex": state.seed_hex,
        # written only when set: positions of games without disputes keep their text
        **({"paused": state.paused} if state.paused is not None else {}),
        **({"amendment": encode(state.amendment)} if state.amendment is not None else {}),
        **({"deals": list(state.deals), "dealt": state.dealt} if state.deals else {}),
        **({"redeal_hex": list(state.redeal_hex)} if state.redeal_hex else {}),
        # seats' standing (docs/clocks.md), written only when set
        **(
            {"timeouts": {str(k): v for k, v in sorted(state.timeouts.items())}}
            if state.timeouts
            else {}
        ),
        **({"absent": sorted(state.absent)} if state.absent else {}),
        **({"resigned": sorted(state.resigned)} if state.resigned else {}),
        # open offers at the table (docs/table.md), written only when open
        **({"takeback": _offer(state.takeback)} if state.takeback is not None else {}),
        **({"end_offer": _offer(state.end_offer)} if state.end_offer is not None else {}),
    }


def _offer(offer: TakebackRequest | EndOffer) -> dict[str, Any]:
    data = {k: getattr(offer, k) for k in offer.__slots__}
    data["accepted"] = sorted(offer.accepted)
    return data


def _load_takeback(data: dict[str, Any] | None) -> TakebackRequest | None:
    if data is None:
        return None
    return TakebackRequest(
        int(data["seat"]),
        str(data["player_id"]),
        int(data["to_version"]),
        str(data["position"]),
        frozenset(int(x) for x in data.get("accepted", ())),
    )


def _load_end_offer(data: dict[str, Any] | None) -> EndOffer | None:
    if data is None:
        return None
    accepted = frozenset(int(x) for x in data.get("accepted", ()))
    return EndOffer(int(data["seat"]), str(data["player_id"]), accepted)


def text(state: GameState) -> str:
    """Canonical JSON of the position (equal states give equal text)."""
    return json.dumps(dump(state), sort_keys=True, separators=(",", ":"))


def _players(data: list[Any]) -> tuple[Player, ...]:
    players = []
    for seat, p in enumerate(data, start=1):
        if isinstance(p, str):
            players.append(Player(f"p{seat}", seat, (p,), ""))
        else:
            colours, bot = tuple(p["colours"]), p.get("bot", "")
            players.append(Player(p["player_id"], p["seat"], colours, p["entropy"], bot))
    return tuple(players)


def _load_pending(data: dict[str, Any] | None) -> Pending | None:
    if data is None:
        return None
    kind = PENDING_KINDS[data["kind"]]
    values = {k: v for k, v in data.items() if k != "kind"}
    if "fleet" in values:
        values["fleet"] = tuple(values["fleet"])
    if kind is TilePlacement and values.get("cell") is not None:
        values["cell"] = parse_cell(values["cell"])
    result: Pending = kind(**values)
    return result


def load(data: dict[str, Any]) -> GameState:
    """Build a state from ``dump`` output or a short scenario (see module doc)."""
    players = _players(data.get("players", []))
    # R3, R5: seat order; with two colours each, A1 B1 A2 B2
    order = tuple(data["order"] if "order" in data else colour_order(players))
    tiles, islands = _board(data)
    colours = [c for p in players for c in p.colours]
    active_colour = data.get("active") or (order[0] if order else None)
    phase = Phase(data.get("phase", "playing"))
    end_reason = data.get("end_reason")
    return GameState(
        game_id=data.get("game_id", "scenario"),
        options=GameOptions(**data.get("options", {})),
        deck_commitment=data.get("deck", {}).get("commitment", ""),
        deck_algorithm=data.get("deck", {}).get("algorithm", "fixed"),
        phase=phase,
        players=players,
        order=order,
        active=order.index(active_colour) if active_colour else 0,
        turn=data.get("turn", 1),
        tiles=tiles,
        islands=islands,
        removed=tuple(data.get("removed", [])),
        supply=dict(_supply(data, colours, islands)),
        out={c: data.get("out", {}).get(c, 0) for c in colours},
        drawn=tuple(_drawn(data)),
        end_reason=EndReason(end_reason) if end_reason else None,
        pending=_starting_pending(data, phase, active_colour),
        voyage=_voyage(data.get("voyage")),
        departures=frozenset(
            (i, b, j, tuple((k, parse_beaches(key[k])) for k in islands if k in key))
            for i, b, j, key in data.get("departures", [])
        ),
        result=_result(data.get("result")),
        seed_hex=data.get("seed_hex"),
        paused=data.get("paused"),
        amendment=decode_event(data["amendment"]) if data.get("amendment") else None,
        deals=tuple(data.get("deals", ())),
        dealt=data.get("dealt", 0),
        redeal_hex=tuple(data.get("redeal_hex", ())),
        timeouts={int(k): v for k, v in data.get("timeouts", {}).items()},
        absent=frozenset(data.get("absent", ())),
        resigned=frozenset(data.get("resigned", ())),
        takeback=_load_takeback(data.get("takeback")),
        end_offer=_load_end_offer(data.get("end_offer")),
    )


def _board(data: dict[str, Any]) -> tuple[dict[Cell, PlacedTile], dict[str, IslandState]]:
    """The placed tiles, and the islands among them with their boats and kings."""
    tiles = {}
    islands = {}
    for key, tile_id, rotation in data["tiles"]:
        cell = parse_cell(key)
        tiles[cell] = PlacedTile(tile_id, rotation)
        if is_island(tile_id):
            n = len(island(tile_id).beaches)
            text_boats = data.get("boats", {}).get(tile_id, "|" * (n - 1))
            king = data.get("kings", {}).get(tile_id)
            islands[tile_id] = IslandState(tile_id, cell, rotation, parse_beaches(text_boats), king)
    return tiles, islands


def _supply(
    data: dict[str, Any], colours: list[str], islands: dict[str, IslandState]
) -> dict[str, int]:
    """The boats in each colour's supply: as given, else what the board and ``out``
    leave of ``BOATS_PER_COLOUR``."""
    given: dict[str, int] | None = data.get("supply")
    return given or {
        c: BOATS_PER_COLOUR
        - sum(i.count(c) + (i.king == c) for i in islands.values())
        - data.get("out", {}).get(c, 0)
        for c in colours
    }


def _drawn(data: dict[str, Any]) -> list[str]:
    """The tiles drawn: as given, else every placed tile but Tonga and the removed ones."""
    drawn: list[str] | None = data.get("drawn")
    if drawn is None:
        drawn = [t for t in (x[1] for x in data["tiles"]) if t != TONGA] + list(
            data.get("removed", [])
        )
    return drawn


def _starting_pending(
    data: dict[str, Any], phase: Phase, active_colour: str | None
) -> Pending | None:
    """The decision pending: as given, else a turn's start for the colour to play."""
    if "pending" in data:
        return _load_pending(data["pending"])
    if phase is Phase.PLAYING and active_colour:
        return TurnStart(active_colour)
    return None


def _voyage(data: dict[str, Any] | None) -> Voyage | None:
    if data is None:
        return None
    return Voyage(
        data["origin"],
        tuple(data["fleet"]),
        parse_cell(data["cell"]),
        data["direction"],
        tuple(parse_cell(c) for c in data["route"]),
        data["tiles_drawn"],
    )


def _result(data: dict[str, Any] | None) -> GameEnded | None:
    if data is None:
        return None
    event = decode_event(data)
    assert isinstance(event, GameEnded)
    return event
