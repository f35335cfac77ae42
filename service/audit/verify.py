"""Verification of a game's record: hash chain, fair draws, and a re-run of every command."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from domain import RULES_VERSION, position, revisions
from domain import commands as cmd
from domain.deck import verify_draws
from domain.errors import DeckUnavailable, DomainError, MalformedPayload
from domain.events import Event, GameRewound, TileDrawn
from domain.fold import evolve, replay
from domain.play import deck_of, play
from domain.serialization import decode_command, decode_event, encode
from domain.state import GameState
from service.errors import NotFound
from service.play.games import redeal_key
from service.store.base import EventStore, JournalEntry, StoredEvent, check_chain
from service.timing.clocks import Clock, advance, parse_time


@dataclass(frozen=True)
class Verification:
    """Everything an auditor needs to trust (or dispute) a game's record."""

    game_id: str
    ok: bool
    events: int
    chain_ok: bool
    chain_problems: tuple[str, ...]
    deck_revealed: bool
    deck_ok: bool | None
    deck_problems: tuple[str, ...]
    draws_checked: int
    commands_rerun: int
    rerun_problems: tuple[str, ...]
    rules_version: str = RULES_VERSION
    recorded_rules: tuple[str, ...] = ()
    rule_changes: tuple[dict[str, Any], ...] = ()
    # each dispute on the game: its own chain, its anchor, what a ruling did to the game
    disputes: tuple[dict[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def verify_game(store: EventStore, game_id: str) -> Verification:
    """Check the chain, the revealed seed against every draw, and re-run every command.

    Everything is read from the event store and recomputed: no cache is consulted,
    so every process (and the CLI) gives the same answer for the same record.
    """
    head = store.head(game_id)
    if head is None or head.version == 0:
        raise NotFound("unknown_game", f"there is no game {game_id!r}")
    stored = store.read(game_id)
    chain = check_chain(stored)
    events = []
    for e in stored:
        try:
            events.append(decode_event(e.body()))
        except (MalformedPayload, ValueError) as exc:
            unreadable = (*chain.problems, f"event {e.version} cannot be read: {exc}")
            return Verification(
                game_id, False, len(stored), False, unreadable, False, None, (), 0, 0, ()
            )
    final = replay(events)
    deck_ok: bool | None = None
    deck_problems: tuple[str, ...] = ()
    draws = 0
    redeals, redeal_problems = redeals_of(store, game_id, final)
    if final.seed_hex is not None and final.deals:
        # re-dealt by rewinds (D6): each draw against the deal current when it was drawn
        deck_ok, deck_problems, draws = draws_with_redeals(
            events, bytes.fromhex(final.seed_hex), [bytes.fromhex(h) for h in final.redeal_hex]
        )
    elif final.seed_hex is not None:
        entropies = [p.entropy for p in final.players]
        report = verify_draws(
            bytes.fromhex(final.seed_hex),
            final.deck_commitment,
            game_id,
            entropies,
            final.drawn,
            final.deck_algorithm,
        )
        deck_ok, deck_problems, draws = report.ok, report.problems, report.draws_checked
    seed, seed_problems = seed_of(store, game_id, final)
    rerun = check_record(store.journal(game_id), stored, events, seed, redeals)
    disputes, dispute_problems = check_disputes(store, game_id, stored)
    problems = (
        seed_problems
        + redeal_problems
        + rewind_problems(stored, events)
        + rerun.problems
        + dispute_problems
    )
    ok = chain.ok and deck_ok is not False and not problems
    return Verification(
        game_id,
        ok,
        len(stored),
        chain.ok,
        chain.problems,
        final.seed_hex is not None,
        deck_ok,
        deck_problems,
        draws,
        rerun.count,
        tuple(problems),
        RULES_VERSION,
        recorded_rules(stored),
        tuple(rerun.rule_changes),
        tuple(disputes),
    )


def recorded_rules(stored: Sequence[StoredEvent]) -> tuple[str, ...]:
    """The rules versions the events were decided under, in the order they appear."""
    seen: dict[str, None] = {}
    for e in stored:
        version = e.meta().get("rules_version")
        if isinstance(version, str):
            seen[revisions.canonical(version) or version] = None
    return tuple(seen)


@dataclass
class Rerun:
    """Every accepted command re-run: how many, the problems, and the differences a
    documented rule change explains (commands recorded under earlier rules)."""

    count: int = 0
    problems: list[str] = field(default_factory=list)
    rule_changes: list[dict[str, Any]] = field(default_factory=list)


def seed_of(store: EventStore, game_id: str, final: GameState) -> tuple[bytes | None, list[str]]:
    """The seed to re-run with: the revealed one, else the one the server keeps."""
    revealed = bytes.fromhex(final.seed_hex) if final.seed_hex is not None else None
    kept = store.get_secret(game_id)
    if revealed is not None and kept is not None and kept != revealed:
        return revealed, ["the seed kept by the server is not the seed revealed in DeckRevealed"]
    return (revealed if revealed is not None else kept), []


# what a ruling leaves in the game's own record (docs/disputes.md, D4, D6)
CARRIED_OUT = {"rewind": "GameRewound", "result_amended": "ResultAmended"}


def check_disputes(
    store: EventStore, game_id: str, stored: Sequence[StoredEvent]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every dispute on the game: its hash chain, whether the game's event at the version
    it was opened on still has the hash it recorded (its anchor), and that the game's
    record holds exactly what its ruling did: one ``GameRewound`` to the version a
    *rewind* named, one ``ResultAmended`` as an *amended result* stated, nothing for
    *stands* or an open or withdrawn dispute (docs/disputes.md, D4, D6)."""
    streams = [
        (row.dispute_id, row.status, store.dispute_events(row.dispute_id))
        for row in store.disputes(game_id=game_id, limit=100_000)
    ]
    return check_dispute_streams(stored, streams)


def check_dispute_streams(
    stored: Sequence[StoredEvent], streams: Sequence[tuple[str, str, Sequence[StoredEvent]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``check_disputes`` on given streams (``(dispute id, status, events)``): what an
    import checks before it writes anything."""
    found, problems = [], []
    effects: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for e in stored:
        if e.type in CARRIED_OUT.values():
            body = e.body()
            effects.setdefault(str(body.get("dispute_id")), []).append((e.version, body))
    known = set()
    for dispute_id, status, events in streams:
        known.add(dispute_id)
        chain = check_chain(events)
        first = events[0].body() if events else {}
        version, anchored = first.get("version"), first.get("game_hash")
        anchor_ok = (
            isinstance(version, int)
            and 1 <= version <= len(stored)
            and stored[version - 1].hash == anchored
        )
        rulings = [e.body() for e in events if e.type == "RulingIssued"]
        ruling = rulings[-1] if rulings else None
        decision = ruling.get("decision") if ruling else None
        mine = effects.get(dispute_id, [])
        expected = []
        if decision == "rewind" and ruling is not None:
            expected = [{"type": "GameRewound", "to_version": ruling.get("to_version")}]
        elif decision == "result_amended" and ruling is not None:
            expected = [
                {
                    "type": "ResultAmended",
                    "annulled": ruling.get("annulled"),
                    "ranking": ruling.get("ranking"),
                }
            ]
        carried = len(mine) == len(expected) and all(
            all(body.get(k) == v for k, v in want.items())
            for (_, body), want in zip(mine, expected, strict=True)
        )
        found.append(
            {
                "dispute_id": dispute_id,
                "status": status,
                "events": len(events),
                "chain_ok": chain.ok,
                "anchor_ok": anchor_ok,
                "ruling": decision,
                "carried_out": carried,
            }
        )
        name = f"dispute {dispute_id}"
        problems += [f"{name}: {p}" for p in chain.problems]
        if not anchor_ok:
            problems.append(
                f"{name}: the game's event at version {version} no longer has the hash the"
                " dispute recorded"
            )
        if not carried:
            told = ", ".join(f"{b['type']} at version {v}" for v, b in mine) or "nothing"
            problems.append(
                f"{name}: its ruling ({decision or status}) is not what the game's record"
                f" holds for it ({told})"
            )
    for dispute_id, mine in effects.items():
        if dispute_id not in known:
            problems += [
                f"event {v}: {b['type']} names dispute {dispute_id}, which is not here"
                for v, b in mine
            ]
    return found, problems


def redeals_of(store: EventStore, game_id: str, final: GameState) -> tuple[list[bytes], list[str]]:
    """The seeds of the game's re-deals (D6): revealed, else kept by the server."""
    seeds: list[bytes] = []
    problems: list[str] = []
    for n in range(1, len(final.deals) + 1):
        kept = store.get_secret(redeal_key(game_id, n))
        revealed = bytes.fromhex(final.redeal_hex[n - 1]) if final.redeal_hex else None
        if revealed is not None and kept is not None and kept != revealed:
            problems.append(f"the seed kept for re-deal {n} is not the one revealed")
        seed = revealed if revealed is not None else kept
        if seed is None:
            problems.append(f"no seed for re-deal {n}: neither revealed nor kept here")
            break
        seeds.append(seed)
    return seeds, problems


def draws_with_redeals(
    events: Sequence[Event], seed: bytes, redeals: Sequence[bytes]
) -> tuple[bool, tuple[str, ...], int]:
    """Every ``TileDrawn`` in the record, superseded ones included, against the deal that
    was current when it was drawn: the first (``seed``) or a rewind's re-deal (D6)."""
    problems: list[str] = []
    state = GameState()
    count = 0
    for version, e in enumerate(events, start=1):
        if isinstance(e, TileDrawn):
            count += 1
            deal = len(state.deals)
            try:
                key = seed if deal == 0 else redeals[deal - 1]
                expected: str | None = deck_of(state, key).tile_at(len(state.drawn))
            except (DomainError, IndexError) as exc:
                problems.append(f"event {version}: the deal cannot be derived ({exc})")
                expected = e.tile
            if expected != e.tile:
                where = "the first deal" if deal == 0 else f"re-deal {deal}"
                problems.append(f"event {version}: recorded {e.tile}, {where} gives {expected}")
        state = evolve(state, e)
    return not problems, tuple(problems), count


def effective_versions(events: Sequence[Event]) -> list[int]:
    """The versions the game's history is made of now, oldest first: each ``GameRewound``
    (D6) continues from its ``to_version``, superseding what came between."""
    parent: dict[int, int] = {}
    for version, e in enumerate(events, start=1):
        parent[version] = e.to_version if isinstance(e, GameRewound) else version - 1
    chain, at = [], len(events)
    while at > 0:
        chain.append(at)
        at = parent[at]
    return chain[::-1]


def rewind_problems(stored: Sequence[StoredEvent], events: Sequence[Event]) -> list[str]:
    """Each ``GameRewound`` goes back to a version of the history as it then stood, and
    carries exactly the position the record gives at that version (D6)."""
    problems = []
    for version, e in enumerate(events, start=1):
        if not isinstance(e, GameRewound):
            continue
        if e.to_version not in effective_versions(events[: version - 1]):
            problems.append(
                f"event {version}: rewinds to version {e.to_version}, which the history"
                " did not then hold"
            )
            continue
        at = position.text(replay(events[: e.to_version]))
        try:
            given = position.text(position.load(json.loads(e.position)))
        except (ValueError, KeyError, TypeError, AttributeError, DomainError):
            given = None
        if given != at:
            problems.append(
                f"event {version}: the position it restores is not the record's at version"
                f" {e.to_version}"
            )
    return problems


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
    problems = report.problems

    def secret() -> bytes:
        if seed is None:
            raise DeckUnavailable("neither a revealed seed nor a kept secret")
        return seed

    def redeal(n: int) -> bytes:
        if n > len(redeals):
            raise DeckUnavailable(f"no seed for re-deal {n}")
        return redeals[n - 1]

    state = GameState()
    folded = 0
    for entry in accepted:
        first, last = entry.first_version, entry.last_version
        if first is None or last is None or not 1 <= first <= last <= len(stored):
            continue
        state = replay(events[folded : first - 1], state)
        folded = first - 1
        recorded_under = stored[first - 1].meta().get("rules_version")
        rules = revisions.ruleset(recorded_under)
        if rules is None:
            problems.append(
                f"command {entry.command_id}: its events name rules {recorded_under!r}, which"
                " this engine does not know"
            )
            continue
        recorded = [e.body() for e in stored[first - 1 : last]]
        try:
            command = decode_command(entry.payload)
            produced, after = play(state, command, secret, deck_of, rules, redeal)
        except DomainError as exc:
            problems.append(
                f"command {entry.command_id}: the engine refuses it under {rules.version} ({exc})"
            )
            continue
        report.count += 1
        problems.extend(clock_problems(stored, first, last, state, command, after))
        diff = revisions.first_difference(recorded, [encode(e) for e in produced])
        if diff is not None:
            change = _difference(entry, first, rules.version, diff)
            problems.append(
                f"command {entry.command_id} ({change['command']} by {_who(entry.actor)}):"
                f" re-running it under {rules.version}, the rules it was recorded under, differs"
                f" at event {change['event_version']} of {first}–{last}: {change['difference']}"
            )
            continue
        if rules is revisions.CURRENT_RULES:
            continue
        try:
            today, _ = play(state, command, secret, deck_of, redeal=redeal)
        except DomainError as exc:
            report.rule_changes.append(
                {**_refused(entry, first, rules.version), "difference": f"refused: {exc}"}
            )
            continue
        diff = revisions.first_difference(recorded, [encode(e) for e in today])
        if diff is not None:
            change = _difference(entry, first, rules.version, diff)
            explained = revisions.explained_by(recorded_under, recorded, diff)
            report.rule_changes.append(
                {**change, "explained_by": explained or f"a change made in {RULES_VERSION}"}
            )
    return report


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
    expected = advance(before, state, command, after, at)
    recorded = stored[last - 1].meta().get("clock")
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
