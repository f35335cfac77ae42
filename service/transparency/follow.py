"""Following a log from its public files only (``tongiaki log verify``): its checkpoint
checked with its key (and witnesses' keys), each new checkpoint proven consistent with
the one kept from before, and, on request, every entry read back and the whole tree
recomputed from them.

The public files are the log's C2SP ones — ``checkpoint`` and ``tile/…`` — read over
HTTP(S) from the log's URL (``…/log``) or from a directory that mirrors them. Nothing
the server says is believed unless a signature or a hash proves it: the consistency
proof is computed from tiles, then checked against both roots.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from service.transparency.checkpoint import Checkpoint, CheckpointError
from service.transparency.entries import EntryError, HeadEntry
from service.transparency.merkle import ProofError, leaf_hash, root, verify_consistency
from service.transparency.notes import KeyCheck, NoteError, Verifier, open_note
from service.transparency.tiled_tree import TiledTree
from service.transparency.tiles import HEIGHT, WIDTH, Tile, unbundle

MAX_NOTE = 1 << 20
MAX_TILE = WIDTH * 32
MAX_BUNDLE = WIDTH * (2 + 0xFFFF)


class FollowError(Exception):
    """The log cannot be read, or what it serves is not what it signed."""


class Unreachable(FollowError):
    """The log's files cannot be read (now): not evidence of anything."""


class Inconsistent(FollowError):
    """The log's new checkpoint does not extend the one kept: evidence of a rewrite."""

    def __init__(self, message: str, kept: str, served: str) -> None:
        super().__init__(message)
        self.kept = kept
        self.served = served


class PublicFiles:
    """A log's public files at a URL (``https://host/log``) or in a directory."""

    def __init__(self, where: str, timeout: float = 15.0) -> None:
        self.where = where.rstrip("/")
        self.remote = self.where.startswith(("http://", "https://"))
        self.timeout = timeout

    def read(self, path: str, limit: int) -> bytes:
        """The file at ``path`` (at most ``limit`` bytes; ``FollowError`` otherwise)."""
        if not self.remote:
            try:
                with open(os.path.join(self.where, path), "rb") as handle:
                    data = handle.read(limit + 1)
            except OSError as exc:
                raise Unreachable(f"cannot read {self.where}/{path}: {exc.strerror}") from exc
        else:
            try:
                with urllib.request.urlopen(f"{self.where}/{path}", timeout=self.timeout) as r:
                    data = r.read(limit + 1)
            except urllib.error.HTTPError as exc:
                raise Unreachable(f"{self.where}/{path}: HTTP {exc.code}") from exc
            except (urllib.error.URLError, OSError, ValueError) as exc:
                raise Unreachable(f"cannot read {self.where}/{path}: {exc}") from exc
        if len(data) > limit:
            raise FollowError(f"{path} is longer than {limit} bytes")
        return data

    def note(self) -> str:
        """The checkpoint as served."""
        try:
            return self.read("checkpoint", MAX_NOTE).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FollowError("the checkpoint is not UTF-8 text") from exc

    def tile(self, level: int, index: int, size: int) -> bytes:
        """The hash tile (level, index) of the tree of ``size`` leaves."""
        width = min(WIDTH, (size >> (HEIGHT * level)) - index * WIDTH)
        data = self.read(Tile(level, index, width).path, MAX_TILE)
        if len(data) != width * 32:
            raise FollowError(f"tile {level}/{index} holds {len(data)} bytes, not {width * 32}")
        return data

    def entries(self, index: int, size: int) -> list[bytes]:
        """The entry bundle ``index`` of the tree of ``size`` leaves."""
        width = min(WIDTH, size - index * WIDTH)
        try:
            found = unbundle(self.read(Tile(None, index, width).path, MAX_BUNDLE))
        except ValueError as exc:
            raise FollowError(f"entry bundle {index}: {exc}") from exc
        if len(found) != width:
            raise FollowError(f"entry bundle {index} holds {len(found)} entries, not {width}")
        return found


@dataclass(frozen=True)
class Kept:
    """The checkpoint a follower kept: the newest it checked."""

    note: str
    origin: str
    size: int
    root: bytes

    @classmethod
    def load(cls, path: Path, key: Verifier, previous: tuple[Verifier, ...] = ()) -> Kept | None:
        """The state file's checkpoint (None if there is no file yet)."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            note = str(raw["checkpoint"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise FollowError(f"{path} is not a state file of tongiaki log verify: {exc}") from exc
        try:
            point = Checkpoint.parse(open_note(note, (key, *previous)).text)
        except (NoteError, CheckpointError) as exc:
            raise FollowError(
                f"the checkpoint kept in {path} does not check: {exc} (kept under an earlier"
                " key? name it with --previous-key)"
            ) from exc
        return cls(note, point.origin, point.size, point.root)

    def save(self, path: Path) -> None:
        """Write the state file (whole, then renamed over the old one)."""
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(
            json.dumps({"checkpoint": self.note, "size": self.size}, indent=1) + "\n",
            encoding="utf-8",
        )
        os.replace(temporary, path)


@dataclass
class Report:
    """What a check found."""

    origin: str
    size: int
    root: bytes
    note: str
    cosigned: int = 0
    since: int | None = None  # the size kept before, if any
    entries: int = 0  # entries read back (0 unless asked)
    streams: set[str] = field(default_factory=set)


def check(
    files: PublicFiles,
    key: Verifier,
    kept: Kept | None,
    witnesses: tuple[KeyCheck, ...] = (),
    entries: bool = False,
    progress: Callable[[int, int], object] = lambda done, total: None,
    previous: tuple[str, ...] = (),
) -> Report:
    """Check the log's newest checkpoint (see the module's docstring)."""
    note = files.note()
    try:
        opened = open_note(note, (key, *witnesses))
        point = Checkpoint.parse(opened.text)
    except (NoteError, CheckpointError) as exc:
        raise FollowError(f"the checkpoint does not check: {exc}") from exc
    if point.origin != key.name or not any(s.name == key.name for s in opened.verified):
        raise FollowError(f"the checkpoint is {point.origin!r}'s, not signed by {key.name!r}")
    names = {w.name for w in witnesses}
    report = Report(point.origin, point.size, point.root, note)
    report.cosigned = len({s.name for s in opened.verified if s.name in names})
    tree = TiledTree(lambda level, index: files.tile(level, index, point.size), point.size)
    if kept is not None:
        report.since = kept.size
        _consistent(tree, kept, point, note, previous)
    if entries:
        _entries(files, point, report, progress)
    return report


def _consistent(
    tree: TiledTree, kept: Kept, point: Checkpoint, note: str, previous: tuple[str, ...]
) -> None:
    if kept.origin != point.origin and kept.origin not in previous:
        raise FollowError(
            f"the state kept is {kept.origin!r}'s log, not {point.origin!r}'s (after a key"
            " rotation, name the earlier key with --previous-key)"
        )
    if point.size < kept.size:
        raise Inconsistent(
            f"the log shrank: {point.size} entries now, {kept.size} in the checkpoint kept",
            kept.note,
            note,
        )
    try:
        proof = tree.consistency(kept.size)
        verify_consistency(kept.size, point.size, kept.root, point.root, proof)
    except (ProofError, FollowError) as exc:
        raise Inconsistent(
            f"the tree of {point.size} does not extend the tree of {kept.size} kept: {exc}",
            kept.note,
            note,
        ) from exc


def _entries(
    files: PublicFiles, point: Checkpoint, report: Report, progress: Callable[[int, int], object]
) -> None:
    leaves: list[bytes] = []
    last: dict[str, tuple[int, str]] = {}
    for bundle in range(-(-point.size // WIDTH)):
        data = files.entries(bundle, point.size)
        stored = files.tile(0, bundle, point.size)
        for i, entry in enumerate(data):
            index = bundle * WIDTH + i
            leaf = leaf_hash(entry)
            if stored[i * 32 : (i + 1) * 32] != leaf:
                raise FollowError(f"entry {index} does not hash to its tile's hash")
            try:
                head = HeadEntry.parse(entry)
            except EntryError as exc:
                raise FollowError(f"entry {index} is no tongiaki-head/v1 entry: {exc}") from exc
            version, commitment = last.get(head.stream, (0, head.commitment))
            if head.version <= version:
                raise FollowError(f"entry {index}: {head.stream} v{head.version} after v{version}")
            if head.commitment != commitment:
                raise FollowError(f"entry {index}: {head.stream}'s deck commitment changed")
            last[head.stream] = (head.version, head.commitment)
            leaves.append(leaf)
        progress(len(leaves), point.size)
    if root(leaves) != point.root:
        raise FollowError("the entries do not make the checkpoint's root")
    report.entries = len(leaves)
    report.streams = set(last)
