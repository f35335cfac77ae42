"""What ``pybabel extract`` finds in the Python source: the ``gettext`` calls, and the
problem texts.

The refusals keep their English messages where they are raised (``RuleViolation`` in
``domain/``, a ``ServiceError`` in ``service/``), so the engine knows no language; this
pybabel method (``service/i18n/babel-messages.cfg``) reads each one as a template, its
f-string fields as ``{expr}`` (``service.http.problems.refusals``), and, in
``service/http/problems.py``, the problem titles and what the framework and servers
answer themselves. ``service.http.problem_words`` translates an answer's detail by
matching it against these very templates.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from babel.messages.extract import extract_python

from service.http.problems import ROOT, http_problems, refusals, titles

Found = tuple[Any, ...]  # Babel's (line, funcname, message, comments)


def problem_texts(
    fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str], options: Any
) -> Iterator[Found]:
    """The refusal templates of one module (a Babel extraction method)."""
    yield from extract_python(fileobj, keywords, comment_tags, options)
    path = Path(getattr(fileobj, "name", "")).resolve()
    if not path.is_relative_to(ROOT):
        return
    for refusal in refusals(path):
        if refusal.template:
            yield refusal.line, None, refusal.template, [f"problem {refusal.code}"]
    if path == ROOT / "service" / "http" / "problems.py":
        for title in titles():
            yield 1, None, title, ["problem title"]
        for code, _status, text in http_problems():
            if text:
                yield 1, None, text.replace("{", "{{").replace("}", "}}"), [f"problem {code}"]
