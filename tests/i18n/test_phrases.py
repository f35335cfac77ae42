"""Replay steps and notices said in French and Italian (``projections.phrases`` kept as
data, ``service.i18n.phrases`` rendering them): over seeded whole games, every phrase's
message is in each catalog, its English is the step's description as before, and what
is said has no field left unfilled; data that is not a phrase leaves the English."""

from __future__ import annotations

import json

import pytest

from domain.fold import evolve, replay
from domain.simulation import play
from projections.describe import describe, phrase
from projections.models import notices
from projections.phrases import Moment, listing, say, say_n
from service.i18n.catalogs import words
from service.i18n.locales import TRANSLATED
from service.i18n.phrases import MAX_DEPTH, Unreadable, described, render


def messages_of(data, found):
    """Every (msgid, plural) a phrase's data names, nested ones too."""
    if isinstance(data, dict):
        if "t" in data:
            found.add((data["t"], data.get("p")))
        for value in (data.get("v") or {}).values():
            messages_of(value, found)
        for item in data.get("l", []):
            messages_of(item, found)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_every_step_of_whole_games_is_said_in_each_language(seed):
    game = play(seed, 2 + seed % 4)
    state, names = replay([]), set()
    for event in game.events:
        said = phrase(event, state)
        data = json.loads(json.dumps(said.data()))
        assert said.english() == describe(event, state)
        messages_of(data, names)
        for lang in TRANSLATED:
            text = render(data, lang)
            assert text and "{" not in text, (lang, text)
        state = evolve(state, event)
    for lang in TRANSLATED:
        found = words(lang, "messages")
        missing = [m for m, p in names if (found.plural if p else found.singular).get(m) is None]
        assert not missing, (lang, missing)


def test_notices_of_a_whole_game_are_said_in_each_language():
    game = play(3, 3)
    told = notices(
        replay([]), [(i + 1, {"command_id": str(i)}, e) for i, e in enumerate(game.events)]
    )
    assert {n["kind"] for n in told} >= {"your_move", "game_over"}
    for n in told:
        for lang in TRANSLATED:
            text = render(n["words"], lang)
            assert text != n["text"] and "{" not in text, (lang, n["text"], text)


def test_counts_lists_and_moments_in_each_language():
    fleet = say(
        "{fleet} land on {island}",
        fleet=listing([say_n("{n} boat", "{n} boats", 2), "x"]),
        island="Tonga",
    )
    assert fleet.english() == "2 boats and x land on Tonga"
    assert render(fleet.data(), "fr") == "2 bateaux et x débarquent sur Tonga"
    assert render(fleet.data(), "it") == "2 barche e x sbarcano su Tonga"
    one = say_n("{n} boat", "{n} boats", 1)
    assert (one.english(), render(one.data(), "fr")) == ("1 boat", "1 bateau")
    moment = Moment("2026-12-06T14:05:00+00:00")
    assert moment.english() == "6 Dec 2026, 14:05 UTC"
    assert render(moment.data(), "fr") == "6 déc. 2026, 14:05 UTC"


def test_data_that_is_no_phrase_leaves_the_english():
    deep = {"t": "{x}", "v": {}}
    for _ in range(MAX_DEPTH + 2):
        deep = {"t": "{x}", "v": {"x": deep}}
    for bad in (deep, [1], {"t": 3}, {"l": "no"}, {"q": 1}, True):
        with pytest.raises(Unreadable):
            render(bad, "fr")
    step = {"version": 3, "description": "Blue ends turn 1", "words": "{not json"}
    assert described(step, "fr") == {"version": 3, "description": "Blue ends turn 1"}
    kept = json.dumps(say("{colour} ends turn {turn}", colour=say("Blue"), turn=1).data())
    assert described({**step, "words": kept}, "fr")["description"] == "Bleu termine le tour 1"
    assert described({**step, "words": kept}, "en")["description"] == "Blue ends turn 1"
    assert described({**step, "words": None}, "fr")["description"] == "Blue ends turn 1"
