"""Which language a request is answered in, the language picker, and the pages' catalogs.

The reader's language (``service.i18n.locales.choose``): ``?lang=`` (which a page also
remembers: the answer sets the ``lang`` cookie, as the picker's links do), the ``lang``
cookie, the browser's ``Accept-Language``, else English. A signed-in account's choice
(``PUT /api/v1/me/language``) reaches a new browser as its cookie when it signs in, and
the account's mails and webhooks. Problem documents, page shells and reference pages
are said in it; ``code``, ``type``, rule ids and event names never change with it.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from html import escape
from urllib.parse import urlencode

from flask import Blueprint, Flask, Response, abort, g, has_request_context, request

from service.i18n.catalogs import browser_catalog, gettext, stamp
from service.i18n.locales import COOKIE, DEFAULT, NAMES, SUPPORTED, choose, first_known, known

YEAR = 365 * 24 * 3600
bp = Blueprint("language", __name__)


def reader_language() -> str:
    """This request's language (English outside a request)."""
    if not has_request_context():
        return DEFAULT
    found: str | None = g.get("tongiaki_language")
    if found is None:
        accepted = first_known(tag for tag, _ in request.accept_languages)
        found = choose(request.args.get("lang"), request.cookies.get(COOKIE), (), accepted)
        g.tongiaki_language = found
    return found


def remember(response: Response, lang: str) -> None:
    """The ``lang`` cookie set to ``lang`` for a year (the picker's choice)."""
    response.set_cookie(COOKIE, lang, max_age=YEAR, path="/", samesite="Lax", httponly=True)


def _remember_asked(response: Response) -> Response:
    """A request that asked for a language by ``?lang=`` is answered in it and leaves it
    remembered; every answer said in a language (a page, a problem, a timeline) says so
    (``Vary``)."""
    asked = known(request.args.get("lang"))
    if asked is not None and asked != request.cookies.get(COOKIE):
        remember(response, asked)
    said = g.get("tongiaki_language")
    if said is not None:  # the answer was said in a language
        response.vary.update(("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", said)
    return response


def install(app: Flask) -> None:
    """The blueprint (``/i18n/<lang>.json``) and the cookie the ``?lang=`` links set."""
    app.register_blueprint(bp)
    app.after_request(_remember_asked)


def picker(lang: str, keep_args: bool = True) -> str:
    """The language picker: a link per language to this very page in it (no script
    needed, so it works on the reference pages too), with the page's query arguments
    unless not ``keep_args``."""
    args = {}
    if keep_args and has_request_context():
        args = {k: v for k, v in request.args.items() if k != "lang"}
    path = request.path if has_request_context() else "/"
    links = []
    for code, name in NAMES.items():
        href = escape(f"{path}?{urlencode({**args, 'lang': code})}")
        current = ' aria-current="true"' if code == lang else ""
        # the name, or on phones its code (style.css): a link's name is what it shows
        links.append(
            f'<a href="{href}" hreflang="{code}" lang="{code}" title="{name}"{current}>'
            f'<span class="name">{name}</span><span class="code">{code.upper()}</span></a>'
        )
    label = escape(gettext(lang, "Language"))
    return f'<nav class="languages" id="languages" aria-label="{label}">{" ".join(links)}</nav>'


@lru_cache(maxsize=16)
def _catalog(lang: str, read_from: tuple[int, int]) -> tuple[bytes, str]:
    body = json.dumps(browser_catalog(lang), ensure_ascii=False, sort_keys=True).encode()
    return body, hashlib.sha256(body).hexdigest()[:16]


def catalog(lang: str) -> tuple[bytes, str]:
    """The pages' catalog of ``lang`` as served, and its version (a hash of it)."""
    return _catalog(lang, stamp(lang, "pages"))


@bp.get("/i18n/<lang>.json")
def pages_catalog(lang: str) -> Response:
    """What the pages' scripts load (``static/i18n.js``): cached for good when asked
    for by its version (``?v=``, as the page shell asks), else revalidated."""
    if lang not in SUPPORTED:
        abort(404)
    body, version = catalog(lang)
    response = Response(body, mimetype="application/json")
    response.set_etag(version)
    fresh = request.args.get("v") == version
    response.headers["Cache-Control"] = (
        f"public, max-age={YEAR}, immutable" if fresh else "no-cache"
    )
    response.make_conditional(request)
    return response
