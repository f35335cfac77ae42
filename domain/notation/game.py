"""A game as TGN and back (docs/notation.md): ``export`` writes the decisions of a
recorded game, ``load`` plays a TGN text through the rules and gives its events.

The tags carry what the decisions cannot: the game's id and options, the deck's
algorithm and commitment, each seat's player, colours and entropy, and, once the game
is over, the revealed seed and the result. Each decision's line names the tiles it
drew, so a game is replayed from its text alone with exactly the draws it had: the
deck a load plays with is those tiles in that order (the rest never drawn). So export
→ load gives the very events of the game, which ``export`` checks before it answers.

TGN holds the commands a game's players and its bot make: placements, expansions,
voyages, landings, tiles, royal islands, new colonies, the bot's moves for a seat,
resigning and taking a seat back. A game with other commands in its history
(takebacks, rewinds, an auditor's rulings, offers to end it) is refused by name:
its record is the journal (``tongiaki export``), not a line of play.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain import commands as cmd
from domain.deck import ALGORITHM, FIXED, Deck, commitment, complete_order, draw_order
from domain.errors import DomainError
from domain.events import DeckRevealed, Event, GameCreated, PlayerJoined, TileDrawn
from domain.notation.phrases import TILES, Unheard, hear, say
from domain.notation.text import DRAWS, Move, NotationError, Record, parse, write
from domain.play import play
from domain.scoring import current_scores
from domain.serialization import decode_command, encode
from domain.state import GameState, Phase
from domain.tiles import display_name

MOVES = (*cmd.PLAY_COMMANDS, cmd.ActForSeat, cmd.Resign, cmd.ReclaimSeat)
NO_SEED = bytes(32)  # what the deck's seed stands as while no [Seed] tag gives it


class Unwritable(ValueError):
    """A recorded game that TGN cannot hold (the message names what and where)."""


@dataclass(frozen=True)
class Loaded:
    """A TGN text played: its record, every event, and the state at its end."""

    record: Record
    events: tuple[Event, ...]
    state: GameState


def _tags(events: Sequence[Event], final: GameState) -> dict[str, str]:
    created = next(e for e in events if isinstance(e, GameCreated))
    tags = {
        "Game": created.game_id,
        "Options": _options(encode(cmd.CreateGame("", created.options, "", ""))["options"]),
        "Deck": f"{created.deck_algorithm} {created.deck_commitment}",
    }
    for e in events:
        if isinstance(e, PlayerJoined):
            tags[f"Seat{e.seat}"] = e.player_id
            tags[f"Colours{e.seat}"] = " ".join(e.colours)
            tags[f"Entropy{e.seat}"] = e.entropy
            if e.bot:
                tags[f"Bot{e.seat}"] = e.bot  # the bot of the seat (docs/bots.md, B1)
    revealed = next((e for e in events if isinstance(e, DeckRevealed)), None)
    if revealed is not None:
        tags["Seed"] = revealed.seed_hex
    if final.phase is Phase.ENDED:
        tags["Result"] = result_of(final)
    return tags


def _options(options: dict[str, object]) -> str:
    """``max_players=4 two_colours_each=false …``: the options that differ from none."""
    return " ".join(f"{k}={json.dumps(v)}" for k, v in sorted(options.items()))


def _read_options(text: str) -> dict[str, object]:
    options: dict[str, object] = {}
    for part in text.split():
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"an option reads name=value, not {part!r}")
        options[key] = json.loads(value)
    return options


def result_of(state: GameState) -> str:
    """``alice 17, bob 12``: every player's points in rank order (R22, R23)."""
    return ", ".join(f"{s.player_id} {s.points}" for s in current_scores(state))


def _setup(record: Record) -> tuple[list[cmd.Command], bytes | None]:
    """The commands the tags stand for (create, join each seat, start), and the seed."""
    tags = record.tags
    try:
        game_id, options = tags["Game"], _read_options(tags["Options"])
        algorithm, commitment = tags["Deck"].split(" ")
        create = decode_command(
            {"type": "CreateGame", "game_id": game_id, "options": options,
             "deck_commitment": commitment, "deck_algorithm": algorithm}
        )  # fmt: skip
        setup: list[cmd.Command] = [create]
        seats = sorted(int(k[4:]) for k in tags if k.startswith("Seat") and k[4:].isdigit())
        if seats != list(range(1, len(seats) + 1)) or len(seats) < 2:
            raise ValueError("seats are Seat1, Seat2, … (at least two)")
        for n in seats:
            colours = tuple(tags[f"Colours{n}"].split(" "))
            if f"Bot{n}" in tags:
                setup.append(cmd.JoinGame("", colours, bot=tags[f"Bot{n}"]))
            else:
                setup.append(cmd.JoinGame(tags[f"Seat{n}"], colours, tags.get(f"Entropy{n}", "")))
        setup.append(cmd.StartGame())
        seed = bytes.fromhex(tags["Seed"]) if "Seed" in tags else None
    except (KeyError, ValueError, DomainError) as exc:
        missing = f"the tag {exc}" if isinstance(exc, KeyError) else str(exc)
        raise NotationError(
            1,
            1,
            "a record's tags are Game, Options, Deck, and SeatN, ColoursN, EntropyN for each"
            f" seat: {missing} is missing or wrong",
        ) from exc
    return setup, seed


class _Table:
    """A game being played from its setup, the deck dealing the tiles given in order."""

    def __init__(
        self,
        setup: Sequence[cmd.Command],
        order: Sequence[str],
        seed: bytes | None,
        seed_line: int = 1,
    ) -> None:
        try:
            deck = Deck("tgn", complete_order(order))
        except ValueError as exc:
            raise NotationError(1, 1, f"the draws: {exc}") from exc
        self.decks: Callable[[GameState, bytes], Deck] = lambda _state, _seed: deck
        self.seed, self.seed_line = seed, seed_line
        self.state = GameState()
        self.events: list[Event] = []
        for command in setup:
            self.play(command, 1, 1)

    def play(self, command: cmd.Command, line: int, column: int) -> list[Event]:
        try:
            events, self.state = play(self.state, command, lambda: self.seed or NO_SEED, self.decks)
        except DomainError as exc:
            if self.seed is None and getattr(exc, "code", "") == "seed_mismatch":
                raise NotationError(
                    line, column, "the game ends here: the [Seed] tag must give its seed"
                ) from exc
            if getattr(exc, "code", "") == "seed_mismatch":
                raise NotationError(
                    self.seed_line, 1, f"the game ends at line {line}: {exc}"
                ) from exc
            raise NotationError(line, column, f"the rules refuse it: {exc}") from exc
        if self.seed is None and any(isinstance(e, DeckRevealed) for e in events):
            raise NotationError(
                line, column, "the game ends here: the [Seed] tag must give its seed"
            )
        self.events += events
        return events


def _drawn(events: Sequence[Event]) -> tuple[str, ...]:
    return tuple(display_name(e.tile) for e in events if isinstance(e, TileDrawn))


def export(commands: Sequence[cmd.Command], events: Sequence[Event]) -> str:
    """The TGN text of a game recorded as its accepted ``commands`` (setup included, in
    order) and its ``events``; ``Unwritable`` if TGN cannot hold it exactly."""
    return write(record_of(commands, events)[0])


def record_of(commands: Sequence[cmd.Command], events: Sequence[Event]) -> tuple[Record, list[int]]:
    """The game's record, and the version each of its decisions ends at (the first
    entry: where the setup ends, before decision 1)."""
    moves = [c for c in commands if not isinstance(c, cmd.RevealDeck)]
    starts = next((i for i, c in enumerate(moves) if isinstance(c, cmd.StartGame)), None)
    if starts is None or not events:
        raise Unwritable("the game has not started: there is no play to write")
    for i, c in enumerate(moves[starts + 1 :], start=1):
        if not isinstance(c, MOVES):
            raise Unwritable(
                f"TGN does not write {type(c).__name__} (decision {i}): export the journal"
            )
    order = tuple(e.tile for e in events if isinstance(e, TileDrawn))
    revealed = next((e for e in events if isinstance(e, DeckRevealed)), None)
    seed = bytes.fromhex(revealed.seed_hex) if revealed is not None else None
    table = _Table(moves[: starts + 1], order, seed)
    record = Record()
    ends = [len(table.events)]
    for number, c in enumerate(moves[starts + 1 :], start=1):
        words = say(table.state, c)
        record.moves.append(Move(number, words, _drawn(table.play(c, number, 1))))
        ends.append(len(table.events))
    if [encode(e) for e in table.events] != [encode(e) for e in events]:
        raise Unwritable(
            "its events differ from the ones its decisions give today: export the journal"
        )
    record.tags = _tags(events, table.state)
    return record, ends


def with_variation(
    record: Record,
    ends: Sequence[int],
    version: int,
    line: Sequence[tuple[GameState, cmd.Command, Sequence[Event]]],
    comment: str,
) -> Record:
    """``record`` with ``line`` (each move's state before it, the move, its events) as a
    variation of the decision that followed ``version`` (a version a decision ends at),
    its first move carrying ``comment``. ``Unwritable`` when the game has no decision
    after ``version`` yet (a variation replaces a decision that was made)."""
    if version not in ends:
        raise Unwritable(f"version {version} ends no decision of the game")
    k = list(ends).index(version)
    if k >= len(record.moves) or not line:
        raise Unwritable(
            "the fork goes on from the game's last decision so far: no decision of the game"
            " there for it to stand beside"
        )
    variation = [
        Move(k + 1 + i, say(before, c), _drawn(events))
        for i, (before, c, events) in enumerate(line)
    ]
    variation[0].comment = comment
    record.moves[k].variations.append(variation)
    return record


def load(text: str) -> Loaded:
    """Play a TGN text: its events (``NotationError`` names the line and column of
    anything the text or the rules refuse)."""
    record = parse(text)
    setup, seed = _setup(record)
    # with the seed, the draws are what the seed deals: a wrong one is named on its line
    order = _dealt(setup, seed, record) or _order(record.moves, ())
    table = _Table(setup, order, seed, record.line_of("Seed"))
    _play_line(table, record.moves, setup, seed, ())
    if "Result" in record.tags and record.tags["Result"] != result_of(table.state):
        raise NotationError(
            record.line_of("Result"),
            1,
            f"the Result tag says {record.tags['Result']!r};"
            f" the game gives {result_of(table.state)!r}",
        )
    return Loaded(record, tuple(table.events), table.state)


def _dealt(setup: Sequence[cmd.Command], seed: bytes | None, record: Record) -> tuple[str, ...]:
    """The whole order the seed deals (R2), or () without a seed or for another deck."""
    if seed is None:
        return ()
    create = setup[0]
    assert isinstance(create, cmd.CreateGame)
    if commitment(seed) != create.deck_commitment:
        raise NotationError(
            record.line_of("Seed"), 1, "sha256 of the seed is not the Deck tag's commitment (R2)"
        )
    entropies = [c.entropy for c in setup if isinstance(c, cmd.JoinGame)]
    try:
        if create.deck_algorithm == ALGORITHM:
            return draw_order(seed, create.game_id, entropies)
        if create.deck_algorithm == FIXED:
            return tuple(json.loads(seed))
    except ValueError as exc:
        raise NotationError(record.line_of("Seed"), 1, f"the seed deals no order: {exc}") from exc
    return ()


def _order(moves: Sequence[Move], before: tuple[str, ...]) -> tuple[str, ...]:
    """The tiles ``moves`` draw, after ``before``: each a tile of the pile, drawn once."""
    order = list(before)
    for move in moves:
        at = move.column + len(move.words) + len(DRAWS)
        for name in move.draws:
            tile = TILES.get(name)
            if tile is None:
                raise NotationError(move.line, at, f"no tile is called {name!r}")
            if tile in order:
                raise NotationError(move.line, at, f"{name} was drawn already")
            order.append(tile)
            at += len(name) + 2
    return tuple(order)


def _play_line(
    table: _Table,
    moves: Sequence[Move],
    setup: Sequence[cmd.Command],
    seed: bytes | None,
    before: tuple[str, ...],
) -> None:
    """Play ``moves`` on ``table``, each variation from the position before its move."""
    drawn = before
    first = moves[0].number if moves else 1
    for i, move in enumerate(moves):
        if move.number != first + i:
            raise NotationError(
                move.line, 1, f"decision {first + i} was expected here, not {move.number}"
            )
        for variation in move.variations:
            _variation(table, setup, seed, drawn, variation, move.number)
        try:
            command = hear(table.state, move.words)
        except Unheard as exc:
            raise NotationError(move.line, move.column + exc.column, str(exc)) from exc
        got = _drawn(table.play(command, move.line, move.column))
        if got != move.draws:
            said = ", ".join(move.draws) or "nothing"
            raise NotationError(
                move.line,
                move.column,
                f"it draws {', '.join(got) or 'nothing'}; the line says {said}",
            )
        drawn += tuple(TILES[t] for t in got)


def _variation(
    table: _Table,
    setup: Sequence[cmd.Command],
    seed: bytes | None,
    drawn: tuple[str, ...],
    moves: list[Move],
    number: int,
) -> None:
    """A variation: the game replayed to before decision ``number``, then its moves."""
    if moves[0].number != number:
        raise NotationError(
            moves[0].line, 1, f"a variation of decision {number} starts with {number}"
        )
    order = _order(moves, drawn)
    branch = _Table(setup, order, seed)
    branch.state, branch.events = table.state, list(table.events)
    _play_line(branch, moves, setup, seed, drawn)
