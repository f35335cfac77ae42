"""Commands and events serialise to JSON-safe dicts and back, losslessly and strictly."""

import json

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.away import AwayAnnounced
from domain.errors import MalformedPayload
from domain.serialization import COMMANDS, EVENTS, decode_command, decode_event, encode

SAMPLE_COMMANDS = [
    cmd.CreateGame("g1", cmd.GameOptions(4, False, True, 2), "a" * 64, "tongiaki-deck-v1"),
    cmd.JoinGame("p1", ("blue", "red"), "dice"),
    cmd.StartGame(),
    cmd.PlaceStartingBoat(3),
    cmd.Expand("tahiti", (0, 2)),
    cmd.Expand("tahiti", (1,), ("tonga", 4)),
    cmd.PlaceBoats("tonga", (1, 5)),
    cmd.Emigrate("tonga", 2, 2),
    cmd.Land("tubuai", (("blue", "red"), ())),
    cmd.PlaceTile("ocean3", (-2, 1), 5),
    cmd.FoundRoyalIsland("samoa"),
    cmd.NewColonisation(),
    cmd.PlaceColonist("hawaii", 1),
    cmd.RevealDeck("00ff"),
    cmd.PauseGame("d1"),
    cmd.ResumeGame("d1"),
    cmd.AnnounceAway("p1", "2026-12-10T14:00:00+00:00", "2026-12-17T14:00:00+00:00"),
    cmd.AmendResult("d1", False, ("p2", "p1")),
    cmd.AmendResult("d1", True),
    cmd.RewindGame("d1", 4, "{}", "ab" * 32),
    cmd.RevealDeck("00ff", ("11", "22")),
    cmd.ActForSeat("blue", "timeout", '{"type":"NewColonisation"}'),
    cmd.ReclaimSeat("p1"),
    cmd.Resign("p2"),
    cmd.RequestTakeback("p1", 12, "{}"),
    cmd.AnswerTakeback("p2", True),
    cmd.WithdrawTakeback("p1"),
    cmd.ProposeEnd("p1"),
    cmd.AnswerEnd("p2", False),
    cmd.WithdrawEnd("p1"),
]

SAMPLE_EVENTS = [
    ev.GameCreated("g1", cmd.GameOptions(), "a" * 64, "fixed"),
    ev.PlayerJoined("p1", 1, ("blue",), ""),
    ev.GameStarted(("blue", "red"), 1),
    ev.StartingBoatPlaced("blue", 0, 1, True),
    ev.BoatsAdded("blue", "tonga", (1, 2), ("tahiti", 0), False, "R7"),
    ev.BoatsPlaced("red", "tonga", (0, 3)),
    ev.EmigrationStarted("blue", "tonga", 0, 0, 0, ("blue", "red", "red")),
    ev.TileDrawn("ocean7", 3, 15, 13, False, "oriented", (0, 1)),
    ev.TileDrawn("hawaii", 4, 14, 13, False, "free", None, "R17"),
    ev.TilePlaced("ocean7", (0, 1), 3),
    ev.FleetSailed("ocean13", (0, 1), 0, 5, 0, 1, ("blue",)),
    ev.ExpeditionFailed("ocean7", (0, 1), 0, 3, 4, 3, ("blue", "red", "yellow")),
    ev.FleetReachedIsland("tahiti", (1, 1), ("blue",)),
    ev.FleetTurnedBack("samoa", (1, 0), "tonga", ((0, 0), (0, 1), (1, 0)), ("blue",)),
    ev.BoatsLanded("tahiti", (("blue",), (), ()), ("red",)),
    ev.RoyalIslandFounded("blue", "samoa", 2),
    ev.NewColonyFounded("blue", 4),
    ev.ChainDeclaredEndless(("tubuai",)),
    ev.IslandRemoved("tubuai", (0, 0), ("blue",) * 6),
    ev.FleetLostAtSea((0, 2), ("red",)),
    ev.TurnEnded("blue", 4, "red"),
    ev.TurnEnded("red", 9, None),
    ev.GameEnded(
        "last_ocean_drawn", (ev.PlayerScore("p1", ("blue",), 7, 2, 3, 1),), ("p1",), "none"
    ),
    ev.DeckRevealed("ab" * 32),
    ev.GamePaused("d1"),
    ev.GameResumed("d1"),
    ev.ResultAmended("d1", False, ("p2", "p1")),
    ev.ResultAmended("d1", True),
    ev.GameRewound("d1", 4, "ab" * 32, "{}"),
    ev.DeckRevealed("ab" * 32, ("cd" * 32,)),
    ev.GameCreated(
        "g2",
        cmd.GameOptions(time_control="fischer", base_seconds=300, increment_seconds=5),
        "a" * 64,
        "fixed",
    ),
    ev.TurnTimedOut("blue", 1, "p1", 2),
    ev.SeatMarkedAbsent(1, "p1", 3),
    ev.TimeoutStreakEnded(1, "p1"),
    ev.SeatPlayedByBot("blue", 1, "absent"),
    ev.SeatReclaimed(1, "p1"),
    ev.PlayerResigned(2, "p2", ("red",)),
    ev.GameEnded(
        "last_ocean_drawn",
        (ev.PlayerScore("p1", ("blue",), 7, 2, 3, 1), ev.PlayerScore("p2", ("red",), 9, 2, 3, 2)),
        ("p1",),
        "none",
        resigned=("p2",),
    ),
    ev.TakebackRequested(1, "p1", 12, "{}"),
    ev.TakebackAccepted(2, "p2"),
    ev.TakebackRefused(2, "p2"),
    ev.TakebackWithdrawn(1, "p1"),
    ev.TakebackExpired(1, "p1"),
    ev.MovesTakenBack(1, "p1", 12, "{}"),
    ev.EndProposed(1, "p1"),
    ev.EndAccepted(2, "p2"),
    ev.EndDeclined(2, "p2"),
    ev.EndProposalWithdrawn(1, "p1"),
    ev.EndProposalExpired(1, "p1"),
    AwayAnnounced(1, "p1", "2026-12-10T14:00:00+00:00", "2026-12-17T14:00:00+00:00"),
    ev.GameEnded(
        "agreement", (ev.PlayerScore("p1", ("blue",), 7, 2, 3, 1),), ("p1",), "none", "T6"
    ),
]


def test_every_command_and_event_type_has_a_sample():
    assert {type(c).__name__ for c in SAMPLE_COMMANDS} == set(COMMANDS)
    assert {type(e).__name__ for e in SAMPLE_EVENTS} == set(EVENTS)


@pytest.mark.parametrize("command", SAMPLE_COMMANDS, ids=lambda c: type(c).__name__)
def test_a_command_round_trips_through_json(command):
    data = json.loads(json.dumps(encode(command)))
    assert decode_command(data) == command


@pytest.mark.parametrize("event", SAMPLE_EVENTS, ids=lambda e: type(e).__name__)
def test_an_event_round_trips_through_json_without_floats(event):
    text = json.dumps(encode(event))
    assert "." not in "".join(ch for ch in text if not ch.isalpha())  # no float literals
    assert decode_event(json.loads(text)) == event


@pytest.mark.parametrize(
    "data, message",
    [
        ({"type": "Fly"}, "unknown command type"),
        ([], "JSON object"),
        ({"type": "Emigrate", "island": "tonga", "beach": 0}, "missing field jetty"),
        ({"type": "Emigrate", "island": "tonga", "beach": 0, "jetty": 0, "x": 1}, "unknown field"),
        ({"type": "Emigrate", "island": "tonga", "beach": "0", "jetty": 0}, "expected an integer"),
        ({"type": "Emigrate", "island": "tonga", "beach": True, "jetty": 0}, "expected an integer"),
        ({"type": "Emigrate", "island": "tonga", "beach": 1.0, "jetty": 0}, "expected an integer"),
        ({"type": "PlaceTile", "tile": "ocean1", "cell": [1], "rotation": 0}, "expected 2 items"),
        ({"type": "Land", "island": "tonga", "beaches": [["blue", 3]]}, "expected a string"),
        (
            {"type": "Expand", "island": "tonga", "beaches": [1], "take_from": ["x"]},
            "expected 2 items",
        ),
    ],
)
def test_decoding_is_strict_and_names_the_field(data, message):
    with pytest.raises(MalformedPayload) as info:
        decode_command(data)
    assert message in str(info.value)
