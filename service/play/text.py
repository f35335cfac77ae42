"""What text a client may give the service (names, entropy): shown to others, so it
must show what it says.

Refused anywhere: control characters, lone surrogates, line and paragraph
separators, bidirectional overrides (a name could show itself as another, "Trojan
Source"), and invisible format characters (zero-width spaces, soft hyphens, byte
order marks, tag characters), except the zero-width joiner and non-joiner that
emoji and several scripts need. A name must also hold a visible character: not
only spaces, marks or blank-looking letters (Hangul fillers, the Braille blank).
"""

from __future__ import annotations

import sys
import unicodedata
from functools import cache

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: parts of words and emoji
# letters and symbols that print as nothing
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
INVISIBLE_CATEGORIES = ("Zs", "Zl", "Zp", "Cf", "Cc", "Mn", "Me", "Cs")
# an e-mail address as the service takes it (the API's schema, service.notifications.checks): a
# dot-atom local part of printable ASCII (RFC 5322 atext, dots only between atoms), a
# domain of LDH labels (no hyphen at either end) whose last one starts with a letter
# (so not a bare IPv4 address); so no control character (NUL, CR, LF, any Cc or Cf)
# ever reaches a store or a mail server
_ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_PATTERN = (
    f"^{_ATEXT}+(\\.{_ATEXT}+)*@({_LABEL}\\.)+[A-Za-z]([A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?$"
)


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be shown to other players as it is, or None."""
    for c in value:
        category = unicodedata.category(c)
        if category == "Cs":
            return "is valid UTF-8 text (no lone surrogates)"
        if category in ("Cc", "Zl", "Zp") or c in BIDI:
            return "has no control characters, line breaks or bidirectional overrides"
        if category == "Cf" and c not in JOINERS:
            return f"has no invisible characters (U+{ord(c):04X})"
    return None


def has_visible(value: str) -> bool:
    """Whether ``value`` shows at least one character."""
    return any(
        unicodedata.category(c) not in INVISIBLE_CATEGORIES and c not in BLANK for c in value
    )


def _ranges(test: object) -> str:
    """A regular-expression character class body of every code point ``test`` holds for."""
    parts = []
    start = None
    for cp in range(sys.maxunicode + 2):
        inside = cp <= sys.maxunicode and test(chr(cp))  # type: ignore[operator]
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            last = cp - 1
            parts.append(_escape(start) + (f"-{_escape(last)}" if last > start else ""))
            start = None
    return "".join(parts)


def _escape(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


@cache
def patterns() -> dict[str, str]:
    """The shape ``text_problem`` enforces, as a regular expression for the OpenAPI
    document (made once, when the document is): ``shown``, text others see. (That a name
    shows a visible character, ``has_visible``, is said in words: as a pattern, its class
    of invisible characters, repeated up to a name's length, is past the size the
    validators' regular-expression engines compile.)"""

    # lone surrogates (Cs) are left out: no JSON text that is valid UTF-8 carries one,
    # and regular-expression engines other than Python's refuse them in a class
    def surrogate(c: str) -> bool:
        return unicodedata.category(c) == "Cs"

    # and only the Basic Multilingual Plane: JSON Schema's regular expressions (ECMA-262)
    # name a character past U+FFFF by its surrogate pair, which other engines read as two
    # (the few format characters there are refused all the same, and said in words)
    refused = _ranges(
        lambda c: ord(c) <= 0xFFFF and not surrogate(c) and text_problem(c) is not None
    )
    return {"shown": f"^[^{refused}]*$"}
