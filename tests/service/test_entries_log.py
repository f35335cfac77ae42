"""The log's entries (issue 28): one a commit of a stream, written one way only."""

from __future__ import annotations

import pytest

from service.transparency.entries import EntryError, HeadEntry

HEAD = "ab" * 32
DECK = "cd" * 32


def test_a_games_entry_and_a_disputes():
    entry = HeadEntry("game/g1", 12, HEAD, DECK)
    assert entry.data == f"tongiaki-head/v1\ngame/g1\n12\n{HEAD}\n{DECK}\n".encode()
    assert HeadEntry.parse(entry.data) == entry
    dispute = HeadEntry("dispute/d-7", 3, HEAD)
    assert dispute.data.endswith(b"\n-\n") and HeadEntry.parse(dispute.data) == dispute


@pytest.mark.parametrize(
    "fields",
    [
        ("games/g1", 1, HEAD, DECK),
        ("game/", 1, HEAD, DECK),
        ("game/g 1", 1, HEAD, DECK),
        ("game/g1", 0, HEAD, DECK),
        ("game/g1", 2**63, HEAD, DECK),
        ("game/g1", 1, HEAD.upper(), DECK),
        ("game/g1", 1, HEAD[:-2], DECK),
        ("game/g1", 1, HEAD, "-"),  # a game has a deck
        ("dispute/d1", 1, HEAD, DECK),  # a dispute has none
    ],
)
def test_what_is_not_an_entry(fields):
    with pytest.raises(EntryError):
        HeadEntry(*fields)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        f"tongiaki-head/v2\ngame/g1\n1\n{HEAD}\n{DECK}\n".encode(),
        f"tongiaki-head/v1\ngame/g1\n01\n{HEAD}\n{DECK}\n".encode(),
        f"tongiaki-head/v1\ngame/g1\n1\n{HEAD}\n{DECK}".encode(),
        f"tongiaki-head/v1\ngame/g1\n1\n{HEAD}\n{DECK}\n\n".encode(),
        f"tongiaki-head/v1\r\ngame/g1\n1\n{HEAD}\n{DECK}\n".encode(),
        "tongiaki-head/v1\ngame/gé\n1\n".encode(),
    ],
)
def test_what_bytes_are_not_an_entry(data):
    with pytest.raises(EntryError):
        HeadEntry.parse(data)
