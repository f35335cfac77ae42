"""The compiled catalogs, and the words they give.

A catalog is ``locales/<lang>/LC_MESSAGES/<domain>.mo``, compiled from its ``.po``
when the package is installed (``service.i18n.build``). Where the ``.mo`` is missing
or older than its ``.po`` (a checkout whose catalogs changed since the install), the
``.po`` is compiled in memory instead, and a warning says to reinstall. A catalog is
kept per process, keyed by its files' modification times, so an edited catalog is
read again.

Messages name their values in braces (``{count} boats``); a value not given stays as
written. A message the catalog lacks is said in English, its own msgid.
"""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from service.i18n.locales import DEFAULT, TRANSLATED

LOCALES = Path(__file__).parent / "locales"
DOMAINS = ("messages", "pages")
FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
log = logging.getLogger(__name__)


@lru_cache(maxsize=16)
def po_path(lang: str, domain: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{domain}.po"


def mo_path(lang: str, domain: str) -> Path:
    return po_path(lang, domain).with_suffix(".mo")


@dataclass(frozen=True)
class Words:
    """One language's messages of one domain: singular ones by msgid, plural ones by
    their singular msgid (every form), and which form a count takes."""

    lang: str
    singular: Mapping[str, str]
    plural: Mapping[str, tuple[str, ...]]
    plural_expr: str

    def form(self, n: int) -> int:
        """The index of the plural form ``n`` takes (the catalog's ``Plural-Forms``)."""
        return int(_plural_function(self.plural_expr)(n))


def compile_po(po: Path) -> bytes:
    """A ``.po`` file compiled: the bytes of its ``.mo`` (fuzzy entries left out, as
    ``pybabel compile`` does)."""
    with po.open("rb") as handle:
        catalog = read_po(handle)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


ENGLISH = Words(DEFAULT, {}, {}, "(n != 1)")


RESTAT = 1.0  # seconds a catalog's files' times are trusted before they are looked at again
_seen: dict[tuple[str, str], tuple[float, tuple[int, int]]] = {}


def stamp(lang: str, domain: str) -> tuple[int, int]:
    """What a catalog is read from: its ``.po``'s and ``.mo``'s modification times (0 for
    a missing ``.mo``; English: none), as looked at within the last ``RESTAT`` seconds
    (a look is two ``stat`` calls; a page of 300 steps would make hundreds)."""
    if lang not in TRANSLATED:
        return (0, 0)
    now = time.monotonic()
    seen = _seen.get((lang, domain))
    if seen is not None and now - seen[0] < RESTAT:
        return seen[1]
    po, mo = po_path(lang, domain), mo_path(lang, domain)
    found = (po.stat().st_mtime_ns, mo.stat().st_mtime_ns if mo.exists() else 0)
    _seen[(lang, domain)] = (now, found)
    return found


def words(lang: str, domain: str) -> Words:
    """The messages of ``lang`` in ``domain`` (English: none, every msgid says itself)."""
    if lang not in TRANSLATED:
        return ENGLISH
    return _load(lang, domain, stamp(lang, domain))


@lru_cache(maxsize=16)
def _load(lang: str, domain: str, stamp: tuple[int, int]) -> Words:
    po, mo = po_path(lang, domain), mo_path(lang, domain)
    if stamp[1] >= stamp[0]:
        data = mo.read_bytes()
    else:
        log.warning(
            "%s is missing or older than its .po: compiled in memory (reinstall the"
            " package to compile the catalogs: docs/i18n.md)",
            mo,
        )
        data = compile_po(po)
    catalog: Catalog = read_mo(io.BytesIO(data))
    singular: dict[str, str] = {}
    plural: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, tuple | list):
            forms = tuple(message.string)
            if all(forms):
                plural[message.id[0]] = forms
        elif isinstance(message.string, str):
            singular[message.id] = message.string
    return Words(lang, singular, plural, catalog.plural_expr)


def N_(msgid: str) -> str:
    """``msgid`` as it is, marked for extraction: said in a language where it is used."""
    return msgid


def fill(text: str, values: Mapping[str, Any]) -> str:
    """``{name}`` fields replaced by their values; a field not given stays as written."""
    return FIELD.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], text)


def gettext(lang: str, msgid: str, **values: Any) -> str:
    """``msgid`` in ``lang`` (English when the catalog has no translation), filled."""
    return fill(words(lang, "messages").singular.get(msgid, msgid), values)


def ngettext(lang: str, singular: str, plural: str, n: int, **values: Any) -> str:
    """The form of a message for the count ``n`` (given to the fields as ``n`` too)."""
    found = words(lang, "messages")
    forms = found.plural.get(singular)
    if forms is None:
        text = singular if n == 1 else plural
    else:
        text = forms[min(found.form(n), len(forms) - 1)]
    return fill(text, {"n": n, **values})


def plural_categories(lang: str, plural_expr: str) -> dict[str, int]:
    """Which gettext form each CLDR plural category takes (what the browser's
    ``Intl.PluralRules`` says of a count), found by counting; a category that would need
    two forms is an error of the catalog's ``Plural-Forms``."""
    locale, function = Locale.parse(lang), _plural_function(plural_expr)
    found: dict[str, int] = {}
    for n in [*range(0, 1001), 10**4, 10**5, 10**6, 10**7]:
        category, form = locale.plural_form(n), function(n)
        if found.setdefault(category, form) != form:
            raise ValueError(f"{lang}: {plural_expr!r} gives {category} two forms")
    return found


@lru_cache(maxsize=16)
def _plural_function(expr: str) -> Any:
    from gettext import c2py

    return c2py(expr or "(n != 1)")


def browser_catalog(lang: str) -> dict[str, Any]:
    """What the pages' scripts load (``GET /i18n/<lang>.json``): the ``pages`` messages,
    plural ones as their list of forms, and which form each plural category takes."""
    found = words(lang, "pages")
    locale_lang = lang if lang in TRANSLATED else DEFAULT
    return {
        "lang": locale_lang,
        "plural": plural_categories(locale_lang, found.plural_expr),
        "messages": {**found.singular, **{k: list(v) for k, v in found.plural.items()}},
    }
