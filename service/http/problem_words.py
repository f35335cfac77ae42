"""A problem document in the reader's language: its ``title`` and ``detail``.

The service raises its refusals in English (the journal keeps them so, for the record);
only the answer is translated. A ``detail`` is matched against the templates its code's
refusals are written with (``service.http.problems``: ``"beach {i}: {why}"``), the
values of the moment taken from it and put into the template's translation. A detail
no template matches (a message built elsewhere) stays in English. ``code``, ``type``,
``rule`` and every other member never change with the language.
"""

from __future__ import annotations

import re
from functools import lru_cache

from service.http.problems import catalogue
from service.i18n.catalogs import words
from service.i18n.locales import DEFAULT

FIELD = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")


@lru_cache(maxsize=1024)
def _pattern(template: str) -> tuple[re.Pattern[str], tuple[str, ...], int]:
    """A template as a pattern of its English text, its fields in order, and how many
    literal characters it has (the more, the better a match)."""
    parts, fields, literal, at = [], [], 0, 0
    for match in FIELD.finditer(template):
        text = template[at : match.start()]
        parts.append(re.escape(text))
        literal += len(text)
        if match[1] is None:
            parts.append(re.escape(match[0][0]))
            literal += 1
        else:
            parts.append("(.*?)")
            fields.append(match[1])
        at = match.end()
    parts.append(re.escape(template[at:]))
    literal += len(template) - at
    return re.compile("".join(parts), re.S), tuple(fields), literal


# values said in the language too: the colours, as the engine names them (R1)
COLOURS = {"blue": "Blue", "red": "Red", "green": "Green", "yellow": "Yellow",
           "orange": "Orange", "purple": "Purple"}  # fmt: skip


def _filled(template: str, values: dict[str, str], lang: str) -> str:
    said = words(lang, "messages").singular

    def put(match: re.Match[str]) -> str:
        if match[1] is None:
            return match[0][0]
        value = values.get(match[1], match[0])
        if value in COLOURS:  # "blue" → "bleu"
            return said.get(COLOURS[value], COLOURS[value]).lower()
        return value

    return FIELD.sub(put, template)


def detail(lang: str, code: str, text: str) -> str:
    """``text``, the detail of a ``code`` problem, in ``lang`` (as it is without a
    template that matches it, or a translation of that template)."""
    if lang == DEFAULT or not text:
        return text
    item = catalogue().get(code)
    if item is None:
        return text
    translated = words(lang, "messages").singular
    best: tuple[int, str, dict[str, str]] | None = None
    for template in item.templates:
        if template not in translated:
            continue
        pattern, fields, literal = _pattern(template)
        match = pattern.fullmatch(text)
        if match is not None and (best is None or literal > best[0]):
            best = (literal, template, dict(zip(fields, match.groups(), strict=True)))
    if best is None:
        return text
    return _filled(translated[best[1]], best[2], lang)


def title(lang: str, text: str) -> str:
    """A problem's ``title`` in ``lang``."""
    return words(lang, "messages").singular.get(text, text) if lang != DEFAULT else text
