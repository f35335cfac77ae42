"""B1–B3 (docs/bots.md): a bot's seat at the table — seated at an open, unrated table,
played by the bot at every decision, never a person at the table (takebacks, C7)."""

from __future__ import annotations

import json
import random

import pytest

from domain import commands as cmd
from domain.bots import bot_names, make_bot
from domain.deck import Deck, commitment
from domain.events import GameEnded, PlayerJoined, SeatPlayedByBot
from domain.judge import apply
from domain.play import play
from domain.position import dump, load
from domain.serialization import decode_event, encode
from domain.state import GameState, Phase
from tests.domain.gwt import names, only, rejects

SEED = Deck.fixed().fixed_seed()


def opened(**options: object) -> GameState:
    """An open table where p1 has the blue seat."""
    opts = cmd.GameOptions(max_players=options.pop("max_players", 4), **options)  # type: ignore[arg-type]
    state = apply(GameState(), cmd.CreateGame("g", opts, commitment(SEED), "fixed"))[1]
    return apply(state, cmd.JoinGame("p1", ("blue",), "e1"))[1]


def with_bot(state: GameState, bot: str = "mcts-easy", colour: str = "red") -> GameState:
    return apply(state, cmd.JoinGame("", (colour,), bot=bot))[1]


def test_B1_a_bot_takes_the_next_seat_as_player_bot_n_with_no_entropy():
    events, state = apply(opened(), cmd.JoinGame("", ("red",), bot="mcts"))
    joined = only(events, PlayerJoined)
    assert (joined.player_id, joined.seat, joined.bot, joined.entropy, joined.rule) == (
        "bot-2", 2, "mcts", "", "B1"
    )  # fmt: skip
    assert state.players[1].bot == "mcts" and state.bot_reason(2) == "bot"
    assert state.bot_reason(1) is None
    # the event and the position read back with the bot (and without it, as before)
    assert decode_event(encode(joined)) == joined
    assert "bot" not in encode(only(apply(opened(), cmd.JoinGame("p2", ("red",)))[0], PlayerJoined))
    assert load(dump(state)).players == state.players


def test_B1_every_level_a_table_seats_is_a_bot_the_engine_knows():
    assert set(cmd.SEAT_BOTS) <= set(bot_names())
    for level in cmd.SEAT_BOTS:
        make_bot(level, random.Random(1))


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (cmd.JoinGame("", ("red",), bot="mcts:5000"), "unknown_bot"),
        (cmd.JoinGame("", ("red",), bot="random"), "unknown_bot"),
        (cmd.JoinGame("someone", ("red",), bot="mcts"), "bad_player"),
        (cmd.JoinGame("", ("red",), "dice", bot="mcts"), "bad_player"),
    ],
)
def test_B1_a_bot_the_table_does_not_seat_is_refused(command, code):
    rejects(opened(), command, code, "B1")


def test_B1_a_rated_table_seats_people_only():
    rejects(
        opened(rated=True), cmd.JoinGame("", ("red",), bot="greedy"), "bot_at_rated_table", "B1"
    )


def test_B1_a_bot_takes_a_free_colour_at_a_free_seat_of_an_open_table():
    state = opened(max_players=2)
    rejects(state, cmd.JoinGame("", ("blue",), bot="greedy"), "colour_taken", "R1")
    state = with_bot(state)
    rejects(state, cmd.JoinGame("", ("green",), bot="greedy"), "table_full", "R1")
    started = apply(state, cmd.StartGame())[1]
    assert started.phase is Phase.SETUP
    rejects(started, cmd.JoinGame("", ("green",), bot="greedy"), "unexpected_command", "R25")


def test_B1_a_table_of_bots_alone_does_not_start():
    opts = cmd.GameOptions(max_players=2)
    state = apply(GameState(), cmd.CreateGame("g", opts, commitment(SEED), "fixed"))[1]
    state = with_bot(with_bot(state, colour="blue"), colour="red")
    rejects(state, cmd.StartGame(), "bots_alone", "B1")


def started() -> GameState:
    """p1 (blue) and the bot (red), started: blue's first starting boat is pending."""
    return apply(with_bot(opened(max_players=2)), cmd.StartGame())[1]


def bot_move(state: GameState) -> cmd.ActForSeat:
    assert state.active_colour is not None
    move = make_bot("greedy", random.Random(2)).choose(state)
    return cmd.ActForSeat(state.active_colour, "bot", json.dumps(encode(move)))


def test_B2_the_bot_plays_its_seat_and_nobody_else_does():
    state = started()
    early = cmd.ActForSeat("red", "bot", bot_move(state).move)
    rejects(state, early, "not_pending", "C3")  # blue's decision, not the bot's
    move = make_bot("greedy", random.Random(2)).choose(state)
    state = apply(state, move, Deck.fixed())[1]
    assert state.active_colour == "red"
    events = apply(state, bot_move(state), Deck.fixed())[0]
    assert names(events)[:2] == ["SeatPlayedByBot", "StartingBoatPlaced"]
    assert only(events, SeatPlayedByBot).rule == "B2"
    # the bot's seat is played for no other reason (B2), and no player plays it
    for reason in ("absent", "resigned"):
        wrong = cmd.ActForSeat("red", reason, bot_move(state).move)
        rejects(state, wrong, f"seat_not_{reason}", "C5" if reason == "absent" else "C6")
    with pytest.raises(Exception) as info:
        play(state, move, lambda: SEED)
    assert getattr(info.value, "rule", None) == "B2"


def test_B2_a_players_seat_is_not_played_as_a_bots():
    state = started()
    move = make_bot("greedy", random.Random(2)).choose(state)
    rejects(state, cmd.ActForSeat("blue", "bot", json.dumps(encode(move))), "not_a_bot_seat", "B2")


def test_B3_the_bots_seats_are_not_people_when_the_last_person_resigns_the_game_ends():
    """C7 counts a bot's seat as the bot's: once every person has resigned, nobody is
    left to play for."""
    state = started()
    events, after = apply(state, cmd.Resign("p1"))
    ended = only(events, GameEnded)
    assert ended.reason == "abandoned" and after.phase is Phase.ENDED


@pytest.mark.parametrize("seed", range(3))
def test_B2_seeded_whole_games_with_bot_seats_end_and_fold_to_the_same_state(seed):
    """A person (random moves) and two bots' seats play a whole game: every decision of
    a bot's seat goes through ``ActForSeat("bot")``; the events fold to the end state."""
    from domain.fold import replay
    from domain.legal import legal_commands

    rng = random.Random(seed)
    opts = cmd.GameOptions(max_players=3)
    state = GameState()
    log: list = []
    for command in (
        cmd.CreateGame("g", opts, commitment(SEED), "fixed"),
        cmd.JoinGame("p1", ("blue",), "e1"),
        cmd.JoinGame("", ("red",), bot="greedy"),
        cmd.JoinGame("", ("green",), bot="greedy"),
        cmd.StartGame(),
    ):
        events, state = play(state, command, lambda: SEED)
        log += events
    for _ in range(3000):
        if state.phase is Phase.ENDED or state.active_colour is None:
            break
        seat = state.owner(state.active_colour).seat
        if state.bot_reason(seat) == "bot":
            move = make_bot("greedy", rng).choose(state)
            command = cmd.ActForSeat(state.active_colour, "bot", json.dumps(encode(move)))
        else:
            command = rng.choice(legal_commands(state))
        events, state = play(state, command, lambda: SEED)
        log += events
    assert state.phase is Phase.ENDED
    assert any(isinstance(e, SeatPlayedByBot) and e.reason == "bot" for e in log)
    assert dump(replay(log)) == dump(state)


def test_B3_a_takeback_or_an_end_offer_waits_for_no_bot():
    """T3: the seats a takeback waits for are people's: a bot's seat answers nothing."""
    from domain.consent import answerers

    opts = cmd.GameOptions(max_players=3)
    state = apply(GameState(), cmd.CreateGame("g", opts, commitment(SEED), "fixed"))[1]
    for command in (
        cmd.JoinGame("p1", ("blue",), "e1"),
        cmd.JoinGame("", ("red",), bot="greedy"),
        cmd.JoinGame("p3", ("green",), "e3"),
        cmd.StartGame(),
    ):
        state = apply(state, command)[1]
    assert answerers(state, 1) == frozenset({3})
    assert answerers(state, 3) == frozenset({1})


def test_B3_an_end_proposed_with_only_bots_left_to_answer_is_agreed_at_once():
    """T6: the seats an end offer waits for are people's: with none, it ends the game."""
    state = started()
    events, after = apply(state, cmd.ProposeEnd("p1"))
    assert names(events) == ["EndProposed", "GameEnded"]
    assert only(events, GameEnded).reason == "agreement" and after.phase is Phase.ENDED
