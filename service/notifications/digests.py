""" "Your move" reminders batched: at most one message per account per quiet period,
listing every game that waits on the player (docs/clocks.md, Reminders).

A player in a fast game against an absent seat got 114 "your move" mails in two
minutes: one per move the bot answered at once. Each account now chooses how its
``your_move`` notifications are delivered (``your_move`` in its settings):

- ``batched`` (the default): the first goes out at once; those that come within
  the quiet period after it (``quiet_minutes``, else ``TONGIAKI_REMIND_QUIET``)
  are held, and when the period ends, one message (a digest) tells of every game
  where it is still the player's move. Games no longer waiting on them are left
  out; if none is left, nothing is sent. So a game gives at most one reminder
  per quiet period, and several games waiting give one message, not several;
- ``every``: each one is delivered on its own, as it comes;
- ``never``: none is delivered (as leaving ``your_move`` out of ``kinds``).

The outbox keeps every notification; each held one gets, per channel, a delivery
row saying what became of it: ``batched`` (told in the digest sent with
notification X) or ``skipped`` (no longer the player's move when the digest was
due). The digest is delivered, retried and logged as the notification it was sent
with, which carries the list of games (``games`` in the webhook's JSON, a line per
game in the mail).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from service.notifications import outbox
from service.notifications.outbox import Held
from service.notifications.preferences import NotifySettings, settings_of, to_ms
from service.store.base import SqlStore

MODES = ("batched", "every", "never")
DIGEST_LOCK = 0x7467_6467  # a PostgreSQL advisory lock: one digest pass at a time


class Digests:
    """Makes the digests of held ``your_move`` notifications that are due."""

    def __init__(self, store: SqlStore, default_quiet_minutes: int) -> None:
        self.store = store
        self.default_quiet_minutes = default_quiet_minutes

    def run(self, now: datetime, mail: bool) -> int:
        """One pass: for each account whose quiet period is over and that has held
        notifications, one digest (or nothing, if no game waits on it any more), sent
        on the channels its settings name (e-mail only if ``mail``). The number of
        digests made."""
        now_ms = to_ms(now)
        made = 0
        with self.store.transaction() as cur:
            if self.store.postgres and not _first_pass(cur):
                return 0  # another worker's pass under way: it does this one
            held = outbox.held(cur)
            if not held:
                return 0
            by_account: dict[str, list[Held]] = defaultdict(list)
            for row in held:
                by_account[row.account_id].append(row)
            accounts = sorted(by_account)
            settings = settings_of(cur, accounts)
            last = outbox.last_digests(cur, accounts)
            waiting = _to_move(cur, sorted({row.game_id for row in held}))
            for account in accounts:
                s = settings.get(account)
                if self._quiet(s, last.get(account), now_ms):
                    continue  # still quiet: they wait for the period's end
                channels = s.channels(mail) if s is not None else []
                made += _digest(cur, account, by_account[account], channels, waiting, now_ms)
        return made

    def _quiet(self, s: NotifySettings | None, last_ms: int | None, now_ms: int) -> bool:
        """Whether the account's quiet period since its last digest is still under way."""
        quiet = s.quiet_minutes if s and s.quiet_minutes else self.default_quiet_minutes
        return last_ms is not None and now_ms - last_ms < quiet * 60_000


def _first_pass(cur: Any) -> bool:
    """Whether this transaction holds the digests' lock (PostgreSQL: one pass at a time)."""
    got = cur.execute("SELECT pg_try_advisory_xact_lock(%s)", (DIGEST_LOCK,))
    return bool(got.fetchone()[0])


def _to_move(cur: Any, games: Sequence[str]) -> dict[str, str]:
    """Who is to move in each of these games (the lobby read model)."""
    return dict(
        cur.execute(
            "SELECT game_id, active_player FROM rm_lobby WHERE game_id IN"
            f" ({', '.join(['%s'] * len(games))})",
            tuple(games),
        ).fetchall()
    )


def _told(notices: Sequence[Held], account: str, waiting: dict[str, str]) -> list[Held]:
    """The newest notification of each game that still waits on ``account``."""
    latest: dict[str, Held] = {}
    for row in notices:
        known = latest.get(row.game_id)
        if known is None or (row.version, row.created_ms) > (known.version, known.created_ms):
            latest[row.game_id] = row
    return [r for g, r in sorted(latest.items()) if waiting.get(g) == account]


def _digest(
    cur: Any,
    account: str,
    notices: Sequence[Held],
    channels: Sequence[str],
    waiting: dict[str, str],
    now_ms: int,
) -> int:
    """The account's digest: sent with its newest notification still waiting on it, per
    channel, listing every game waiting; each other held notification ``batched`` (told
    in it) or ``skipped`` (no longer the player's move). 1 if one is sent, else 0."""
    told = _told(notices, account, waiting)
    sent_with = max(told, key=lambda r: (r.created_ms, r.id)) if told else None
    for row in notices:
        for channel in channels:
            if sent_with is not None and row.id == sent_with.id:
                listed = [{"game_id": r.game_id, "version": int(r.version)} for r in told]
                outbox.add_delivery(cur, row.id, channel, account, now_ms, games=listed)
            elif sent_with is not None and waiting.get(row.game_id) == account:
                why = f"told in the digest sent with {sent_with.id}"
                outbox.add_delivery(cur, row.id, channel, account, now_ms, "batched", note=why)
            else:
                why = "no longer your move when the digest was due"
                outbox.add_delivery(cur, row.id, channel, account, now_ms, "skipped", note=why)
    outbox.mark(cur, [row.id for row in notices], outbox.PLANNED)
    if sent_with is None or not channels:
        return 0
    outbox.digest_sent(cur, account, now_ms)
    return 1
