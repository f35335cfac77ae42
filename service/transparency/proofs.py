"""C2SP tlog-proof: an entry's proof of inclusion, checkable offline.

    c2sp.org/tlog-proof@v1
    extra <base64 of the entry itself>     (ours always carries it)
    index <the entry's index>
    <the inclusion proof, a base64 hash a line>

    <the signed checkpoint, its cosignatures beside the log's signature>

Checked with nothing but the log's verifier key (and any witnesses' keys): the note's
signature, the checkpoint it carries, and the entry's inclusion in that tree.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from service.transparency.checkpoint import Checkpoint, CheckpointError
from service.transparency.merkle import HASH_SIZE, ProofError, leaf_hash, verify_inclusion
from service.transparency.notes import KeyCheck, Note, NoteError, open_note

HEADER = "c2sp.org/tlog-proof@v1"
_INDEX = re.compile(r"index (0|[1-9][0-9]{0,18})")


class BundleError(ValueError):
    """A proof bundle that is malformed or does not prove what it says."""


@dataclass(frozen=True)
class ProofBundle:
    """An entry, its index, its inclusion proof, and the signed checkpoint it leads to."""

    index: int
    proof: tuple[bytes, ...]
    note: str
    entry: bytes | None = None

    @property
    def text(self) -> str:
        """The bundle as text (``.tlog-proof``)."""
        lines = [HEADER]
        if self.entry is not None:
            lines.append(f"extra {base64.b64encode(self.entry).decode()}")
        lines.append(f"index {self.index}")
        lines += [base64.b64encode(h).decode() for h in self.proof]
        return "\n".join(lines) + "\n\n" + self.note

    @classmethod
    def parse(cls, text: str) -> ProofBundle:
        """A bundle from its text (``BundleError`` unless it is one)."""
        head, sep, note = text.partition("\n\n")
        lines = head.split("\n")
        if not sep or lines[0] != HEADER:
            raise BundleError(f"a proof starts with {HEADER} and holds a checkpoint")
        entry = None
        rest = lines[1:]
        if rest and rest[0].startswith("extra "):
            entry = _b64(rest[0][len("extra ") :])
            rest = rest[1:]
        match = _INDEX.fullmatch(rest[0]) if rest else None
        if match is None:
            raise BundleError("a proof names its entry's index (index <n>)")
        proof = tuple(_b64(line) for line in rest[1:])
        if any(len(h) != HASH_SIZE for h in proof) or len(proof) > 64:
            raise BundleError("an inclusion proof is at most 64 hashes of 32 bytes")
        return cls(int(match[1]), proof, note, entry)

    def verify(self, verifiers: tuple[KeyCheck, ...], entry: bytes | None = None) -> Checkpoint:
        """The checkpoint the entry is proven in (``check``'s first half)."""
        return self.check(verifiers, entry)[0]

    def check(
        self, verifiers: tuple[KeyCheck, ...], entry: bytes | None = None
    ) -> tuple[Checkpoint, Note]:
        """The checkpoint the entry is proven in, and the note as opened (the signatures
        that checked): the note opens with ``verifiers`` (the log's key first), its
        checkpoint is the log's, and the entry (given, or the one the bundle carries) is
        at ``index`` of that tree. ``BundleError`` otherwise."""
        data = entry if entry is not None else self.entry
        if data is None:
            raise BundleError("no entry to prove: give it, or a bundle that carries it")
        try:
            opened: Note = open_note(self.note, verifiers)
            point = Checkpoint.parse(opened.text)
        except (NoteError, CheckpointError) as exc:
            raise BundleError(f"the checkpoint does not check: {exc}") from exc
        if not any(s.name == verifiers[0].name == point.origin for s in opened.verified):
            raise BundleError("the checkpoint is not signed by the log it names")
        try:
            verify_inclusion(self.index, point.size, leaf_hash(data), self.proof, point.root)
        except ProofError as exc:
            raise BundleError(f"the entry is not in the tree: {exc}") from exc
        return point, opened


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise BundleError("not base64") from exc
