"""The log as the service publishes it (issue 28): its key, the newest signed checkpoint,
tiles and entry bundles (C2SP tlog-tiles), an entry's proof bundle (C2SP tlog-proof), and
the promises receipts carry. Everything served comes from the store's tables, read
afresh: nothing cached here, so every process answers the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from service.runtime.cache import Bounded
from service.store.log_port import Logged, LogHead, LogStore
from service.transparency.checkpoint import Checkpoint
from service.transparency.integrator import checkpoint_note, resigned
from service.transparency.merkle import EMPTY, HASH_SIZE
from service.transparency.notes import Signer, open_note, signed_by
from service.transparency.promises import Promise
from service.transparency.proofs import ProofBundle
from service.transparency.tiled_tree import TiledTree, planned
from service.transparency.tiles import WIDTH, bundle, parse

GRACE = 10.0  # seconds a cosigned checkpoint stays the one published
FULL_TILES = 2048  # full tiles kept per process for the answers (8 KiB each: 16 MiB)
NODES = 65536  # complete subtrees' roots kept per process for the proofs (~6 MiB)


@dataclass(frozen=True)
class Proven:
    """An entry with its proof bundle against the newest checkpoint."""

    entry: Logged
    bundle: ProofBundle
    size: int
    root_at_entry: bytes  # the root of the tree that ends with this entry
    since_entry: tuple[bytes, ...]  # its consistency proof to the checkpoint's tree


class TransparencyLog:
    """The log of this deployment: the store's tables and the log's key.

    With witnesses (``witnessed``), the checkpoint published is the newest one they
    cosigned, while it is at most ``grace`` seconds old; past that (the witnesses are
    away), the newest one, so that proofs never stop."""

    def __init__(
        self, store: LogStore, signer: Signer, witnessed: bool = False, grace: float = GRACE
    ) -> None:
        self.store = store
        self.signer = signer
        self.verifier = signer.verifier
        self.witnessed = witnessed
        self.grace = grace
        # full tiles never change: kept (bounded) for the answers, never for verification
        self._full: Bounded[tuple[int, int], bytes] = Bounded(FULL_TILES)
        self._nodes: Bounded[tuple[int, int], bytes] = Bounded(NODES)  # complete subtrees

    @property
    def origin(self) -> str:
        """The log's name: its checkpoints' origin."""
        return self.signer.name

    @property
    def key(self) -> str:
        """The log's verifier key (``<name>+<id>+<base64 key>``)."""
        return self.verifier.text

    def newest(self) -> LogHead:
        """The newest checkpoint, signed by this key: before the first entry, the empty
        tree's; after a key rotation and before the next integration, the same tree's
        signed now (Ed25519 is deterministic: every process signs the same note)."""
        head = self.store.log_head()
        if not head.note:
            return LogHead(0, checkpoint_note(self.signer, 0, EMPTY), head.made_at)
        if signed_by(head.note, self.verifier):
            return head
        return LogHead(head.size, resigned(head.note, self.signer), head.made_at)

    def head(self) -> LogHead:
        """The checkpoint published (see the class's docstring)."""
        newest = self.newest()
        if self.witnessed:
            cosigned = self.store.log_cosigned()
            if (
                cosigned is not None
                and cosigned.size <= newest.size
                and time.time() - cosigned.made_at < self.grace
                and signed_by(cosigned.note, self.verifier)
            ):
                return cosigned
        return newest

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
        key = (tile.level, tile.index)
        stored = read_tiles(self.store, {key}, self._full).get(key, b"")
        need = tile.width * HASH_SIZE
        return stored[:need] if len(stored) >= need else None

    def proof(self, stream: str, version: int) -> Proven | None:
        """The entry of a stream's commit with its inclusion proof in the newest tree, or
        None until it is integrated."""
        return prove(self.store, stream, version, self.head(), self._full, self._nodes)

    def consistency(self, old: int, new: int) -> list[bytes]:
        """PROOF(old, new) from the tiles (``ProofError`` unless 0 ≤ old ≤ new ≤ the
        newest size: a reader that kept a larger checkpoint than the one published now
        can check the smaller one is a prefix of it)."""
        size = self.store.log_head().size
        return TiledTree(self.store.log_tile, size).consistency(old, new)

    def checkpoint(self) -> Checkpoint:
        """The newest checkpoint, as the note signs it."""
        return Checkpoint.parse(open_note(self.head().note, (self.verifier,)).text)

    def promise(self, stream: str, version: int, head: str, time: str) -> str:
        """The log's signed promise of a stream's head (``service.transparency.promises``)."""
        return Promise(self.origin, stream, version, head, time).signed(self.signer)


def prove(
    store: LogStore,
    stream: str,
    version: int,
    head: LogHead,
    full: Bounded[tuple[int, int], bytes] | None = None,
    nodes: Bounded[tuple[int, int], bytes] | None = None,
) -> Proven | None:
    """The entry that covers a stream's ``version`` — its own commit's, the first entry at
    or after it (a version inside a commit is covered by its commit's last; one older than
    the log by the first entry, through the hash chain) — with its proof bundle against
    the checkpoint ``head``; None until it is in that checkpoint. The tiles it needs are
    read in one go (full ones from ``full``, a cache of immutable tiles, when given)."""
    entry = store.log_covering(stream, version)
    if entry is None or entry.index >= head.size:  # not integrated, or after ``head``
        return None
    at = entry.index + 1  # the log as it was when this entry was added: its fingerprint

    def work(tree: TiledTree) -> tuple[list[bytes], bytes, list[bytes]]:
        return tree.inclusion(entry.index), tree.range_hash(0, at), tree.consistency(at)

    tree = TiledTree(store.log_tile, head.size, nodes)
    tree.preload(read_tiles(store, planned(head.size, work, nodes), full))
    path, root_at, since = work(tree)
    bundle = ProofBundle(entry.index, tuple(path), head.note, entry.data)
    return Proven(entry, bundle, head.size, root_at, tuple(since))


def read_tiles(
    store: LogStore, keys: set[tuple[int, int]], full: Bounded[tuple[int, int], bytes] | None
) -> dict[tuple[int, int], bytes]:
    """These tiles: full ones (immutable) from the cache when kept, the rest in one read."""
    found: dict[tuple[int, int], bytes] = {}
    for key in keys:
        kept = full.get(key) if full is not None else None
        if kept is not None:
            found[key] = kept
    read = store.log_tiles(sorted(keys - found.keys()))
    for key, data in read.items():
        if full is not None and len(data) == WIDTH * HASH_SIZE:
            full.put(key, data)
    return {**found, **read}
