"""Reference pages: the rules (docs/rules.md), the tiles, and one page per problem type.

A problem document's ``type`` (``/problems/<code>``) opens a page saying what the
code means, which HTTP statuses carry it and, for the engine's refusals, every
rule it can cite, each linked to its place in the rules.
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt

from service.http.language import picker
from service.http.problems import ProblemType, catalogue
from service.i18n.catalogs import N_, fill, gettext
from service.i18n.locales import DEFAULT

DOCS = Path(__file__).parent / "docs"  # links to the repository's docs/
PAGES = {
    "rules": N_("The rules"),
    "tiles": N_("The tiles"),
    "disputes": N_("Disputes"),
    "clocks": N_("Clocks"),
    "transparency": N_("The public log"),
    "accounts": N_("Accounts"),
    "table": N_("At the table"),
    "chat": N_("Chat"),
    "notes": N_("Private notes"),
    "ratings": N_("Ratings"),
    "vacation": N_("Vacation"),
    "invitations": N_("Invitations and rematches"),
    "profiles": N_("Profiles"),
    "leagues": N_("Leagues"),
    "bots": N_("Bots"),
    "notation": N_("Game notation (TGN)"),
    "forks": N_("Analysis forks"),
    "i18n": N_("Languages"),
}
# where a rule id is written: R… the rules, D… the dispute procedure, C… the clocks,
# T… the offers at the table, M… the chat, N… private notes, G… ratings, V… vacation,
# I… private tables and invitations, RM… rematches (both docs/invitations.md),
# P… profiles, Q… the "my move" queue (both docs/profiles.md), L… leagues, F… forks
RULE_DOCS = {
    "R": "rules", "D": "disputes", "C": "clocks", "T": "table", "M": "chat", "N": "notes",
    "G": "ratings", "V": "vacation", "I": "invitations", "RM": "invitations",
    "P": "profiles", "Q": "profiles", "L": "leagues", "F": "forks", "B": "bots",
}  # fmt: skip
RULE = re.compile(r"R([1-9]|1[0-9]|2[0-5])")
SOURCES = {
    "engine": N_(
        "The rules engine refuses the command (R24): the game is unchanged, and the"
        " refusal is kept in the game's journal, for the record."
    ),
    "service": N_(
        "The service refuses the request: nothing changes (a seated player's command"
        " that cannot be read is kept in the game's journal as refused)."
    ),
    "http": N_("The HTTP server refuses the request: nothing changes."),
}


NAV = [
    ("/docs/rules", N_("Rules")),
    ("/docs/tiles", N_("Tiles")),
    ("/docs/disputes", N_("Disputes")),
    ("/docs/clocks", N_("Clocks")),
    ("/docs/transparency", N_("Public log")),
    ("/docs/table", N_("At the table")),
    ("/docs/ratings", N_("Ratings")),
    ("/problems", N_("Errors")),
    ("/api/v1/docs", N_("API")),
]


def shell(title: str, body: str, lang: str = DEFAULT) -> str:
    """A reference page in ``lang``: the site's header (its language picker too) and
    style, no script. ``title`` is said as given."""
    links = " ".join(f'<a href="{href}">{escape(gettext(lang, label))}</a>' for href, label in NAV)
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"  <title>{escape(title)} — Tongiaki</title>\n"
        '  <link rel="icon" href="/favicon.ico">\n'
        '  <link rel="stylesheet" href="/static/style.css">\n</head>\n<body>\n'
        '  <header class="top"><a class="brand" href="/">Tongiaki</a>\n'
        f"  <nav>{links}</nav>\n  {picker(lang, keep_args=False)}</header>\n"
        f'  <main class="reference">\n{body}\n  </main>\n</body>\n</html>\n'
    )


def translated(name: str, lang: str) -> bool:
    """Whether ``docs/<lang>/<name>.md`` exists (every help page but docs/i18n.md)."""
    return lang != DEFAULT and (DOCS / lang / f"{name}.md").is_file()


@lru_cache(maxsize=64)
def document(name: str, lang: str = DEFAULT) -> str:
    """``docs/<name>.md`` as a page in ``lang`` where it is translated (``docs/<lang>/``,
    with the same rule ids and anchors), else the English with a line saying so; the
    files are the project's own, trusted text."""
    own = translated(name, lang)
    text = (DOCS / (f"{lang}/{name}.md" if own else f"{name}.md")).read_text(encoding="utf-8")
    text = re.sub(r"\]\((\w+)\.md(#[\w-]+)?\)", r"](/docs/\1\2)", text)
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    if lang != DEFAULT and not own:
        note = gettext(lang, "This page is not translated yet: here it is in English.")
        html = f'<p class="muted" lang="{lang}">{escape(note)}</p>\n<div lang="en">{html}</div>'
    return shell(gettext(lang, PAGES[name]), html, lang)


def rule_doc(rule: str) -> str:
    """The docs page a rule id is written in (RM… before R…)."""
    return RULE_DOCS.get(rule.rstrip("0123456789"), RULE_DOCS.get(rule[0], "rules"))


def _rule_order(rule: str) -> tuple[str, int]:
    """R1…R25 (rules.md), then C1…C7 (clocks.md), D1…D8 (disputes.md), M1…M9 (chat.md),
    N1…N6 (notes.md), T1…T8 (table.md), G1…G9 (ratings.md), V1…V9 (vacation.md),
    I1… and RM1… (invitations.md), P1… and Q1… (profiles.md), L1… (leagues.md), F1…
    (forks.md), B1… (bots.md)."""
    prefix = rule.rstrip("0123456789")
    order = ["R", "C", "D", "M", "N", "T", "G", "V", "I", "RM", "P", "Q", "L", "F", "B"]
    rank = order.index(prefix) if prefix in order else len(order)
    return (f"{rank:02d}", int(rule[len(prefix) :] or 0))


def problem_page(item: ProblemType, lang: str = DEFAULT) -> str:
    """What a problem code means, where it comes from, and the rules it cites, in
    ``lang`` (the messages as the English answer says them, then as ``lang`` does)."""
    statuses = ", ".join(str(s) for s in sorted(item.statuses))
    say = partial(gettext, lang)
    source = say(SOURCES[item.source])
    parts = [
        f"<h1><code>{escape(item.code)}</code></h1>",
        f"<p>{escape(say('HTTP status {statuses}.', statuses=statuses))} {escape(source)}</p>",
    ]
    code = "<code>rule</code>"
    if item.rules:
        links = ", ".join(
            f'<a href="/docs/{rule_doc(r)}#{escape(r)}">{escape(r)}</a>'
            for r in sorted(item.rules, key=_rule_order)
        )
        text = say(
            "Rules it cites: {links}. The answer's {rule} member names the one that applied."
        )
        parts.append(f"<p>{fill(escape(text), {'links': links, 'rule': code})}</p>")
    elif item.source == "engine":
        text = say(
            "It cites the rule of the decision at hand (the answer's {rule} member; {rules})."
        )
        rules = f'<a href="/docs/rules">{escape(say("the rules"))}</a>'
        parts.append(f"<p>{fill(escape(text), {'rule': code, 'rules': rules})}</p>")
    if item.messages:
        text = say("What the answer's {detail} says (… stands for the values of the moment):")
        parts.append(f"<p>{fill(escape(text), {'detail': '<code>detail</code>'})}</p>")
        parts.append("<ul>" + "".join(f"<li>{escape(m)}</li>" for m in item.messages) + "</ul>")
    parts.append(f'<p><a href="/problems">{escape(say("Every error code"))}</a></p>')
    return shell(item.code, "\n".join(parts), lang)


def problems_index(lang: str = DEFAULT) -> str:
    """Every code the service can answer with, grouped by where it comes from."""
    say = partial(gettext, lang)
    groups = {"engine": [], "service": [], "http": []}  # type: dict[str, list[str]]
    for code, item in sorted(catalogue().items()):
        rules = ", ".join(sorted(item.rules, key=_rule_order))
        note = f" ({escape(rules)})" if rules else ""
        groups[item.source].append(
            f'<li><a href="/problems/{escape(code)}"><code>{escape(code)}</code></a>{note}</li>'
        )
    titles = {
        "engine": say("Refused by the rules (409)"),
        "service": say("Refused by the service"),
        "http": say("Refused by HTTP"),
    }
    text = say("Every error answer is {media}; its {type} is the page of its {code}.")
    media = {
        "media": "<code>application/problem+json</code>",
        "type": "<code>type</code>",
        "code": "<code>code</code>",
    }
    body = [f"<h1>{escape(say('Error codes'))}</h1>", f"<p>{fill(escape(text), media)}</p>"]
    for source, items in groups.items():
        body.append(f"<h2>{titles[source]}</h2><ul>{''.join(items)}</ul>")
    return shell(say("Error codes"), "\n".join(body), lang)
