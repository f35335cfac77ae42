"""Phrases said in a language: a replay step's description (``projections.phrases``,
kept as JSON data beside its English) rendered from the ``messages`` catalog.

A message the catalog lacks is said in English; a list is joined as the language
joins lists ("A, B et C"); a moment is written as the language writes dates. The data
is the read model's own, yet it is read with bounds: past ``MAX_DEPTH`` nested phrases,
or on anything but the shapes ``projections.phrases`` writes, the English stands.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from contextlib import suppress
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, NamedTuple

from babel import Locale
from babel.dates import format_datetime
from babel.lists import format_list

from service.i18n.catalogs import Words, fill, words
from service.i18n.locales import DEFAULT

MAX_DEPTH = 12


class Unreadable(ValueError):
    """Data that is not a phrase as ``projections.phrases`` writes one."""


def render(data: Any, lang: str) -> str:
    """``data`` (a phrase's JSON data, or a plain value) said in ``lang``."""
    return _render(data, _Speaker(lang, words(lang, "messages"), _locale(lang)), 0)


class _Speaker(NamedTuple):
    lang: str
    words: Words
    locale: Locale


@lru_cache(maxsize=8)
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def _render(data: Any, speaker: _Speaker, depth: int) -> str:
    if depth > MAX_DEPTH:
        raise Unreadable("phrase nested too deep")
    if isinstance(data, str | int) and not isinstance(data, bool):
        return str(data)
    if not isinstance(data, Mapping):
        raise Unreadable(f"not a phrase: {type(data).__name__}")
    if "t" in data:
        return _phrase(data, speaker, depth)
    if "l" in data:
        items = [_render(item, speaker, depth + 1) for item in _items(data["l"])]
        joined = data.get("j")
        if joined == "slash":
            return "/".join(items)
        if joined == "comma" or len(items) < 2:
            return ", ".join(items)
        return str(format_list(items, style="standard", locale=speaker.locale))
    if "d" in data:
        moment = datetime.fromisoformat(str(data["d"])).astimezone(UTC)
        pattern = "d MMM y, HH:mm 'UTC'"
        return str(format_datetime(moment, pattern, tzinfo=UTC, locale=speaker.locale))
    raise Unreadable("not a phrase")


def _items(value: Any) -> Iterable[Any]:
    if not isinstance(value, list):
        raise Unreadable("a list that is not one")
    return value


def _phrase(data: Mapping[str, Any], speaker: _Speaker, depth: int) -> str:
    msgid, values = data["t"], data.get("v") or {}
    if not isinstance(msgid, str) or not isinstance(values, Mapping):
        raise Unreadable("a phrase that is not one")
    said = {str(k): _render(v, speaker, depth + 1) for k, v in values.items()}
    found = speaker.words
    plural, n = data.get("p"), data.get("n")
    if isinstance(plural, str) and isinstance(n, int):
        forms = found.plural.get(msgid)
        text = forms[min(found.form(n), len(forms) - 1)] if forms else (msgid if n == 1 else plural)
        said.setdefault("n", str(n))
    else:
        text = found.singular.get(msgid, msgid)
    return fill(text, said)


def described(step: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A replay step as answered in ``lang``: its ``description`` said in it when the step
    keeps its phrase (``words``), else in English; ``words`` itself is not answered."""
    answer = {k: v for k, v in step.items() if k != "words"}
    kept = step.get("words")
    if lang != DEFAULT and isinstance(kept, str):
        with suppress(Unreadable, ValueError, KeyError, TypeError):  # else the English stands
            answer["description"] = render(json.loads(kept), lang)
    return answer
