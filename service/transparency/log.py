"""The log as the service publishes it (issue 28): its key, the newest signed checkpoint,
tiles and entry bundles (C2SP tlog-tiles), an entry's proof bundle (C2SP tlog-proof), and
the promises receipts carry. Everything served comes from the store's tables, read
afresh: nothing cached here, so every process answers the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.store.log_port import Logged, LogHead, LogStore
from service.transparency.checkpoint import Checkpoint
from service.transparency.integrator import checkpoint_note
from service.transparency.merkle import EMPTY, HASH_SIZE
from service.transparency.notes import Signer, open_note
from service.transparency.promises import Promise
from service.transparency.proofs import ProofBundle
from service.transparency.tiled_tree import TiledTree
from service.transparency.tiles import WIDTH, bundle, parse


@dataclass(frozen=True)
class Proven:
    """An entry with its proof bundle against the newest checkpoint."""

    entry: Logged
    bundle: ProofBundle
    size: int


class TransparencyLog:
    """The log of this deployment: the store's tables and the log's key."""

    def __init__(self, store: LogStore, signer: Signer) -> None:
        self.store = store
        self.signer = signer
        self.verifier = signer.verifier

    @property
    def origin(self) -> str:
        """The log's name: its checkpoints' origin."""
        return self.signer.name

    @property
    def key(self) -> str:
        """The log's verifier key (``<name>+<id>+<base64 key>``)."""
        return self.verifier.text

    def head(self) -> LogHead:
        """The newest checkpoint; before the first entry, the empty tree's, signed now."""
        head = self.store.log_head()
        if head.note:
            return head
        return LogHead(0, checkpoint_note(self.signer, 0, EMPTY))

    def tile(self, path: str) -> bytes | None:
        """The bytes of the tile (or entry bundle) at ``path`` under the newest checkpoint,
        or None when there is no such tile."""
        tile = parse(path)
        if tile is None:
            return None
        size = self.head().size
        level = 0 if tile.level is None else tile.level
        count = size >> (8 * level)  # hashes (or entries) of that level in the tree
        if tile.index * WIDTH + tile.width > count:  # not in the published tree (yet)
            return None
        if tile.level is None:
            entries = self.store.log_entries(tile.index * WIDTH, tile.width)
            return bundle(entries) if len(entries) == tile.width else None
        stored = self.store.log_tile(tile.level, tile.index)
        need = tile.width * HASH_SIZE
        return stored[:need] if len(stored) >= need else None

    def proof(self, stream: str, version: int) -> Proven | None:
        """The entry of a stream's commit with its inclusion proof in the newest tree, or
        None until it is integrated."""
        return prove(self.store, stream, version)

    def consistency(self, old: int, new: int) -> list[bytes]:
        """PROOF(old, new) from the tiles (``ProofError`` unless 0 ≤ old ≤ new ≤ the size)."""
        size = self.head().size
        return TiledTree(self.store.log_tile, size).consistency(old, min(new, size))

    def checkpoint(self) -> Checkpoint:
        """The newest checkpoint, as the note signs it."""
        return Checkpoint.parse(open_note(self.head().note, (self.verifier,)).text)

    def promise(self, stream: str, version: int, head: str, time: str) -> str:
        """The log's signed promise of a stream's head (``service.transparency.promises``)."""
        return Promise(self.origin, stream, version, head, time).signed(self.signer)


def prove(store: LogStore, stream: str, version: int) -> Proven | None:
    """The entry of a stream's commit with its proof bundle against the newest checkpoint
    (None until it is integrated): what the API and a dispute's evidence give."""
    entry = store.log_find(stream, version)
    if entry is None:
        return None
    head = store.log_head()
    if entry.index >= head.size:  # integrated after the checkpoint read: not yet in it
        return None
    path = tuple(TiledTree(store.log_tile, head.size).inclusion(entry.index))
    return Proven(entry, ProofBundle(entry.index, path, head.note, entry.data), head.size)
