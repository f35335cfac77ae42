"""The engine's error vocabulary (R24): one base, a stable code per violation."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every error the rules engine raises."""


class RuleViolation(DomainError):
    """A command the rules forbid (R24): stable ``code``, ``rule`` id, ``message``.

    Raising it never changes the game: ``decide`` is a pure function.
    """

    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(f"{code} ({rule}): {message}")
        self.code = code
        self.rule = rule
        self.message = message

    def __reduce__(self) -> tuple[type[RuleViolation], tuple[str, str, str]]:
        """Pickle by the three fields, so a violation crosses process boundaries intact."""
        return (type(self), (self.code, self.rule, self.message))

    def as_dict(self) -> dict[str, str]:
        """JSON-safe form: ``{"code", "rule", "message"}``."""
        return {"code": self.code, "rule": self.rule, "message": self.message}


class DeckRequired(DomainError):
    """A command needs a tile from the pile but ``decide`` was given no deck."""


class MalformedPayload(DomainError):
    """A command or event dict does not match its type (unknown type, bad field)."""


class DeckUnavailable(DomainError):
    """The deck cannot be derived: the game has not started, or the seed is not its own."""
