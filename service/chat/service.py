"""The chat as the service runs it (docs/chat.md, M1–M9): who posts and reads where,
what a message may say, how fast, mutes, reports, hides and stops.

It knows a game only by its seats and whether it ended (``Seats``): never its events'
contents, its secrets or its deck."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from projections.ports import Tx
from service.chat.store import ChatStore, Message, Stop
from service.errors import BadRequest, Conflict, Forbidden, NotFound, TooManyRequests
from service.play.text import has_visible, text_problem
from service.store.base import Account, SqlStore, check_chain
from service.timing.clocks import stamp

TABLE, SPECTATORS = "table", "spectators"
CHANNELS = (TABLE, SPECTATORS)
MAX_TEXT = 500  # characters of a message, a reason (M3, M6–M8)
# M4: (messages, within milliseconds) per account per game
RATES = ((5, 10_000), (60, 3_600_000))
Seats = Callable[[str], tuple[frozenset[str], bool]]  # a game's players, and whether it ended


@dataclass(frozen=True)
class Place:
    """Where a caller stands in a game's chat: what it reads, where it posts (M1, M2)."""

    readable: tuple[str, ...]
    posts: str
    auditor: bool


def place(who: Account, players: frozenset[str], ended: bool) -> Place:
    """The channels ``who`` reads and the one it posts in (M1, M2)."""
    auditor = who.kind == "auditor"
    if who.account_id in players:
        readable = CHANNELS if ended or auditor else (TABLE,)
        return Place(readable, TABLE, auditor)
    return Place(CHANNELS if auditor else (SPECTATORS,), SPECTATORS, auditor)


def clean_text(raw: str, what: str = "a message", empty: bool = False) -> str:
    """Text trimmed, 1 (or 0 with ``empty``) to 500 characters, shown as it says (M3)."""
    text = raw.strip()
    problem = text_problem(text)
    if problem:
        raise BadRequest("chat_text", f"{what} {problem}", rule="M3")
    if len(text) > MAX_TEXT:
        raise BadRequest("chat_text", f"{what} is at most {MAX_TEXT} characters", rule="M3")
    if not empty and (not text or not has_visible(text)):
        raise BadRequest("chat_text", f"{what} says something (not only spaces)", rule="M3")
    return text


def wait_seconds(recent_ms: list[int], now_ms: int) -> int:
    """Seconds until one more message keeps within M4's rates (0: now)."""
    wait = 0
    for count, window in RATES:
        inside = [t for t in recent_ms if t > now_ms - window]
        if len(inside) >= count:
            oldest = sorted(inside, reverse=True)[count - 1]
            wait = max(wait, math.ceil((oldest + window - now_ms) / 1000))
    return max(wait, 1) if wait else 0


class ChatService:
    """Games' chats over one store."""

    def __init__(self, store: SqlStore, seats: Seats, clock: Callable[[], datetime]) -> None:
        self.chats = ChatStore(store)
        self.accounts = store
        self.seats = seats
        self.clock = clock
        self.bell: Callable[[str], None] = lambda _game_id: None  # this process's streams

    def upgrade(self) -> None:
        """Create the chat's tables (idempotent)."""
        self.chats.upgrade()

    def where(self, who: Account, game_id: str) -> Place:
        """``who``'s place in the game's chat (404 for no game)."""
        players, ended = self.seats(game_id)
        return place(who, players, ended)

    def _now(self) -> tuple[str, int]:
        moment = self.clock()
        return stamp(moment), int(moment.timestamp() * 1000)

    # --- posting -----------------------------------------------------------------

    def post(self, who: Account, game_id: str, channel: str, raw: str) -> Message:
        """Post a message (M1 where, M3 what, M4 how fast, M8 not stopped)."""
        mine = self.where(who, game_id)
        if channel != mine.posts:
            raise Forbidden(
                "chat_channel_closed",
                f"you post in the {mine.posts} channel of this game, not the {channel}",
                rule="M1",
            )
        text = clean_text(raw)
        at, now_ms = self._now()

        def check(tx: Tx) -> None:
            stop = self.chats.stopped(tx, who.account_id)
            if stop is not None:
                raise Forbidden(
                    "chat_stopped",
                    f"an auditor stopped this account from chatting: {stop.reason}",
                    rule="M8",
                )
            recent = self.chats.recent(tx, game_id, who.account_id, now_ms - RATES[-1][1], 60)
            wait = wait_seconds(recent, now_ms)
            if wait:
                raise TooManyRequests(
                    "chat_too_fast",
                    f"at most 5 messages in 10 s and 60 an hour; retry in {wait} s",
                    rule="M4",
                    retry_after=wait,
                )

        message = self.chats.post(game_id, channel, who.account_id, text, at, now_ms, check)
        self.bell(game_id)
        return message

    # --- reading -----------------------------------------------------------------

    def page(
        self, who: Account, game_id: str, channel: str | None, after: int, limit: int
    ) -> dict[str, Any]:
        """A page of the chat after ``after`` as ``who`` may read it (M2, M5, M7)."""
        mine = self.where(who, game_id)
        if channel is not None and channel not in mine.readable:
            raise Forbidden(
                "chat_channel_closed", f"the {channel} channel is not yours to read", rule="M2"
            )
        channels = (channel,) if channel else mine.readable
        head = self.chats.head(game_id)
        muted = self.chats.mutes(game_id, who.account_id)
        rows = self.chats.messages(game_id, channels, after, limit + 1, muted)
        more = len(rows) > limit
        rows = rows[:limit]
        upto = rows[-1].seq if more else head
        hidden = self.chats.hidden_since(game_id, channels, after, upto, limit)
        hidden = [m for m in hidden if m.author not in muted and m.seq <= after]
        mine_reported = self.chats.reported_by(game_id, who.account_id, [m.seq for m in rows])
        names = self.accounts.account_names({m.author for m in rows + hidden})
        return {
            "game_id": game_id,
            "channels": list(mine.readable),
            "posts_in": mine.posts,
            "auditor": mine.auditor,
            "messages": [self.view(m, mine.auditor, names, mine_reported) for m in rows],
            "hidden": [self.view(m, mine.auditor, names, set()) for m in hidden],
            "muted": muted,
            "next_after": max(after, upto),
            "has_more": more,
        }

    def view(
        self, m: Message, auditor: bool, names: dict[str, str], reported: set[int]
    ) -> dict[str, Any]:
        """A message as a reader sees it: a hidden one's text only for auditors (M7)."""
        hidden = None
        if m.hidden_seq is not None:
            hidden = {"reason": m.hidden_reason, "at": m.hidden_at}
            if auditor:
                hidden["by"] = m.hidden_by
        return {
            "seq": m.seq,
            "channel": m.channel,
            "author": m.author,
            "author_name": names.get(m.author, m.author),
            "at": m.at,
            "text": m.text if m.hidden_seq is None or auditor else None,
            "hidden": hidden,
            "reported": m.seq in reported,
        }

    # --- mutes, reports ----------------------------------------------------------

    def mute(self, who: Account, game_id: str, account_id: str, on: bool) -> list[str]:
        """Mute (or unmute) an account in the game's chat, for ``who`` only (M5)."""
        self.where(who, game_id)
        if account_id == who.account_id:
            raise Conflict("chat_mute_self", "an account does not mute itself", rule="M5")
        if on and self.accounts.account(account_id) is None:
            raise NotFound("unknown_account", "no account has that id")
        self.chats.mute(game_id, who.account_id, account_id, self._now()[0], on)
        return self.chats.mutes(game_id, who.account_id)

    def _readable(self, who: Account, game_id: str, seq: int) -> tuple[Place, Message]:
        mine = self.where(who, game_id)
        found = self.chats.message(None, game_id, seq)
        if found is None or found.channel not in mine.readable:
            raise NotFound("unknown_message", "this game's chat has no such message for you")
        return mine, found

    def report(self, who: Account, game_id: str, seq: int, raw: str) -> dict[str, Any]:
        """Report a message, once per reporter (M6); not a hidden one (M7)."""
        self._readable(who, game_id, seq)
        reason = clean_text(raw, "a report's reason", empty=True)
        at = self._now()[0]

        def check(tx: Tx) -> None:
            found = self.chats.message(tx, game_id, seq)
            if found is not None and found.hidden_seq is not None:
                raise Conflict("chat_message_hidden", "the message is hidden already", rule="M7")
            if self.chats.reported(tx, game_id, seq, who.account_id):
                raise Conflict(
                    "chat_already_reported", "you reported this message already", rule="M6"
                )

        report_seq = self.chats.report(game_id, seq, who.account_id, reason, at, check)
        return {"game_id": game_id, "seq": seq, "reason": reason, "at": at, "report": report_seq}

    # --- auditors ----------------------------------------------------------------

    @staticmethod
    def _auditor(who: Account, what: str, rule: str) -> None:
        if who.kind != "auditor":
            raise Forbidden("auditors_only", f"only an auditor {what}", rule=rule)

    def hide(self, who: Account, game_id: str, seq: int, raw: str) -> dict[str, Any]:
        """An auditor hides a message with a reason (M7): kept, its text shown no more."""
        self._auditor(who, "hides a message", "M7")
        self._readable(who, game_id, seq)
        reason = clean_text(raw, "a hide's reason")
        self.hide_as(who.account_id, game_id, seq, reason)
        found = self.chats.message(None, game_id, seq)
        assert found is not None
        names = self.accounts.account_names([found.author])
        return self.view(found, True, names, set())

    def hide_as(self, by: str, game_id: str, seq: int, reason: str) -> int:
        """Hide a message in the name of ``by`` (an auditor, or the operator's CLI) (M7)."""

        def check(tx: Tx) -> None:
            found = self.chats.message(tx, game_id, seq)
            if found is None:
                raise NotFound("unknown_message", "this game's chat has no such message")
            if found.hidden_seq is not None:
                raise Conflict("chat_message_hidden", "the message is hidden already", rule="M7")

        hid = self.chats.hide(game_id, seq, by, reason, self._now()[0], check)
        self.bell(game_id)
        return hid

    def stop(self, who: Account, account_id: str, raw: str, on: bool) -> Stop | None:
        """An auditor stops an account from chatting everywhere, or lifts it (M8)."""
        self._auditor(who, "stops an account from chatting", "M8")
        if on:
            reason = clean_text(raw, "a stop's reason")
            if self.accounts.account(account_id) is None:
                raise NotFound("unknown_account", "no account has that id")
        else:
            reason = ""
        changed = self.stop_as(who.account_id, account_id, reason, on)
        if not on and not changed:
            raise NotFound("chat_not_stopped", "this account is not stopped from chatting")
        return self.chats.stopped(None, account_id)

    def stop_as(self, by: str, account_id: str, reason: str, on: bool) -> bool:
        """Stop (or lift) in the name of ``by`` (M8); whether it changed."""
        return self.chats.stop(account_id, by, reason, self._now()[0], on)

    def stops(self, who: Account, limit: int, offset: int) -> list[Stop]:
        """Accounts stopped from chatting (auditors)."""
        self._auditor(who, "lists the accounts stopped", "M8")
        return self.chats.stops(limit, offset)

    def reports(self, who: Account, limit: int, offset: int) -> list[dict[str, Any]]:
        """The auditors' queue of reports, newest first (M6), each with its message."""
        self._auditor(who, "reads the reports", "M6")
        found = self.chats.reports(limit, offset)
        names = self.accounts.account_names(
            {r.reporter for r, _ in found} | {m.author for _, m in found}
        )
        return [
            {
                "reporter": r.reporter,
                "reporter_name": names.get(r.reporter, r.reporter),
                "reason": r.reason,
                "at": r.at,
                "message": self.view(m, True, names, set()) | {"game_id": m.game_id},
            }
            for r, m in found
        ]

    def verify(self, who: Account, game_id: str) -> dict[str, Any]:
        """A chat's chain checked (M9; auditors)."""
        self._auditor(who, "checks a chat's record", "M9")
        self.seats(game_id)
        return self.check(game_id)

    def check(self, stream: str) -> dict[str, Any]:
        """A chat's chain checked (M9): every hash and link."""
        report = check_chain(self.chats.events(stream, 0, 1_000_000))
        return {
            "stream": stream,
            "ok": report.ok,
            "events": report.events,
            "problems": list(report.problems),
        }
