"""One line of plain English per event, for replays and audits.

``describe(event, before)`` reads the state *before* the event only for names
(whose fleet, which island); the event itself says what happened and which
rule applied, so the line is as trustworthy as the event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from domain import events as ev
from domain.state import GameState
from domain.tiles import display_name


def colour(name: str | None) -> str:
    """``"blue"`` → ``"Blue"``."""
    return (name or "nobody").capitalize()


def _boats(n: int) -> str:
    return f"{n} boat" if n == 1 else f"{n} boats"


def _fleet(boats: Iterable[str]) -> str:
    """``("blue", "blue", "red")`` → ``"2 Blue, 1 Red"``."""
    counts = Counter(boats)
    if not counts:
        return "no boats"
    return ", ".join(f"{n} {colour(c)}" for c, n in sorted(counts.items()))


def _beaches(beaches: tuple[int, ...]) -> str:
    listed = ", ".join(str(b) for b in beaches)
    return f"beach {listed}" if len(beaches) == 1 else f"beaches {listed}"


def _player_name(state: GameState, player_id: str) -> str:
    for p in state.players:
        if p.player_id == player_id:
            return "/".join(colour(c) for c in p.colours)
    return player_id


def describe(event: ev.Event, before: GameState) -> str:
    """A one-line human-readable description of ``event``."""
    e = event
    if isinstance(e, ev.GameCreated):
        return f"Game created for up to {e.options.max_players} players"
    if isinstance(e, ev.PlayerJoined):
        return f"{'/'.join(colour(c) for c in e.colours)} takes seat {e.seat}"
    if isinstance(e, ev.GameStarted):
        return f"Game starts; turn order {', '.join(colour(c) for c in e.order)}"
    if isinstance(e, ev.StartingBoatPlaced):
        return f"{colour(e.colour)} places a starting boat on Tonga beach {e.beach}"
    if isinstance(e, ev.BoatsAdded):
        where = display_name(e.island)
        moved = f" (from {display_name(e.taken_from[0])})" if e.taken_from else ""
        return f"{colour(e.colour)} adds {_boats(len(e.beaches))} to {where}{moved}"
    if isinstance(e, ev.BoatsPlaced):
        where = f"{display_name(e.island)} {_beaches(e.beaches)}"
        return f"{colour(e.colour)} places {_boats(len(e.beaches))} on {where}"
    if isinstance(e, ev.EmigrationStarted):
        return (
            f"{colour(e.colour)} emigrates from {display_name(e.island)} beach {e.beach} "
            f"with {_fleet(e.fleet)}"
        )
    if isinstance(e, ev.TileDrawn):
        left = f"{e.islands_left} islands and {e.oceans_left} oceans left"
        return f"Tile {display_name(e.tile)} drawn ({left})"
    if isinstance(e, ev.TilePlaced):
        return f"{display_name(e.tile)} placed at {list(e.cell)}, rotation {e.rotation}"
    if isinstance(e, ev.FleetSailed):
        return f"Fleet of {e.colours} colours passes a {e.danger} path on {display_name(e.tile)}"
    if isinstance(e, ev.ExpeditionFailed):
        return (
            f"Fleet of {e.colours} colours fails a {e.danger} path on "
            f"{display_name(e.tile)} — boats return"
        )
    if isinstance(e, ev.FleetReachedIsland):
        return f"Fleet ({_fleet(e.fleet)}) reaches {display_name(e.island)}"
    if isinstance(e, ev.FleetTurnedBack):
        return (
            f"Fleet turns back at royal island {display_name(e.royal_island)} "
            f"to {display_name(e.to_island)}"
        )
    if isinstance(e, ev.BoatsLanded):
        landed = [b for beach in e.beaches for b in beach]
        home = f"; {_fleet(e.returned)} go home" if e.returned else ""
        return f"{_fleet(landed)} land on {display_name(e.island)}{home}"
    if isinstance(e, ev.RoyalIslandFounded):
        return f"{colour(e.colour)} founds a royal island on {display_name(e.island)}"
    if isinstance(e, ev.NewColonyFounded):
        return f"{colour(e.colour)} starts a new colonisation"
    if isinstance(e, ev.ChainDeclaredEndless):
        return f"Endless chain declared over {', '.join(display_name(i) for i in e.islands)}"
    if isinstance(e, ev.IslandRemoved):
        home = f"; {_fleet(e.returned)} go home" if e.returned else ""
        return f"{display_name(e.island)} is removed from the game{home}"
    if isinstance(e, ev.FleetLostAtSea):
        return f"Fleet ({_fleet(e.fleet)}) is lost at sea"
    if isinstance(e, ev.TurnEnded):
        following = f"; {colour(e.next_colour)} to play" if e.next_colour else ""
        return f"{colour(e.colour)} ends turn {e.turn}{following}"
    if isinstance(e, ev.GameEnded):
        winners = " and ".join(_player_name(before, w) for w in e.winners)
        how = "" if e.tie_break == "none" else f" (tie broken by {e.tie_break})"
        return f"Game over ({e.reason}): {winners} win{'' if len(e.winners) > 1 else 's'}{how}"
    if isinstance(e, ev.DeckRevealed):
        return "The deck seed is revealed: every draw can now be verified"
    return type(e).__name__
