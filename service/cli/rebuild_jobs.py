"""A rebuild across processes (``tongiaki projections rebuild --jobs N``, PostgreSQL).

The games are cut into small shares; each of ``N`` processes opens its own
connection to the same database and rebuilds one share after another, each game
in its own transaction as a rebuild in one process does, with the cross-game
work (the ratings' refold, docs/ratings.md G5) left for the end; once every
share is done, this process settles it once. The read models a game's
transaction writes are that game's rows, and the checkpoints are locked per game
(``projections.checkpoints``), as when several workers catch up at once, so the
shares may run side by side: the tables come out as a rebuild in one process
leaves them (tests/service/test_rebuild_jobs.py compares every row).

SQLite takes one writer at a time: there, ``--jobs`` above 1 is refused.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from projections.store import ReadModels

MAX_JOBS = 64
SHARE = 25  # games per share at most: small enough that the processes finish together

_models: ReadModels | None = None  # a child's own read models (its own connections)


def shares(games: Sequence[str], jobs: int) -> list[list[str]]:
    """The games in shares of at most ``SHARE``, several per process (a slow game's
    share does not leave the others idle), in their order."""
    size = max(1, min(SHARE, len(games) // (jobs * 4) or 1))
    return [list(games[i : i + size]) for i in range(0, len(games), size)]


def _open(url: str) -> None:
    """In a child: its own event store and read models on the same database (only
    what a rebuild needs is imported: a process starts in about half a second)."""
    global _models
    from projections.store import ReadModels
    from service.store.postgres import PostgresEventStore

    store = PostgresEventStore(url, min_size=1, max_size=2)
    _models = ReadModels(store, store)


def _rebuild(names: Sequence[str], games: list[str]) -> int:
    """In a child: one share rebuilt, its settle left to the parent."""
    assert _models is not None, "the pool's initializer opens the read models"
    return _models.rebuild(names, games=games, settle=False)


def rebuild(
    rm: ReadModels,
    url: str,
    names: Sequence[str],
    games: Sequence[str],
    jobs: int,
    progress: Callable[[int], None],
) -> int:
    """Rebuild ``games`` in ``jobs`` processes on the PostgreSQL at ``url``, then settle
    here (``rm``): the items applied."""
    total = 0
    # spawned, not forked: this process holds a connection pool and its threads
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_open, initargs=(url,)) as pool:
        pending: dict[Future[int], int] = {
            pool.submit(_rebuild, tuple(names), share): len(share) for share in shares(games, jobs)
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_EXCEPTION)
                for future in done:
                    total += future.result()  # a share's failure ends the rebuild
                    progress(pending.pop(future))
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return total + rm.rebuild(names, games=[], settle=True)
