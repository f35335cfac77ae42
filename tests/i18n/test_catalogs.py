"""The catalogs are whole and say what the English says (docs/i18n.md).

A message the source says but a catalog lacks, an empty or fuzzy translation, a field
(``{name}``) or a rule id (R13, C3, …) that the translation drops or adds: each fails
here, naming the catalog and the message. The templates (``.pot``) must be what the
source says now (``python -m service.i18n.refresh`` makes them so)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from service.i18n import refresh
from service.i18n.catalogs import DOMAINS, po_path
from service.i18n.locales import TRANSLATED

FIELDS = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")
RULE_IDS = re.compile(r"\b(?:RM|R|C|D|T|M|N|G|V|I|P|Q|L)[1-9][0-9]?\b")
CATALOGS = [(lang, domain) for lang in TRANSLATED for domain in DOMAINS]


def fields(text: str) -> set[str]:
    return {m[1] for m in FIELDS.finditer(text) if m[1] is not None}


def read(path: Path):
    with path.open("rb") as handle:
        return read_po(handle)


def ids(catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


@pytest.mark.parametrize(("lang", "domain"), CATALOGS)
def test_every_message_is_translated(lang: str, domain: str) -> None:
    template = read(refresh.template(domain))
    catalog = read(po_path(lang, domain))
    missing = sorted(ids(template) - ids(catalog))
    assert not missing, f"{lang}/{domain}.po lacks {len(missing)}: {missing[:5]}"
    assert not sorted(ids(catalog) - ids(template)), f"{lang}/{domain}.po has gone messages"
    untranslated = [
        m.id
        for m in catalog
        if m.id
        and (m.fuzzy or not all(m.string if isinstance(m.string, tuple | list) else [m.string]))
    ]
    assert not untranslated, (
        f"{lang}/{domain}.po: {len(untranslated)} untranslated or fuzzy: {untranslated[:5]}"
    )


@pytest.mark.parametrize(("lang", "domain"), CATALOGS)
def test_translations_keep_the_fields_and_rule_ids(lang: str, domain: str) -> None:
    wrong = []
    for m in read(po_path(lang, domain)):
        if not m.id or not m.string:
            continue
        if isinstance(m.id, str):
            pairs = [(m.id, m.string, fields(m.id))]
        else:  # each plural form: the plural's fields ({n} may be left out of a form)
            wanted = fields(m.id[1])
            pairs = [(m.id[1], form, wanted) for form in m.string]
        for english, text, wanted in pairs:
            got = fields(text)
            if got != wanted and not (
                isinstance(m.id, tuple) and wanted - {"n"} <= got <= wanted | fields(m.id[0])
            ):
                wrong.append((english, text, "fields"))
            if sorted(RULE_IDS.findall(english)) != sorted(RULE_IDS.findall(text)):
                wrong.append((english, text, "rule ids"))
    assert not wrong, f"{lang}/{domain}.po: {len(wrong)} differ from the English: {wrong[:5]}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_templates_are_what_the_source_says(domain: str, tmp_path: Path) -> None:
    fresh = tmp_path / f"{domain}.pot"
    refresh.extract(domain, fresh)
    now, kept = ids(read(fresh)), ids(read(refresh.template(domain)))
    assert now == kept, (
        f"{domain}.pot is stale (run python -m service.i18n.refresh):"
        f" new {sorted(now - kept)[:5]}, gone {sorted(kept - now)[:5]}"
    )
