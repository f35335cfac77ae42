"""C2SP tlog-checkpoint: the text a log signs to commit to its tree.

``<origin>\\n<tree size>\\n<base64 root hash>\\n`` and optional extension lines, each
ending in a newline; the origin names the log (its key's name), the size is decimal
without a leading zero, the root is RFC 9162's over the first ``size`` entries. Signed,
it is a note (``service.transparency.notes``): the log's signature, and witnesses'
cosignatures beside it.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from service.transparency.merkle import HASH_SIZE

_SIZE = re.compile(r"0|[1-9][0-9]{0,19}")
MAX_SIZE = 2**63 - 1


class CheckpointError(ValueError):
    """Text that is not a checkpoint."""


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree, as it commits to it: origin, size, root (and extension lines)."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The checkpoint's text (what the log signs)."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode()]
        return "".join(f"{line}\n" for line in (*lines, *self.extensions))

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """A checkpoint from its text (``CheckpointError`` unless it is one)."""
        if not text.endswith("\n"):
            raise CheckpointError("a checkpoint's lines each end with a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise CheckpointError("a checkpoint has an origin, a size and a root hash")
        origin, size, root, *extensions = lines
        if not origin or any(c < " " for c in origin):
            raise CheckpointError("a checkpoint's origin is a non-empty line")
        if not _SIZE.fullmatch(size) or int(size) > MAX_SIZE:
            raise CheckpointError("a checkpoint's size is a decimal number, no leading zero")
        try:
            digest = base64.b64decode(root, validate=True)
        except binascii.Error as exc:
            raise CheckpointError("a checkpoint's root hash is base64") from exc
        if len(digest) != HASH_SIZE or base64.b64encode(digest).decode() != root:
            raise CheckpointError("a checkpoint's root hash is 32 bytes in base64")
        if any(not line for line in extensions):
            raise CheckpointError("a checkpoint has no empty line")
        return cls(origin, int(size), digest, tuple(extensions))
