"""Notifications told in the account's language (docs/i18n.md): a webhook's ``text``
(its ``lang`` said beside it; ``kind`` and every other member as they are) and a mail's
subject and body; a notice kept without its phrase, or for an account that chose no
language, is told in English."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from projections.phrases import say
from service.notifications import channels
from service.notifications.outbox import Delivery
from service.runtime.settings import Settings


def delivery(language: str | None, words: str | None, games: str | None = None) -> Delivery:
    return Delivery(
        "n1", "webhook", 0, "acc", "g1", 7, "your_move", "2026-12-06T10:00:00.000Z",
        "It is your move with Blue.", "https://hooks.example/x", "s", "a@example.org", games,
        words, language,
    )  # fmt: skip


WORDS = json.dumps(say("It is your move with {colour}.", colour=say("Blue")).data())


def test_a_webhook_text_speaks_the_accounts_language_and_keeps_the_rest():
    english = channels.notice(delivery(None, WORDS), "https://play.example")
    french = channels.notice(delivery("fr", WORDS), "https://play.example")
    assert english["text"] == "It is your move with Blue." and english["lang"] == "en"
    assert french["text"] == "C'est à vous de jouer avec Bleu." and french["lang"] == "fr"
    assert {k: v for k, v in french.items() if k not in ("text", "lang")} == {
        k: v for k, v in english.items() if k not in ("text", "lang")
    }
    assert channels.notice(delivery("it", None), "")["text"] == "It is your move with Blue."
    assert channels.notice(delivery("xx", WORDS), "")["lang"] == "en"
    assert channels.notice(delivery("it", "{broken"), "")["text"] == "It is your move with Blue."


def test_a_digest_and_its_mail_speak_it_too(monkeypatch):
    games = json.dumps([{"game_id": "g1", "version": 7}, {"game_id": "g2", "version": 3}])
    told = channels.notice(delivery("it", WORDS, games), "https://play.example")
    assert told["text"] == "Tocca a te in 2 partite."
    sent = []
    monkeypatch.setattr(channels, "hand_to_smtp", lambda url, m: (sent.append(m), (True, "ok"))[1])
    settings = Settings(smtp_url="smtp://mail.test", mail_from="t@example.org")
    assert channels.mail("a@example.org", told, settings, lambda: datetime.now(UTC))[0]
    assert sent[0]["Subject"] == "Tongiaki: Tocca a te in 2 partite."
    assert "- partita g2 (versione 3): https://play.example/games/g2" in sent[0].get_content()
    single = channels.notice(delivery("fr", WORDS), "https://play.example")
    channels.mail("a@example.org", single, settings, lambda: datetime.now(UTC))
    assert sent[1]["Subject"] == "Tongiaki : C'est à vous de jouer avec Bleu."
    assert "Partie g1, version 7 (" in sent[1].get_content()
