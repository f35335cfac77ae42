"""A small asyncio client of ``GET /games/{id}/stream`` (server-sent events), for the
tests and ``bench/streams.py``: many viewers from one thread, each frame time-stamped
as it arrives."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Viewer:
    """What one stream received: status, headers, and (id, type, arrival) per event."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    events: list[tuple[int, str, float]] = field(default_factory=list)
    ended: bool = False  # the server sent ``event: end`` (the game is over)
    closed: bool = False  # the server closed the stream
    problem: dict | None = None
    chats: list[tuple[int, float]] = field(default_factory=list)  # (seq, arrival) per ping
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def versions(self) -> list[int]:
        return [v for v, _, _ in self.events]


async def _chunks(reader: asyncio.StreamReader, chunked: bool):  # type: ignore[no-untyped-def]
    """The body's bytes as they come, de-chunked."""
    while True:
        if not chunked:
            data = await reader.read(65536)
            if not data:
                return
            yield data
            continue
        size_line = await reader.readline()
        if not size_line:
            return
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return
        data = await reader.readexactly(size + 2)
        yield data[:-2]


async def watch(
    port: int,
    path: str,
    viewer: Viewer | None = None,
    *,
    last_event_id: int | None = None,
    stop: asyncio.Event | None = None,
    on_event: Callable[[int, str, float], None] | None = None,
    host: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
) -> Viewer:
    """Follow one stream until the server closes it or ``stop`` is set."""
    viewer = viewer or Viewer()
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    extra = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
    extra += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n{extra}\r\n".encode()
    )
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin1").split("\r\n")
        viewer.status = int(lines[0].split()[1])
        viewer.headers = {
            k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:] if h)
        }
        chunked = "chunked" in viewer.headers.get("transfer-encoding", "").lower()
        if viewer.status != 200:
            length = int(viewer.headers.get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            if body and "json" in viewer.headers.get("content-type", ""):
                viewer.problem = json.loads(body)
            viewer.closed = True
            viewer.opened.set()
            return viewer
        viewer.opened.set()
        buffer = b""
        chunks = _chunks(reader, chunked)
        while True:
            if stop is not None and stop.is_set():
                return viewer
            if stop is None:
                data = await chunks.__anext__()
            else:
                waiter = asyncio.ensure_future(chunks.__anext__())
                stopper = asyncio.ensure_future(stop.wait())
                done, _ = await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if waiter not in done:
                    waiter.cancel()
                    return viewer
                stopper.cancel()
                data = waiter.result()
            now = time.monotonic()
            buffer += data
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                fields = dict(
                    line.split(": ", 1) for line in frame.decode().split("\n") if ": " in line
                )
                if fields.get("event") == "end":
                    viewer.ended = True
                elif fields.get("event") == "chat":  # the game's chat moved (docs/chat.md)
                    viewer.chats.append((json.loads(fields["data"])["seq"], now))
                elif "id" in fields:
                    item = (int(fields["id"]), fields.get("event", ""), now)
                    viewer.events.append(item)
                    if on_event is not None:
                        on_event(*item)
    except (StopAsyncIteration, asyncio.IncompleteReadError, ConnectionError) as exc:
        if not viewer.status:  # closed before any answer: say how
            viewer.problem = {"closed_before_answer": repr(exc)[:200]}
        viewer.closed = True
        viewer.opened.set()
        return viewer
    finally:
        writer.close()
