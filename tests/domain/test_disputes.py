"""Disputes (docs/disputes.md, D1–D8): each transition and each refusal — who may do
what, and when. Given a dispute in some state, when someone acts, then these events
(or this refusal, citing its rule)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import commands as cmd
from domain import events as ev
from domain.disputes import (
    DECISIONS,
    REASONS,
    TEXT_LIMIT,
    AddNote,
    Assign,
    DisputeAssigned,
    DisputeNoteAdded,
    DisputeOpened,
    DisputeWithdrawn,
    Facts,
    IssueRuling,
    OpenDispute,
    RulingIssued,
    Withdraw,
    decide,
    fold,
    open_dispute,
)
from domain.errors import RuleViolation
from domain.fold import replay
from domain.legal import legal_commands
from domain.play import play
from domain.position import dump, load, text
from domain.serialization import decode_dispute_event, encode_dispute_event
from domain.state import Phase
from tests.domain.test_play import SEED
from tests.domain.test_play import opened as table

PLAYERS = ("ann", "bob")


def facts(actor="ann", *, seated=None, auditor=False, version=20, window=True):
    return Facts(
        actor=actor,
        seated=actor in PLAYERS if seated is None else seated,
        auditor=auditor,
        game_version=version,
        game_hash="h" * 64,
        window_open=window,
        players=PLAYERS,
        auditor_ids=frozenset({"aud", "aud2"}),
    )


def opened(**kw):
    command = OpenDispute(kw.pop("reason", "rule_applied_wrongly"), "R7 misread", 12, "c-12")
    return open_dispute("d1", "g1", command, facts(**kw))


def refused(code, rule, call):
    with pytest.raises(RuleViolation) as caught:
        call()
    assert (caught.value.code, caught.value.rule) == (code, rule)


# --- D1 opening ------------------------------------------------------------------------


def test_d1_a_seated_player_opens_a_dispute_anchored_to_a_version_and_hash():
    e = opened()
    assert e == DisputeOpened(
        "d1", "g1", "ann", "rule_applied_wrongly", "R7 misread", 12, "h" * 64, "c-12"
    )
    state = fold([e])
    assert (state.status, state.opened_by, state.version, state.assigned_to) == (
        "open",
        "ann",
        12,
        None,
    )


@pytest.mark.parametrize("actor, auditor", [("eve", False), ("aud", True)])
def test_d1_only_a_seated_player_may_open_one(actor, auditor):
    refused("not_a_player", "D1", lambda: opened(actor=actor, auditor=auditor))


def test_d1_not_after_the_window_closed():
    refused("dispute_window_closed", "D1", lambda: opened(window=False))


def test_d1_d2_d4_words_hold_nothing_a_reader_would_not_see():
    for words in ("a\x01b", "\u202eevil", "zero\u200bwidth", "line\u2028sep"):
        c = OpenDispute("misclick", words, 3)
        refused("invisible_text", "D1", lambda c=c: open_dispute("d", "g", c, facts()))
    invisible = OpenDispute("other", " \n\t ", 3)
    refused("text_required", "D1", lambda: open_dispute("d", "g", invisible, facts()))
    assert open_dispute("d", "g", OpenDispute("other", "two\nlines\tok", 3), facts()).text
    state = fold([opened()])
    refused("invisible_text", "D2", lambda: decide(state, AddNote("\ufeff"), facts()))


def test_d6_an_ended_game_is_rewound_only_within_the_window():
    state = fold([opened()])
    late = facts("aud", auditor=True, window=False)
    command = IssueRuling("rewind", "x", ("D6",), to_version=5)
    refused("dispute_window_closed", "D6", lambda: decide(state, command, late))
    assert decide(state, IssueRuling("stands", "x", ("D4",)), late)  # other rulings may


def test_d1_the_reason_is_one_of_the_list_and_other_needs_words():
    refused("unknown_reason", "D1", lambda: opened(reason="boredom"))
    c = OpenDispute("other", "   ", 3)
    refused("text_required", "D1", lambda: open_dispute("d", "g", c, facts()))
    long = OpenDispute("misclick", "x" * (TEXT_LIMIT + 1), 3)
    refused("text_too_long", "D1", lambda: open_dispute("d", "g", long, facts()))
    assert open_dispute("d", "g", OpenDispute("misclick", "", 3), facts()).text == ""


@pytest.mark.parametrize("version", [0, -1, 21])
def test_d1_the_version_is_one_the_game_has_reached(version):
    c = OpenDispute("unfair_draw", "", version)
    refused("version_out_of_range", "D1", lambda: open_dispute("d", "g", c, facts()))


# --- D2 notes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "actor, auditor, role",
    [("ann", False, "player"), ("bob", False, "player"), ("aud", True, "auditor")],
)
def test_d2_players_of_the_game_and_auditors_add_notes(actor, auditor, role):
    events = decide(fold([opened()]), AddNote("see turn 4"), facts(actor, auditor=auditor))
    assert events == [DisputeNoteAdded(actor, role, "see turn 4")]
    assert fold([opened(), *events]).notes == 1


def test_d2_nobody_else_adds_notes_and_a_note_says_something():
    state = fold([opened()])
    refused("not_a_party", "D2", lambda: decide(state, AddNote("hi"), facts("eve")))
    refused("text_required", "D2", lambda: decide(state, AddNote(" "), facts()))


# --- D3 assignment -----------------------------------------------------------------------


def test_d3_an_auditor_assigns_the_dispute_to_an_auditor():
    state = fold([opened()])
    events = decide(state, Assign("aud2"), facts("aud", auditor=True))
    assert events == [DisputeAssigned("aud2", "aud")]
    assert fold([opened(), *events]).assigned_to == "aud2"


def test_d3_players_do_not_assign_and_only_to_auditors():
    state = fold([opened()])
    refused("auditors_only", "D3", lambda: decide(state, Assign("aud"), facts("ann")))
    refused(
        "not_an_auditor", "D3", lambda: decide(state, Assign("bob"), facts("aud", auditor=True))
    )


# --- D4 rulings --------------------------------------------------------------------------


def rule(command, actor="aud", auditor=True, version=20):
    return decide(fold([opened()]), command, facts(actor, auditor=auditor, version=version))


def test_d4_an_auditor_rules_stands_with_reasoning_and_rules():
    events = rule(IssueRuling("stands", "R7 was applied as written", ("R7",)))
    assert events == [RulingIssued("aud", "stands", "R7 was applied as written", ("R7",))]
    state = fold([opened(), *events])
    assert state.status == "ruled" and state.ruling == events[0]


def test_d4_only_auditors_rule():
    refused("auditors_only", "D4", lambda: rule(IssueRuling("stands", "x", ("R7",)), "ann", False))


def test_d4_a_ruling_has_a_known_decision_reasoning_and_valid_rule_ids():
    refused("unknown_decision", "D4", lambda: rule(IssueRuling("maybe", "x", ("R7",))))
    refused("text_required", "D4", lambda: rule(IssueRuling("stands", "", ("R7",))))
    refused("rules_required", "D4", lambda: rule(IssueRuling("stands", "x", ())))
    for bad in (("R26",), ("R0",), ("D9",), ("C8",), ("C0",), ("r7",), ("R07",)):
        refused("unknown_rule", "D4", lambda bad=bad: rule(IssueRuling("stands", "x", bad)))
    refused("duplicate_rule", "D4", lambda: rule(IssueRuling("stands", "x", ("R7", "R7"))))
    assert rule(IssueRuling("stands", "x", ("R25", "D8", "R1")))[0].rules == ("R25", "D8", "R1")
    # an unfair timeout is ruled on the clocks' rules (docs/clocks.md)
    assert rule(IssueRuling("stands", "x", ("C3", "C7")))[0].rules == ("C3", "C7")


def test_d6_a_rewind_names_an_earlier_version_and_only_a_rewind_does():
    assert rule(IssueRuling("rewind", "misclick", ("D6",), to_version=11))[0].to_version == 11
    refused("to_version", "D6", lambda: rule(IssueRuling("rewind", "x", ("D6",))))
    refused("to_version", "D6", lambda: rule(IssueRuling("stands", "x", ("D6",), to_version=3)))
    for v in (0, 20, 21):
        refused(
            "version_out_of_range",
            "D6",
            lambda v=v: rule(IssueRuling("rewind", "x", ("D6",), to_version=v)),
        )


def test_d4_an_amended_result_is_annulled_or_a_full_ranking():
    annulled = rule(IssueRuling("result_amended", "x", ("D4",), annulled=True))[0]
    assert annulled.annulled and annulled.ranking is None
    ranked = rule(IssueRuling("result_amended", "x", ("D4",), ranking=("bob", "ann")))[0]
    assert ranked.ranking == ("bob", "ann")
    for bad in (
        IssueRuling("result_amended", "x", ("D4",)),
        IssueRuling("result_amended", "x", ("D4",), annulled=True, ranking=PLAYERS),
        IssueRuling("stands", "x", ("D4",), annulled=True),
        IssueRuling("stands", "x", ("D4",), ranking=PLAYERS),
    ):
        refused("amendment", "D4", lambda bad=bad: rule(bad))
    for bad_ranking in (("ann",), ("ann", "ann"), ("ann", "eve"), ("ann", "bob", "eve")):
        refused(
            "ranking",
            "D4",
            lambda r=bad_ranking: rule(IssueRuling("result_amended", "x", ("D4",), ranking=r)),
        )


# --- D5 withdrawal, D8 closed -------------------------------------------------------------


def test_d5_only_the_opener_withdraws():
    state = fold([opened()])
    assert decide(state, Withdraw(), facts("ann")) == [DisputeWithdrawn("ann")]
    refused("not_the_opener", "D5", lambda: decide(state, Withdraw(), facts("bob")))
    refused("not_the_opener", "D5", lambda: decide(state, Withdraw(), facts("aud", auditor=True)))


@pytest.mark.parametrize(
    "closing",
    [DisputeWithdrawn("ann"), RulingIssued("aud", "stands", "x", ("R7",))],
)
@pytest.mark.parametrize(
    "command, actor",
    [
        (AddNote("late"), "ann"),
        (Assign("aud"), "aud"),
        (IssueRuling("stands", "x", ("R7",)), "aud"),
        (Withdraw(), "ann"),
    ],
)
def test_d8_a_closed_dispute_takes_no_more_changes(closing, command, actor):
    state = fold([opened(), closing])
    refused(
        "dispute_closed", "D8", lambda: decide(state, command, facts(actor, auditor=actor == "aud"))
    )


def test_d1_a_dispute_is_opened_once():
    state = fold([opened()])
    refused("already_open", "D1", lambda: decide(state, OpenDispute("misclick", "", 3), facts()))


def test_a_stream_begins_with_its_opening():
    with pytest.raises(ValueError):
        fold([DisputeNoteAdded("ann", "player", "x")])
    with pytest.raises(ValueError):
        fold([opened(), opened()])


# --- properties ----------------------------------------------------------------------------

ACTORS = st.sampled_from(["ann", "bob", "eve", "aud", "aud2"])
COMMANDS = st.one_of(
    st.builds(AddNote, st.sampled_from(["", "note"])),
    st.builds(Assign, ACTORS),
    st.builds(
        IssueRuling,
        st.sampled_from([*DECISIONS, "x"]),
        st.sampled_from(["", "why"]),
        st.sampled_from([(), ("R7",), ("D6", "R21")]),
        st.sampled_from([None, 0, 5, 19, 20]),
        st.booleans(),
        st.sampled_from([None, PLAYERS, ("ann",)]),
    ),
    st.just(Withdraw()),
)


@given(st.sampled_from(REASONS), st.lists(st.tuples(ACTORS, COMMANDS), max_size=8))
def test_any_sequence_folds_to_one_ruling_or_withdrawal_at_most_and_round_trips(reason, steps):
    events = [open_dispute("d1", "g1", OpenDispute(reason, "words", 5), facts())]
    for actor, command in steps:
        try:
            events += decide(fold(events), command, facts(actor, auditor=actor.startswith("aud")))
        except RuleViolation as violation:
            assert violation.rule.startswith("D")
    closing = [e for e in events if isinstance(e, RulingIssued | DisputeWithdrawn)]
    assert len(closing) <= 1 and (not closing or events[-1] is closing[0])
    assert all(e.auditor.startswith("aud") for e in events if isinstance(e, RulingIssued))
    assert all(e.by == "ann" for e in events if isinstance(e, DisputeWithdrawn))
    assert [decode_dispute_event(encode_dispute_event(e)) for e in events] == events


# --- the game stream: pause, resume (D7) and an amended result (D4) --------------------


def started():
    _events, state = play(table(), cmd.StartGame(), lambda: SEED)
    return state


def finished(seed=1):
    rng = random.Random(seed)
    state = started()
    while state.phase is not Phase.ENDED:
        _, state = play(state, rng.choice(legal_commands(state)), lambda: SEED)
    return state


def test_d7_an_auditor_pauses_a_game_under_way_and_nothing_is_played_until_resumed():
    state = started()
    move = legal_commands(state)[0]
    events, paused = play(state, cmd.PauseGame("d1"), lambda: SEED)
    assert events == [ev.GamePaused("d1")] and paused.paused == "d1"
    assert legal_commands(paused) == []
    refused("game_paused", "D7", lambda: play(paused, move, lambda: SEED))
    refused("already_paused", "D7", lambda: play(paused, cmd.PauseGame("d2"), lambda: SEED))
    events, resumed = play(paused, cmd.ResumeGame("d1"), lambda: SEED)
    assert events[0] == ev.GameResumed("d1") and resumed.paused is None
    assert legal_commands(resumed) == legal_commands(state)
    refused("not_paused", "D7", lambda: play(resumed, cmd.ResumeGame("d1"), lambda: SEED))
    # the position says so, and reads back; a game never paused keeps its text
    assert load(dump(paused)).paused == "d1" and '"paused"' not in text(resumed)


def test_d7_only_a_game_under_way_is_paused_and_resumed_for_its_own_dispute():
    refused("game_not_running", "D7", lambda: play(table(), cmd.PauseGame("d1"), lambda: SEED))
    refused("game_not_running", "D7", lambda: play(finished(), cmd.PauseGame("d1"), lambda: SEED))
    _, paused = play(started(), cmd.PauseGame("d1"), lambda: SEED)
    refused("paused_for_another", "D7", lambda: play(paused, cmd.ResumeGame("d2"), lambda: SEED))
    # an amendment asked of a paused game says the game is not over (not "paused")
    refused("game_not_over", "D4", lambda: play(paused, cmd.AmendResult("d1", True), lambda: SEED))


def test_d4_a_finished_games_result_is_amended_and_a_running_one_is_not():
    over = finished()
    players = tuple(p.player_id for p in over.players)
    events, amended = play(over, cmd.AmendResult("d1", False, players[::-1]), lambda: SEED)
    assert events == [ev.ResultAmended("d1", False, players[::-1])]
    assert amended.amendment == events[0] and amended.result == over.result
    assert load(dump(amended)).amendment == events[0]
    events, annulled = play(amended, cmd.AmendResult("d2", True), lambda: SEED)
    assert annulled.amendment.annulled and replay(events, amended).amendment == events[0]
    refused(
        "game_not_over", "D4", lambda: play(started(), cmd.AmendResult("d", True), lambda: SEED)
    )
    for bad in (cmd.AmendResult("d", True, players), cmd.AmendResult("d", False)):
        refused("amendment", "D4", lambda bad=bad: play(over, bad, lambda: SEED))
    refused("ranking", "D4", lambda: play(over, cmd.AmendResult("d", False, ("p0",)), lambda: SEED))


# --- D6 rewind: the position at an earlier version, and a re-deal ------------------------

REDEAL_SEED = bytes(range(100, 132))


def test_d6_a_rewind_restores_the_position_and_redeals_the_rest_fairly():
    from domain.deck import commitment, redeal_order
    from domain.judge import apply

    rng = random.Random(7)
    state, history = started(), []
    while len(state.drawn) < 4:
        history.append(state)
        _, state = play(state, rng.choice(legal_commands(state)), lambda: SEED)
    back = next(s for s in history if s.drawn and len(s.drawn) < len(state.drawn))
    command = cmd.RewindGame("d1", 9, text(back), commitment(REDEAL_SEED))
    events, rewound = play(state, command, lambda: SEED, redeal=lambda n: REDEAL_SEED)
    assert events[0] == ev.GameRewound("d1", 9, commitment(REDEAL_SEED), text(back))
    assert text(replace_deals(rewound)) == text(back)  # the same position, one deal more
    assert rewound.deals == (commitment(REDEAL_SEED),) and rewound.dealt == len(back.drawn)
    # later draws follow the re-deal, not the first order
    order = redeal_order(REDEAL_SEED, "g1", 1, back.drawn)
    while rewound.phase is not Phase.ENDED:
        _, rewound = play(
            rewound, rng.choice(legal_commands(rewound)), lambda: SEED, redeal=lambda n: REDEAL_SEED
        )
    assert rewound.drawn == order[: len(rewound.drawn)]
    # the end reveals both seeds, each checked against its commitment
    assert rewound.seed_hex == SEED.hex() and rewound.redeal_hex == (REDEAL_SEED.hex(),)
    with pytest.raises(RuleViolation) as wrong:
        apply(replace_reveal(rewound), cmd.RevealDeck(SEED.hex(), (SEED.hex(),)))
    assert wrong.value.rule == "D6"


def replace_deals(state):
    from dataclasses import replace

    return replace(state, deals=(), dealt=0)


def replace_reveal(state):
    from dataclasses import replace

    return replace(state, seed_hex=None, redeal_hex=())


def test_d6_a_rewind_needs_the_redeal_seed_and_a_readable_position_of_this_game():
    from domain.deck import commitment
    from domain.errors import DeckUnavailable

    state = started()
    command = cmd.RewindGame("d1", 2, text(state), commitment(REDEAL_SEED))
    with pytest.raises(DeckUnavailable):
        play(state, command, lambda: SEED)  # no re-deal seed given
    for bad in ("{", "[]", text(table())):
        refused(
            "bad_position",
            "D6",
            lambda bad=bad: play(
                state,
                cmd.RewindGame("d1", 2, bad, commitment(REDEAL_SEED)),
                lambda: SEED,
                redeal=lambda n: REDEAL_SEED,
            ),
        )
    refused(
        "game_not_started",
        "D6",
        lambda: play(table(), command, lambda: SEED, redeal=lambda n: REDEAL_SEED),
    )
    # a paused game can be rewound; the rewind clears the pause
    _, paused = play(state, cmd.PauseGame("d1"), lambda: SEED)
    _, rewound = play(paused, command, lambda: SEED, redeal=lambda n: REDEAL_SEED)
    assert rewound.paused is None and legal_commands(rewound) == legal_commands(state)
