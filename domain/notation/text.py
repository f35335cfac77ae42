"""TGN as text: tags, numbered decisions, draws, comments and variations, written and
parsed (docs/notation.md has the grammar). Knows nothing of the rules: what a
decision's words mean is ``domain.notation.phrases``'s, played by ``domain.notation.game``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_TEXT = 2_000_000  # characters a record may have
MAX_DEPTH = 8  # variations inside variations
DRAWS = " — draws "
ASCII_DRAWS = " -- draws "


class NotationError(ValueError):
    """Text that is not TGN, or a decision the game cannot make: where and why."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line, self.column, self.reason = line, column, message


@dataclass
class Move:
    """One decision: its number, its words, the tiles it drew, a comment, and the
    variations that branch from the position before it."""

    number: int
    words: str
    draws: tuple[str, ...] = ()
    comment: str = ""
    variations: list[list[Move]] = field(default_factory=list)
    line: int = 0
    column: int = 0  # of the words (1-based)


@dataclass
class Record:
    """A whole TGN text: its tags in order, a comment before the first decision, the
    main line."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    comment: str = ""
    tag_lines: dict[str, int] = field(default_factory=dict)  # where each tag was read

    def line_of(self, tag: str) -> int:
        """The line a tag was read on (1 for a record written here)."""
        return self.tag_lines.get(tag, 1)


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _line(move: Move, indent: str) -> str:
    text = f"{indent}{move.number}. {move.words}"
    if move.draws:
        text += DRAWS + ", ".join(move.draws)
    if move.comment:
        text += " {" + move.comment.replace("}", ")") + "}"
    return text


def _write_moves(moves: list[Move], depth: int, out: list[str]) -> None:
    indent = "  " * depth
    for move in moves:
        out.append(_line(move, indent))
        for variation in move.variations:
            out.append(indent + "(")
            _write_moves(variation, depth + 1, out)
            out.append(indent + ")")


def write(record: Record) -> str:
    """The record as TGN text (ends with a newline)."""
    out = [f'[{key} "{_quoted(value)}"]' for key, value in record.tags.items()]
    out.append("")
    if record.comment:
        out.append("{" + record.comment.replace("}", ")") + "}")
    _write_moves(record.moves, 0, out)
    return "\n".join(out) + "\n"


_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]{0,31}) "((?:[^"\\]|\\.){0,4000})"\]')
_MOVE = re.compile(r"(\d{1,5})\. ")
_TILE_LIST = re.compile(
    r"[A-Z][A-Za-z0-9]*(?: [A-Z0-9][a-z0-9]*)?(?:, [A-Z][A-Za-z0-9]*(?: [A-Z0-9][a-z0-9]*)?)*"
)


def _split_comment(body: str, number: int, col: int) -> tuple[str, str]:
    """The decision's text and its ``{comment}`` (one per line, at its end)."""
    start = body.find("{")
    if start < 0:
        if "}" in body:
            raise NotationError(number, col + body.index("}"), "a '}' closes no comment")
        return body, ""
    if not body.endswith("}") or body.count("{") != 1 or body.count("}") != 1:
        raise NotationError(number, col + start, "a comment is one {…} at the end of its line")
    return body[:start].rstrip(), body[start + 1 : -1].strip()


def _move(text: str, number: int, col: int) -> Move:
    m = _MOVE.match(text)
    if m is None:
        raise NotationError(
            number, col, "a decision starts with its number and a dot: '12. Blue …'"
        )
    body, comment = _split_comment(text[m.end() :], number, col + m.end())
    words: str = body
    draws: tuple[str, ...] = ()
    for marker in (DRAWS, ASCII_DRAWS):
        if marker in body:
            words, listed = body.split(marker, 1)
            if not _TILE_LIST.fullmatch(listed):
                at = col + m.end() + len(words) + len(marker)
                raise NotationError(
                    number, at, f"draws lists tiles by name, comma-separated: {listed[:40]!r}"
                )
            draws = tuple(listed.split(", "))
            break
    if not words.strip():
        raise NotationError(number, col + m.end(), "a decision says what was done")
    return Move(int(m[1]), words.strip(), draws, comment, [], number, col + m.end())


def parse(text: str) -> Record:
    """A TGN text as a record (``NotationError`` names the line and column)."""
    if len(text) > MAX_TEXT:
        raise NotationError(1, 1, f"a record is at most {MAX_TEXT:,} characters")
    text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors save
    if not text.strip():
        raise NotationError(1, 1, "the record is empty: TGN starts with its tags")
    record = Record()
    stack: list[list[Move]] = [record.moves]
    in_tags = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.lstrip()
        col = len(line) - len(stripped) + 1
        if not stripped or stripped.startswith(";"):
            continue
        if stripped.startswith("["):
            if not in_tags:
                raise NotationError(number, col, "tags come before the first decision")
            _tag(record, stripped, number, col)
            continue
        in_tags = False
        if stripped.startswith("{") and not record.moves and len(stack) == 1:
            if not stripped.endswith("}"):
                raise NotationError(number, col, "a comment is closed on its line by '}'")
            record.comment = stripped[1:-1].strip()
            continue
        _body(stripped, stack, number, col)
    if len(stack) > 1:
        raise NotationError(len(text.splitlines()) or 1, 1, "a variation '(' is never closed")
    return record


def _tag(record: Record, text: str, number: int, col: int) -> None:
    m = _TAG.fullmatch(text)
    if m is None:
        raise NotationError(number, col, 'a tag reads [Name "value"]')
    if m[1] in record.tags:
        raise NotationError(number, col + 1, f"the tag {m[1]} is given twice")
    record.tags[m[1]] = re.sub(r"\\(.)", r"\1", m[2])
    record.tag_lines[m[1]] = number


def _body(text: str, stack: list[list[Move]], number: int, col: int) -> None:
    """A line of the moves: '(' opens a variation of the last decision, ')' closes one."""
    if text == "(":
        current = stack[-1]
        if not current:
            raise NotationError(number, col, "a variation follows the decision it replaces")
        if len(stack) > MAX_DEPTH:
            raise NotationError(number, col, f"variations nest at most {MAX_DEPTH} deep")
        variation: list[Move] = []
        current[-1].variations.append(variation)
        stack.append(variation)
        return
    if text == ")":
        if len(stack) == 1:
            raise NotationError(number, col, "a ')' closes no variation")
        if not stack[-1]:
            raise NotationError(number, col, "a variation holds at least one decision")
        stack.pop()
        return
    stack[-1].append(_move(text, number, col))
