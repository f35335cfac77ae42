"""Which languages the service speaks, and how one is chosen for a reader.

A reader's language is, in this order: the one asked for in the request (``?lang=``),
the one the language picker remembered (the ``lang`` cookie), the signed-in account's
choice, the browser's ``Accept-Language``, else English. Error codes, event names and
rule ids never change with it (docs/i18n.md).
"""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT = "en"
NAMES = {"en": "English", "fr": "Français", "it": "Italiano"}  # each in its own language
SUPPORTED = tuple(NAMES)
TRANSLATED = tuple(lang for lang in SUPPORTED if lang != DEFAULT)  # the ones with catalogs
COOKIE = "lang"
MAX_TAG = 35  # a language tag longer than this is no tag (BCP 47's practical bound)


def known(tag: str | None) -> str | None:
    """The supported language a tag names (``fr``, ``fr-CA``, ``IT_it``), else None."""
    if not tag or len(tag) > MAX_TAG:
        return None
    primary = tag.strip().replace("_", "-").split("-", 1)[0].lower()
    return primary if primary in NAMES else None


def first_known(tags: Iterable[str]) -> str | None:
    """The first of ``tags`` (Accept-Language's, best first) that names a language the
    service speaks: ``fr-CA, en;q=0.3`` is French (a region counts as its language,
    however an exact tag further down is written), ``de, it;q=0.5`` Italian."""
    for tag in tags:
        if (lang := known(tag)) is not None:
            return lang
    return None


def choose(
    asked: str | None, remembered: str | None, preferred: Iterable[str | None], accepted: str | None
) -> str:
    """The reader's language: ``asked`` (the request's), ``remembered`` (the picker's
    cookie), the first of ``preferred`` (the account's choice, read only when needed:
    an iterable), ``accepted`` (the best of Accept-Language), else English."""
    for tag in (asked, remembered):
        if (lang := known(tag)) is not None:
            return lang
    for tag in preferred:
        if (lang := known(tag)) is not None:
            return lang
        break
    return known(accepted) or DEFAULT
