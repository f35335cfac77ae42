"""A signed promise: what a command's receipt carries so that its player holds proof the
log accepted that head (issue 28).

A promise is a signed note (``service.transparency.notes``) by the log's key over

    tongiaki-promise/v1
    <origin>        the log's name
    <stream>        game/<id> or dispute/<id>
    <version>       the stream's version after the commit
    <head>          its chain hash there (lowercase hex)
    <time>          when the service received the command (as journalled)

A promise whose entry is not in the log once the maximum merge delay has passed is
evidence that the log misbehaved; so is a log entry for the same stream and version with
another head. Ed25519 is deterministic: the promise of a retried command is the same text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.transparency.entries import HeadEntry
from service.transparency.notes import KeyCheck, NoteError, Signer, open_note, sign

HEADER = "tongiaki-promise/v1"
_TIME = re.compile(r"[0-9T:.+\-Z ]{1,64}")


@dataclass(frozen=True)
class Promise:
    """What a promise says."""

    origin: str
    stream: str
    version: int
    head: str
    time: str

    @property
    def text(self) -> str:
        """The note's text (what the log's key signs)."""
        lines = (HEADER, self.origin, self.stream, str(self.version), self.head, self.time)
        return "".join(f"{line}\n" for line in lines)

    def signed(self, signer: Signer) -> str:
        """The promise as a signed note."""
        return sign(self.text, signer)

    def matches(self, entry: HeadEntry) -> bool:
        """Whether a log entry records the head this promised."""
        return (entry.stream, entry.version, entry.head) == (self.stream, self.version, self.head)

    @classmethod
    def parse(cls, text: str) -> Promise:
        """A promise from its text (``NoteError`` unless it is one)."""
        lines = text.split("\n")
        if len(lines) != 7 or lines[-1] != "" or lines[0] != HEADER:
            raise NoteError(f"a promise is {HEADER} and five lines, each ending in a newline")
        origin, stream, version, head, time = lines[1:6]
        if not version.isdigit() or not _TIME.fullmatch(time):
            raise NoteError("a promise's version is decimal and its time a time stamp")
        try:  # the stream, version and head an entry could hold (any commitment will do)
            HeadEntry(stream, int(version), head, "-" if stream.startswith("dispute/") else head)
        except ValueError as exc:
            raise NoteError(f"a promise names a stream's head: {exc}") from exc
        promise = cls(origin, stream, int(version), head, time)
        if promise.text != text:
            raise NoteError("a promise has one spelling")
        return promise


def check_promise(note: str, log_key: KeyCheck) -> Promise:
    """The promise a note signed by the log's key makes (``NoteError`` otherwise)."""
    opened = open_note(note, (log_key,))
    return Promise.parse(opened.text)
