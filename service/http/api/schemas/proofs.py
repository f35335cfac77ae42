"""Schemas of the log's proofs under ``/api/v1`` (service/http/api/proofs.py)."""

from __future__ import annotations

from marshmallow import fields

from service.http.api.schemas.base import Strict


class EntryProof(Strict):
    stream = fields.String(
        required=True, metadata={"description": "game/<game id> or dispute/<dispute id>"}
    )
    version = fields.Integer(required=True, metadata={"description": "the commit's version"})
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


class Consistency(Strict):
    old = fields.Integer(required=True, metadata={"description": "the older tree's size"})
    new = fields.Integer(required=True, metadata={"description": "the newer tree's size"})
    proof = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "RFC 9162 consistency proof, base64 hashes"},
    )
