"""The log's side of witnessing (issue 28): each new checkpoint is sent to the witnesses
of ``TONGIAKI_WITNESSES`` (C2SP tlog-witness ``add-checkpoint``, with the size each
witness holds and the consistency proof from it), and the cosignatures they answer are
published beside the log's signature in ``/log/checkpoint``.

A witness that holds another size says so (409 with its size): the request is made
again from that size. A witness that is away is tried again, less and less often (up to
every ``MAX_BACKOFF`` seconds); one that refuses a checkpoint as inconsistent is logged
as an error — it means the witness has seen this log say two different things.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from service.runtime.loops import repeat
from service.store.base import StoreUnavailable
from service.store.log_port import LogHead
from service.transparency.log import TransparencyLog
from service.transparency.witness import SIZE_TYPE

TIMEOUT = 2.0  # seconds a witness has to answer
MAX_BACKOFF = 30.0
MAX_ANSWER = 4096
log = logging.getLogger("tongiaki.log")


@dataclass
class _Witness:
    url: str
    held: int = 0  # the size it cosigned last, as far as this process knows
    cosigned: int = -1  # the size of the checkpoint it cosigned for us last
    retry_at: float = 0.0
    backoff: float = 0.0


def _post(url: str, body: str) -> tuple[int, str, str]:
    request = urllib.request.Request(
        f"{url}/add-checkpoint", data=body.encode(), method="POST",
        headers={"Content-Type": "text/plain; charset=utf-8"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), _read(answer)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), _read(exc)


def _name(line: str) -> str:
    """The key name of a signature line (``— <name> <signature>``)."""
    return line[len("— ") :].split(" ", 1)[0]


def _read(answer: object) -> str:
    data = answer.read(MAX_ANSWER)  # type: ignore[attr-defined]
    return bytes(data).decode("utf-8", "replace")


class Witnessing:
    """Sends the log's newest checkpoint to its witnesses, publishes their cosignatures."""

    def __init__(
        self,
        log: TransparencyLog,
        urls: tuple[str, ...],
        post: Callable[[str, str], tuple[int, str, str]] = _post,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log = log
        self.witnesses = [_Witness(url.rstrip("/")) for url in urls]
        self.post = post
        self.clock = clock

    def round(self) -> int:
        """Ask each witness due for the newest checkpoint; the cosignatures published
        with it (one line per witness: a witness asked again replaces its own)."""
        head = self.log.newest()
        if head.size == 0:
            return 0
        lines: dict[str, str] = {}
        kept = self.log.store.log_cosigned()
        if kept is not None and kept.size == head.size and kept.note.startswith(head.note):
            lines = {_name(line): line for line in kept.note[len(head.note) :].splitlines(True)}
        asked = 0
        for witness in self.witnesses:
            if witness.cosigned == head.size or self.clock() < witness.retry_at:
                continue
            line = self._ask(witness, head)
            if line is None:
                witness.backoff = min(MAX_BACKOFF, max(1.0, witness.backoff * 2))
                witness.retry_at = self.clock() + witness.backoff
                continue
            witness.backoff, witness.cosigned = 0.0, head.size
            lines[_name(line)] = line
            asked += 1
        if asked:
            note = head.note + "".join(lines[name] for name in sorted(lines))
            self.log.store.cosigned(LogHead(head.size, note, time.time()))
        return asked

    def _ask(self, witness: _Witness, head: LogHead) -> str | None:
        for _ in range(2):  # again from the size the witness says it holds
            old = min(witness.held, head.size)
            proof = self.log.consistency(old, head.size)
            lines = "".join(base64.b64encode(h).decode() + "\n" for h in proof)
            try:
                status, kind, text = self.post(witness.url, f"old {old}\n{lines}\n{head.note}")
            except OSError as exc:
                log.warning("witness %s is away: %s", witness.url, exc)
                return None
            if status == 200 and text.startswith("— ") and text.endswith("\n"):
                witness.held = head.size
                return text
            if status == 409 and kind.startswith(SIZE_TYPE) and text.strip().isdigit():
                held = int(text.strip())
                if held > head.size:
                    log.error(
                        "witness %s holds a tree of %d, larger than this log's %d: the log"
                        " lost entries it had published",
                        witness.url, held, head.size,
                    )  # fmt: skip
                    return None
                if held == old:  # one size, two roots: the witness has seen a fork
                    break
                witness.held = held
                continue
            break
        log.error("witness %s refused the checkpoint of %d: %s %s", witness.url, head.size,
                  status, text.strip()[:200])  # fmt: skip
        return None


def run_witnessing(
    log_: TransparencyLog, urls: tuple[str, ...], every: float, until: Callable[[], bool]
) -> threading.Event:
    """Send new checkpoints to the witnesses every ``every`` seconds, in a thread of this
    process (where the log is integrated), until ``until()`` or the event is set."""
    stop = threading.Event()
    repeat(
        Witnessing(log_, urls).round,
        every,
        stop,
        name="log-witnessing",
        log=log,
        what="witnessing",
        skipped=(StoreUnavailable,),
        until=until,
    )
    return stop
