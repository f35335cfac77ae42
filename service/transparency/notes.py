"""C2SP signed notes with Ed25519: keys, signing, opening (the checkpoints' envelope).

A note is UTF-8 text ending in a newline, with no control character but newlines;
signed, it is followed by a blank line and one line a signature: ``— <name> <base64(key
id ‖ signature)>``. A key is named (no space, no ``+``) and identified by the first four
bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key); its verifier key reads
``<name>+<key id hex>+<base64(0x01 ‖ public key)>`` and its signer key (kept secret)
``PRIVATE+KEY+<name>+<key id hex>+<base64(0x01 ‖ seed)>``, as Go's note package writes
them, so anyone's tools can check what this log signs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519 = 0x01  # the algorithm byte of an Ed25519 key
DASH = "\u2014 "  # a signature line's start: an em dash and a space
MAX_SIGNATURES = 100  # signature lines a note may carry (more: not a note of ours)
_NAME = re.compile(r"[^\s+]+")


class NoteError(ValueError):
    """A key or a note that is malformed, or whose signatures do not check."""


def key_id(name: str, algorithm: int, public: bytes) -> bytes:
    """The four bytes that identify a key: SHA-256(name ‖ 0x0A ‖ algorithm ‖ key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([algorithm]) + public).digest()[:4]


def check_name(name: str) -> str:
    """A key's name: not empty, no space, no +."""
    if not _NAME.fullmatch(name):
        raise NoteError(f"a key name is not empty and holds no space or +: {name!r}")
    return name


def parse_verifier_key(text: str, algorithm: int) -> tuple[str, bytes, bytes]:
    """The name, id and Ed25519 public key of a verifier key
    ``<name>+<id hex>+<base64(algorithm ‖ key)>`` (a log's 0x01, a witness's 0x04)."""
    parts = text.strip().split("+", 2)  # base64 has + of its own
    if len(parts) != 3:
        raise NoteError("a verifier key reads <name>+<key id>+<key>")
    name, hex_id, data = check_name(parts[0]), parts[1], _decode(parts[2])
    if len(data) != 33 or data[0] != algorithm:
        raise NoteError(f"a verifier key holds 0x{algorithm:02x} and a 32-byte Ed25519 key")
    public = data[1:]
    found = key_id(name, algorithm, public)
    if len(hex_id) != 8 or found.hex() != hex_id.lower():
        raise NoteError("the verifier key's id is not its key's")
    return name, found, public


def _raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Verifier:
    """One named Ed25519 public key."""

    name: str
    id: bytes
    public: bytes

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """A verifier key ``<name>+<id hex>+<base64(0x01 ‖ key)>``."""
        return cls(*parse_verifier_key(text, ED25519))

    @property
    def text(self) -> str:
        """The verifier key as text."""
        data = base64.b64encode(bytes([ED25519]) + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{data}"

    def verifies(self, message: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's over ``message``."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    """One named Ed25519 private key."""

    name: str
    seed: bytes = field(repr=False)

    @classmethod
    def generate(cls, name: str) -> Signer:
        """A new key named ``name``."""
        seed = Ed25519PrivateKey.generate().private_bytes_raw()
        return cls(check_name(name), seed)

    @classmethod
    def parse(cls, text: str) -> Signer:
        """A signer key ``PRIVATE+KEY+<name>+<id hex>+<base64(0x01 ‖ seed)>``."""
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key reads PRIVATE+KEY+<name>+<key id>+<key>")
        name, data = check_name(parts[2]), _decode(parts[4])
        if len(data) != 33 or data[0] != ED25519:
            raise NoteError("a signer key holds 0x01 and a 32-byte Ed25519 seed")
        signer = cls(name, data[1:])
        if signer.verifier.id.hex() != parts[3].lower():
            raise NoteError("the signer key's id is not its key's")
        return signer

    @cached_property
    def _private(self) -> Ed25519PrivateKey:
        # made once per key: a promise is signed for every command
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    @cached_property
    def verifier(self) -> Verifier:
        """The public half."""
        public = _raw_public(self._private.public_key())
        return Verifier(self.name, key_id(self.name, ED25519, public), public)

    @property
    def text(self) -> str:
        """The signer key as text (a secret)."""
        data = base64.b64encode(bytes([ED25519]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id.hex()}+{data}"

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature over ``message``."""
        return self._private.sign(message)


@dataclass(frozen=True)
class Signature:
    """A signature line: its key's name and id, and the signature bytes."""

    name: str
    id: bytes
    signature: bytes

    @property
    def line(self) -> str:
        """The line as a note carries it."""
        return f"{DASH}{self.name} {base64.b64encode(self.id + self.signature).decode()}\n"


@dataclass(frozen=True)
class Note:
    """A note's text and its signatures: those checked, and those of keys not given."""

    text: str
    verified: tuple[Signature, ...]
    unverified: tuple[Signature, ...]


def _decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise NoteError("not base64") from exc


def check_text(text: str) -> str:
    """A note's text: ending in a newline, no control character but newlines."""
    if not text.endswith("\n"):
        raise NoteError("a note's text ends with a newline")
    if any(c < " " and c != "\n" for c in text):
        raise NoteError("a note's text holds no control character but newlines")
    return text


def sign(text: str, *signers: Signer) -> str:
    """The note: ``text``, a blank line, a signature line by each signer."""
    message = check_text(text).encode()
    lines = [Signature(s.name, s.verifier.id, s.sign(message)).line for s in signers]
    return text + "\n" + "".join(lines)


class KeyCheck(Protocol):
    """A named key that checks a note's signature lines of its id (a log's key, a
    witness's cosigning key)."""

    @property
    def name(self) -> str:
        """The key's name."""
        ...

    @property
    def id(self) -> bytes:
        """The key's four-byte id."""
        ...

    def verifies(self, message: bytes, signature: bytes) -> bool:
        """Whether ``signature`` (as a signature line carries it) is this key's over the
        note's text ``message``."""
        ...


def _split(note: str) -> tuple[str, str]:
    if len(note) > 1_000_000 or "\n\n" not in note or not note.endswith("\n"):
        raise NoteError("a signed note is text, a blank line and signature lines")
    split = note.rindex("\n\n")
    return check_text(note[: split + 1]), note[split + 2 :]


def note_text(note: str) -> str:
    """A note's text, its signatures not checked (``NoteError`` if it is no note): for a
    reader that checks what the text says by other means (hashes), not who signed it."""
    return _split(note)[0]


def open_note(note: str, verifiers: tuple[KeyCheck, ...]) -> Note:
    """The note's text and signatures; ``NoteError`` if it is malformed, if a signature
    of a known key does not check, or if no known key signed it."""
    text, block = _split(note)
    lines = block.splitlines(keepends=True)
    if not lines or len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a signed note carries 1 to {MAX_SIGNATURES} signatures")
    known = {(v.name, v.id): v for v in verifiers}
    verified, unverified = [], []
    for line in lines:
        signature = _signature(line)
        verifier = known.get((signature.name, signature.id))
        if verifier is None:
            unverified.append(signature)
        elif verifier.verifies(text.encode(), signature.signature):
            verified.append(signature)
        else:
            raise NoteError(f"the signature of {signature.name} does not check")
    if not verified:
        raise NoteError("no known key signed the note")
    return Note(text, tuple(verified), tuple(unverified))


def _signature(line: str) -> Signature:
    if not line.startswith(DASH) or not line.endswith("\n"):
        raise NoteError("a signature line reads — <name> <signature>")
    name, _, data = line[len(DASH) : -1].partition(" ")
    raw = _decode(data)
    if len(raw) < 5:
        raise NoteError("a signature holds a key id and its bytes")
    return Signature(check_name(name), raw[:4], raw[4:])


@lru_cache(maxsize=16)
def signed_by(note: str, verifier: Verifier) -> bool:
    """Whether ``verifier``'s key signed ``note`` (kept for the last few notes asked about:
    the log's newest checkpoint is asked about at every answer)."""
    try:
        open_note(note, (verifier,))
    except NoteError:
        return False
    return True
