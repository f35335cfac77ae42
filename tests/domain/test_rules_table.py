"""Offers at the table (docs/table.md): a takeback by consent (T1–T5) and an end by
agreement (T6), answered once (T7), never while paused or over (T8)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain import events as ev
from domain import offers as o
from domain import position
from domain.bots import BOTS
from domain.consent import restorable
from domain.deck import Deck
from domain.errors import RuleViolation
from domain.events import Event, GameEnded, TileDrawn
from domain.fold import replay
from domain.legal import legal_commands
from domain.play import play
from domain.scoring import current_scores
from domain.state import GameState, Phase
from tests.domain.gwt import new_game

SEED = Deck.fixed().fixed_seed()


class Table:
    """A game played through ``domain.play.play`` as the service plays it, with its
    record: the events and, per player's decision, its versions."""

    def __init__(self, players: int = 2) -> None:
        colours = ("blue", "red", "green", "yellow")[:players]
        self.state = new_game(*colours)
        self.events: list[Event] = list(_start_events(colours))
        self.decisions: list[tuple[str, int, int]] = []  # (player, first, last)

    @property
    def version(self) -> int:
        return len(self.events)

    def do(self, command: cmd.Command) -> list[Event]:
        new, self.state = play(self.state, command, lambda: SEED)
        first = self.version + 1
        self.events += new
        if isinstance(command, cmd.PLAY_COMMANDS) and new:
            player = self.mover_before
            self.decisions.append((player, first, self.version))
        for e in new:
            if isinstance(e, o.MovesTakenBack):  # the decisions after it are set aside
                self.decisions = [d for d in self.decisions if d[2] <= e.to_version]
        return new

    def move(self, rng: random.Random | None = None) -> list[Event]:
        """The pending decision, by its player: the first legal command (or a random one)."""
        options = legal_commands(self.state)
        self.mover_before = self.state.owner(self.state.pending.colour).player_id  # type: ignore[union-attr]
        return self.do(rng.choice(options) if rng else options[0])

    def takeback(self, player: str) -> cmd.RequestTakeback:
        """The request as the service completes it: the version before ``player``'s last
        decision and the position there, from the record."""
        last = max((d for d in self.decisions if d[0] == player), key=lambda d: d[2])
        to = last[1] - 1
        at = restorable(replay(self.events[:to]))
        return cmd.RequestTakeback(player, to, position.text(at))


def _start_events(colours: tuple[str, ...]) -> list[Event]:
    """The events of ``new_game`` (created, joined, started), for the record's versions."""
    from domain.deck import commitment
    from domain.judge import apply

    state, events = GameState(), []
    opts = cmd.GameOptions(max_players=6)
    for c in (
        cmd.CreateGame("g", opts, commitment(SEED), "fixed"),
        *(cmd.JoinGame(f"p{i}", (c,), f"entropy{i}") for i, c in enumerate(colours, 1)),
        cmd.StartGame(),
    ):
        new, state = apply(state, c)
        events += new
    return events


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def refused(table: Table, command: cmd.Command, code: str, rule: str) -> None:
    """``command`` is refused with ``code`` citing ``rule``; nothing changes (R24)."""
    before = position.text(table.state)
    with pytest.raises(RuleViolation) as info:
        table.do(command)
    assert (info.value.code, info.value.rule) == (code, rule), info.value
    assert position.text(table.state) == before


def test_t1_t3_a_takeback_accepted_restores_the_position_before_the_decision():
    # given p1 placed a starting boat and p2 then placed theirs
    t = Table()
    t.move()
    before_p1 = position.text(replay(t.events[: t.decisions[0][1] - 1]))
    t.move()
    # when p1 asks to take back their last decision and p2 accepts
    asked = t.do(t.takeback("p1"))
    assert names(asked) == ["TakebackRequested"]
    assert t.state.takeback is not None and t.state.takeback.to_version == t.decisions[0][1] - 1
    answered = t.do(cmd.AnswerTakeback("p2", True))
    # then both decisions are set aside: the board is as it was before p1's
    assert names(answered) == ["TakebackAccepted", "MovesTakenBack"]
    assert position.text(t.state) == before_p1
    assert t.state.pending is not None and t.state.owner(t.state.pending.colour).player_id == "p1"


def test_t3_a_refusal_ends_the_takeback_and_changes_nothing_else():
    t = Table()
    t.move()
    board = position.text(t.state)
    t.do(t.takeback("p1"))
    assert names(t.do(cmd.AnswerTakeback("p2", False))) == ["TakebackRefused"]
    assert t.state.takeback is None
    assert position.text(t.state) == board


def test_t3_every_other_player_must_accept():
    t = Table(players=3)
    t.move()
    t.do(t.takeback("p1"))
    assert names(t.do(cmd.AnswerTakeback("p2", True))) == ["TakebackAccepted"]
    assert t.state.takeback is not None  # p3 has not answered
    refused(t, cmd.AnswerTakeback("p2", True), "already_answered", "T7")
    assert names(t.do(cmd.AnswerTakeback("p3", True))) == ["TakebackAccepted", "MovesTakenBack"]


def test_t3_the_bots_seats_are_not_asked_and_with_nobody_to_ask_it_happens_at_once():
    t = Table()
    absent = ev.SeatMarkedAbsent(2, "p2", 3)  # p2's seat played by the bot (C5)
    t.state = replay([absent], t.state)
    t.events.append(absent)
    t.move()
    events = t.do(t.takeback("p1"))
    assert names(events) == ["TakebackRequested", "MovesTakenBack"]


def test_t4_a_decision_taken_ends_the_open_offers_first():
    t = Table()
    t.move()
    t.do(t.takeback("p1"))
    t.do(cmd.ProposeEnd("p2"))
    moved = t.move()  # p2 plays instead of answering
    assert names(moved)[:2] == ["TakebackExpired", "EndProposalExpired"]
    assert t.state.takeback is None and t.state.end_offer is None


def test_t4_only_the_asker_withdraws():
    t = Table()
    t.move()
    t.do(t.takeback("p1"))
    refused(t, cmd.WithdrawTakeback("p2"), "not_your_offer", "T4")
    assert names(t.do(cmd.WithdrawTakeback("p1"))) == ["TakebackWithdrawn"]
    refused(t, cmd.AnswerTakeback("p2", True), "no_takeback", "T3")


def test_t7_the_asker_does_not_answer_and_one_request_at_a_time():
    t = Table()
    t.move()
    t.do(t.takeback("p1"))
    refused(t, cmd.AnswerTakeback("p1", True), "own_offer", "T7")
    refused(t, t.takeback("p1"), "takeback_open", "T1")


def test_t1_nothing_to_take_back_and_a_position_of_another_game():
    t = Table()
    refused(t, cmd.RequestTakeback("p1", 0, ""), "nothing_to_take_back", "T1")
    t.move()
    other = position.dump(t.state) | {"game_id": "another"}
    import json

    refused(t, cmd.RequestTakeback("p1", 3, json.dumps(other)), "bad_position", "T1")
    refused(t, cmd.RequestTakeback("p1", 3, "[1]"), "bad_position", "T1")


def _until_a_draw(t: Table, rng: random.Random) -> None:
    """Play on until a decision draws a tile (the last decision drew one)."""
    for _ in range(2000):
        if any(isinstance(e, TileDrawn) for e in t.move(rng)):
            return
    raise AssertionError("no tile drawn")


def test_t2_never_past_a_tile():
    # given a decision that drew a tile
    t = Table()
    _until_a_draw(t, random.Random(7))
    mover = t.decisions[-1][0]
    # then its player cannot take it back
    refused(t, t.takeback(mover), "tile_drawn_since", "T2")


def test_t6_an_end_by_agreement_is_scored_as_the_rules_score_a_finished_game():
    t = Table()
    for _ in range(6):
        t.move()
    expected = current_scores(t.state)
    assert names(t.do(cmd.ProposeEnd("p1"))) == ["EndProposed"]
    refused(t, cmd.AnswerEnd("p1", True), "own_offer", "T7")
    ended = t.do(cmd.AnswerEnd("p2", True))
    assert names(ended)[:2] == ["EndAccepted", "GameEnded"]
    assert "DeckRevealed" in names(ended)  # the seed is published at every end
    result = next(e for e in ended if isinstance(e, GameEnded))
    assert (result.reason, result.rule, result.scores) == ("agreement", "T6", expected)
    assert t.state.phase is Phase.ENDED


def test_t6_a_decline_ends_the_proposal_and_a_resigned_player_is_not_in_the_game():
    t = Table(players=3)
    t.move()
    t.do(cmd.ProposeEnd("p1"))
    assert names(t.do(cmd.AnswerEnd("p2", False))) == ["EndDeclined"]
    refused(t, cmd.AnswerEnd("p3", True), "no_end_offer", "T6")
    t.do(cmd.Resign("p3"))
    refused(t, cmd.ProposeEnd("p3"), "resigned", "T6")
    t.do(cmd.ProposeEnd("p1"))
    ended = t.do(cmd.AnswerEnd("p2", True))  # p3 resigned: not asked
    assert "GameEnded" in names(ended)
    result = next(e for e in ended if isinstance(e, GameEnded))
    assert result.resigned == ("p3",)


def test_t4_a_resignation_ends_the_open_offers():
    t = Table(players=3)
    t.move()
    t.do(cmd.ProposeEnd("p1"))
    assert names(t.do(cmd.Resign("p2")))[0] == "EndProposalExpired"


def test_t8_no_offer_while_paused_or_over():
    t = Table()
    t.move()
    t.do(cmd.PauseGame("d1"))
    refused(t, t.takeback("p1"), "game_paused", "D7")
    refused(t, cmd.ProposeEnd("p1"), "game_paused", "D7")
    t.do(cmd.ResumeGame("d1"))
    t.do(cmd.ProposeEnd("p1"))
    t.do(cmd.AnswerEnd("p2", True))
    refused(t, cmd.ProposeEnd("p1"), "game_over", "R21")


def test_open_offers_are_kept_in_the_position_and_read_back():
    t = Table(players=3)
    t.move()
    t.do(t.takeback("p1"))
    t.do(cmd.AnswerTakeback("p2", True))
    t.do(cmd.ProposeEnd("p3"))
    text = position.text(t.state)
    again = position.load(__import__("json").loads(text))
    assert again.takeback == t.state.takeback and again.end_offer == t.state.end_offer
    assert position.text(again) == text


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), script=st.lists(st.integers(0, 9), min_size=5, max_size=150))
def test_a_takeback_never_lets_anyone_see_a_tile_and_choose_again(seed, script):
    """T2 as a property: random games with random requests and answers interleaved.
    Every takeback restores exactly the record's position at its version; the pile's
    draws are never undone (what was drawn stays drawn, in the deck's order)."""
    t = Table(players=2)
    rng = random.Random(seed)
    bot = BOTS["random"](rng)
    for step in script:
        if t.state.phase is Phase.ENDED:
            break
        drawn = t.state.drawn
        try:
            asker = rng.choice(["p1", "p2"])
            if step <= 1 and any(d[0] == asker for d in t.decisions):
                t.do(t.takeback(asker))
            elif step <= 7 and t.state.takeback is not None:
                asker = t.state.takeback.seat
                t.do(cmd.AnswerTakeback(f"p{3 - asker}", rng.random() < 0.8))
            else:
                t.mover_before = t.state.owner(t.state.pending.colour).player_id  # type: ignore[union-attr]
                t.do(bot.choose(t.state))
        except RuleViolation:
            continue
        last = t.events[-1]
        if isinstance(last, o.MovesTakenBack):
            assert t.state.drawn == drawn
            at = restorable(replay(t.events[: last.to_version]))
            assert position.text(t.state) == position.text(at)
        assert t.state.drawn == Deck.fixed().order[: len(t.state.drawn)]
