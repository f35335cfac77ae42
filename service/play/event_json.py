"""A stored event as clients see it (the API's event pages, live streams' frames): its
version, type, body, metadata and chain links."""

from __future__ import annotations

from typing import Any

from service.store.base import StoredEvent


def event_json(e: StoredEvent) -> dict[str, Any]:
    """A stored event for clients: version, type, body, metadata and chain links."""
    body_dict = e.body()
    body_dict.pop("type")
    return {
        "version": e.version,
        "type": e.type,
        "data": body_dict,
        "metadata": e.meta(),
        "prev_hash": e.prev_hash,
        "hash": e.hash,
    }
