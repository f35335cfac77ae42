"""Moving a game between servers (``tongiaki export`` / ``tongiaki import``): the export
format both sides share, and the error a move that cannot be done raises.

An export is NDJSON. Line 1 is a header naming the format, the game, how many
account, event and journal lines follow and the head hash, so a truncated file
is told from a whole one. Then the seated players' accounts (``--with-secret``
only), every event as stored (bytes and hashes kept), every journal entry, and
the events of the game's disputes. The header also says where the source's transparency
log holds the game's commits (``log``: its checkpoint, and each entry's stream, version
and index), so an export can be checked against the log it came from; an import logs
the same commits in its own log. A game that is not over can only be moved
with its deck seed and its players' accounts (``--with-secret``, for operators;
their tokens work on the new server): without them nobody could play on.

Writing is ``service.audit.export``; reading a file's lines back is
``service.audit.export_reader``; checking a game through and storing it,
``service.audit.imports``.
"""

from __future__ import annotations

FORMAT = "tongiaki-export/1"


class TransferError(Exception):
    """An export or import that cannot be done; the message says why (and where)."""
