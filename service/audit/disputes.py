"""Disputes as the service runs them: facts in, events out, the game's side carried out.

The procedure is ``domain.disputes`` (docs/disputes.md, D1–D8); this module gives
it the facts it decides on (who the actor is, whether they sit at the game, the
game's head, whether the filing window is open), appends the dispute's events to
its own stream (retrying a lost race), and carries a ruling out on the game:
an amended result is an ``AmendResult`` command on the game's stream, a pause
(D7) a ``PauseGame``. A game paused for a dispute resumes when that dispute is
ruled or withdrawn.

A ruling that changes the game is appended with the game's event in one
transaction, checked against both the dispute's version and the game's version
it was judged on: of racing rulings exactly one is written, with its effect, and
the others are judged again (and refused: the dispute is closed).
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from domain import ENGINE_VERSION, RULES_VERSION, position
from domain import commands as cmd
from domain import disputes as d
from domain.commands import PLAY_COMMANDS
from domain.deck import commitment
from domain.errors import RuleViolation
from domain.history import effective_versions
from domain.serialization import decode_dispute_event, encode_dispute_event
from domain.state import GameState, Phase
from projections.phrases import Phrase, say
from service.audit.evidence import gather_evidence
from service.errors import BadRequest, Conflict, Forbidden, NotFound
from service.play.games import GameService
from service.play.repository import decode_events, redeal_key
from service.store.base import (
    Account,
    ConcurrencyConflict,
    DisputeAppend,
    DisputeRow,
    EventStore,
    NewEvent,
    StoredEvent,
)
from service.timing.clocks import stamp

WINDOW = timedelta(days=7)  # how long after its end a game can still be disputed (D1)
ATTEMPTS = 5  # appends tried when another write to the same dispute wins the race

log = logging.getLogger("tongiaki.disputes")
# a ruling's decision (domain.disputes.DECISIONS) as its notification says it
RULED = {"stands": say("stands"), "rewind": say("rewind"), "result_amended": say("result amended")}


@dataclass(frozen=True)
class Loaded:
    """A dispute read from its stream: index row, events as stored, and the fold."""

    row: DisputeRow
    stored: list[StoredEvent]
    dispute: d.Dispute


def _refusal(exc: RuleViolation) -> Conflict | Forbidden:
    """A procedure refusal as the API answers it: who may not → 403, else 409."""
    who = {"not_a_player", "not_a_party", "auditors_only", "not_the_opener"}
    kind = Forbidden if exc.code in who else Conflict
    return kind(exc.code, exc.message, rule=exc.rule)


class DisputeService:
    """Opens disputes, adds notes, assigns, rules and withdraws (docs/disputes.md)."""

    def __init__(
        self,
        store: EventStore,
        games: GameService,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        window: timedelta = WINDOW,
        announce: Callable[[str, int, Sequence[str], Phrase], None] | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.clock = clock
        self.window = window
        # told of every ruling: game, its version after it, its players, in words
        self.announce = announce

    # --- facts -----------------------------------------------------------------

    def _facts(
        self, who: Account, game_id: str, *, assignee: str | None = None, at: int | None = None
    ) -> d.Facts:
        version, state = self.games.load(game_id)
        anchored = self.store.read(game_id, after=at - 1, limit=1) if at and at <= version else []
        auditors: frozenset[str] = frozenset()
        if assignee is not None:
            other = self.store.account(assignee)
            if other is not None and other.kind == "auditor":
                auditors = frozenset({assignee})
        players = tuple(p.player_id for p in state.players)
        return d.Facts(
            actor=who.account_id,
            seated=who.kind == "player" and who.account_id in players,
            auditor=who.kind == "auditor",
            game_version=version,
            game_hash=anchored[0].hash if anchored else "",
            window_open=self._window_open(game_id, state),
            players=players,
            auditor_ids=auditors,
        )

    def _window_open(self, game_id: str, state: GameState) -> bool:
        """D1: the game is not over, or it ended less than the window ago."""
        if state.phase is not Phase.ENDED:
            return True
        ended_at = None
        # the latest end: a game rewound after its end (D6) and over again ended then
        for e in reversed(self.store.read(game_id)):
            if e.type == "GameEnded":
                ended_at = e.meta().get("recorded_at")
                break
        if not isinstance(ended_at, str):
            return False
        return self.clock() - datetime.fromisoformat(ended_at) <= self.window

    # --- reading ---------------------------------------------------------------

    def load(self, dispute_id: str) -> Loaded:
        """A dispute by id (404 if unknown)."""
        row = self.store.dispute(dispute_id) if len(dispute_id) <= 64 else None
        stored = self.store.dispute_events(dispute_id) if row is not None else []
        if row is None or not stored:
            raise NotFound("unknown_dispute", f"there is no dispute {dispute_id!r}")
        events = [decode_dispute_event(e.body()) for e in stored]
        return Loaded(row, stored, d.fold(events))

    def visible(self, who: Account, dispute_id: str) -> Loaded:
        """A dispute the caller may see: auditors all, players those of their games
        (404 otherwise, so that a dispute's existence is not told to strangers)."""
        loaded = self.load(dispute_id)
        if who.kind != "auditor":
            _, state = self.games.load(loaded.row.game_id)
            if all(p.player_id != who.account_id for p in state.players):
                raise NotFound("unknown_dispute", f"there is no dispute {dispute_id!r}")
        return loaded

    def of_game(self, who: Account, game_id: str) -> list[Loaded]:
        """A game's disputes, oldest first, for its players and auditors."""
        _, state = self.games.load(game_id)
        if who.kind != "auditor" and all(p.player_id != who.account_id for p in state.players):
            raise Forbidden("not_allowed", "a game's disputes are for its players and auditors")
        return [self.load(r.dispute_id) for r in self.store.disputes(game_id=game_id, limit=200)]

    def queue(
        self,
        who: Account,
        status: str | None = None,
        reason: str | None = None,
        limit: int = 50,
        offset: int = 0,
        game_id: str | None = None,
    ) -> tuple[list[DisputeRow], bool]:
        """The auditors' queue: disputes oldest first, of a status and reason (auditors)."""
        if who.kind != "auditor":
            raise Forbidden("auditors_only", "the queue of disputes is for auditors")
        rows: list[DisputeRow] = []
        skipped, page = 0, 0
        while len(rows) <= limit:
            batch = self.store.disputes(game_id=game_id, status=status, limit=200, offset=page)
            page += len(batch)
            for r in batch:
                if reason is not None and r.reason != reason:
                    continue
                if skipped < offset:
                    skipped += 1
                    continue
                rows.append(r)
            if len(batch) < 200:
                break
        return rows[:limit], len(rows) > limit

    # --- writing ---------------------------------------------------------------

    def open(self, who: Account, game_id: str, command: d.OpenDispute) -> Loaded:
        """D1: a seated player opens a dispute on the game as it stands."""
        facts = self._facts(who, game_id, at=command.version)
        dispute_id = "d" + uuid.uuid4().hex[:15]
        try:
            if command.command_id is not None:
                named = self.store.outcome(game_id, command.command_id)
                if named is None:
                    raise RuleViolation(
                        "unknown_command", "D1", "no command with this id was received for the game"
                    )
                first = named.first_version or named.judged_version
                last = named.last_version or named.judged_version
                if not first <= command.version <= last:
                    raise RuleViolation(
                        "command_elsewhere",
                        "D1",
                        f"that command's record is at versions {first} to {last}, not"
                        f" {command.version}",
                    )
            opened = d.open_dispute(dispute_id, game_id, command, facts)
        except RuleViolation as exc:
            raise _refusal(exc) from exc
        new = self._new_events([opened], who)
        self.store.append_dispute(
            dispute_id,
            game_id,
            0,
            new,
            status="open",
            at=new[0].metadata["recorded_at"],
            opened_by=opened.opened_by,
            reason=opened.reason,
        )
        return self.load(dispute_id)

    def _announce(self, game_id: str, dispute_id: str, decision: str) -> None:
        """A ruling told to every player of the game (a notification), if announced."""
        if self.announce is None:
            return
        version, state = self.games.load(game_id)
        said = say(
            "An auditor ruled on dispute {dispute}: {decision}.",
            dispute=dispute_id,
            decision=RULED.get(decision, decision.replace("_", " ")),
        )
        try:
            self.announce(game_id, version, [p.player_id for p in state.players], said)
        except Exception:  # the ruling stands; the reminder is not worth a 500
            log.exception("the ruling on %s was not announced", dispute_id)

    def act(self, who: Account, dispute_id: str, command: d.DisputeCommand) -> Loaded:
        """A note, an assignment, a ruling or a withdrawal, with what it does to the game.

        A ruling that changes the game is appended with the game's event in one
        transaction, checked against the dispute's version and the game's version as
        judged: racing rulings, or a ruling racing the game, leave exactly one winner
        and nothing of the others (each loser is judged again, and refused)."""
        for attempt in range(ATTEMPTS):
            loaded = self.visible(who, dispute_id)
            game_id = loaded.row.game_id
            assignee = command.auditor if isinstance(command, d.Assign) else None
            facts = self._facts(who, game_id, assignee=assignee)
            try:
                events = d.decide(loaded.dispute, command, facts)
            except RuleViolation as exc:
                raise _refusal(exc) from exc
            status = "ruled" if isinstance(command, d.IssueRuling) else loaded.dispute.status
            status = "withdrawn" if isinstance(command, d.Withdraw) else status
            new = self._new_events(events, who)
            try:
                effect = self._effect(loaded, command, facts.game_version)
                if effect is None:
                    self.store.append_dispute(
                        dispute_id,
                        game_id,
                        loaded.row.version,
                        new,
                        status=status,
                        at=new[0].metadata["recorded_at"],
                    )
                else:
                    ruling = DisputeAppend(
                        dispute_id, loaded.row.version, new, status, new[0].metadata["recorded_at"]
                    )
                    self.games.execute_for_dispute(
                        game_id, who, effect, expected_version=facts.game_version, dispute=ruling
                    )
            except ConcurrencyConflict:
                pass  # the dispute moved: judge again
            except Conflict as exc:
                # the game checked after another ruling moved it (a rewind): judge again
                moved = self.load(dispute_id).row.version != loaded.row.version
                if exc.code not in ("dispute_moved", "stale_version") and not moved:
                    raise
            else:
                if isinstance(command, d.IssueRuling | d.Withdraw):
                    self._resume_if_paused(who, game_id, dispute_id)
                if isinstance(command, d.IssueRuling):
                    self._announce(game_id, dispute_id, command.decision)
                return self.load(dispute_id)
            if attempt == ATTEMPTS - 1:
                raise Conflict(
                    "busy_dispute", "the dispute or its game keeps changing; send it again"
                )
        raise AssertionError("unreachable")

    def _new_events(self, events: Sequence[d.DisputeEvent], who: Account) -> list[NewEvent]:
        at = stamp(self.clock())
        actor = {"account": who.account_id, "name": who.name, "kind": who.kind}
        new = []
        for index, e in enumerate(events):
            body = encode_dispute_event(e)
            kind = body.pop("type")
            meta = {
                "actor": actor,
                "recorded_at": at,
                "index": index,
                "engine_version": ENGINE_VERSION,
                "rules_version": RULES_VERSION,
            }
            new.append(NewEvent(kind, body, meta))
        return new

    def _effect(
        self, loaded: Loaded, command: d.DisputeCommand, version: int
    ) -> cmd.RewindGame | cmd.AmendResult | None:
        """What a ruling does to the game (D4, D6), checked against the game at ``version``."""
        if not isinstance(command, d.IssueRuling):
            return None
        if command.decision == "rewind":
            assert command.to_version is not None  # the domain checked it
            return self._rewind(
                loaded.row.game_id, loaded.row.dispute_id, command.to_version, version
            )
        if command.decision == "result_amended":
            return cmd.AmendResult(loaded.row.dispute_id, command.annulled, command.ranking)
        return None

    def _rewind(
        self, game_id: str, dispute_id: str, to_version: int, version: int
    ) -> cmd.RewindGame:
        """D6: back to the position after a player's command still in the history,
        re-dealt from a fresh seed (kept before its commitment is published)."""
        stored = self.store.read(game_id, limit=version)
        if to_version not in effective_versions(decode_events(stored)):
            raise Conflict(
                "superseded_version",
                f"version {to_version} was superseded by an earlier rewind",
                rule="D6",
            )
        played = (*PLAY_COMMANDS, cmd.StartGame)
        receipts = {
            j.last_version
            for j in self.store.journal(game_id)
            if j.outcome == "accepted" and j.payload.get("type") in {t.__name__ for t in played}
        }
        if to_version not in receipts:
            raise Conflict(
                "not_a_receipt",
                "a rewind goes back to the position after a player's command (a version a"
                " player was given as a receipt)",
                rule="D6",
            )
        _, at = self.games.load(game_id, at=to_version)
        if at.phase not in (Phase.SETUP, Phase.PLAYING):
            raise Conflict(
                "rewind_target", "a rewind goes back to a position of the game under way", rule="D6"
            )
        _, now = self.games.load(game_id, at=version)
        # racing rewinds may ask for the same re-deal: the first seed kept is everyone's
        seed = self.store.put_secret(
            redeal_key(game_id, len(now.deals) + 1), secrets.token_bytes(32)
        )
        return cmd.RewindGame(dispute_id, to_version, position.text(at), commitment(seed))

    def _resume_if_paused(self, who: Account, game_id: str, dispute_id: str) -> None:
        """D7: a game paused for a dispute resumes once that dispute is closed."""
        _, state = self.games.load(game_id)
        if state.paused == dispute_id:
            try:
                self._game(who, game_id, cmd.ResumeGame(dispute_id), closing=True)
            except Conflict as exc:
                # resumed meanwhile (an auditor's resume racing this): the ruling or the
                # withdrawal is recorded all the same, and that is the answer
                if exc.code not in ("not_paused", "paused_for_another"):
                    raise

    def pause(self, who: Account, game_id: str, dispute_id: str, *, resume: bool = False) -> int:
        """D7: an auditor pauses a game while one of its disputes is open (or resumes it);
        the game's version after it."""
        if who.kind != "auditor":
            raise Forbidden("auditors_only", "only an auditor pauses or resumes a game")
        loaded = self.load(dispute_id)
        if loaded.row.game_id != game_id:
            raise BadRequest("other_game", "that dispute is about another game")
        if not resume and loaded.dispute.status != "open":
            raise Conflict("dispute_closed", "a game is paused only for an open dispute", rule="D7")
        command = cmd.ResumeGame(dispute_id) if resume else cmd.PauseGame(dispute_id)
        version = self._game(who, game_id, command)
        if not resume and self.load(dispute_id).dispute.status != "open":
            # ruled or withdrawn while the pause was written: nobody would resume it (D7)
            self._resume_if_paused(who, game_id, dispute_id)
            version = self.games.load(game_id)[0]
        return version

    def _game(
        self,
        who: Account,
        game_id: str,
        command: cmd.PauseGame | cmd.ResumeGame | cmd.AmendResult | cmd.RewindGame,
        *,
        closing: bool = False,
    ) -> int:
        result = self.games.execute_for_dispute(game_id, who, command, closing=closing)
        return result.version

    # --- views -----------------------------------------------------------------

    def view(self, loaded: Loaded) -> dict[str, Any]:
        """A dispute as the API shows it: its fold, its events with hashes and times."""
        s = loaded.dispute
        ids = {s.opened_by}
        events = []
        for stored in loaded.stored:
            meta = stored.meta()
            actor = meta.get("actor", {})
            if isinstance(actor, dict) and isinstance(actor.get("account"), str):
                ids.add(actor["account"])
            events.append(
                {
                    "version": stored.version,
                    "type": stored.type,
                    "data": stored.body(),
                    "actor": actor,
                    "at": meta.get("recorded_at"),
                    "hash": stored.hash,
                    "prev_hash": stored.prev_hash,
                }
            )
        names = self.store.account_names(ids)
        ruling = None
        if s.ruling is not None:
            ruling = {k: v for k, v in encode_dispute_event(s.ruling).items() if k != "type"}
            ruling["auditor_name"] = names.get(s.ruling.auditor)
        return {
            "dispute_id": s.dispute_id,
            "game_id": s.game_id,
            "status": s.status,
            "reason": s.reason,
            "text": s.text,
            "opened_by": {"account": s.opened_by, "name": names.get(s.opened_by)},
            "version": s.version,
            "game_hash": s.game_hash,
            "command_id": s.command_id,
            "assigned_to": s.assigned_to,
            "notes": s.notes,
            "ruling": ruling,
            "opened_at": loaded.row.created_at,
            "updated_at": loaded.row.updated_at,
            "stream_version": loaded.row.version,
            "stream_hash": loaded.row.hash,
            "events": events,
        }

    def queue_view(self, rows: list[DisputeRow]) -> list[dict[str, Any]]:
        """The lines of the queue, each told apart from the others: its game and the
        version disputed (from the opening event), who opened it (their name), when."""
        names = self.store.account_names({r.opened_by for r in rows})
        lines = []
        for row in rows:
            opened = self.store.dispute_events(row.dispute_id)[:1]
            version = int(opened[0].body().get("version", 0)) if opened else 0
            lines.append(
                {
                    "dispute_id": row.dispute_id,
                    "game_id": row.game_id,
                    "version": version,
                    "status": row.status,
                    "reason": row.reason,
                    "opened_by": row.opened_by,
                    "opener_name": names.get(row.opened_by),
                    "opened_at": row.created_at,
                    "updated_at": row.updated_at,
                }
            )
        return lines

    # --- evidence --------------------------------------------------------------

    def evidence(self, who: Account, dispute_id: str) -> dict[str, Any]:
        """What an auditor (or the game's players) needs to settle the dispute
        (``service.audit.evidence``), for those who may see it."""
        loaded = self.visible(who, dispute_id)
        return gather_evidence(self.store, loaded.dispute, self.view(loaded))


def decode_ruling(data: dict[str, Any]) -> d.IssueRuling:
    """A ruling request (already schema-checked) as the domain's command."""
    ranking = data.get("ranking")
    return d.IssueRuling(
        data["decision"],
        data["reasoning"],
        tuple(data["rules"]),
        data.get("to_version"),
        bool(data.get("annulled", False)),
        tuple(ranking) if ranking is not None else None,
    )
