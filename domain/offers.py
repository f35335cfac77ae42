"""Offers at the table (docs/table.md, T1–T8): a takeback asked for by consent and an
end proposed by agreement — the events that record them and what a game keeps of an
open one.

An offer is made by one seat and answered by the others; it is decided only by the
answers (T3, T6), ends at the first refusal, its withdrawal, or when the game moves on
(T4). Every step is an event of the game's stream, so verification re-runs it like
any other command.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.frozen import quick_init


@dataclass(frozen=True, slots=True)
class TakebackRequest:
    """An open takeback (T1): ``seat`` asked to go back to ``to_version`` (the position
    before their last decision, given whole in ``position``, canonical JSON)."""

    seat: int
    player_id: str
    to_version: int
    position: str
    accepted: frozenset[int] = frozenset()  # seats that accepted so far (T3)


@dataclass(frozen=True, slots=True)
class EndOffer:
    """An open proposal to end the game now (T6) by ``seat``."""

    seat: int
    player_id: str
    accepted: frozenset[int] = frozenset()  # seats that accepted, the proposer's included


# --- takebacks (T1–T5) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TakebackRequested:
    """``player_id`` (``seat``) asked to take back their last decision (T1): the game
    would go back to the position at ``to_version``, given whole in ``position``."""

    seat: int
    player_id: str
    to_version: int
    position: str
    rule: str = "T1"


@dataclass(frozen=True, slots=True)
class TakebackAccepted:
    """A player accepted the open takeback (T3)."""

    seat: int
    player_id: str
    rule: str = "T3"


@dataclass(frozen=True, slots=True)
class TakebackRefused:
    """A player refused the open takeback: it ends (T3)."""

    seat: int
    player_id: str
    rule: str = "T3"


@dataclass(frozen=True, slots=True)
class TakebackWithdrawn:
    """The player who asked withdrew the takeback (T4)."""

    seat: int
    player_id: str
    rule: str = "T4"


@dataclass(frozen=True, slots=True)
class TakebackExpired:
    """The open takeback ended unanswered: the game moved on (a decision was taken, T4)."""

    seat: int
    player_id: str
    reason: str = "moved_on"
    rule: str = "T4"


@dataclass(frozen=True, slots=True)
class MovesTakenBack:
    """Every other player still playing accepted (T3): the game is back at the position
    of ``to_version`` (given whole in ``position``); the versions after it are set aside
    (they stay in the chain). No tile was drawn since (T2), so the pile is unchanged."""

    seat: int
    player_id: str
    to_version: int
    position: str
    rule: str = "T3"


# --- ending by agreement (T6) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EndProposed:
    """``player_id`` (``seat``) proposed to end the game now, scored as it stands (T6)."""

    seat: int
    player_id: str
    rule: str = "T6"


@dataclass(frozen=True, slots=True)
class EndAccepted:
    """A player accepted the proposal to end the game (T6)."""

    seat: int
    player_id: str
    rule: str = "T6"


@dataclass(frozen=True, slots=True)
class EndDeclined:
    """A player declined the proposal to end the game: it ends (T6)."""

    seat: int
    player_id: str
    rule: str = "T6"


@dataclass(frozen=True, slots=True)
class EndProposalWithdrawn:
    """The proposer withdrew the proposal to end the game (T4, T6)."""

    seat: int
    player_id: str
    rule: str = "T4"


@dataclass(frozen=True, slots=True)
class EndProposalExpired:
    """The proposal to end the game ended unanswered: the game moved on (T4)."""

    seat: int
    player_id: str
    reason: str = "moved_on"
    rule: str = "T4"


OFFER_EVENTS: tuple[type, ...] = (
    TakebackRequested,
    TakebackAccepted,
    TakebackRefused,
    TakebackWithdrawn,
    TakebackExpired,
    MovesTakenBack,
    EndProposed,
    EndAccepted,
    EndDeclined,
    EndProposalWithdrawn,
    EndProposalExpired,
)

for _type in (*OFFER_EVENTS, TakebackRequest, EndOffer):
    quick_init(_type)
