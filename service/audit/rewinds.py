"""A rewound history (D6): each rewind checked (the versions a history is made of now:
``domain.history.effective_versions``)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from domain import position
from domain.errors import DomainError
from domain.events import Event, GameRewound
from domain.fold import replay
from domain.history import effective_versions
from service.store.base import StoredEvent


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
