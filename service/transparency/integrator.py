"""The integrator: pending commits become entries of the log, under a new signed
checkpoint (issue 28).

One step takes the oldest pending commits (at most ``BATCH``), writes each as a
``tongiaki-head/v1`` entry with the next index, grows the tree's tiles, signs the
checkpoint of the new tree with the log's key, and records all of it in one transaction
(``LogStore.integrating``): a step that fails leaves the log as it was, and the next step
takes the same commits again. Two processes integrating at once: one waits its turn (or
is told another is integrating and does nothing), so every commit gets exactly one
index. A commit that cannot be an entry (its stream's version already logged, a name an
entry cannot hold) is left out and reported: the promise of it then has no entry, which
is what an auditor sees.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from service.runtime.loops import repeat
from service.store.base import StoreUnavailable
from service.store.log_port import GAME, LogBatch, Logged, LogHead, LogStore, Pending
from service.transparency.checkpoint import Checkpoint
from service.transparency.entries import EntryError, HeadEntry
from service.transparency.merkle import leaf_hash
from service.transparency.notes import Signer, note_text, sign, signed_by
from service.transparency.tiled_tree import TiledTree

BATCH = 2000  # commits one step integrates at most
log = logging.getLogger("tongiaki.log")


@dataclass(frozen=True)
class Step:
    """What one step did: entries added, commits left out, the tree's size after it
    (``busy``: another process was integrating, nothing was done)."""

    added: int = 0
    refused: int = 0
    size: int = 0
    busy: bool = False


def checkpoint_note(signer: Signer, size: int, root: bytes) -> str:
    """The signed checkpoint of a tree of ``size`` with this root (origin: the key's name)."""
    return sign(Checkpoint(signer.name, size, root).text, signer)


def resigned(note: str, signer: Signer) -> str:
    """The tree of a checkpoint signed by another key, signed by ``signer`` (a rotation)."""
    point = Checkpoint.parse(note_text(note))
    return checkpoint_note(signer, point.size, point.root)


class Integrator:
    """Integrates the log's pending commits with the log's key."""

    def __init__(self, store: LogStore, signer: Signer, batch: int = BATCH) -> None:
        self.store = store
        self.signer = signer
        self.batch = batch

    def step(self) -> Step:
        """Integrate the oldest pending commits (see the module's docstring)."""
        with self.store.integrating() as tx:
            if tx is None:
                return Step(busy=True)
            head = tx.head()
            pending = tx.pending(self.batch)
            if not pending:
                if head.note and not signed_by(head.note, self.signer.verifier):  # rotated
                    note = resigned(head.note, self.signer)
                    tx.record([], {}, [], LogHead(head.size, note, time.time()))
                return Step(size=head.size)
            entries, refused = self._entries(tx, head.size, pending)
            tree = TiledTree(tx.tile, head.size)
            tiles = tree.append([leaf_hash(e.data) for e in entries])
            note = checkpoint_note(self.signer, tree.size, tree.root())
            made = LogHead(tree.size, note, time.time())
            tx.record(entries, tiles, [p.seq for p in pending], made)
        return Step(len(entries), refused, tree.size)

    def _entries(self, tx: LogBatch, size: int, pending: list[Pending]) -> tuple[list[Logged], int]:
        games = {p.stream[len(GAME) :] for p in pending if p.stream.startswith(GAME)}
        commitments = tx.commitments(games)
        last = tx.last_versions({p.stream for p in pending})
        entries: list[Logged] = []
        refused = 0
        for p in pending:
            game = p.stream[len(GAME) :] if p.stream.startswith(GAME) else None
            try:
                if p.version <= last.get(p.stream, 0):
                    raise EntryError(f"version {p.version} follows {last[p.stream]} in the log")
                commitment = commitments.get(game, "") if game is not None else "-"
                data = HeadEntry(p.stream, p.version, p.head, commitment).data
            except EntryError as exc:
                refused += 1
                log.error("log: %s v%d left out: %s", p.stream, p.version, exc)
                continue
            last[p.stream] = p.version
            entries.append(Logged(size + len(entries), p.stream, p.version, data))
        return entries, refused

    def drain(self) -> int:
        """Integrate until nothing is pending (or another process integrates); entries added."""
        added = 0
        while True:
            done = self.step()
            added += done.added
            if done.busy or done.added + done.refused < self.batch:
                return added


def run_integrator(
    store: LogStore, signer: Signer, every: float, until: Callable[[], bool]
) -> threading.Event:
    """Integrate pending commits every ``every`` seconds in a thread of this process (the
    embedded default's, each worker's), until ``until()`` or the returned event is set."""
    stop = threading.Event()
    repeat(
        Integrator(store, signer).drain,
        every,
        stop,
        name="log-integrator",
        log=log,
        what="log integration",
        skipped=(StoreUnavailable,),
        until=until,
    )
    return stop
