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
}
# where a rule id is written: R… the rules, D… the dispute procedure, C… the clocks
RULE_DOCS = {"R": "rules", "D": "disputes", "C": "clocks"}
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
        ' <a href="/docs/transparency">Public log</a>'
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


def _rule_order(rule: str) -> tuple[str, int]:
    """R1…R25 (rules.md), then C1…C6 (clocks.md), then D1…D8 (disputes.md)."""
    return ({"R": "0", "C": "1"}.get(rule[0], "2"), int(rule[1:]))


def problem_page(item: ProblemType) -> str:
    """What a problem code means, where it comes from, and the rules it cites."""
    statuses = ", ".join(str(s) for s in sorted(item.statuses))
    parts = [
        f"<h1><code>{escape(item.code)}</code></h1>",
        f"<p>HTTP status {escape(statuses)}. {escape(SOURCES[item.source])}</p>",
    ]
    if item.rules:
        links = ", ".join(
            f'<a href="/docs/{RULE_DOCS.get(r[0], "rules")}#{escape(r)}">{escape(r)}</a>'
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
