"""C2SP tlog-cosignature v1 (Ed25519): a witness's timestamped signature over a checkpoint.

The signed message is ``cosignature/v1\\n``, ``time <T>\\n`` and the checkpoint's whole
text; the signature line carries the key id, T (big-endian uint64, POSIX seconds) and
the Ed25519 signature. The key id hashes the algorithm byte 0x04, so a witness's key is
never taken for a log's; its verifier key reads ``<name>+<id hex>+<base64(0x04 ‖ key)>``.
A cosignature says: as of T, the largest consistent tree the witness has seen of this
log has this root.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.transparency.notes import (
    NoteError,
    Signature,
    Signer,
    check_name,
    key_id,
    parse_verifier_key,
)

COSIGNATURE = 0x04  # the algorithm byte of a timestamped Ed25519 cosignature
MAX_TIME = 2**63 - 1


def message(checkpoint: str, timestamp: int) -> bytes:
    """What a cosigner signs over ``checkpoint`` (its text) at ``timestamp``."""
    if not 0 <= timestamp <= MAX_TIME:
        raise NoteError(f"a cosignature's time is from 0 to 2^63-1, not {timestamp}")
    return f"cosignature/v1\ntime {timestamp}\n{checkpoint}".encode()


@dataclass(frozen=True)
class Cosigner:
    """A witness's cosigning key (the same 32-byte seed as a note key, another id)."""

    name: str
    seed: bytes = field(repr=False)

    @classmethod
    def generate(cls, name: str) -> Cosigner:
        """A new cosigning key named ``name``."""
        signer = Signer.generate(name)  # the name is checked there
        return cls(signer.name, signer.seed)

    @classmethod
    def parse(cls, text: str) -> Cosigner:
        """A cosigning key ``PRIVATE+KEY+<name>+<id hex>+<base64(0x04 ‖ seed)>``."""
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a cosigning key reads PRIVATE+KEY+<name>+<key id>+<key>")
        try:
            data = base64.b64decode(parts[4], validate=True)
        except ValueError as exc:
            raise NoteError("a cosigning key's key is base64") from exc
        if len(data) != 33 or data[0] != COSIGNATURE:
            raise NoteError("a cosigning key holds 0x04 and a 32-byte Ed25519 seed")
        cosigner = cls(check_name(parts[2]), data[1:])
        if cosigner.verifier.id.hex() != parts[3].lower():
            raise NoteError("the cosigning key's id is not its key's")
        return cosigner

    @property
    def text(self) -> str:
        """The cosigning key as text (a secret)."""
        data = base64.b64encode(bytes([COSIGNATURE]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id.hex()}+{data}"

    @property
    def verifier(self) -> CosignatureVerifier:
        """The public half."""
        key = Ed25519PrivateKey.from_private_bytes(self.seed).public_key()
        public = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
        return CosignatureVerifier(self.name, key_id(self.name, COSIGNATURE, public), public)

    def cosign(self, checkpoint: str, timestamp: int) -> Signature:
        """The cosignature line over ``checkpoint`` at ``timestamp``."""
        signed = Ed25519PrivateKey.from_private_bytes(self.seed).sign(
            message(checkpoint, timestamp)
        )
        raw = timestamp.to_bytes(8, "big") + signed
        return Signature(self.name, self.verifier.id, raw)


@dataclass(frozen=True)
class CosignatureVerifier:
    """A witness's public cosigning key."""

    name: str
    id: bytes
    public: bytes

    @classmethod
    def parse(cls, text: str) -> CosignatureVerifier:
        """A verifier key ``<name>+<id hex>+<base64(0x04 ‖ key)>``."""
        return cls(*parse_verifier_key(text, COSIGNATURE))

    @property
    def text(self) -> str:
        """The verifier key as text."""
        data = base64.b64encode(bytes([COSIGNATURE]) + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{data}"

    def timestamp(self, checkpoint: str, signature: bytes) -> int:
        """When the witness cosigned ``checkpoint`` (``NoteError`` unless it did)."""
        if len(signature) != 8 + 64:
            raise NoteError("a cosignature is a time and a 64-byte signature")
        at = int.from_bytes(signature[:8], "big")
        if at > MAX_TIME:
            raise NoteError("a cosignature's time is at most 2^63-1")
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(
                signature[8:], message(checkpoint, at)
            )
        except InvalidSignature as exc:
            raise NoteError(f"the cosignature of {self.name} does not check") from exc
        return at

    def verifies(self, text: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this witness's cosignature of the note's text."""
        try:
            self.timestamp(text.decode(), signature)
        except NoteError:
            return False
        return True
