"""Disputes: a player contests a turn, an auditor rules (docs/disputes.md, D1–D8).

A dispute is its own stream of events, hash-chained like a game's, so filing
one never moves the game's version under the players. It is anchored to the
game's version and head hash when it was opened (and, optionally, to one
journalled command). This module is pure: who the actor is, whether they sit
at the game, how far the game has got and whether the filing window is still
open are facts the service passes in (``Facts``); the clock never enters.

Transitions (each refusal is a ``RuleViolation`` citing its D rule)::

    (none) --OpenDispute (a seated player, D1)--> open
    open   --AddNote (the game's players, auditors, D2)--> open
    open   --Assign (auditors, D3)--> open (assigned)
    open   --IssueRuling (auditors, D4)--> ruled
    open   --Withdraw (the player who opened it, D5)--> withdrawn

A ruling is *stands* (nothing changes), *rewind* (the game continues from the
position at ``to_version``; the service appends ``GameRewound``, D6) or
*result_amended* (the game is annulled, or its final ranking is the one stated).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Literal

from domain.errors import RuleViolation

REASONS = ("rule_applied_wrongly", "unfair_draw", "misclick", "connection_or_timing", "other")
DECISIONS = ("stands", "rewind", "result_amended")
TEXT_LIMIT = 2000  # characters of a reason's text, a note or a ruling's reasoning
RULES_CITED_LIMIT = 10
# rules, disputes, clocks, offers at the table (docs/table.md)
RULE_ID = re.compile(r"^(R([1-9]|1[0-9]|2[0-5])|D[1-8]|C[1-7]|T[1-8])$")

Status = Literal["open", "ruled", "withdrawn"]


# --- commands ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenDispute:
    """A seated player contests the game at ``version`` (and optionally one command)."""

    reason: str
    text: str
    version: int
    command_id: str | None = None


@dataclass(frozen=True, slots=True)
class AddNote:
    """A note or a piece of evidence in words."""

    text: str


@dataclass(frozen=True, slots=True)
class Assign:
    """An auditor takes the dispute (``auditor`` is an auditor's account id)."""

    auditor: str


@dataclass(frozen=True, slots=True)
class IssueRuling:
    """An auditor decides, with reasoning and the rule ids relied on."""

    decision: str
    reasoning: str
    rules: tuple[str, ...]
    to_version: int | None = None  # rewind: the game continues from this version
    annulled: bool = False  # result_amended: the game counts for nobody
    ranking: tuple[str, ...] | None = None  # result_amended: player ids, first first


@dataclass(frozen=True, slots=True)
class Withdraw:
    """The player who opened the dispute takes it back."""


DisputeCommand = OpenDispute | AddNote | Assign | IssueRuling | Withdraw


# --- events --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DisputeOpened:
    """A dispute on ``game_id`` at ``version``, whose event had hash ``game_hash`` then: the
    anchor that shows later whether the record there was ever rewritten (D1)."""

    dispute_id: str
    game_id: str
    opened_by: str
    reason: str
    text: str
    version: int
    game_hash: str
    command_id: str | None = None
    rule: str = "D1"


@dataclass(frozen=True, slots=True)
class DisputeNoteAdded:
    """A note by a player of the game or an auditor (D2)."""

    author: str
    role: str  # "player" | "auditor"
    text: str
    rule: str = "D2"


@dataclass(frozen=True, slots=True)
class DisputeAssigned:
    """An auditor took the dispute (D3)."""

    auditor: str
    assigned_by: str
    rule: str = "D3"


@dataclass(frozen=True, slots=True)
class RulingIssued:
    """The ruling: ``decision`` with ``reasoning`` and the ``rules`` relied on (D4)."""

    auditor: str
    decision: str
    reasoning: str
    rules: tuple[str, ...]
    to_version: int | None = None
    annulled: bool = False
    ranking: tuple[str, ...] | None = None
    rule: str = "D4"


@dataclass(frozen=True, slots=True)
class DisputeWithdrawn:
    """The player who opened it withdrew the dispute (D5)."""

    by: str
    rule: str = "D5"


DisputeEvent = DisputeOpened | DisputeNoteAdded | DisputeAssigned | RulingIssued | DisputeWithdrawn
EVENT_TYPES: dict[str, type[DisputeEvent]] = {
    t.__name__: t
    for t in (DisputeOpened, DisputeNoteAdded, DisputeAssigned, RulingIssued, DisputeWithdrawn)
}


# --- state ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dispute:
    """A dispute as its events leave it."""

    dispute_id: str
    game_id: str
    opened_by: str
    reason: str
    text: str
    version: int
    game_hash: str
    command_id: str | None
    status: Status = "open"
    assigned_to: str | None = None
    notes: int = 0
    ruling: RulingIssued | None = None
    withdrawn_by: str | None = None


def fold(events: list[DisputeEvent] | tuple[DisputeEvent, ...]) -> Dispute:
    """The dispute its events describe (the first must be ``DisputeOpened``)."""
    if not events or not isinstance(events[0], DisputeOpened):
        raise ValueError("a dispute's stream begins with DisputeOpened")
    first = events[0]
    state = Dispute(
        first.dispute_id,
        first.game_id,
        first.opened_by,
        first.reason,
        first.text,
        first.version,
        first.game_hash,
        first.command_id,
    )
    for e in events[1:]:
        state = evolve(state, e)
    return state


def evolve(state: Dispute, event: DisputeEvent) -> Dispute:
    """One event folded into the dispute."""
    if isinstance(event, DisputeNoteAdded):
        return replace(state, notes=state.notes + 1)
    if isinstance(event, DisputeAssigned):
        return replace(state, assigned_to=event.auditor)
    if isinstance(event, RulingIssued):
        return replace(state, status="ruled", ruling=event)
    if isinstance(event, DisputeWithdrawn):
        return replace(state, status="withdrawn", withdrawn_by=event.by)
    raise ValueError(f"{type(event).__name__} cannot follow the opening of a dispute")


# --- deciding ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Facts:
    """What the service knows about the actor and the game when a command arrives.

    ``seated``: the actor holds a seat in the disputed game. ``auditor``: the
    actor is an auditor. ``game_version``: the game's head now; ``game_hash``: the hash of
    the event at the version a dispute is opened on (the anchor; D1).
    ``window_open``: the game is under way, or ended less than the filing window
    ago (a setting). ``players``: the game's seated player ids (for a ranking).
    ``auditors``: whether an account id is an auditor's (for an assignment).
    """

    actor: str
    seated: bool
    auditor: bool
    game_version: int
    game_hash: str
    window_open: bool
    players: tuple[str, ...] = ()
    auditor_ids: frozenset[str] = frozenset()


def _text(value: str, what: str, rule: str, *, required: bool = True) -> None:
    """Words a reader sees as written: lines and tabs, but no control or format characters
    (bidi overrides, zero-width marks, line and paragraph separators), and, if required,
    something visible."""
    for ch in value:
        if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Co"):
            raise RuleViolation(
                "invisible_text",
                rule,
                f"{what} holds a character a reader would not see (U+{ord(ch):04X})",
            )
    if required and not any(not ch.isspace() for ch in value):
        raise RuleViolation("text_required", rule, f"{what} must say something")
    if len(value) > TEXT_LIMIT:
        raise RuleViolation("text_too_long", rule, f"{what} is at most {TEXT_LIMIT} characters")


def open_dispute(dispute_id: str, game_id: str, c: OpenDispute, f: Facts) -> DisputeOpened:
    """D1: a seated player of the game, while it runs or within the window after its end."""
    if not f.seated:
        raise RuleViolation(
            "not_a_player", "D1", "only a player seated in this game may open a dispute"
        )
    if not f.window_open:
        raise RuleViolation(
            "dispute_window_closed", "D1", "the game ended longer ago than disputes may be opened"
        )
    if c.reason not in REASONS:
        raise RuleViolation("unknown_reason", "D1", f"reason must be one of {', '.join(REASONS)}")
    _text(c.text, "the reason's text", "D1", required=c.reason == "other")
    if not 1 <= c.version <= f.game_version:
        raise RuleViolation(
            "version_out_of_range", "D1", f"the game's versions run from 1 to {f.game_version}"
        )
    return DisputeOpened(
        dispute_id, game_id, f.actor, c.reason, c.text, c.version, f.game_hash, c.command_id
    )


def decide(state: Dispute, command: DisputeCommand, f: Facts) -> list[DisputeEvent]:
    """The events a command on an existing dispute causes; ``RuleViolation`` if refused."""
    if isinstance(command, OpenDispute):
        raise RuleViolation("already_open", "D1", "this dispute has already been opened")
    if state.status != "open":
        raise RuleViolation(
            "dispute_closed", "D8", f"the dispute is {state.status}; it takes no more changes"
        )
    if isinstance(command, AddNote):
        if not (f.seated or f.auditor):
            raise RuleViolation(
                "not_a_party", "D2", "only the game's players and auditors may add notes"
            )
        _text(command.text, "a note", "D2")
        return [DisputeNoteAdded(f.actor, "auditor" if f.auditor else "player", command.text)]
    if isinstance(command, Assign):
        if not f.auditor:
            raise RuleViolation("auditors_only", "D3", "only an auditor may assign a dispute")
        if command.auditor not in f.auditor_ids:
            raise RuleViolation("not_an_auditor", "D3", "a dispute is assigned to an auditor")
        return [DisputeAssigned(command.auditor, f.actor)]
    if isinstance(command, Withdraw):
        if f.actor != state.opened_by:
            raise RuleViolation(
                "not_the_opener", "D5", "only the player who opened a dispute may withdraw it"
            )
        return [DisputeWithdrawn(f.actor)]
    return [_ruling(state, command, f)]


def _ruling(state: Dispute, c: IssueRuling, f: Facts) -> RulingIssued:
    """D4: auditors only, with reasoning and rule ids; D6 rewind bounds; amended results."""
    if not f.auditor:
        raise RuleViolation("auditors_only", "D4", "only an auditor may rule on a dispute")
    if c.decision not in DECISIONS:
        raise RuleViolation(
            "unknown_decision", "D4", f"decision must be one of {', '.join(DECISIONS)}"
        )
    _text(c.reasoning, "the reasoning", "D4")
    if not c.rules or len(c.rules) > RULES_CITED_LIMIT:
        raise RuleViolation(
            "rules_required", "D4", f"a ruling cites 1 to {RULES_CITED_LIMIT} rule ids"
        )
    if any(not RULE_ID.match(r) for r in c.rules):
        raise RuleViolation("unknown_rule", "D4", "rule ids are R1–R25, D1–D8, C1–C7 or T1–T8")
    if len(set(c.rules)) != len(c.rules):
        raise RuleViolation("duplicate_rule", "D4", "each rule id is cited once")
    rewind = c.decision == "rewind"
    amended = c.decision == "result_amended"
    if rewind != (c.to_version is not None):
        raise RuleViolation("to_version", "D6", "a rewind, and only a rewind, names to_version")
    if rewind and not f.window_open:
        raise RuleViolation(
            "dispute_window_closed", "D6", "an ended game is rewound only within the filing window"
        )
    if c.to_version is not None and not 1 <= c.to_version < f.game_version:
        raise RuleViolation(
            "version_out_of_range",
            "D6",
            f"a rewind goes back to a version from 1 to {f.game_version - 1}",
        )
    if not amended and (c.annulled or c.ranking is not None):
        raise RuleViolation(
            "amendment", "D4", "only a result_amended ruling annuls or ranks the game"
        )
    if amended:
        if c.annulled == (c.ranking is not None):
            raise RuleViolation(
                "amendment", "D4", "an amended result is either annulled or a stated ranking"
            )
        if c.ranking is not None and sorted(c.ranking) != sorted(f.players):
            raise RuleViolation(
                "ranking", "D4", "a ranking names every player of the game exactly once"
            )
    return RulingIssued(
        f.actor, c.decision, c.reasoning, tuple(c.rules), c.to_version, c.annulled, c.ranking
    )
