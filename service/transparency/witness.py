"""A witness (C2SP tlog-witness ``add-checkpoint``): cosign only a checkpoint consistent
with the last one cosigned for its log, and keep any inconsistent one as evidence.

A request is ``old <size>``, the consistency proof (a base64 hash a line), a blank line
and the signed checkpoint. The answer, as the protocol says: 404 for a log not known,
403 when no trusted key signed it, 400 for an old size past the new one, 409 (with the
size the witness holds, ``text/x.tlog.size``) when the old size is not that one or when
one size has two roots, 422 when the proof does not prove consistency, else 200 with the
cosignature line. A signed checkpoint that fails the proof, or that gives a size a
second root, is kept as evidence of the log's misbehaviour.

Checking the old size and recording the new checkpoint happen under one lock and the
record is on disk before the answer (``WitnessState``): a slower request for a smaller
tree can never roll the witness back.
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.transparency.checkpoint import Checkpoint, CheckpointError
from service.transparency.cosignatures import Cosigner
from service.transparency.merkle import EMPTY, ProofError, verify_consistency
from service.transparency.notes import KeyCheck, NoteError, open_note

SIZE_TYPE = "text/x.tlog.size"
MAX_PROOF = 63


@dataclass(frozen=True)
class Answer:
    """The witness's HTTP answer: status, body, content type; ``evidence`` when the
    request showed the log misbehaving (a fork or an inconsistent tree, signed)."""

    status: int
    body: str
    content_type: str = "text/plain; charset=utf-8"
    evidence: bool = False


@dataclass(frozen=True)
class Recorded:
    """The latest checkpoint cosigned for a log: its size, root and signed note."""

    size: int
    root: bytes
    note: str = ""


class WitnessState:
    """What the witness holds, per log origin: the latest cosigned tree, and the evidence,
    in one JSON file written whole (write, fsync, rename) before any answer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        # one witness process per state file: a second would cosign from a stale copy
        self._held = open(path.with_name(path.name + ".lock"), "a")  # noqa: SIM115 - held
        try:
            fcntl.flock(self._held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            self._held.close()
            raise OSError(f"another witness process uses {path}") from exc
        data = json.loads(path.read_text()) if path.exists() else {}
        self._logs: dict[str, dict[str, Any]] = dict(data.get("logs", {}))
        self._evidence: dict[str, list[str]] = dict(data.get("evidence", {}))

    def latest(self, origin: str) -> Recorded:
        """The latest cosigned tree of ``origin`` (the empty tree before any)."""
        found = self._logs.get(origin)
        if found is None:
            return Recorded(0, EMPTY)
        root = base64.b64decode(str(found["root"]))
        return Recorded(int(found["size"]), root, str(found.get("note", "")))

    def record(self, point: Checkpoint, note: str) -> None:
        """Keep ``point`` (signed: ``note``) as the origin's latest, on disk."""
        root = base64.b64encode(point.root).decode()
        self._logs[point.origin] = {"size": point.size, "root": root, "note": note}
        self._save()

    def keep_evidence(self, origin: str, request: str) -> None:
        """Keep a signed request that showed the log misbehaving, beside the signed
        checkpoint it contradicts (the one cosigned last): the two together prove it."""
        kept = self.latest(origin).note
        self._evidence.setdefault(origin, []).append(
            f"{request}\n# contradicts the checkpoint cosigned before:\n{kept}"
        )
        self._save()

    def evidence(self, origin: str) -> list[str]:
        """The requests kept as evidence against ``origin``."""
        return list(self._evidence.get(origin, []))

    def _save(self) -> None:
        temporary = self.path.with_suffix(".tmp")
        with temporary.open("w") as out:
            json.dump({"logs": self._logs, "evidence": self._evidence}, out)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(self.path)


class Witness:
    """Cosigns the checkpoints of the logs it trusts (origin → the log's keys)."""

    def __init__(
        self,
        cosigner: Cosigner,
        logs: dict[str, tuple[KeyCheck, ...]],
        state: WitnessState,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.cosigner = cosigner
        self.logs = logs
        self.state = state
        self.clock = clock

    def add_checkpoint(self, request: str) -> Answer:
        """Judge one ``add-checkpoint`` request body."""
        try:
            old, proof, note = _parse(request)
        except ValueError as exc:
            return Answer(400, f"{exc}\n")
        origin = note.split("\n", 1)[0]
        keys = self.logs.get(origin)
        if keys is None:
            return Answer(404, f"no log {origin!r} is known to this witness\n")
        try:
            point = Checkpoint.parse(open_note(note, keys).text)
        except NoteError as exc:
            return Answer(403, f"no trusted key of {origin} signed it: {exc}\n")
        except CheckpointError as exc:
            return Answer(400, f"not a checkpoint: {exc}\n")
        if old > point.size:
            return Answer(400, f"old size {old} is past the checkpoint's {point.size}\n")
        with self.state.lock:
            return self._judge(request, old, proof, point)

    def _judge(self, request: str, old: int, proof: list[bytes], point: Checkpoint) -> Answer:
        held = self.state.latest(point.origin)
        if old != held.size:
            return Answer(409, f"{held.size}\n", SIZE_TYPE)
        if old == point.size and point.root != held.root:
            self.state.keep_evidence(point.origin, request)  # one size, two roots: a fork
            return Answer(409, f"{held.size}\n", SIZE_TYPE, evidence=True)
        try:
            if old == 0 and proof:
                raise ProofError("the proof from the empty tree is empty")
            if old > 0:
                verify_consistency(old, point.size, held.root, point.root, proof)
        except ProofError as exc:
            self.state.keep_evidence(point.origin, request)
            return Answer(422, f"not consistent with the tree cosigned: {exc}\n", evidence=True)
        self.state.record(point, request.partition("\n\n")[2])
        line = self.cosigner.cosign(point.text, int(self.clock())).line
        return Answer(200, line)


def _parse(request: str) -> tuple[int, list[bytes], str]:
    head, sep, note = request.partition("\n\n")
    lines = head.split("\n")
    if not sep or not lines[0].startswith("old "):
        raise ValueError("a request is old <size>, the proof, a blank line, the checkpoint")
    size = lines[0][len("old ") :]
    if not size.isdigit() or (size != "0" and size.startswith("0")) or len(size) > 19:
        raise ValueError("the old size is a decimal number without a leading zero")
    if len(lines) - 1 > MAX_PROOF:
        raise ValueError(f"a consistency proof has at most {MAX_PROOF} hashes")
    try:
        proof = [base64.b64decode(line, validate=True) for line in lines[1:]]
    except binascii.Error as exc:
        raise ValueError("a proof line is a base64 hash") from exc
    if any(len(h) != 32 for h in proof):
        raise ValueError("a proof line is a 32-byte hash")
    return int(size), proof, note
