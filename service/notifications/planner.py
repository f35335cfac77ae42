"""What is to be sent: a "deadline soon" reminder for each decision whose deadline is
near (read from the clocks and lobby read models), and for each new notification a
delivery per channel its account wants, or its ``your_move`` held for the account's
next digest (``service.notifications.digests``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from projections.phrases import Phrase, say_n
from service.notifications import outbox
from service.notifications.preferences import settings_of, to_ms
from service.store.base import SqlStore
from service.timing.clocks import parse_time


def remind(store: SqlStore, now: datetime, before: int) -> int:
    """A "deadline soon" notification for each decision whose deadline is within
    ``before`` seconds (only when the decision was given more than twice as long;
    once per decision: the notification's id names it). How many were made."""
    now_ms = to_ms(now)
    made = 0
    for game_id, version, due, player, data in _coming(store, now_ms, before):
        said = _reminder(json.loads(data), player, int(due) - now_ms, before)
        if said is None or player is None:
            continue
        with store.transaction() as cur:
            outbox.add(cur, player, game_id, int(version), "deadline_soon", now, said)
        made += 1
    return made


def _coming(store: SqlStore, now_ms: int, before: int) -> list[Sequence[Any]]:
    """The decisions due within ``before`` seconds: game, version, due time, the player
    to move and the game's lobby entry."""
    with store.reading() as cur:
        rows: list[Sequence[Any]] = cur.execute(
            "SELECT c.game_id, c.version, c.due_ms, l.active_player, l.data"
            " FROM rm_clocks c JOIN rm_lobby l ON l.game_id = c.game_id"
            " WHERE c.due_ms > %s AND c.due_ms <= %s",
            (now_ms, now_ms + before * 1000),
        ).fetchall()
    return rows


def _reminder(
    entry: dict[str, Any], player: str | None, left_ms: int, before: int
) -> Phrase | None:
    """The reminder's text for a decision ``left_ms`` from its deadline, or None: no
    player to tell, a bot's seat, or a decision given no more than twice ``before``."""
    clock = entry.get("clock") or {}
    if not player or not clock.get("since") or not clock.get("deadline"):
        return None
    seat = clock.get("seat")
    if any(s.get("bot") for s in entry.get("seats", []) if s.get("seat") == seat):
        return None
    span = parse_time(clock["deadline"]) - parse_time(clock["since"])
    if span.total_seconds() <= 2 * before:
        return None
    minutes = max(1, left_ms // 60_000)
    return say_n(
        "Your move: the deadline is in {n} minute ({deadline}).",
        "Your move: the deadline is in {n} minutes ({deadline}).",
        minutes,
        deadline=clock["deadline"],
    )


def plan(store: SqlStore, now: datetime, mail: bool, limit: int = 500) -> int:
    """A delivery row per new notification and channel its account wants (e-mail only
    if ``mail``), for notifications made after the account first saved its settings; a
    ``your_move`` the account has batched is held for its digest. Rows planned."""
    now_ms = to_ms(now)
    with store.transaction() as cur:
        rows = outbox.unplanned(cur, limit)
        if not rows:
            return 0
        chosen = settings_of(cur, sorted({r.account_id for r in rows}))
        planned = 0
        held = []  # your_move, batched: for the account's next digest
        for n in rows:
            s = chosen.get(n.account_id)
            if s is None or n.kind not in s.kinds:
                continue
            if parse_time(n.created_at) < parse_time(s.since):
                continue
            channels = s.channels(mail)
            if n.kind == "your_move" and s.your_move != "every":
                if s.your_move == "batched" and channels:
                    held.append(n.id)
                continue
            for channel in channels:
                outbox.add_delivery(cur, n.id, channel, n.account_id, now_ms)
            planned += len(channels)
        outbox.mark(cur, [r.id for r in rows], outbox.PLANNED)
        outbox.mark(cur, held, outbox.HELD)
    return planned
