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

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from service.notifications.preferences import settings_of, to_ms

MODES = ("batched", "every", "never")
HELD = 2  # rm_notifications.planned: a your_move notification waiting for its digest
DIGEST_LOCK = 0x7467_6467  # a PostgreSQL advisory lock: one digest pass at a time


class Digests:
    """Makes the digests of held ``your_move`` notifications that are due."""

    def __init__(self, store: Any, default_quiet_minutes: int) -> None:
        self.store = store
        self.default_quiet_minutes = default_quiet_minutes

    def run(self, now: datetime, channels_of: Any) -> int:
        """One pass: for each account whose quiet period is over and that has held
        notifications, one digest (or nothing, if no game waits on it any more).
        ``channels_of(settings)`` names the channels an account is sent on. The
        number of digests made."""
        now_ms = to_ms(now)
        made = 0
        with self.store.transaction() as cur:
            if self.store.postgres:  # another worker's pass under way: it does this one
                got = cur.execute("SELECT pg_try_advisory_xact_lock(%s)", (DIGEST_LOCK,))
                if not got.fetchone()[0]:
                    return 0
            held = cur.execute(
                "SELECT id, account_id, game_id, version, created_ms FROM rm_notifications"
                " WHERE planned = %s ORDER BY account_id, created_ms, id",
                (HELD,),
            ).fetchall()
            if not held:
                return 0
            by_account: dict[str, list[Sequence[Any]]] = defaultdict(list)
            for row in held:
                by_account[row[1]].append(row)
            accounts = sorted(by_account)
            marks = ", ".join(["%s"] * len(accounts))

            settings = settings_of(cur, accounts)
            last = dict(
                cur.execute(
                    f"SELECT account_id, last_ms FROM notify_digests WHERE account_id IN ({marks})",
                    tuple(accounts),
                ).fetchall()
            )
            games = sorted({row[2] for row in held})
            waiting = dict(
                cur.execute(
                    "SELECT game_id, active_player FROM rm_lobby WHERE game_id IN"
                    f" ({', '.join(['%s'] * len(games))})",
                    tuple(games),
                ).fetchall()
            )
            for account in accounts:
                s = settings.get(account)
                quiet = s.quiet_minutes if s and s.quiet_minutes else self.default_quiet_minutes
                if account in last and now_ms - int(last[account]) < quiet * 60_000:
                    continue  # still quiet: they wait for the period's end
                notices = by_account[account]
                channels = channels_of(s) if s is not None else []
                latest: dict[str, Sequence[Any]] = {}
                for row in notices:  # the newest notification of each game
                    known = latest.get(row[2])
                    if known is None or (row[3], row[4]) > (known[3], known[4]):
                        latest[row[2]] = row
                told = [r for g, r in sorted(latest.items()) if waiting.get(g) == account]
                sent_with = max(told, key=lambda r: (r[4], r[0])) if told else None
                for row in notices:
                    for channel in channels:
                        if sent_with is not None and row[0] == sent_with[0]:
                            listed = [{"game_id": r[2], "version": int(r[3])} for r in told]
                            cur.execute(
                                "INSERT INTO notify_deliveries (notification_id, channel,"
                                " account_id, status, attempts, next_ms, games)"
                                " VALUES (%s, %s, %s, 'pending', 0, %s, %s)"
                                " ON CONFLICT (notification_id, channel) DO NOTHING",
                                (row[0], channel, account, now_ms, json.dumps(listed)),
                            )
                            continue
                        if sent_with is not None and waiting.get(row[2]) == account:
                            status, why = "batched", f"told in the digest sent with {sent_with[0]}"
                        else:
                            status, why = "skipped", "no longer your move when the digest was due"
                        cur.execute(
                            "INSERT INTO notify_deliveries (notification_id, channel, account_id,"
                            " status, attempts, next_ms, last_error)"
                            " VALUES (%s, %s, %s, %s, 0, %s, %s)"
                            " ON CONFLICT (notification_id, channel) DO NOTHING",
                            (row[0], channel, account, status, now_ms, why),
                        )
                ids = [row[0] for row in notices]
                cur.execute(
                    "UPDATE rm_notifications SET planned = 1 WHERE id IN"
                    f" ({', '.join(['%s'] * len(ids))})",
                    tuple(ids),
                )
                if sent_with is not None and channels:
                    cur.execute(
                        "INSERT INTO notify_digests (account_id, last_ms) VALUES (%s, %s)"
                        " ON CONFLICT (account_id) DO UPDATE SET last_ms = excluded.last_ms",
                        (account, now_ms),
                    )
                    made += 1
        return made
