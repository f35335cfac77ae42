"""Each takeback checked against the record (docs/table.md, T1): it went back to the
version before its asker's last decision still in the history, and carried exactly the
position the record gives there. The service completes a request with the same
function (``service.play.takebacks.complete``), so the two cannot drift apart."""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import Event
from domain.fold import replay
from domain.offers import TakebackRequested
from service.errors import Conflict
from service.play.takebacks import complete
from service.store.base import JournalEntry


def takeback_problems(journal: Sequence[JournalEntry], events: Sequence[Event]) -> list[str]:
    """A takeback request whose version or position is not the record's (T1)."""
    problems = []
    for version, e in enumerate(events, start=1):
        if not isinstance(e, TakebackRequested):
            continue
        before = events[: version - 1]
        known = [j for j in journal if (j.last_version or 0) <= len(before)]
        try:
            expected = complete(known, before, e.player_id, lambda at: replay(events[:at]))
        except Conflict:
            problems.append(
                f"event {version}: a takeback by a player with no decision to take back"
            )
            continue
        if expected.to_version != e.to_version:
            problems.append(
                f"event {version}: a takeback to version {e.to_version}; the record's last"
                f" decision of {e.player_id} starts after version {expected.to_version} (T1)"
            )
        elif expected.position != e.position:
            problems.append(
                f"event {version}: the position a takeback restores is not the record's at"
                f" version {e.to_version} (T1)"
            )
    return problems
