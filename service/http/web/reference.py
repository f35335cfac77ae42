"""Reference pages: the rules (docs/rules.md), the tiles, and one page per problem type.

A problem document's ``type`` (``/problems/<code>``) opens a page saying what the
code means, which HTTP statuses carry it and, for the engine's refusals, every
rule it can cite, each linked to its place in the rules.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape
from pathlib import Path

from markdown_it import MarkdownIt

from service.http.problems import ProblemType, catalogue

DOCS = Path(__file__).parent / "docs"  # links to the repository's docs/
PAGES = {
    "rules": "The rules",
    "tiles": "The tiles",
    "disputes": "Disputes",
    "clocks": "Clocks",
    "transparency": "The public log",
    "accounts": "Accounts",
    "table": "At the table",
    "chat": "Chat",
    "notes": "Private notes",
    "ratings": "Ratings",
    "vacation": "Vacation",
    "invitations": "Invitations and rematches",
    "profiles": "Profiles",
    "leagues": "Leagues",
}
# where a rule id is written: R… the rules, D… the dispute procedure, C… the clocks,
# T… the offers at the table, M… the chat, N… private notes, G… ratings, V… vacation,
# I… private tables and invitations, RM… rematches (both docs/invitations.md),
# P… profiles, Q… the "my move" queue (both docs/profiles.md), L… leagues
RULE_DOCS = {
    "R": "rules", "D": "disputes", "C": "clocks", "T": "table", "M": "chat", "N": "notes",
    "G": "ratings", "V": "vacation", "I": "invitations", "RM": "invitations",
    "P": "profiles", "Q": "profiles", "L": "leagues",
}  # fmt: skip
RULE = re.compile(r"R([1-9]|1[0-9]|2[0-5])")
SOURCES = {
    "engine": (
        "The rules engine refuses the command (R24): the game is unchanged, and the"
        " refusal is kept in the game's journal, for the record."
    ),
    "service": (
        "The service refuses the request: nothing changes (a seated player's command"
        " that cannot be read is kept in the game's journal as refused)."
    ),
    "http": "The HTTP server refuses the request: nothing changes.",
}


def shell(title: str, body: str) -> str:
    """A reference page: the site's header and style, no script."""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"  <title>{escape(title)} — Tongiaki</title>\n"
        '  <link rel="icon" href="/favicon.ico">\n'
        '  <link rel="stylesheet" href="/static/style.css">\n</head>\n<body>\n'
        '  <header class="top"><a class="brand" href="/">Tongiaki</a>\n'
        '  <nav><a href="/docs/rules">Rules</a> <a href="/docs/tiles">Tiles</a>'
        ' <a href="/docs/disputes">Disputes</a> <a href="/docs/clocks">Clocks</a>'
        ' <a href="/docs/transparency">Public log</a> <a href="/docs/table">At the table</a>'
        ' <a href="/docs/ratings">Ratings</a>'
        ' <a href="/problems">Errors</a>'
        ' <a href="/api/v1/docs">API</a></nav></header>\n'
        f'  <main class="reference">\n{body}\n  </main>\n</body>\n</html>\n'
    )


@cache
def document(name: str) -> str:
    """``docs/<name>.md`` as a page (the file is the project's own, trusted text)."""
    text = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\((\w+)\.md(#[\w-]+)?\)", r"](/docs/\1\2)", text)
    return shell(PAGES[name], MarkdownIt("commonmark", {"html": True}).enable("table").render(text))


def rule_doc(rule: str) -> str:
    """The docs page a rule id is written in (RM… before R…)."""
    return RULE_DOCS.get(rule.rstrip("0123456789"), RULE_DOCS.get(rule[0], "rules"))


def _rule_order(rule: str) -> tuple[str, int]:
    """R1…R25 (rules.md), then C1…C7 (clocks.md), D1…D8 (disputes.md), M1…M9 (chat.md),
    N1…N6 (notes.md), T1…T8 (table.md), G1…G9 (ratings.md), V1…V9 (vacation.md),
    I1… and RM1… (invitations.md), P1… and Q1… (profiles.md), L1… (leagues.md)."""
    prefix = rule.rstrip("0123456789")
    order = ["R", "C", "D", "M", "N", "T", "G", "V", "I", "RM", "P", "Q", "L"]
    rank = order.index(prefix) if prefix in order else len(order)
    return (f"{rank:02d}", int(rule[len(prefix) :] or 0))


def problem_page(item: ProblemType) -> str:
    """What a problem code means, where it comes from, and the rules it cites."""
    statuses = ", ".join(str(s) for s in sorted(item.statuses))
    parts = [
        f"<h1><code>{escape(item.code)}</code></h1>",
        f"<p>HTTP status {escape(statuses)}. {escape(SOURCES[item.source])}</p>",
    ]
    if item.rules:
        links = ", ".join(
            f'<a href="/docs/{rule_doc(r)}#{escape(r)}">{escape(r)}</a>'
            for r in sorted(item.rules, key=_rule_order)
        )
        parts.append(
            f"<p>Rules it cites: {links}. The answer's <code>rule</code> member names the"
            " one that applied.</p>"
        )
    elif item.source == "engine":
        parts.append(
            "<p>It cites the rule of the decision at hand (see the answer's <code>rule</code>"
            ' member and <a href="/docs/rules">the rules</a>).</p>'
        )
    if item.messages:
        parts.append(
            "<p>What the answer's <code>detail</code> says (… stands for the values"
            " of the moment):</p>"
        )
        parts.append("<ul>" + "".join(f"<li>{escape(m)}</li>" for m in item.messages) + "</ul>")
    parts.append('<p><a href="/problems">Every error code</a></p>')
    return shell(item.code, "\n".join(parts))


def problems_index() -> str:
    """Every code the service can answer with, grouped by where it comes from."""
    groups = {"engine": [], "service": [], "http": []}  # type: dict[str, list[str]]
    for code, item in sorted(catalogue().items()):
        rules = ", ".join(sorted(item.rules, key=_rule_order))
        note = f" ({escape(rules)})" if rules else ""
        groups[item.source].append(
            f'<li><a href="/problems/{escape(code)}"><code>{escape(code)}</code></a>{note}</li>'
        )
    titles = {
        "engine": "Refused by the rules (409)",
        "service": "Refused by the service",
        "http": "Refused by HTTP",
    }
    body = [
        "<h1>Error codes</h1>",
        "<p>Every error answer is <code>application/problem+json"
        "</code>; its <code>type</code> is the page of its <code>code</code>.</p>",
    ]
    for source, items in groups.items():
        body.append(f"<h2>{titles[source]}</h2><ul>{''.join(items)}</ul>")
    return shell("Error codes", "\n".join(body))
