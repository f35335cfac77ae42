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

import unicodedata

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: parts of words and emoji
# letters and symbols that print as nothing
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
INVISIBLE_CATEGORIES = ("Zs", "Zl", "Zp", "Cf", "Cc", "Mn", "Me", "Cs")
# an e-mail address as the service takes it (the API's schema, service.notify): a
# dot-atom local part of printable ASCII (RFC 5322 atext), a domain of LDH labels; so
# no control character (NUL, CR, LF, any Cc or Cf) ever reaches a store or a mail server
EMAIL_PATTERN = (
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+\Z"
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
