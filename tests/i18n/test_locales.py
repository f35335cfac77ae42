"""Which language a reader gets (docs/i18n.md): ``?lang=``, the picker's cookie, the
account's choice, ``Accept-Language``, English; a tag names a language by its primary
subtag, and anything else (too long, unknown) names none."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.i18n.locales import DEFAULT, MAX_TAG, SUPPORTED, choose, first_known, known


def test_a_tag_names_its_primary_language_whatever_its_region_or_case():
    assert known("fr") == known("fr-CA") == known("FR_fr") == known(" fr-Latn-BE ") == "fr"
    assert known("it-CH") == "it" and known("en-GB") == "en"
    assert known("de") is None and known("") is None and known(None) is None
    assert known("f" * (MAX_TAG + 1)) is None and known("fr-" + "x" * MAX_TAG) is None


def test_the_request_then_the_cookie_then_the_account_then_the_browser_then_english():
    assert choose("it", "fr", ["fr"], "fr") == "it"
    assert choose(None, "fr", ["it"], "it") == "fr"
    assert choose("xx", "zz", ["it"], "fr") == "it"  # unknown ones count as none
    assert choose(None, None, [None], "fr") == "fr"
    assert choose(None, None, [], None) == DEFAULT


def test_the_account_is_not_asked_when_the_request_or_cookie_chose():
    asked = []

    def account():
        asked.append(True)
        yield "it"

    assert choose("fr", None, account(), None) == "fr" and asked == []


@given(st.text(max_size=80), st.text(max_size=80), st.text(max_size=80))
def test_any_input_gives_a_language_the_service_speaks(asked, cookie, accepted):
    assert choose(asked, cookie, [cookie], accepted) in SUPPORTED


def test_the_browsers_first_language_the_service_speaks_wins_region_or_not():
    from werkzeug.datastructures import LanguageAccept
    from werkzeug.http import parse_accept_header

    def reader(header: str) -> str | None:
        return first_known(tag for tag, _ in parse_accept_header(header, LanguageAccept))

    assert reader("fr-CA,en-US;q=0.7,en;q=0.3") == "fr"  # Firefox's, in Canadian French
    assert reader("fr-FR,en;q=0.9") == "fr" and reader("it-IT,en;q=0.9") == "it"
    assert reader("de-CH,fr-CH;q=0.9,en;q=0.7") == "fr"
    assert reader("en;q=0.2,it-IT;q=0.9,fr;q=0.4") == "it"  # by quality, not by place
    assert reader("de, es") is None and reader("") is None
