"""A spell away announced at a game under way (docs/vacation.md, V4): the record that a
seated player of a game with vacation announced "away until …" while the game ran.

The engine keeps no clock: the event changes nothing in the position
(``domain.judge`` records it, ``domain.fold`` keeps nothing of it). The service stamps
it with the clock as it stands after it, the running decision's announced spells grown
by this one when the decision is that player's (``service.timing.clocks``), so a
decision already running when its player leaves stands still too; verification
recomputes that clock like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from domain.errors import RuleViolation


@dataclass(frozen=True, slots=True)
class AwayAnnounced:
    """``player_id`` (``seat``) announced a spell away from ``starts`` to ``until`` (ISO
    8601 times, UTC) while the game ran: the clocks of their decisions stand still then
    (V4)."""

    seat: int
    player_id: str
    starts: str
    until: str
    rule: str = "V4"


AWAY_EVENTS: tuple[type, ...] = (AwayAnnounced,)


def moment(text: str) -> datetime:
    """A spell's recorded time (ISO 8601 with its offset); RuleViolation otherwise."""
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise RuleViolation("bad_spell", "V5", f"not an ISO 8601 time: {text!r}") from exc
    if when.tzinfo is None:
        raise RuleViolation("bad_spell", "V5", f"a spell's times carry their offset: {text!r}")
    return when
