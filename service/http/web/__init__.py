"""The browser pages: lobby, game, replay and audit — plain HTML, CSS and JS modules.

No build step: the pages are static files that talk to the JSON API under
``/api/v1`` and follow live games through its server-sent events.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory
from flask.typing import ResponseReturnValue

from service.http.language import catalog, picker, reader_language
from service.http.problems import catalogue
from service.http.web.reference import PAGES as DOCUMENTS
from service.http.web.reference import document, problem_page, problems_index
from service.i18n.catalogs import N_, gettext

STATIC = Path(__file__).parent / "static"
SHELL = re.compile(r"\{\{(\w+)\}\}")
PAGES = {
    "lobby": "lobby",
    "game": "game",
    "replay": "replay",
    "audit": "audit",
    "disputes": "disputes",
    "dispute": "dispute",
    "account": "account",
    "signin": "signin",
    "leaderboard": "leaderboard",
    "profile": "profile",
    "leagues": "leagues",
    "fork": "fork",
}

bp = Blueprint("web", __name__, static_folder=str(STATIC), static_url_path="/static")


def page(name: str, title: str, game_id: str = "", dispute_id: str = "") -> Response:
    """The HTML shell of a page in the reader's language (``title`` is its English,
    translated here): its module script does the rest, with the catalog the shell
    names (``static/i18n.js``)."""
    lang = reader_language()
    fields = {
        "lang": lang,
        "catalog": catalog(lang)[1],
        "title": escape(gettext(lang, title)),
        "loading": escape(gettext(lang, "Loading…")),
        "languages": picker(lang),
        "page": name,
        "game": game_id,
        "dispute": dispute_id,
    }
    html = SHELL.sub(lambda m: fields[m[1]], (STATIC / "page.html").read_text(encoding="utf-8"))
    return Response(html, mimetype="text/html")


@bp.get("/")
def lobby() -> ResponseReturnValue:
    return page("lobby", N_("Tongiaki — lobby"))


@bp.get("/leaderboard")
def leaderboard() -> ResponseReturnValue:
    return page("leaderboard", N_("Tongiaki — leaderboard"))


@bp.get("/games/<game:game_id>")
def game(game_id: str) -> ResponseReturnValue:
    return page("game", N_("Tongiaki — game"), game_id)


@bp.get("/games/<game:game_id>/replay")
def replay(game_id: str) -> ResponseReturnValue:
    return page("replay", N_("Tongiaki — replay"), game_id)


@bp.get("/games/<game:game_id>/audit")
def audit(game_id: str) -> ResponseReturnValue:
    return page("audit", N_("Tongiaki — audit"), game_id)


@bp.get("/disputes")
def disputes() -> ResponseReturnValue:
    return page("disputes", N_("Tongiaki — disputes"))


@bp.get("/disputes/<dispute:dispute_id>")
def dispute(dispute_id: str) -> ResponseReturnValue:
    return page("dispute", N_("Tongiaki — dispute"), dispute_id=dispute_id)


@bp.get("/account")
def account() -> ResponseReturnValue:
    return page("account", N_("Tongiaki — account"))


@bp.get("/players/<account_id>")
def player(account_id: str) -> ResponseReturnValue:
    """A player's page (docs/profiles.md): the page asks the API for the profile."""
    return page("profile", N_("Tongiaki — player"))


@bp.get("/leagues")
def leagues() -> ResponseReturnValue:
    return page("leagues", N_("Tongiaki — leagues"))


@bp.get("/leagues/<league_id>")
def league(league_id: str) -> ResponseReturnValue:
    """A league's page (docs/leagues.md); the script asks for the league by its id."""
    return page("leagues", N_("Tongiaki — league"))


@bp.get("/forks/<fork:fork_id>")
def fork(fork_id: str) -> ResponseReturnValue:
    """An analysis fork (docs/forks.md): the script asks the API for it by its id."""
    return page("fork", N_("Tongiaki — analysis"))


@bp.get("/sign-in/link")
def sign_in_link() -> ResponseReturnValue:
    """A mailed link lands here; its secret is in the fragment, which the page posts."""
    response = page("signin", N_("Tongiaki — sign in"))
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    return send_from_directory(STATIC, "favicon.svg", mimetype="image/svg+xml")


@bp.get("/docs/<name>")
def docs(name: str) -> ResponseReturnValue:
    """The rules and the tiles, in the project's own words."""
    if name not in DOCUMENTS:
        abort(404)
    return Response(document(name, reader_language()), mimetype="text/html")


@bp.get("/problems")
def problems() -> ResponseReturnValue:
    """Every error code the service answers with."""
    return Response(problems_index(reader_language()), mimetype="text/html")


@bp.get("/problems/<code>")
def problem_type(code: str) -> ResponseReturnValue:
    """The page a problem document's ``type`` names."""
    item = catalogue().get(code)
    if item is None:
        abort(404)
    return Response(problem_page(item, reader_language()), mimetype="text/html")
