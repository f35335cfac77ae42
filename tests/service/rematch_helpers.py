"""What the rematch tests share: an opening cut short (RM6), and its stalling."""

from __future__ import annotations

from typing import Any


def opening_cut_short(rematches: Any, monkeypatch: Any, last: Any, game_id: str) -> None:
    """``last``'s acceptance is counted, but the process dies before the game is opened."""
    opening = rematches._open
    monkeypatch.setattr(rematches, "_open", lambda found: (_ for _ in ()).throw(OSError("down")))
    assert last.post(f"/games/{game_id}/rematch/accept").status_code == 500
    monkeypatch.setattr(rematches, "_open", opening)


def stalled(rematches: Any) -> None:
    """Every agreed proposal's last answer long ago: the next look finishes the opening."""
    with rematches.store.transaction() as tx:
        tx.execute("UPDATE rematches SET updated_at = %s", ("2000-01-01T00:00:00+00:00",))
