"""The translated help pages (``docs/fr/``, ``docs/it/``) say what the English says, in
the same shape: the same rule anchors in the same order (a refusal's link lands on the
same rule), the same headings, links and code spans (names of the API never change),
and each is served (``service/http/web/docs/<lang>/``) at the English page's address."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.http.web.reference import PAGES
from service.i18n.locales import TRANSLATED

DOCS = Path(__file__).resolve().parents[2] / "docs"
SERVED = Path(__file__).resolve().parents[2] / "service" / "http" / "web" / "docs"
PAIRS = [(lang, path.stem) for lang in TRANSLATED for path in sorted((DOCS / lang).glob("*.md"))]


def shape(text: str) -> tuple[list[str], int, list[str]]:
    anchors = re.findall(r'<a id="([^"]+)"></a>', text)
    headings = len(re.findall(r"^#+ ", text, re.M))
    links = sorted(re.findall(r"\]\(([^)]+)\)", text))
    return anchors, headings, links


def test_the_rules_clocks_and_disputes_are_translated_in_each_language():
    assert {"rules", "clocks", "disputes"} <= {name for lang, name in PAIRS if lang == "fr"}
    assert {"rules", "clocks", "disputes"} <= {name for lang, name in PAIRS if lang == "it"}


@pytest.mark.parametrize(("lang", "name"), PAIRS)
def test_a_translation_keeps_the_anchors_headings_links_and_code(lang, name):
    english = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    translated = (DOCS / lang / f"{name}.md").read_text(encoding="utf-8")
    assert shape(translated) == shape(english)
    code = set(re.findall(r"`[^`\n]+`", translated))
    missing = [c for c in sorted(set(re.findall(r"`[^`\n]+`", english))) if c not in code]
    assert not missing, missing[:10]


@pytest.mark.parametrize(("lang", "name"), PAIRS)
def test_a_translation_is_served_at_the_english_pages_address(lang, name):
    assert name in PAGES
    assert (SERVED / lang / f"{name}.md").is_file()
