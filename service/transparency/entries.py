"""What the log records: one entry per commit of a stream, a game's or a dispute's.

    tongiaki-head/v1
    <stream>        game/<game id> or dispute/<dispute id>
    <version>       the stream's version after the commit, decimal
    <head>          the stream's chain hash at that version, lowercase hex (the receipts')
    <commitment>    the game's deck commitment, lowercase hex; "-" for a dispute

each line ending in a newline, nothing else. An entry is its own proof of what it says:
anyone holding a receipt (stream, version, head) can write the entry, hash it and ask
the log for its inclusion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = "tongiaki-head/v1"
# the ids the API takes (service.http.api: GAME_ID; disputes' converter)
_STREAM = re.compile(r"game/[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}|dispute/[A-Za-z0-9_-]{1,64}")
_HEX = re.compile(r"[0-9a-f]{64}")
_VERSION = re.compile(r"[1-9][0-9]{0,18}")


class EntryError(ValueError):
    """Bytes that are not a log entry."""


@dataclass(frozen=True)
class HeadEntry:
    """A stream's head after a commit, as the log records it."""

    stream: str
    version: int
    head: str
    commitment: str = "-"

    def __post_init__(self) -> None:
        if not _STREAM.fullmatch(self.stream):
            raise EntryError(f"a stream is game/<id> or dispute/<id>, not {self.stream!r}")
        if not 1 <= self.version < 2**63:
            raise EntryError(f"a version is from 1 to 2^63-1, not {self.version}")
        if not _HEX.fullmatch(self.head):
            raise EntryError("a head is a SHA-256 hash in lowercase hex")
        game = self.stream.startswith("game/")
        if (game and not _HEX.fullmatch(self.commitment)) or (not game and self.commitment != "-"):
            raise EntryError("a game's entry carries its deck commitment, a dispute's a -")

    @property
    def data(self) -> bytes:
        """The entry's bytes (what the log's leaf hashes)."""
        lines = (HEADER, self.stream, str(self.version), self.head, self.commitment)
        return "".join(f"{line}\n" for line in lines).encode()

    @classmethod
    def parse(cls, data: bytes) -> HeadEntry:
        """The entry of these bytes (``EntryError`` unless they are one, written so)."""
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError as exc:
            raise EntryError("an entry is ASCII text") from exc
        lines = text.split("\n")
        if len(lines) != 6 or lines[-1] != "" or lines[0] != HEADER:
            raise EntryError(f"an entry is {HEADER} and four lines, each ending in a newline")
        stream, version, head, commitment = lines[1:5]
        if not _VERSION.fullmatch(version):
            raise EntryError("a version is a decimal number without a leading zero")
        entry = cls(stream, int(version), head, commitment)
        if entry.data != data:
            raise EntryError("an entry has one spelling")
        return entry
