"""A software authenticator for tests: what a platform authenticator answers to
``navigator.credentials.create`` and ``get`` (WebAuthn level 2, "none" attestation,
ES256), built from the specification with ``cryptography`` and ``cbor2`` — so tests can
also answer for another origin, or send an answer twice."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftAuthenticator:
    """One authenticator holding the passkeys it made (by credential id)."""

    def __init__(self) -> None:
        self.keys: dict[bytes, tuple[ec.EllipticCurvePrivateKey, str, bytes]] = {}
        self.counter = 0

    def _client_data(self, kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False},
            separators=(",", ":"),
        ).encode()

    def create(
        self, options: dict[str, Any], origin: str, reuse: bytes | None = None
    ) -> dict[str, Any]:
        rp_id = options["rp"]["id"]
        key = self.keys[reuse][0] if reuse else ec.generate_private_key(ec.SECP256R1())
        numbers = key.public_key().public_numbers()
        cose = cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )
        credential_id = reuse or os.urandom(16)
        user = unb64url(options["user"]["id"])
        self.keys[credential_id] = (key, rp_id, user)
        self.counter += 1
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([0x45])  # user present, verified, attested credential data
            + struct.pack(">I", self.counter)
            + bytes(16)
            + struct.pack(">H", len(credential_id))
            + credential_id
            + cose
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            # as a browser's toJSON() writes it (extensions were not asked: ignored)
            "clientExtensionResults": {"credProps": {"rk": True}},
            "authenticatorAttachment": "platform",
        }

    def get(
        self, options: dict[str, Any], origin: str, credential_id: bytes | None = None
    ) -> dict[str, Any]:
        credential_id = credential_id or next(iter(self.keys))
        key, rp_id, user = self.keys[credential_id]
        self.counter += 1
        auth_data = (
            hashlib.sha256(options.get("rpId", rp_id).encode()).digest()
            + bytes([0x05])
            + struct.pack(">I", self.counter)
        )
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signature = key.sign(
            auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(user),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
