"""Schemas of the log's proofs under ``/api/v1`` (service/http/api/proofs.py)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import Strict


class EntryProof(Strict):
    stream = fields.String(
        required=True, metadata={"description": "game/<game id> or dispute/<dispute id>"}
    )
    version = fields.Integer(required=True, metadata={"description": "the version asked about"})
    entry_version = fields.Integer(
        required=True,
        metadata={
            "description": "the version of the entry that covers it: its commit's last (a"
            " version inside a commit is covered by it through the hash chain)"
        },
    )
    index = fields.Integer(required=True, metadata={"description": "the entry's index in the log"})
    tree_size = fields.Integer(
        required=True, metadata={"description": "the size of the checkpoint it is proven in"}
    )
    entry = fields.String(required=True, metadata={"description": "the entry (tongiaki-head/v1)"})
    bundle = fields.String(
        required=True,
        metadata={
            "description": "a C2SP tlog-proof bundle (save as a .tlog-proof file and check it"
            " offline: tongiaki proof verify FILE --key <the log's key>)"
        },
    )

    root_at_entry = fields.String(
        required=True,
        metadata={
            "description": "the root (base64) of the log's tree that ends with this entry:"
            " the same for everyone shown this commit, whatever the log's size since (the"
            " pages' fingerprint)"
        },
    )
    since_entry = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "consistency proof from that tree to the checkpoint's"},
    )


class Consistency(Strict):
    old = fields.Integer(required=True, metadata={"description": "the older tree's size"})
    new = fields.Integer(required=True, metadata={"description": "the newer tree's size"})
    proof = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "RFC 9162 consistency proof, base64 hashes"},
    )
