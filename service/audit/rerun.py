"""The journal against the events: accepted commands cover every event exactly, and
each one re-run gives its events (and its clock) again, under the rules it was recorded
with; a difference today's rules would make is listed as a rule change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from domain import RULES_VERSION, revisions
from domain import commands as cmd
from domain.errors import DeckUnavailable, DomainError
from domain.events import Event
from domain.fold import replay
from domain.play import deck_of, play
from domain.serialization import decode_command, encode
from domain.state import GameState
from service.store.base import JournalEntry, StoredEvent
from service.timing.clocks import Clock, advance, parse_time
from service.timing.vacation import Leave


@dataclass
class Rerun:
    """Every accepted command re-run: how many, the problems, and the differences a
    documented rule change explains (commands recorded under earlier rules)."""

    count: int = 0
    problems: list[str] = field(default_factory=list)
    rule_changes: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class _Seeds:
    """The deck's seeds as a re-run asks for them: the first deal's, and each re-deal's."""

    seed: bytes | None
    redeals: Sequence[bytes]

    def secret(self) -> bytes:
        if self.seed is None:
            raise DeckUnavailable("neither a revealed seed nor a kept secret")
        return self.seed

    def redeal(self, n: int) -> bytes:
        if n > len(self.redeals):
            raise DeckUnavailable(f"no seed for re-deal {n}")
        return self.redeals[n - 1]


@dataclass(frozen=True)
class _Recorded:
    """One accepted command as the record holds it: its entry, its events' versions
    (``first``–``last``), the rules they were decided under, their bodies."""

    entry: JournalEntry
    first: int
    last: int
    recorded_under: str | None
    bodies: list[dict[str, Any]]


def check_record(
    journal: Sequence[JournalEntry],
    stored: Sequence[StoredEvent],
    events: Sequence[Event],
    seed: bytes | None,
    redeals: Sequence[bytes] = (),
) -> Rerun:
    """The journal against the events: accepted commands cover every event exactly (ids and
    actors agree), and re-running each on the state before it gives its events again.

    The same ``domain.play`` sequence command handling runs, with the deck derived
    afresh from the record (``deck_of``): no cache of the service is consulted.
    Each command is re-run under the rules version its events were decided under
    (``domain.revisions``): it must give them exactly, else it is a problem that
    names the command, the first event that differs and how. A command recorded
    under earlier rules is re-run under today's rules too; where that differs it
    is listed as a rule change, with the change that accounts for it.
    """
    accepted = sorted(
        (e for e in journal if e.outcome == "accepted"), key=lambda e: e.first_version or 0
    )
    report = Rerun(problems=_coverage(accepted, stored))
    seeds = _Seeds(seed, redeals)
    state = GameState()
    folded = 0
    for entry in accepted:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None or not 1 <= first <= last <= len(stored):
            continue
        state = replay(events[folded : first - 1], state)
        folded = first - 1
        recorded = _Recorded(
            entry,
            first,
            last,
            stored[first - 1].meta().get("rules_version"),
            [e.body() for e in stored[first - 1 : last]],
        )
        _rerun(report, recorded, stored, state, seeds)
    return report


def _rerun(
    report: Rerun,
    recorded: _Recorded,
    stored: Sequence[StoredEvent],
    state: GameState,
    seeds: _Seeds,
) -> None:
    """One accepted command re-run on the state before it, its findings added to
    ``report``: under the rules it was recorded with, then (if earlier) today's."""
    entry, first, last = recorded.entry, recorded.first, recorded.last
    rules = revisions.ruleset(recorded.recorded_under)
    if rules is None:
        report.problems.append(
            f"command {entry.command_id}: its events name rules {recorded.recorded_under!r}, which"
            " this engine does not know"
        )
        return
    try:
        command = decode_command(entry.payload)
        produced, after = play(state, command, seeds.secret, deck_of, rules, seeds.redeal)
    except DomainError as exc:
        report.problems.append(
            f"command {entry.command_id}: the engine refuses it under {rules.version} ({exc})"
        )
        return
    report.count += 1
    try:
        report.problems.extend(clock_problems(stored, first, last, state, command, after))
    except (ValueError, TypeError, KeyError, AttributeError) as exc:  # a clock unreadable
        report.problems.append(f"event {last}: its clock cannot be read ({exc}) (C2)")
    diff = revisions.first_difference(recorded.bodies, [encode(e) for e in produced])
    if diff is not None:
        change = _difference(entry, first, rules.version, diff)
        report.problems.append(
            f"command {entry.command_id} ({change['command']} by {_who(entry.actor)}):"
            f" re-running it under {rules.version}, the rules it was recorded under, differs"
            f" at event {change['event_version']} of {first}–{last}: {change['difference']}"
        )
        return
    if rules is not revisions.CURRENT_RULES:
        today = _rule_change(recorded, rules.version, state, command, seeds)
        if today is not None:
            report.rule_changes.append(today)


def _rule_change(
    recorded: _Recorded, rules: str, state: GameState, command: cmd.Command, seeds: _Seeds
) -> dict[str, Any] | None:
    """A command recorded under earlier rules re-run under today's: what differs, and the
    change that accounts for it (``None`` if it gives the same events)."""
    entry, first = recorded.entry, recorded.first
    try:
        today, _ = play(state, command, seeds.secret, deck_of, redeal=seeds.redeal)
    except DomainError as exc:
        return {**_refused(entry, first, rules), "difference": f"refused: {exc}"}
    diff = revisions.first_difference(recorded.bodies, [encode(e) for e in today])
    if diff is None:
        return None
    change = _difference(entry, first, rules, diff)
    explained = revisions.explained_by(recorded.recorded_under, recorded.bodies, diff)
    return {**change, "explained_by": explained or f"a change made in {RULES_VERSION}"}


def _restored(stored: Sequence[StoredEvent], first: int, last: int) -> Clock | None:
    """The clock a takeback in this transaction put back (T5): the one recorded with the
    version it went back to."""
    for e in stored[first - 1 : last]:
        if e.type == "MovesTakenBack":
            to = int(e.body()["to_version"])
            data = stored[to - 1].meta().get("clock") if to >= 1 else None
            return Clock.from_data(data) if isinstance(data, dict) else None
    return None


def clock_problems(
    stored: Sequence[StoredEvent],
    first: int,
    last: int,
    state: GameState,
    command: Any,
    after: GameState,
) -> list[str]:
    """The clock recorded with a transaction (docs/clocks.md C2), recomputed from the
    one before it and the recorded time; and a timeout (C3) never before its deadline."""
    if after.options.time_control == "none":
        return []
    before_data = stored[first - 2].meta().get("clock") if first >= 2 else None
    before = Clock.from_data(before_data) if isinstance(before_data, dict) else None
    at = parse_time(str(stored[first - 1].meta().get("recorded_at")))
    recorded = stored[last - 1].meta().get("clock")
    leave = recorded.get("vacation") if isinstance(recorded, dict) else None
    kept = Leave.from_data(leave) if isinstance(leave, dict) else Leave()
    expected = advance(  # V7: the leave recorded, checked by service.audit.vacation_check
        before, state, command, after, at, _restored(stored, first, last), lambda *_: kept
    )
    problems = []
    if (expected.to_data() if expected is not None else None) != recorded:
        problems.append(
            f"event {last}: the clock recorded ({recorded}) is not the one its time and the"
            f" clock before it give ({expected.to_data() if expected else None}) (C2)"
        )
    if isinstance(command, cmd.PLAY_COMMANDS) and before is not None:
        late = before.deadline
        if late is not None and at >= late:
            problems.append(
                f"event {first}: a player's move recorded at {at.isoformat()}, at or after its"
                f" deadline ({late.isoformat()}) (C3)"
            )
    if isinstance(command, cmd.ActForSeat) and command.reason == "timeout":
        deadline = before.deadline if before is not None else None
        if deadline is None or at < deadline:
            problems.append(
                f"event {first}: a timeout recorded at {at.isoformat()}, before its deadline"
                f" ({deadline.isoformat() if deadline else 'none was running'}) (C3)"
            )
    return problems


def _refused(entry: JournalEntry, first: int, rules: str) -> dict[str, Any]:
    """A rule change that refuses a recorded command today."""
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    return {
        "command_id": entry.command_id,
        "command": str(payload.get("type", "?")),
        "actor": entry.actor,
        "versions": [entry.first_version, entry.last_version],
        "recorded_rules": rules,
        "event_version": first,
        "recorded_type": None,
        "rerun_type": None,
        "fields": [],
        "explained_by": f"a change made in {RULES_VERSION}",
    }


def _who(actor: Any) -> str:
    """An actor as a reader names it: ``Ann (account 3fd8…)``."""
    if isinstance(actor, dict) and "name" in actor:
        return f"{actor['name']} (account {actor.get('account')})"
    return str(actor)


def _difference(
    entry: JournalEntry, first: int, rules: str, diff: revisions.Difference
) -> dict[str, Any]:
    """A re-run difference as the report shows it."""
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    return {
        "command_id": entry.command_id,
        "command": str(payload.get("type", "?")),
        "actor": entry.actor,
        "versions": [entry.first_version, entry.last_version],
        "recorded_rules": rules,
        "event_version": first + diff.index,
        "recorded_type": diff.recorded["type"] if diff.recorded else None,
        "rerun_type": diff.rerun["type"] if diff.rerun else None,
        "fields": [
            {"field": name, "recorded": old, "rerun": new} for name, old, new in diff.fields
        ],
        "difference": diff.describe(),
    }


def _coverage(accepted: Sequence[JournalEntry], stored: Sequence[StoredEvent]) -> list[str]:
    """Accepted commands' versions are exactly 1..N, each event names its command and actor."""
    problems: list[str] = []
    expected = 1
    for entry in accepted:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None or first != expected or last < first:
            problems.append(
                f"command {entry.command_id}: its events {first}–{last} do not follow"
                f" version {expected - 1}"
            )
            return problems
        for e in stored[first - 1 : last]:
            meta = e.meta()
            if meta.get("command_id") != entry.command_id or meta.get("actor") != entry.actor:
                problems.append(
                    f"event {e.version}: its command or actor is not journal entry"
                    f" {entry.command_id}'s"
                )
        expected = last + 1
    if expected != len(stored) + 1:
        problems.append(
            f"events {expected}–{len(stored)} belong to no accepted command in the journal"
        )
    return problems
