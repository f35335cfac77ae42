"""TGN that is malformed, or says what the rules refuse, is refused with its line and
column (docs/notation.md); comments and variations are read, and a variation is played
from the position before the decision it replaces."""

from __future__ import annotations

import pytest

from domain.notation import NotationError, export, load, parse, write
from tests.notation.games import recorded


@pytest.fixture(scope="module")
def text() -> str:
    commands, events = recorded(2, 4)
    return export(commands, events)


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if line.startswith(start))


def refused(text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        load(text)
    return caught.value


def test_a_word_no_decision_has_names_its_line_and_column(text):
    n = line_of(text, "9. ")
    broken = text.replace("9. Purple expands on Tonga", "9. Purple expends on Tonga")
    error = refused(broken)
    assert error.line == n and error.column == len("9. Purple ") + 1
    assert "no decision reads" in error.reason


def test_an_island_or_a_beach_that_is_not_there(text):
    error = refused(
        text.replace("9. Purple expands on Tonga: S, NW", "9. Purple expands on Atlantis: S")
    )
    assert error.line == line_of(text, "9. ") and "no island is called 'Atlantis'" in error.reason
    assert error.column == len("9. Purple expands on ") + 1
    error = refused(
        text.replace("9. Purple expands on Tonga: S, NW", "9. Purple expands on Hawaii: S")
    )
    assert "not on the table" in error.reason


def test_a_move_the_rules_refuse_names_the_rule(text):
    error = refused(
        text.replace("9. Purple expands on Tonga: S, NW", "9. Purple expands on Tonga: S")
    )
    assert error.line == line_of(text, "9. ") and "the rules refuse it" in error.reason


def test_the_wrong_colour_the_wrong_number_and_the_wrong_draws(text):
    error = refused(text.replace("9. Purple expands", "9. Blue expands"))
    assert "Blue has no decision here" in error.reason
    error = refused(text.replace("\n9. Purple", "\n10. Purple", 1))
    assert "decision 9 was expected here, not 10" in error.reason
    error = refused(text.replace(" — draws Hawaii", "", 1))
    assert error.line == line_of(text, "10. ")
    assert "the line says nothing" in error.reason
    n = line_of(text, "10. ")
    # the seed says what each line draws: a wrong tile is named on its own line
    error = refused(text.replace("— draws Hawaii", "— draws Samoa", 1))
    assert error.line == n and "it draws Hawaii; the line says Samoa" in error.reason
    error = refused(text.replace("— draws Hawaii", "— draws Hawaii, Hawaii", 1))
    assert error.line == n and "the line says Hawaii, Hawaii" in error.reason
    # without a seed (a game under way), a tile listed twice is named where it repeats
    unseeded = "\n".join(line for line in text.splitlines() if not line.startswith("[Seed "))
    error = refused(unseeded.replace("— draws Hawaii", "— draws Hawaii, Hawaii", 1))
    assert error.line == line_of(unseeded, "10. ") and "Hawaii was drawn already" in error.reason


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda t: t.replace('[Deck "', '[Deck "x', 1), "deck algorithm must be"),
        (lambda t: t.replace('[Seat2 "', '[Seat7 "', 1), "seats are"),
        (lambda t: t.replace('[Game "sim-2"]', '[Game "sim-2"', 1), 'a tag reads [Name "value"]'),
        (lambda t: t + '[Late "tag"]\n', "tags come before the first decision"),
        (lambda t: t.replace("\n9. ", "\n9 ", 1), "starts with its number and a dot"),
        (lambda t: t + ")\n", "a ')' closes no variation"),
        (lambda t: t + "(\n", "never closed"),
        (
            lambda t: t.replace(
                "\n9. Purple expands on Tonga: S, NW", "\n9. Purple expands {x on Tonga: S, NW", 1
            ),
            "a comment is one",
        ),
        (lambda t: t.replace('[Result "', '[Result "nobody 0, ', 1), "the Result tag says"),
        (lambda t: t.replace("\n9. ", "\n9. \n", 1), "starts with its number"),
    ],
)
def test_malformed_text_is_refused_by_line(text, change, said):
    error = refused(change(text))
    assert said in error.reason and error.line >= 1 and error.column >= 1, error


def test_the_tags_the_seed_and_the_result_are_named_on_their_own_lines(text):
    result_line = line_of(text, "[Result ")
    error = refused(text.replace('[Result "', '[Result "nobody 0, ', 1))
    assert error.line == result_line
    seed_line = line_of(text, "[Seed ")
    seed = text.splitlines()[seed_line - 1]
    error = refused(text.replace(seed, seed[:7] + "00" + seed[9:], 1))
    assert error.line == seed_line and "commitment" in error.reason, error
    assert refused("").reason.startswith("the record is empty")
    error = refused('[Game "g"]\n')
    assert "is missing or wrong" in error.reason
    assert load("\ufeff" + text).state.phase.value == "ended"  # a byte-order mark
    lowered = text.replace("expands on Tonga: S, NW", "expands on tonga: S, NW", 1)
    assert load(lowered).state.phase.value == "ended"


def test_a_game_that_ends_needs_its_seed(text):
    stripped = "\n".join(line for line in text.splitlines() if not line.startswith("[Seed "))
    error = refused(stripped + "\n")
    assert "[Seed]" in error.reason


def test_oversized_text_is_refused_before_reading():
    error = refused("x" * 2_000_001)
    assert error.line == 1 and "at most" in error.reason


def test_comments_and_a_variation_are_read_and_the_variation_played(text):
    lines = text.splitlines()
    n = line_of(text, "13. ")
    # a variation of decision 13, played from the position before it
    variation = ["(", "  " + lines[n - 1] + " {what if}", ")"]
    lines[n - 1] += " {a good move}"
    changed = "\n".join(lines[:n] + variation + lines[n:]) + "\n"
    loaded = load(changed)
    move = loaded.record.moves[12]
    assert move.comment == "a good move" and move.variations[0][0].comment == "what if"
    assert write(parse(changed)) == changed
    bad = changed.replace(variation[1], "  13. Blue founds a royal island on Tonga")
    error = refused(bad)
    assert error.line == n + 2 and "tonga_never_royal" in error.reason
