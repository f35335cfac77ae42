"""The read models as pure functions of the game state and its events.

Every read model is a fold over a game's events. These functions compute one
game's rows from the state (``scoreboard``, ``lobby_entry``, ``results``) or
from one event and the states around it (``step``); each read model's
module (``projections.readmodels``) stores them. Nothing here does input or output.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import groupby
from typing import Any

from domain import events as ev
from domain import offers
from domain.away import AwayAnnounced
from domain.commands import GameOptions
from domain.fold import evolve
from domain.scoring import current_scores
from domain.state import GameState, Phase
from domain.tiles import display_name, island
from projections.describe import phrase
from projections.phrases import Phrase, say
from projections.vocabulary import colour_phrase

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def status(state: GameState) -> str:
    """The lobby status of a game: open, setup, playing or ended (as the event store's)."""
    return "open" if state.phase is Phase.NEW else state.phase.value


def _active_player(state: GameState) -> str | None:
    colour = state.active_colour
    if colour is None or state.phase not in (Phase.SETUP, Phase.PLAYING):
        return None
    return state.owner(colour).player_id


def final_ranking(state: GameState) -> list[tuple[str, int, int]] | None:
    """``(player_id, rank, points)`` of a finished game, best first, as the record stands:
    the end's own ranking (R22, R23), or the one a ruling stated (D4); an annulled game
    has none (``[]``). ``None`` while the game runs."""
    result = state.result
    if not isinstance(result, ev.GameEnded):
        return None
    points = {s.player_id: s.points for s in result.scores}
    amendment = state.amendment
    if isinstance(amendment, ev.ResultAmended):
        if amendment.annulled or amendment.ranking is None:
            return []
        return [(p, i, points.get(p, 0)) for i, p in enumerate(amendment.ranking, start=1)]
    return [(s.player_id, s.rank, s.points) for s in result.scores]


def winners(state: GameState) -> list[str]:
    """Who won a finished game as the record stands (a ruling may have changed it, D4)."""
    result = state.result
    if not isinstance(result, ev.GameEnded):
        return []
    if isinstance(state.amendment, ev.ResultAmended):
        return [p for p, rank, _ in final_ranking(state) or [] if rank == 1]
    return list(result.winners)


def scoreboard(state: GameState) -> dict[str, Any]:
    """Per seat and colour: points now, islands present on, boats, supply, out, kings;
    the final ranking and the tie-break once the game is over (R22, R23)."""
    # a finished game shows the scores it was decided with (R22, R23), even if the
    # rules have changed since it was recorded
    result = state.result
    scores = result.scores if isinstance(result, ev.GameEnded) else current_scores(state)
    by_player = {s.player_id: s for s in scores}
    # an amended result (D4) ranks the seats as the ruling said (none if annulled)
    amended_rank = (
        {p: rank for p, rank, _ in final_ranking(state) or []}
        if isinstance(state.amendment, ev.ResultAmended)
        else None
    )
    seats = []
    for p in state.players:
        score = by_player[p.player_id]
        seats.append(
            {
                "seat": p.seat,
                "player_id": p.player_id,
                "colours": [_colour_score(state, c) for c in p.colours],
                "points": score.points,
                "islands": score.islands,
                "boats": score.boats,
                "rank": score.rank if amended_rank is None else amended_rank.get(p.player_id),
            }
        )
    final = _final(state, result) if isinstance(result, ev.GameEnded) else None
    return {"status": status(state), "turn": state.turn, "seats": seats, "final": final}


def _colour_score(state: GameState, colour: str) -> dict[str, Any]:
    """One colour on the scoreboard: the islands it is present on and their points, its
    boats on the board, kings, in the supply and out of the game."""
    present = sorted(
        i.tile
        for i in state.islands.values()
        if i.king == colour or any(colour in beach for beach in i.beaches)
    )
    return {
        "colour": colour,
        "islands": [display_name(t) for t in present],
        "points": sum(island(t).value for t in present),
        "on_board": state.boats_on_board(colour, kings=False),
        "kings": state.kings(colour),
        "in_supply": state.supply.get(colour, 0),
        "out_of_game": state.out.get(colour, 0),
    }


def _final(state: GameState, result: ev.GameEnded) -> dict[str, Any]:
    """How a finished game ended: reason, winners, tie-break, the ranking as the record
    stands, and the amendment a ruling made (D4), if any."""
    amendment = state.amendment
    return {
        "reason": result.reason,
        "winners": winners(state),
        "tie_break": result.tie_break,
        "resigned": list(result.resigned),  # ranked after everyone else (C6)
        "ranking": [
            {"player_id": p, "rank": rank, "points": points}
            for p, rank, points in final_ranking(state) or []
        ],
        "amended": None
        if not isinstance(amendment, ev.ResultAmended)
        else {
            "dispute_id": amendment.dispute_id,
            "annulled": amendment.annulled,
            "ranking": list(amendment.ranking or ()),
            "rule": amendment.rule,
        },
    }


def time_control(options: GameOptions) -> dict[str, Any]:
    """A game's time control as the lobby shows it (docs/clocks.md, C1)."""
    control = options.time_control
    shown: dict[str, Any] = {"control": control}
    if control == "move":
        shown["move_seconds"] = options.move_seconds
    elif control == "fischer":
        shown["base_seconds"] = options.base_seconds
        shown["increment_seconds"] = options.increment_seconds
    if control != "none":
        shown["absent_after"] = options.absent_after
    if options.vacation:
        shown["vacation"] = True  # docs/vacation.md V2
    return shown


def epoch_ms(text: str) -> int:
    """A recorded ISO 8601 time in epoch milliseconds."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int((moment - EPOCH) / timedelta(milliseconds=1))


def due_ms(state: GameState, clock: dict[str, Any] | None, last_activity: str) -> int | None:
    """When the service must act on a game next, in epoch ms (docs/clocks.md): at
    once (the last transaction's time) when the pending seat is the bot's (C5, C6),
    at the recorded deadline otherwise (C3); None when nothing waits on time."""
    if state.phase not in (Phase.SETUP, Phase.PLAYING) or state.pending is None:
        return None
    if state.paused is not None:
        return None
    seat = state.owner(state.pending.colour).seat
    if state.bot_reason(seat) is not None:
        return epoch_ms(last_activity) if last_activity else 0
    deadline = clock.get("deadline") if clock is not None else None
    return epoch_ms(deadline) if isinstance(deadline, str) else None


def lobby_entry(
    state: GameState, last_activity: str, clock: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A game as the lobby lists it: status, seats, whose turn, last activity, and the
    time control with the clock as the last transaction recorded it."""
    running = clock if state.phase in (Phase.SETUP, Phase.PLAYING) else None
    return {
        "game_id": state.game_id,
        "status": status(state),
        "max_players": state.options.max_players,
        "two_colours_each": state.options.two_colours_each,
        "free_orientation_after_first": state.options.free_orientation_after_first,
        "seats": [
            {
                "seat": p.seat,
                "player_id": p.player_id,
                "colours": list(p.colours),
                **({"bot": state.bot_reason(p.seat)} if state.bot_reason(p.seat) else {}),
                **({"level": p.bot} if p.bot else {}),  # a bot's seat (B1)
            }
            for p in state.players
        ],
        "time_control": time_control(state.options),
        "rated": state.options.rated,
        "clock": running,
        "turn": state.turn,
        "active_colour": state.active_colour if _active_player(state) else None,
        "active_player": _active_player(state),
        "decision": state.pending.kind if state.pending and _active_player(state) else None,
        "last_activity": last_activity,
        "winners": winners(state),
        "annulled": isinstance(state.amendment, ev.ResultAmended) and state.amendment.annulled,
        "paused": state.paused is not None,
        **({"private": True} if state.options.private else {}),
    }


@dataclass(frozen=True, slots=True)
class Result:
    """One player's finished game, for the leaderboard."""

    player_id: str
    rank: int
    points: int
    won: bool


def results(state: GameState) -> list[Result]:
    """Each player's rank and points once the game is over (shared wins are wins)."""
    ranking = final_ranking(state)
    if not ranking:
        return []
    won = set(winners(state))
    return [Result(p, rank, points, p in won) for p, rank, points in ranking]


@dataclass(frozen=True, slots=True)
class Step:
    """One event as a replay step."""

    version: int
    turn: int
    step: int
    colour: str | None
    actor: str | None
    type: str
    rule: str | None
    automatic: bool
    description: str  # in English
    words: dict[str, Any] | None = None  # the description's phrase, for other languages


# events about one seat rather than the colour to play (docs/clocks.md)
SEAT_EVENTS = (
    ev.SeatMarkedAbsent,
    ev.TimeoutStreakEnded,
    ev.SeatReclaimed,
    ev.PlayerResigned,
    AwayAnnounced,  # V4
    # an offer's steps are the seat's that made or answered it (docs/table.md); an
    # expiry belongs to the decision that ended the offer, whoever's seat asked
    offers.TakebackRequested,
    offers.TakebackAccepted,
    offers.TakebackRefused,
    offers.TakebackWithdrawn,
    offers.MovesTakenBack,
    offers.EndProposed,
    offers.EndAccepted,
    offers.EndDeclined,
    offers.EndProposalWithdrawn,
)


def step(
    version: int,
    event: ev.Event,
    before: GameState,
    meta: Mapping[str, Any],
    previous: tuple[int, int] | None,
) -> Step:
    """The replay step of ``event`` (at ``version``), given the state before it.

    ``previous`` is the (turn, step) of the step before, so steps count from 1
    within each turn. The turn is the one the event happened in (0 before the
    first turn); the colour is the event's own, else the seat whose move it was.
    """
    turn = before.turn
    number = previous[1] + 1 if previous is not None and previous[0] == turn else 1
    own = getattr(event, "colour", None)
    acting = own if isinstance(own, str) else before.active_colour
    if isinstance(event, SEAT_EVENTS):  # about a seat, whoever's turn it is (C4-C6)
        acting = next((p.colours[0] for p in before.players if p.seat == event.seat), acting)
    actor = meta.get("actor")
    name = actor.get("account") if isinstance(actor, Mapping) else None
    rule = getattr(event, "rule", None)
    said = phrase(event, before)
    return Step(
        version=version,
        turn=turn,
        step=number,
        colour=acting,
        actor=name if isinstance(name, str) else None,
        type=type(event).__name__,
        rule=rule if isinstance(rule, str) else None,
        automatic=bool(getattr(event, "automatic", False)),
        description=said.english(),
        words=said.data(),
    )


# what players are told (the notification outbox, docs/clocks.md "Reminders")
NOTICE_KINDS = ("your_move", "deadline_soon", "replaced_by_bot", "game_over", "dispute_ruled")


def notice_id(account_id: str, game_id: str, version: int, kind: str) -> str:
    """A notification's id: the same facts give the same id (exactly once)."""
    raw = f"{account_id}\x00{game_id}\x00{version}\x00{kind}".encode()
    return hashlib.sha256(raw).hexdigest()[:24]


def _seat_to_move(state: GameState) -> int | None:
    """The seat a person must move for now (not the bot's, not while paused)."""
    if state.phase not in (Phase.SETUP, Phase.PLAYING) or state.pending is None:
        return None
    if state.paused is not None:
        return None
    seat = state.owner(state.pending.colour).seat
    return None if state.bot_reason(seat) else seat


def _player(state: GameState, seat: int) -> str:
    return next(p.player_id for p in state.players if p.seat == seat)


def _your_move_words(state: GameState, seat: int) -> Phrase:
    """ "It is your move.", naming the colour to move when the seat plays two (R5)."""
    player = next(p for p in state.players if p.seat == seat)
    if len(player.colours) > 1 and state.pending is not None:
        return say("It is your move with {colour}.", colour=colour_phrase(state.pending.colour))
    return say("It is your move.")


def notices(
    before: GameState,
    events: Sequence[tuple[int, Mapping[str, Any], ev.Event]],
    states: Sequence[GameState] | None = None,
) -> list[dict[str, Any]]:
    """The notifications a game's events give, transaction by transaction: whose move it
    is now (when it passes to another seat), a timeout and an absent seat, the game's
    end, and a ruling's effect on the game (``NOTICE_KINDS``). ``states``: the state
    after each event, when folded already (a catch-up's shared fold); else folded here."""
    found: list[dict[str, Any]] = []
    state = before
    index = 0
    # a transaction: the events of one command, in a row
    for _, chunk in groupby(events, key=lambda e: e[1].get("command_id")):
        transaction = list(chunk)
        group = [e for _, _, e in transaction]
        version, meta, _ = transaction[-1]
        at = str(meta.get("recorded_at", ""))
        was = _seat_to_move(state)
        index += len(group)
        if states is not None:
            state = states[index - 1]
        else:
            for e in group:
                state = evolve(state, e)
        told = _told(group, state)
        now = _seat_to_move(state)
        if now is not None and now != was:
            told.append((_player(state, now), "your_move", _your_move_words(state, now)))
        found += [
            {
                "account_id": account,
                "version": version,
                "kind": kind,
                "text": said.english(),
                "words": said.data(),
                "at": at,
            }
            for account, kind, said in told
        ]
    return found


def _told(group: Sequence[ev.Event], state: GameState) -> list[tuple[str, str, Phrase]]:
    """(account, kind, text) of what one transaction's events tell, ``state`` after it:
    a timeout (with an absent seat), the game's end, a ruling's effect."""
    told = []
    ended = any(isinstance(x, ev.GameEnded) for x in group)
    for e in group:
        if isinstance(e, ev.TurnTimedOut) and not ended:  # else game_over tells it (C7)
            absent = any(isinstance(x, ev.SeatMarkedAbsent) for x in group)
            told.append((e.player_id, "replaced_by_bot", _timed_out_words(absent)))
        elif isinstance(e, ev.GameEnded):
            told += [(s.player_id, "game_over", _game_over_words(e, s)) for s in e.scores]
        elif isinstance(e, ev.GameRewound | ev.ResultAmended | ev.GameResumed):
            words = {
                ev.GameRewound: say("An auditor rewound the game (dispute {dispute}).",
                                    dispute=e.dispute_id),
                ev.ResultAmended: say("An auditor amended the result (dispute {dispute}).",
                                      dispute=e.dispute_id),
                ev.GameResumed: say("An auditor resumed the game (dispute {dispute}).",
                                    dispute=e.dispute_id),
            }[type(e)]  # fmt: skip
            told += [(p.player_id, "dispute_ruled", words) for p in state.players]
    return told


def _timed_out_words(absent: bool) -> Phrase:
    if absent:
        return say(
            "Your decision timed out and the bot played it for you; you are now absent: the"
            " bot plays your seat until you reclaim it."
        )
    return say("Your decision timed out and the bot played it for you.")


def _game_over_words(end: ev.GameEnded, score: ev.PlayerScore) -> Phrase:
    if score.rank == 1:
        words = say("you share the win") if len(end.winners) > 1 else say("you won")
    else:
        words = say("you ranked {rank} of {count}", rank=score.rank, count=len(end.scores))
    if end.reason == "abandoned":
        return say(
            "The game is over (nobody was left to play: the bot had every seat, C7): {words}.",
            words=words,
        )
    if end.reason == "agreement":
        return say("The game is over (by agreement, T6): {words}.", words=words)
    return say("The game is over: {words}.", words=words)
