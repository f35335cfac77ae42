"""A problem's ``detail`` in the reader's language (``service.http.problem_words``): the
English detail is matched against its code's templates, the values of the moment
carried into the translation. For every template of every code, in each language: a
detail made from it with arbitrary values comes out as its translation with those
values; a detail no template matches stays English; titles too."""

from __future__ import annotations

import re

import pytest

from service.http import problem_words
from service.http.problems import catalogue
from service.i18n.catalogs import words
from service.i18n.locales import TRANSLATED

FIELD = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")


def filled(template: str, values: dict[str, str]) -> str:
    return FIELD.sub(lambda m: m[0][0] if m[1] is None else values[m[1]], template)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_template_of_every_code_carries_its_values_into_the_translation(lang):
    translated = words(lang, "messages").singular
    checked = 0
    for code, item in catalogue().items():
        for template in item.templates:
            names = [m[1] for m in FIELD.finditer(template) if m[1] is not None]
            values = {name: f"⟦{i}⟧" for i, name in enumerate(dict.fromkeys(names))}
            english = filled(template, values)
            said = problem_words.detail(lang, code, english)
            others = [t for t in item.templates if t != template]
            if any(re.fullmatch(problem_words._pattern(o)[0], english) for o in others):
                continue  # two templates of one code read alike: the longer one wins
            assert said == filled(translated[template], values), (code, template)
            checked += 1
    assert checked > 400


def test_a_detail_no_template_matches_stays_english_and_english_stays_english():
    text = "something said outside any template"
    assert problem_words.detail("fr", "unknown_game", text) == text
    assert problem_words.detail("fr", "no_such_code", text) == text
    assert (
        problem_words.detail("en", "unknown_game", "there is no game 'x'") == "there is no game 'x'"
    )
    assert problem_words.detail("fr", "unknown_game", "") == ""


def test_titles_are_translated_and_unknown_ones_kept():
    assert problem_words.title("fr", "Not found") == "Introuvable"
    assert problem_words.title("it", "Conflict") != "Conflict"
    assert problem_words.title("fr", "Teapot") == "Teapot"


def test_a_colour_in_a_detail_is_said_in_the_language_too():
    said = problem_words.detail("fr", "not_your_turn", "not your turn: it is blue's turn")
    assert said == "ce n'est pas votre tour : c'est au tour de bleu"
    assert (
        problem_words.detail("it", "colour_taken", "red is already taken")
        == "il colore rosso è già preso"
    )
